/**
 * What the run viewer (`axpage view`) reads, as the page receives it: calls from a
 * session log (or, without one, the pairs in an artifact dir) and, per call, its tree
 * file parsed into elements with boxes and the diff the call recorded. The data side
 * (src/view/calls.ts, src/view/pair.ts) produces these; the web side serves them.
 */

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** One call in the timeline, in the order it ran. */
export interface ViewCall {
  /** Position in the timeline (0-based), the call's id in the viewer's URLs. */
  index: number;
  /** The session log's sequence number, when there is a log. */
  seq?: number;
  time: string;
  tool: string;
  /** Arguments as logged (typed text masked). */
  args?: Record<string, unknown>;
  outcome: 'success' | 'error' | 'unknown';
  error_code?: string;
  ms?: number;
  summary_bytes?: number;
  /** The summary text the agent got, when the log kept it. */
  summary?: string;
  /** Basenames in the artifact dir. */
  tree?: string;
  png?: string;
  app?: string;
  pid?: number;
  target?: { role: string; text?: string; ref: string };
  changes?: { added: number; removed: number; modified: number; moved: number };
}

export interface CallPage {
  total: number;
  offset: number;
  calls: ViewCall[];
}

export type DiffKind = 'added' | 'removed' | 'modified' | 'moved';

/** One element line of a tree file. */
export interface ViewElement {
  /** '' when the line has none. */
  ref: string;
  role: string;
  /** The toolkit's own role name, when it says more than `role` (`push button`). */
  nativeRole?: string;
  /** Texts unescaped (a `\n` in the file is a line break here); a cut text ends in `…`. */
  text?: string;
  value?: string;
  description?: string;
  /** The element's identifier (`id:`), when it has one. */
  id?: string;
  states: string[];
  /** Screen coordinates, as the tree file gives them. */
  box?: Box;
  /** 1-based line number in the tree file. */
  line: number;
  depth: number;
  /** Which app section of the file (0 = the target app, then each app_switch). */
  section: number;
  /** Set when the call's diff names this element. */
  diff?: DiffKind;
}

/** One line of the file's `# diff:` section. */
export interface ViewDiffEntry {
  kind: DiffKind;
  ref?: string;
  role?: string;
  text?: string;
  /** Before and after, for a removed (before only) or moved element. */
  box?: Box;
  /** A moved element's top-left before and after (screen points). */
  from?: { x: number; y: number };
  to?: { x: number; y: number };
  /** A modified or moved line's changes as the file shows them (`name: 'a' -> 'b'`). */
  changes?: string;
  line: number;
}

export interface ViewPair {
  tree: string;
  png?: string;
  /** The `# key: value` header facts (app, pid, window, tool, viewport, screenshot…). */
  header: Record<string, string>;
  /** Screen rectangle the PNG shows: element boxes map onto the image by subtracting x,y. */
  capture?: Box;
  /** The file does not state `capture` (written before `# capture:`): guessed from the PNG's size. */
  capture_guessed?: true;
  elements: ViewElement[];
  diff: ViewDiffEntry[];
  /** The file does not end with a line break (cut short): its last line was not read. */
  incomplete?: true;
  /** Lines inside the tree or diff sections that could not be read (skipped). */
  skipped?: number;
}
