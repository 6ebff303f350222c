/**
 * The tree file: a header, the diff (action tools), optional result listing, then the
 * whole tree after the call, one element per line, indented two spaces per depth.
 * Pure and deterministic: the same input gives the same bytes.
 */
import type { Element, Rect, Snapshot, WindowInfo } from '../model/element.js';
import type { FieldChange, Modification, TreeDiff } from '../model/diff.js';
import type { SnapshotView } from '../model/view.js';
import { mainWindow } from '../viewport/dialog.js';
import {
  TREE_TEXT_CHARS,
  formatElementHead,
  formatElementLine,
  isSecure,
  maskLeak,
  round,
  validFrame,
} from './line.js';
import { SECURE_MASK, clipChange, clipText, escapeText } from './text.js';

/** How an action was delivered (the pipeline's ActionReport fits this shape). */
export interface ActionFacts {
  route: string;
  delivery: string;
  effect: string;
  escalation?: { recommended: string; reason: string } | null;
  actMs?: number;
  settleMs?: number;
  settleReason?: string;
}

export interface TreeFileInput {
  /** Tool name as called ("ax_click"). */
  tool: string;
  /** The snapshot after the call (or the only one, for observation tools). */
  view: SnapshotView;
  /** The screenshot written with this file. */
  screenshot?: string;
  /** Why there is no screenshot. */
  screenshotError?: string;
  /**
   * The screen rect the screenshot shows (its top-left pixel is x,y): a reader maps an
   * element's frame onto the image by subtracting it.
   */
  capture?: Rect;
  /** The target window (element index) when the call named one; else the active window. */
  windowIndex?: number;
  /** Action tools: the diff from `before` to `view`. */
  diff?: { diff: TreeDiff; before: SnapshotView };
  /** A second app that came to the front during the call (cross-app handoff). */
  appSwitch?: SnapshotView;
  /** A listing of chosen elements of `view` (find results), shown before the tree. */
  results?: { title: string; indices: number[] };
  /**
   * Result sections a tool computed (audit findings), each a `# title` line and its
   * lines, shown before the tree.
   */
  sections?: Array<{ title: string; lines: string[] }>;
  /** Action tools: route, delivery, effect, timings. */
  action?: ActionFacts;
  /** The call failed: why (the tree is still what the app looks like now). */
  error?: string;
  /** Extra header lines (`# note: …`): what was left out and why. */
  notes?: string[];
  /** Cap per text value (code points); default TREE_TEXT_CHARS. */
  maxTextChars?: number;
}

function countVisible(view: SnapshotView): number {
  let v = 0;
  for (let i = 0; i < view.snapshot.elements.length; i++) if (view.visible[i]) v++;
  return v;
}

function quotedTitle(title: string): string {
  return `"${clipText(title, 120, '"').text}"`;
}

function rectText(r: { x: number; y: number; w: number; h: number }): string {
  return `${round(r.x)},${round(r.y)} ${round(r.w)}x${round(r.h)}`;
}

function titleOf(view: SnapshotView, win: WindowInfo | null): string {
  return win ? win.title || (view.snapshot.elements[win.index]?.name ?? '') : '';
}

/**
 * The title of the window a call is about, for the summary's `window:` line: the dialog
 * that scopes the view, else the target (or active) window. Null when it has none.
 */
export function windowTitle(view: SnapshotView, windowIndex?: number): string | null {
  return titleOf(view, view.dialog ?? mainWindow(view.snapshot, windowIndex)) || null;
}

/** `# app:` line and `# elements:`/`# viewport:` lines for one view. */
function viewHeader(view: SnapshotView, windowIndex: number | undefined): string[] {
  const s = view.snapshot;
  const title = titleOf(view, mainWindow(s, windowIndex));
  const dialog = view.dialog
    ? `${escapeText(view.dialog.role, '')} ${quotedTitle(view.dialog.title)}`
    : 'none';
  const truncated = s.truncated ? escapeText(s.truncated, '') : 'no';
  const method = s.method ? `  method: ${escapeText(s.method, '')}` : '';
  return [
    `window: ${quotedTitle(title)}  snapshot: ${escapeText(view.snapshotId, '')}`,
    `# elements: ${s.elements.length} (visible ${countVisible(view)})  elapsed: ${round(s.elapsedMs)} ms${method}  truncated: ${truncated}`,
    `# viewport: ${rectText(view.viewport)}  dialog: ${dialog}`,
  ];
}

/** How many children of each element the walk produced. */
function walkedChildren(s: Snapshot): Int32Array {
  const counts = new Int32Array(s.elements.length);
  for (const el of s.elements) {
    if (el.parent >= 0 && el.parent < counts.length) counts[el.parent]++;
  }
  return counts;
}

function lineFor(view: SnapshotView, i: number, walked: Int32Array, max: number): string {
  return formatElementLine(view.snapshot.elements[i], view.refs[i] ?? '', !!view.visible[i], {
    maxTextChars: max,
    walkedChildren: walked[i],
  });
}

function treeLines(view: SnapshotView, max: number): string[] {
  const els = view.snapshot.elements;
  const walked = walkedChildren(view.snapshot);
  let minDepth = Infinity;
  for (const el of els) if (el.depth < minDepth) minDepth = el.depth;
  const out = new Array<string>(els.length);
  for (let i = 0; i < els.length; i++) {
    const depth = Math.max(0, (els[i].depth | 0) - (minDepth | 0));
    out[i] = '  '.repeat(depth) + lineFor(view, i, walked, max);
  }
  return out;
}

/** A text field change, masked when either side belongs to a secure element. */
function changeText(
  change: FieldChange,
  before: Element,
  after: Element,
  max: number,
): { old: string; new: string } {
  const secure = isSecure(before) || isSecure(after);
  let oldText = change.old;
  let newText = change.new;
  if (secure && change.field === 'value') {
    oldText = SECURE_MASK;
    newText = SECURE_MASK;
  } else if (secure) {
    oldText = maskLeak(maskLeak(oldText, before.value), after.value);
    newText = maskLeak(maskLeak(newText, before.value), after.value);
  }
  return clipChange(oldText, newText, max, "'");
}

function point(el: Element): string | null {
  const f = validFrame(el.frame);
  return f ? `${round(f.x)},${round(f.y)}` : null;
}

function modifiedLine(m: Modification, before: SnapshotView, after: SnapshotView, max: number) {
  const b = before.snapshot.elements[m.before];
  const a = after.snapshot.elements[m.after];
  const head = formatElementHead(a, after.refs[m.after] ?? '', max);
  const pairs: string[] = [];
  let changes = m.changes;
  if (m.moved) {
    const from = point(b);
    const to = point(a);
    if (from && to) {
      pairs.push(`frame: ${from} -> ${to}`);
      changes = changes.filter((c) => c.field !== 'frame');
    }
  }
  for (const c of changes) {
    const t = changeText(c, b, a, max);
    pairs.push(`${c.field}: '${t.old}' -> '${t.new}'`);
  }
  return `~ ${m.moved ? 'moved ' : ''}${head}${pairs.length > 0 ? ' | ' + pairs.join(', ') : ''}`;
}

function validIndex(i: number, n: number): boolean {
  return Number.isInteger(i) && i >= 0 && i < n;
}

function diffLines(diff: TreeDiff, before: SnapshotView, after: SnapshotView, max: number) {
  const nb = before.snapshot.elements.length;
  const na = after.snapshot.elements.length;
  const added = diff.added.filter((i) => validIndex(i, na)).sort((x, y) => x - y);
  const removed = diff.removed.filter((i) => validIndex(i, nb)).sort((x, y) => x - y);
  const modified = diff.modified
    .filter((m) => validIndex(m.before, nb) && validIndex(m.after, na))
    .sort((x, y) => x.after - y.after || x.before - y.before);
  const moved = modified.filter((m) => m.moved).length;
  const walkedAfter = walkedChildren(after.snapshot);
  const walkedBefore = walkedChildren(before.snapshot);
  return [
    `# diff: +${added.length} -${removed.length} ~${modified.length}${moved > 0 ? ` (${moved} moved)` : ''}`,
    ...added.map((i) => '+ ' + lineFor(after, i, walkedAfter, max)),
    ...removed.map((i) => '- ' + lineFor(before, i, walkedBefore, max)),
    ...modified.map((m) => modifiedLine(m, before, after, max)),
  ];
}

function actionLines(a: ActionFacts): string[] {
  const parts = [
    `route: ${escapeText(a.route, '')}`,
    `delivery: ${escapeText(a.delivery, '')}`,
    `effect: ${escapeText(a.effect, '')}`,
  ];
  if (a.actMs !== undefined) parts.push(`act: ${round(a.actMs)} ms`);
  if (a.settleMs !== undefined) {
    const why = a.settleReason ? ` (${escapeText(a.settleReason, '')})` : '';
    parts.push(`settle: ${round(a.settleMs)} ms${why}`);
  }
  const lines = [`# action: ${parts.join('  ')}`];
  if (a.escalation) {
    lines.push(
      `# escalation: ${escapeText(a.escalation.recommended, '')} (${escapeText(a.escalation.reason, '')})`,
    );
  }
  return lines;
}

export function renderTreeFile(input: TreeFileInput): string {
  const max = input.maxTextChars ?? TREE_TEXT_CHARS;
  const { view } = input;
  const s = view.snapshot;
  const [windowPart, ...headerRest] = viewHeader(view, input.windowIndex);
  const lines: string[] = [
    `# app: ${escapeText(s.app, '')}  pid: ${s.pid}  ${windowPart}  tool: ${escapeText(input.tool, '')}`,
    ...headerRest,
    input.screenshot !== undefined
      ? `# screenshot: ${escapeText(input.screenshot, '')}`
      : `# screenshot: none (${escapeText(input.screenshotError ?? 'not taken', '')})`,
  ];
  const capture = input.screenshot !== undefined ? validFrame(input.capture) : undefined;
  if (capture) lines.push(`# capture: ${rectText(capture)}`);
  if (input.action) lines.push(...actionLines(input.action));
  if (input.error !== undefined) lines.push(`# error: ${escapeText(input.error, '')}`);
  for (const note of input.notes ?? []) lines.push(`# note: ${escapeText(note, '')}`);
  if (input.diff) lines.push(...diffLines(input.diff.diff, input.diff.before, view, max));
  if (input.results) {
    const n = s.elements.length;
    const indices = input.results.indices.filter((i) => validIndex(i, n));
    const walked = walkedChildren(s);
    lines.push(`# results: ${escapeText(input.results.title, '')} (${indices.length})`);
    for (const i of indices) lines.push(lineFor(view, i, walked, max));
  }
  for (const section of input.sections ?? []) {
    lines.push(`# ${oneLine(section.title)}`, ...section.lines.map(oneLine));
  }
  lines.push('# tree', ...treeLines(view, max));
  if (input.appSwitch) {
    const sw = input.appSwitch;
    const [swWindow, ...swRest] = viewHeader(sw, undefined);
    lines.push(
      `# app_switch: ${escapeText(sw.snapshot.app, '')} pid: ${sw.snapshot.pid}  ${swWindow}`,
      ...swRest,
      ...treeLines(sw, max),
    );
  }
  return lines.join('\n') + '\n';
}

/** A section line as one file line: whatever line breaks it has become spaces. */
function oneLine(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, ' ');
}
