/**
 * The summary: the only text a tool call puts in the agent's context. Fixed line order
 * (see docs/paged-response.md), each line only when it applies, every text value escaped onto one line
 * and capped, and a hard byte cap on the whole. Under the cap the lists shrink first
 * (best-ranked items stay, "+N more in file" grows), then the text caps tighten; a
 * line is never cut without a mark.
 */
import type { TextChange, TreeDiff } from '../model/diff.js';
import type { SnapshotView } from '../model/view.js';
import {
  clipChange,
  clipMiddle,
  clipText,
  escapeText,
  hasControlChars,
  shellQuote,
} from '../tree/text.js';
import type { ActionFacts } from '../tree/file.js';
import { round } from '../tree/line.js';
import type { SummaryStructured, VisibleElementStructured } from './schema.js';
import type {
  AppSwitchFacts,
  DiffCounts,
  StateChange,
  VisibleItem,
  VisibleSelection,
} from './select.js';
import {
  MAX_VISIBLE_INTERACTIVE,
  MAX_VISIBLE_TEXT,
  appSwitchFacts,
  collectStateChanges,
  collectTextChanges,
  diffCounts,
  viewFacts,
} from './select.js';

/** Hard cap on the summary text, in UTF-8 bytes. */
export const SUMMARY_MAX_BYTES = 2048;
/** Cap for each text value (element text, app name, old/new sides), in code points. */
export const SUMMARY_TEXT_CHARS = 60;
export const MAX_TEXT_CHANGES = 3;
const MAX_STATE_CHANGES = 3;
/** Items a read tool's answer lists (find's matches, the windows, the attributes). */
const MAX_ANSWER_ITEMS = 10;

/**
 * A read tool's result, rendered after the route lines: `key: value` for one value
 * (`value: 'Hello'`), or a `key:` list of elements (find's matches) or of text lines
 * (windows, attributes), capped with `(+N more in file)`.
 */
export interface Answer {
  key: string;
  /** One value (`value: 'Hello'`), quoted and capped. */
  value?: string;
  elements?: VisibleItem[];
  lines?: string[];
  /** Items beyond these (in the file). */
  omitted?: number;
}

/**
 * What ended during an action, said first on the summary line, before what was done and
 * the change counts: the app exited, or windows closed (`own`: the one acted in).
 */
export interface Ended {
  exited?: { app: string; pid: number };
  closed?: Array<{ title: string; own: boolean }>;
}

/** Session memory: visible elements left out because the agent was shown them unchanged. */
export interface UnchangedVisible {
  count: number;
  /** Basename of the file in which they were last listed. */
  since: string;
}

/**
 * What a summary is made from. Usually views: `view` gives pid, app, dialog, element
 * count, truncation, the hint role and the visible list; `diff` adds the change counts,
 * text changes and changed-first ranking; `appSwitch` the app_switch lines. Any of the
 * explicit facts below overrides what the views would give (tests, listings, errors).
 */
export interface SummaryInput {
  status: 'success' | 'error';
  /** The tool name; not printed (the file name carries it). */
  tool?: string;
  /** The snapshot after the call. */
  view?: SnapshotView;
  /** Action tools: the diff from `before` to `view`. */
  diff?: { diff: TreeDiff; before: SnapshotView };
  /** find: the matches rank first in the visible list. */
  results?: { title: string; indices: number[] };
  /** A second app that came to the front (its view, or facts made by appSwitchFacts). */
  appSwitch?: SnapshotView | AppSwitchFacts | null;
  /** Absolute path of the tree file. */
  file?: string;
  /** UTF-8 bytes of the tree file (Buffer.byteLength of what was written). */
  fileSize?: number;
  screenshot?: string;
  /** Why there is no screenshot. */
  screenshotError?: string;
  error?: string;
  /** What was done, one sentence ("Clicked [AXButton] \"Open\" e42"); counts are appended. */
  did?: string;
  action?: ActionFacts;
  /** The app exited or windows closed during the action: said before everything else. */
  ended?: Ended;
  /** The element the action was on (an index into `view`): state changes are said of it. */
  acted?: number;

  pid?: number;
  app?: string;
  /** A blocking dialog/sheet that scopes the viewport. */
  dialog?: { role: string; title: string } | null;
  elements?: number;
  truncated?: string | null;
  /** A role that is in the file, for the grep hint (see pickHintRole). */
  hintRole?: string | null;
  visible?: VisibleSelection;
  /** The diff counts; all zero reads "No changes." */
  changes?: DiffCounts;
  textChanges?: TextChange[];
  /** Action tools: state changes (checked, enabled, expanded) of modified elements. */
  stateChanges?: StateChange[];
  /** Title of the window acted on or observed (the dialog when one scopes the view). */
  window?: string | null;
  /** A read tool's result (see Answer). */
  answer?: Answer;
  /** Visible elements shown before and unchanged: one line instead of their list. */
  unchanged?: UnchangedVisible;
  /** Read tools: the visible list reduced to its count (`unlisted` of them never shown). */
  visibleCount?: { total: number; unlisted: number };
  /** A next rung to try, when a call failed before acting (no action facts then). */
  escalation?: { recommended: string; reason: string };
}

/** The flat facts the lines are rendered from. */
interface Facts {
  status: 'success' | 'error';
  pid?: number;
  app?: string;
  window?: string | null;
  dialog?: { role: string; title: string } | null;
  file?: string;
  fileSize?: number;
  elements?: number;
  truncated?: string | null;
  hintRole?: string | null;
  screenshot?: string;
  screenshotError?: string;
  error?: string;
  did?: string;
  ended?: Ended;
  changes?: DiffCounts;
  route?: string;
  delivery?: string;
  effect?: string;
  escalation?: { recommended: string; reason: string } | null;
  settleMs?: number;
  textChanges?: TextChange[];
  stateChanges?: StateChange[];
  answer?: Answer;
  visible?: VisibleSelection;
  unchanged?: UnchangedVisible;
  visibleCount?: { total: number; unlisted: number };
  appSwitch?: AppSwitchFacts | null;
}

function isView(x: SnapshotView | AppSwitchFacts): x is SnapshotView {
  return 'snapshot' in x;
}

/** Explicit facts first, then what the views give. */
function resolveFacts(input: SummaryInput): Facts {
  const view = input.view;
  const diff = input.diff;
  const derived = view
    ? viewFacts(view, { diff: diff?.diff, prefer: input.results?.indices })
    : undefined;
  const facts: Facts = {
    status: input.status,
    pid: input.pid ?? derived?.pid,
    app: input.app ?? derived?.app,
    window: input.window !== undefined ? input.window : derived?.window,
    dialog: input.dialog !== undefined ? input.dialog : derived?.dialog,
    file: input.file,
    fileSize: input.fileSize,
    elements: input.elements ?? derived?.elements,
    truncated: input.truncated !== undefined ? input.truncated : derived?.truncated,
    hintRole: input.hintRole !== undefined ? input.hintRole : derived?.hintRole,
    screenshot: input.screenshot,
    screenshotError: input.screenshotError,
    error: input.error,
    did: input.did,
    ended: input.ended,
    changes: input.changes ?? (diff ? diffCounts(diff.diff) : undefined),
    textChanges:
      input.textChanges ??
      (diff && view
        ? collectTextChanges(diff.diff, diff.before.snapshot, view.snapshot, view.refs, input.acted)
        : undefined),
    stateChanges:
      input.stateChanges ??
      (diff && view
        ? collectStateChanges(diff.diff, diff.before.snapshot, view.snapshot, view.refs, {
            beforeVisible: diff.before.visible,
            afterVisible: view.visible,
            acted: input.acted,
          })
        : undefined),
    answer: input.answer,
    visible: input.visible ?? derived?.visible,
    unchanged: input.unchanged,
    visibleCount: input.visibleCount,
    appSwitch: input.appSwitch
      ? isView(input.appSwitch)
        ? appSwitchFacts(input.appSwitch)
        : input.appSwitch
      : null,
  };
  if (input.action) {
    facts.route = input.action.route;
    facts.delivery = input.action.delivery;
    facts.effect = input.action.effect;
    facts.escalation = input.action.escalation ?? null;
    facts.settleMs = input.action.settleMs;
  }
  if (input.escalation) facts.escalation = input.escalation;
  return facts;
}

export interface RenderedSummary {
  text: string;
  structured: SummaryStructured;
}

/** Caps per shrink level; the first level whose text fits the byte cap wins. */
interface Level {
  text: number;
  /** A field's value on an element line. */
  value: number;
  /** One line of a text answer (windows, attributes). */
  line: number;
  action: number;
  error: number;
  reason: number;
  /** Paths are cut in the middle only past this; the grep hint goes with any cut. */
  path: number;
}

const LEVELS: readonly Level[] = [
  {
    text: SUMMARY_TEXT_CHARS,
    value: 40,
    line: 120,
    action: 200,
    error: 400,
    reason: 120,
    path: Infinity,
  },
  { text: 30, value: 24, line: 80, action: 100, error: 200, reason: 60, path: Infinity },
  { text: 16, value: 12, line: 50, action: 60, error: 100, reason: 30, path: 160 },
  { text: 8, value: 8, line: 30, action: 30, error: 60, reason: 20, path: 48 },
];

const ROLE_CHARS = 40;
const REF_CHARS = 20;

function bytes(lines: readonly string[]): number {
  return Buffer.byteLength(lines.join('\n'), 'utf8');
}

function clip(text: string, max: number, quote = ''): string {
  return clipText(text, max, quote).text;
}

/** Advice clipped at a word's end, never inside a word (a cut word can read as another). */
export function clipAdvice(text: string, max: number): string {
  const clipped = clipText(text, max, '');
  if (!clipped.cut) return clipped.text;
  const kept = clipped.text.slice(0, -1);
  const space = kept.search(/\s\S*$/);
  return `${space > max / 3 ? kept.slice(0, space).replace(/[\s,;:(]+$/, '') : kept}…`;
}

function pathText(path: string, level: Level): string {
  return level.path === Infinity ? escapeText(path, '') : clipMiddle(path, level.path);
}

function countsText(c: DiffCounts): string {
  if (c.added === 0 && c.removed === 0 && c.modified === 0) return 'No changes.';
  const moved = c.moved > 0 ? ` (${c.moved} moved)` : '';
  return `${c.added} added, ${c.removed} removed, ${c.modified} modified${moved}.`;
}

/** `The app exited (name, pid 42).` or `Its window "Options" closed.`: clipped like the rest. */
function endedText(ended: Ended | undefined, action: number): string | undefined {
  const max = Math.min(action, SUMMARY_TEXT_CHARS);
  if (ended?.exited) {
    return `The app exited (${clip(ended.exited.app, max)}, pid ${ended.exited.pid}).`;
  }
  const closed = ended?.closed ?? [];
  if (closed.length === 0) return undefined;
  const titles = (own: boolean) =>
    closed.filter((w) => w.own === own).map((w) => `"${clip(w.title, max, '"')}"`);
  const said = (titles: string[], whose: string) =>
    titles.length === 0
      ? []
      : [`${whose} ${titles.length === 1 ? 'window' : 'windows'} ${titles.join(', ')} closed.`];
  return [...said(titles(true), 'Its'), ...said(titles(false), 'The')].join(' ');
}

function summaryText(input: Facts, max: number): string | undefined {
  const parts: string[] = [];
  const ended = endedText(input.ended, max);
  if (ended !== undefined) parts.push(ended);
  if (input.did !== undefined && input.did.trim() !== '') {
    const action = clip(input.did.trim(), max);
    parts.push(/[.!?…]$/.test(action) ? action : action + '.');
  }
  if (input.changes) parts.push(countsText(input.changes));
  return parts.length > 0 ? parts.join(' ') : undefined;
}

function refPart(ref: string): string {
  return ref ? ' ' + clip(ref, REF_CHARS) : '';
}

function textChangeLine(c: TextChange, level: Level): string {
  const label = c.label ? ` "${clip(c.label, level.text, '"')}"` : '';
  const pair = clipChange(c.old, c.new, level.text, "'");
  return `  [${clip(c.role, ROLE_CHARS)}]${label}${refPart(c.ref)}: '${pair.old}' -> '${pair.new}'`;
}

/**
 * `  [AXCheckBox] "Bold" e4: unchecked -> checked`; `(hidden)` after the ref of an element
 * not visible; a change read on a hidden twin names it after the pairs.
 */
function stateChangeLine(c: StateChange, level: Level): string {
  const label = c.label ? ` "${clip(c.label, level.text, '"')}"` : '';
  const pairs = c.changes.map((p) => `${p.old} -> ${p.new}`).join(', ');
  const hidden = c.hidden ? ' (hidden)' : '';
  const twin = c.twin
    ? ` (read on its hidden twin [${clip(c.twin.role, ROLE_CHARS)}]${refPart(c.twin.ref)})`
    : '';
  return `  [${clip(c.role, ROLE_CHARS)}]${label}${refPart(c.ref)}${hidden}: ${pairs}${twin}`;
}

/**
 * `  [AXTextField] "Name" e12 (10,20 200x24) ='Hello' focused modified`: role, text,
 * ref, frame, then the field's value, the states an agent acts on, and what the action
 * did to it.
 */
function visibleLine(item: VisibleItem, level: Level): string {
  const f = item.frame;
  const where = f ? `(${round(f.x)},${round(f.y)} ${round(f.w)}x${round(f.h)})` : '(no frame)';
  const value = item.value !== undefined ? ` ='${clip(item.value, level.value, "'")}'` : '';
  const states = item.states && item.states.length > 0 ? ` ${item.states.join(' ')}` : '';
  const change = item.change ? ` ${item.change}` : '';
  return `  [${clip(item.role, ROLE_CHARS)}] "${clip(item.text, level.text, '"')}"${refPart(item.ref)} ${where}${value}${states}${change}`;
}

function unchangedLine(u: UnchangedVisible): string {
  return `${u.count} unchanged since ${clip(u.since, 80)}`;
}

function moreLine(n: number): string {
  return `  (+${n} more in file)`;
}

/** Changed items first, then tree order: what the action did is read first. */
function displayOrder(items: readonly VisibleItem[]): VisibleItem[] {
  return [...items].sort((a, b) => (a.change ? 0 : 1) - (b.change ? 0 : 1) || a.index - b.index);
}

/** Re-applies the count caps to any selection (rank order kept); extra items become omitted. */
function capSelection(sel: VisibleSelection | undefined): {
  items: VisibleItem[];
  omitted: number;
} {
  if (!sel) return { items: [], omitted: 0 };
  const items: VisibleItem[] = [];
  let interactive = 0;
  let text = 0;
  for (const item of sel.items) {
    if (item.kind === 'text' ? text < MAX_VISIBLE_TEXT : interactive < MAX_VISIBLE_INTERACTIVE) {
      items.push(item);
      if (item.kind === 'text') text++;
      else interactive++;
    }
  }
  return { items, omitted: Math.max(0, sel.omitted | 0) + sel.items.length - items.length };
}

interface Lists {
  changes: TextChange[];
  states: StateChange[];
  /** The answer's items (elements or lines), in order. */
  answer: number;
  visible: VisibleItem[];
  visibleOmitted: number;
  switchVisible: VisibleItem[];
  switchOmitted: number;
}

interface Keep {
  changes: number;
  states: number;
  answer: number;
  visible: number;
  switchVisible: number;
}

/** Positions (in rank order) of the first `keep` items, in display order. */
function displayPositions(items: readonly VisibleItem[], keep: number): number[] {
  const positions = Array.from({ length: Math.min(keep, items.length) }, (_, k) => k);
  return positions.sort(
    (a, b) =>
      (items[a].change ? 0 : 1) - (items[b].change ? 0 : 1) || items[a].index - items[b].index,
  );
}

function listSection(
  header: string,
  items: readonly VisibleItem[],
  rendered: readonly string[],
  keep: number,
  omitted: number,
  unchanged?: UnchangedVisible,
): string[] {
  if (items.length === 0 && omitted === 0) {
    return unchanged ? [`${header} ${unchangedLine(unchanged)}`] : [];
  }
  const shown = displayPositions(items, keep);
  const more = omitted + items.length - shown.length;
  return [
    header,
    ...shown.map((k) => rendered[k]),
    ...(more > 0 ? [moreLine(more)] : []),
    ...(unchanged ? [`  (+${unchangedLine(unchanged)})`] : []),
  ];
}

/** The answer's lines for `keep` items. */
function answerSection(
  answer: Answer | undefined,
  rendered: readonly string[],
  keep: number,
  level: Level,
): string[] {
  if (!answer) return [];
  const key = clip(answer.key, ROLE_CHARS);
  const listed = (answer.elements?.length ?? 0) + (answer.lines?.length ?? 0);
  const total = listed + Math.max(0, answer.omitted ?? 0);
  if (answer.value !== undefined && total === 0) {
    return [`${key}: '${clip(answer.value, level.line, "'")}'`];
  }
  const more = total - Math.min(keep, rendered.length);
  return [`${key}:`, ...rendered.slice(0, keep), ...(more > 0 ? [moreLine(more)] : [])];
}

/**
 * Renders every line of one level once and returns the assembler for any list lengths,
 * so shrinking the lists item by item costs no re-rendering.
 */
function prepareLevel(input: Facts, lists: Lists, level: Level): (keep: Keep) => string[] {
  const head: string[] = [`status: ${input.status === 'error' ? 'error' : 'success'}`];
  if (input.pid !== undefined) head.push(`pid: ${input.pid}`);
  if (input.app !== undefined) head.push(`app: ${clip(input.app, level.text)}`);
  if (input.window) head.push(`window: "${clip(input.window, level.text, '"')}"`);
  if (input.dialog) {
    head.push(
      `dialog: ${clip(input.dialog.role, ROLE_CHARS)} "${clip(input.dialog.title, level.text, '"')}" (viewport scoped to dialog bounds)`,
    );
  }
  if (input.file !== undefined) head.push(`file: ${pathText(input.file, level)}`);
  if (input.fileSize !== undefined) {
    const facts: string[] = [];
    if (input.elements !== undefined) facts.push(`${input.elements} elements`);
    if (input.truncated) facts.push(`truncated: ${clip(input.truncated, level.text)}`);
    head.push(
      `file_size: ${input.fileSize} bytes${facts.length > 0 ? ` (${facts.join(', ')})` : ''}`,
    );
  }
  if (
    input.file !== undefined &&
    input.hintRole &&
    level.path === Infinity &&
    !hasControlChars(input.file) &&
    !hasControlChars(input.hintRole)
  ) {
    head.push(
      `hint: grep -n ${shellQuote(input.hintRole)} ${shellQuote(input.file)}  # search by role or text`,
    );
  }
  if (input.screenshot !== undefined) {
    head.push(`screenshot: ${pathText(input.screenshot, level)}`);
  } else if (input.screenshotError !== undefined) {
    head.push(`screenshot: none (${clip(input.screenshotError, level.reason)})`);
  }
  // An error ends with its next step: a long one is cut in the middle so the step stays.
  if (input.error !== undefined) head.push(`error: ${clipMiddle(input.error, level.error)}`);
  const summary = summaryText(input, level.action);
  if (summary !== undefined) head.push(`summary: ${summary}`);
  const route: string[] = [];
  if (input.route) route.push(`route: ${clip(input.route, ROLE_CHARS)}`);
  if (input.delivery) route.push(`delivery: ${clip(input.delivery, ROLE_CHARS)}`);
  if (input.effect) route.push(`effect: ${clip(input.effect, ROLE_CHARS)}`);
  if (route.length > 0) head.push(route.join(' '));
  if (input.escalation) {
    head.push(
      `escalation: ${clip(input.escalation.recommended, ROLE_CHARS)} (${clipAdvice(input.escalation.reason, level.reason)})`,
    );
  }
  const changeLines = lists.changes.slice(0, MAX_TEXT_CHANGES).map((c) => textChangeLine(c, level));
  const stateLines = lists.states.slice(0, MAX_STATE_CHANGES).map((c) => stateChangeLine(c, level));
  const answer = input.answer;
  const answerLines = [
    ...(answer?.elements ?? []).map((i) => visibleLine(i, level)),
    ...(answer?.lines ?? []).map((l) => `  ${clip(l, level.line, '')}`),
  ].slice(0, MAX_ANSWER_ITEMS);
  const count = input.visibleCount;
  const visibleLines = lists.visible.map((i) => visibleLine(i, level));
  const switchLines = lists.switchVisible.map((i) => visibleLine(i, level));
  const sw = input.appSwitch;
  const switchHead = sw
    ? [
        `app_switch: ${clip(sw.name, level.text)} (PID: ${sw.pid}) is now frontmost`,
        `app_switch_elements: ${sw.elements} total, ${sw.visibleCount} visible`,
      ]
    : [];

  return (keep) => {
    const lines = [...head];
    lines.push(...answerSection(answer, answerLines, keep.answer, level));
    if (lists.states.length > 0) {
      const kept = stateLines.slice(0, keep.states);
      const more = lists.states.length - kept.length;
      lines.push('state_changes:', ...kept);
      if (more > 0) lines.push(moreLine(more));
    }
    if (lists.changes.length > 0) {
      const kept = changeLines.slice(0, keep.changes);
      const more = lists.changes.length - kept.length;
      lines.push('text_changes:', ...kept);
      if (more > 0) lines.push(moreLine(more));
    }
    if (count) {
      lines.push(
        count.unlisted > 0
          ? `visible_elements: ${count.total} in file (${count.unlisted} not listed yet; detail: "full" lists them)`
          : `visible_elements: ${count.total} in file`,
      );
    } else {
      lines.push(
        ...listSection(
          'visible_elements:',
          lists.visible,
          visibleLines,
          keep.visible,
          lists.visibleOmitted,
          input.unchanged,
        ),
      );
    }
    if (sw) {
      lines.push(
        ...switchHead,
        ...listSection(
          'app_switch_visible_elements:',
          lists.switchVisible,
          switchLines,
          keep.switchVisible,
          lists.switchOmitted,
        ),
      );
    }
    return lines;
  };
}

/**
 * Drops one item from the longest list (ties: app switch, visible, answer, state
 * changes, text changes): the answer and the changes are what the call is about.
 */
function shrink(keep: Keep): boolean {
  const longest = Math.max(
    keep.switchVisible,
    keep.visible,
    keep.answer,
    keep.states,
    keep.changes,
  );
  if (longest === 0) return false;
  if (keep.switchVisible === longest) keep.switchVisible--;
  else if (keep.visible === longest) keep.visible--;
  else if (keep.answer === longest) keep.answer--;
  else if (keep.states === longest) keep.states--;
  else keep.changes--;
  return true;
}

/** Lines that fit the cap, and the list lengths they kept. */
function fit(input: Facts, lists: Lists): { lines: string[]; keep: Keep; level: Level } {
  for (const level of LEVELS) {
    const keep: Keep = {
      changes: Math.min(MAX_TEXT_CHANGES, lists.changes.length),
      states: Math.min(MAX_STATE_CHANGES, lists.states.length),
      answer: Math.min(MAX_ANSWER_ITEMS, lists.answer),
      visible: lists.visible.length,
      switchVisible: lists.switchVisible.length,
    };
    const render = prepareLevel(input, lists, level);
    for (;;) {
      const lines = render(keep);
      if (bytes(lines) <= SUMMARY_MAX_BYTES) return { lines, keep, level };
      if (!shrink(keep)) break;
    }
  }
  // Only absurd inputs get here (kilobyte paths): drop whole lines from the end, and say so.
  const level = LEVELS[LEVELS.length - 1];
  const keep: Keep = { changes: 0, states: 0, answer: 0, visible: 0, switchVisible: 0 };
  const lines = prepareLevel(input, lists, level)(keep);
  let cut = 0;
  const note = () => `(summary cut: ${cut} more lines; see the file)`;
  while (lines.length > 1 && bytes([...lines, note()]) > SUMMARY_MAX_BYTES) {
    lines.pop();
    cut++;
  }
  if (bytes([...lines, note()]) > SUMMARY_MAX_BYTES) {
    // Even the first line does not fit (impossible: it is "status: ..."); keep the cap.
    return { lines: [note()], keep, level };
  }
  lines.push(note());
  return { lines, keep, level };
}

function structuredItem(item: VisibleItem): VisibleElementStructured {
  const out: VisibleElementStructured = {
    role: clip(item.role, ROLE_CHARS),
    text: clip(item.text, SUMMARY_TEXT_CHARS),
    ref: item.ref,
    x: round(item.frame?.x ?? 0),
    y: round(item.frame?.y ?? 0),
    w: round(item.frame?.w ?? 0),
    h: round(item.frame?.h ?? 0),
  };
  if (item.change) out.change = item.change;
  if (item.states && item.states.length > 0) out.states = [...item.states];
  if (item.value !== undefined) out.value = clip(item.value, SUMMARY_TEXT_CHARS);
  return out;
}

function structuredOf(input: Facts, lists: Lists, keep: Keep): SummaryStructured {
  const s: SummaryStructured = { status: input.status === 'error' ? 'error' : 'success' };
  if (input.pid !== undefined) s.pid = input.pid;
  if (input.app !== undefined) s.app = clip(input.app, SUMMARY_TEXT_CHARS);
  if (input.window) s.window = clip(input.window, SUMMARY_TEXT_CHARS);
  if (input.dialog) {
    s.dialog = {
      role: clip(input.dialog.role, ROLE_CHARS),
      title: clip(input.dialog.title, SUMMARY_TEXT_CHARS),
    };
  }
  if (input.file !== undefined) s.file = input.file;
  if (input.fileSize !== undefined) s.file_size = input.fileSize;
  if (input.elements !== undefined) s.elements = input.elements;
  if (input.truncated) s.truncated = input.truncated;
  if (input.screenshot !== undefined) s.screenshot = input.screenshot;
  else if (input.screenshotError !== undefined) s.screenshot_error = input.screenshotError;
  if (input.error !== undefined) s.error = input.error;
  const summary = summaryText(input, LEVELS[0].action);
  if (summary !== undefined) s.summary = summary;
  if (input.ended?.exited) s.app_exited = true;
  if (input.ended?.closed && input.ended.closed.length > 0) {
    s.windows_closed = input.ended.closed.map((w) => clip(w.title, SUMMARY_TEXT_CHARS));
  }
  if (input.changes) s.changes = { ...input.changes };
  if (input.route) s.route = input.route;
  if (input.delivery) s.delivery = input.delivery;
  if (input.effect) s.effect = input.effect;
  if (input.escalation) s.escalation = { ...input.escalation };
  if (input.settleMs !== undefined) s.settle_ms = Math.round(input.settleMs);
  if (lists.changes.length > 0) {
    s.text_changes = lists.changes.slice(0, keep.changes).map((c) => {
      const pair = clipChange(c.old, c.new, SUMMARY_TEXT_CHARS, '');
      return {
        role: c.role,
        label: clip(c.label, SUMMARY_TEXT_CHARS),
        ref: c.ref,
        old: pair.old,
        new: pair.new,
      };
    });
    const more = lists.changes.length - keep.changes;
    if (more > 0) s.text_changes_omitted = more;
  }
  if (lists.states.length > 0) {
    s.state_changes = lists.states.slice(0, keep.states).map((c) => ({
      role: c.role,
      label: clip(c.label, SUMMARY_TEXT_CHARS),
      ref: c.ref,
      changes: c.changes.map((p) => ({ ...p })),
      ...(c.hidden ? { hidden: true } : {}),
      ...(c.twin ? { twin: { ...c.twin } } : {}),
    }));
    const more = lists.states.length - keep.states;
    if (more > 0) s.state_changes_omitted = more;
  }
  if (input.visibleCount) {
    s.visible_count = input.visibleCount.total;
  } else {
    if (lists.visible.length > 0 || lists.visibleOmitted > 0) {
      s.visible_elements = displayOrder(lists.visible.slice(0, keep.visible)).map(structuredItem);
      const more = lists.visibleOmitted + lists.visible.length - keep.visible;
      if (more > 0) s.visible_elements_omitted = more;
    }
    if (input.unchanged) {
      s.visible_unchanged = { count: input.unchanged.count, since: input.unchanged.since };
    }
  }
  const sw = input.appSwitch;
  if (sw) {
    const more = lists.switchOmitted + lists.switchVisible.length - keep.switchVisible;
    s.app_switch = {
      name: clip(sw.name, SUMMARY_TEXT_CHARS),
      pid: sw.pid,
      elements: sw.elements,
      visible: sw.visibleCount,
      visible_elements: displayOrder(lists.switchVisible.slice(0, keep.switchVisible)).map(
        structuredItem,
      ),
    };
    if (more > 0) s.app_switch.visible_elements_omitted = more;
  }
  return s;
}

export function renderSummary(summaryInput: SummaryInput): RenderedSummary {
  const input = resolveFacts(summaryInput);
  const visible = capSelection(input.visible);
  const switchVisible = capSelection(input.appSwitch?.visible);
  const lists: Lists = {
    // All of them: fit() shows at most MAX_TEXT_CHANGES and counts the rest as "+N more".
    changes: [...(input.textChanges ?? [])],
    states: [...(input.stateChanges ?? [])],
    answer: Math.min(
      MAX_ANSWER_ITEMS,
      (input.answer?.elements?.length ?? 0) + (input.answer?.lines?.length ?? 0),
    ),
    visible: visible.items,
    visibleOmitted: visible.omitted,
    switchVisible: switchVisible.items,
    switchOmitted: switchVisible.omitted,
  };
  const { lines, keep } = fit(input, lists);
  return { text: lines.join('\n'), structured: structuredOf(input, lists, keep) };
}
