/**
 * What the summary lists, chosen from the data: visible elements worth naming, text
 * changes worth showing, a role worth grepping. The pipeline calls these and passes the
 * results to renderSummary, which only caps and formats.
 */
import type { Element, Rect, Snapshot } from '../model/element.js';
import type { TextChange, TreeDiff } from '../model/diff.js';
import type { SnapshotView } from '../model/view.js';
import { isSecure, maskLeak, primaryText } from '../tree/line.js';
import {
  CONTROL_ROLES,
  FIELD_ROLES,
  ITEM_ROLES,
  isInteractiveRole,
  isTextRole,
} from '../model/roles.js';
import { SECURE_MASK } from '../tree/text.js';
import { windowTitle } from '../tree/file.js';

export const MAX_VISIBLE_INTERACTIVE = 30;
export const MAX_VISIBLE_TEXT = 10;

export interface VisibleItem {
  /** Index in the snapshot's elements (tree order). */
  index: number;
  role: string;
  /** Raw (unescaped, uncapped) primary text, secure values masked. */
  text: string;
  ref: string;
  /** Always set for visible elements; an answer's element may have none. */
  frame?: Rect;
  kind: 'interactive' | 'text';
  /** Action tools: added or modified by the action (moves alone do not count). */
  change?: 'added' | 'modified';
  /** The states an agent acts on, in STATE_TOKENS order (see elementStates). */
  states?: string[];
  /** A field's value (text field, slider, spin button, combo box) when it is not the text; never for secure fields. */
  value?: string;
}

/**
 * The states worth a few bytes on an element line, in this order: what stops an action
 * (disabled), where keys go (focused), toggles (checked, mixed, pressed), selection,
 * disclosure (expanded), and `secure` (a password field: its value is never shown).
 */
const STATE_TOKENS = [
  'disabled',
  'focused',
  'checked',
  'mixed',
  'pressed',
  'selected',
  'expanded',
  'secure',
] as const;

function elementStates(el: Element): string[] {
  const states = STATE_TOKENS.filter((t) => el.flags.includes(t));
  // A toggle button that is on reports both; `checked` says it.
  return states.includes('checked') ? states.filter((t) => t !== 'pressed') : states;
}

/** U+FFFC stands in for an embedded object (an image, a widget) inside text: not text. */
function stripObjectChars(text: string): string {
  return text.includes('\ufffc') ? text.replace(/\ufffc/g, '') : text;
}

/**
 * A field's value for its element line: set, not secure, not already the element's
 * text. Undefined otherwise (and always for a secure field: its line says `secure`).
 */
function fieldValue(el: Element, text: string): string | undefined {
  if (!FIELD_ROLES.has(el.role) || isSecure(el)) return undefined;
  const value = stripObjectChars(el.value ?? '');
  if (value === '' || value === text) return undefined;
  return value;
}

/**
 * An element as a read's answer lists it (find's matches): a visible-list item whose
 * frame may be missing, with `hidden` among its states when it is not visible.
 */
export function elementItem(view: SnapshotView, index: number): VisibleItem | undefined {
  const el = view.snapshot.elements[index];
  if (!el) return undefined;
  const text = stripObjectChars(primaryText(el));
  const item: VisibleItem = {
    index,
    role: el.role,
    text,
    ref: view.refs[index] ?? '',
    frame: el.frame,
    kind: isTextRole(el.role) ? 'text' : 'interactive',
  };
  const states = elementStates(el);
  if (!view.visible[index]) states.push('hidden');
  if (states.length > 0) item.states = states;
  const value = fieldValue(el, text);
  if (value !== undefined) item.value = value;
  return item;
}

export interface VisibleSelection {
  /** In rank order (most worth showing first); the summary shows them changed-first, then in tree order. */
  items: VisibleItem[];
  /** Candidates left out by the caps. */
  omitted: number;
}

export interface SelectOptions {
  /** Action tools: rank what the action added or modified first. */
  diff?: TreeDiff;
  /** Elements to rank right after the changed ones (find results), by index. */
  prefer?: readonly number[];
  maxInteractive?: number;
  maxText?: number;
}

/**
 * The visible elements worth naming in the summary.
 *
 * Candidates: visible interactive elements (exact role set, see tree/roles.ts) and
 * visible text elements (AXStaticText, AXHeading) with non-empty text. Unlabeled cells
 * and rows are skipped (a table has hundreds); unlabeled controls stay (an icon button
 * is still a target, by ref).
 *
 * Rank, best first, each tier in tree order: (0) added or modified by the action,
 * then preferred ones (find results), (1) focused, (2) labeled controls and text, (3) labeled cells/rows, (4) unlabeled
 * controls.
 * The caps (30 interactive, 10 text) take the best-ranked; `omitted` counts the rest.
 */
export function selectVisibleElements(
  view: SnapshotView,
  opts: SelectOptions = {},
): VisibleSelection {
  const maxInteractive = opts.maxInteractive ?? MAX_VISIBLE_INTERACTIVE;
  const maxText = opts.maxText ?? MAX_VISIBLE_TEXT;
  const els = view.snapshot.elements;
  const changed = new Map<number, 'added' | 'modified'>();
  if (opts.diff) {
    for (const m of opts.diff.modified) if (!m.moved) changed.set(m.after, 'modified');
    for (const i of opts.diff.added) changed.set(i, 'added');
  }
  const preferred = new Set(opts.prefer ?? []);
  const ranked: Array<{ tier: number; item: VisibleItem }> = [];
  for (let i = 0; i < els.length; i++) {
    if (!view.visible[i]) continue;
    const el = els[i];
    const frame = el.frame;
    if (!frame) continue;
    const text = stripObjectChars(primaryText(el));
    const change = changed.get(i);
    let kind: VisibleItem['kind'];
    let tier: number;
    if (isInteractiveRole(el.role)) {
      kind = 'interactive';
      if (text === '' && ITEM_ROLES.has(el.role) && !change && !preferred.has(i)) continue;
      if (change) tier = 0;
      else if (preferred.has(i)) tier = 0.5;
      else if (el.flags.includes('focused')) tier = 1;
      else if (text !== '' && CONTROL_ROLES.has(el.role)) tier = 2;
      else if (text !== '') tier = 3;
      else tier = 4;
    } else if (isTextRole(el.role) && text.trim() !== '') {
      kind = 'text';
      // Ranked with the labeled controls: text competes only within its own cap.
      tier = change ? 0 : preferred.has(i) ? 0.5 : 2;
    } else continue;
    const item: VisibleItem = {
      index: i,
      role: el.role,
      text,
      ref: view.refs[i] ?? '',
      frame,
      kind,
    };
    if (change) item.change = change;
    const states = elementStates(el);
    if (states.length > 0) item.states = states;
    const value = fieldValue(el, text);
    if (value !== undefined) item.value = value;
    ranked.push({ tier, item });
  }
  ranked.sort((a, b) => a.tier - b.tier || a.item.index - b.item.index);
  const items: VisibleItem[] = [];
  let interactive = 0;
  let text = 0;
  for (const { item } of ranked) {
    if (item.kind === 'interactive' ? interactive < maxInteractive : text < maxText) {
      items.push(item);
      if (item.kind === 'interactive') interactive++;
      else text++;
    }
  }
  return { items, omitted: ranked.length - items.length };
}

/**
 * Text changes (value, then name) of modified elements, as full old/new strings taken
 * from the snapshots (not character bags), values first, each group in tree order.
 * Secure values are masked. The summary shows at most 3 and says how many more.
 */
export function collectTextChanges(
  diff: TreeDiff,
  before: Snapshot,
  after: Snapshot,
  refs: readonly string[],
  /** The acted element's after-index: its own change is what the action did. */
  acted?: number,
): TextChange[] {
  const values: Array<TextChange & { at: number }> = [];
  const names: Array<TextChange & { at: number }> = [];
  for (const m of diff.modified) {
    const b = before.elements[m.before];
    const a = after.elements[m.after];
    if (!a || !b) continue;
    const secure = isSecure(a) || isSecure(b);
    const hide = (t: string): string => (secure ? maskLeak(maskLeak(t, b.value), a.value) : t);
    const fields = new Set(m.changes.map((c) => c.field));
    if (fields.has('value')) {
      const oldValue = secure ? SECURE_MASK : stripObjectChars(b.value ?? '');
      const newValue = secure ? SECURE_MASK : stripObjectChars(a.value ?? '');
      if (secure || oldValue !== newValue) {
        const label = hide(a.name || b.name || a.description || '');
        values.push({
          at: m.after,
          role: a.role,
          label,
          ref: refs[m.after] ?? '',
          old: oldValue,
          new: newValue,
        });
      }
    }
    // A label's text is both its name and its value: one change, reported once.
    const sameAsValue =
      fields.has('value') && (b.value ?? '') === b.name && (a.value ?? '') === a.name;
    const oldName = stripObjectChars(b.name);
    const newName = stripObjectChars(a.name);
    if (fields.has('name') && oldName !== newName && !sameAsValue) {
      names.push({
        at: m.after,
        role: a.role,
        label: '',
        ref: refs[m.after] ?? '',
        old: hide(oldName),
        new: hide(newName),
      });
    }
  }
  // The main effect first, where the summary's few lines show it: the acted element's
  // own text, then a document's (multi-line text: what a Replace All or a paste changed),
  // then the rest (search boxes, status lines) in tree order.
  const rank = (at: number): number =>
    at === acted ? 0 : after.elements[at]?.flags.includes('multiline') ? 1 : 2;
  const byPlace = (x: { at: number }, y: { at: number }) => rank(x.at) - rank(y.at) || x.at - y.at;
  return [...values.sort(byPlace), ...names.sort(byPlace)].map(
    ({ role, label, ref, old, new: next }) => ({ role, label, ref, old, new: next }),
  );
}

/** A notable state change of one element for the summary's state_changes lines. */
export interface StateChange {
  role: string;
  label: string;
  ref: string;
  /** Each pair as words: {old: 'unchecked', new: 'checked'}. */
  changes: Array<{ old: string; new: string }>;
  /** Not visible before or after the action (a menu item of a closed menu, a hidden page). */
  hidden?: boolean;
  /**
   * The change was read on a hidden element with the same label (a menu bar item bound to
   * the same setting as the popover item acted on), which exposes the state the element
   * acted on does not: said of the element acted on, with the twin's role and ref.
   */
  twin?: { role: string; ref: string };
}

/** State pairs an action's effect is read from: [when set, when clear]. */
const STATE_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['checked', 'unchecked'],
  ['disabled', 'enabled'],
  ['expanded', 'collapsed'],
  ['selected', 'unselected'],
  ['pressed', 'released'],
];

/** Where a state change happened and who it is said of, beyond the diff. */
export interface StateChangeContext {
  /** Visibility of each element of the before and after snapshots (SnapshotView.visible). */
  beforeVisible?: readonly boolean[];
  afterVisible?: readonly boolean[];
  /** The element the action was on, as an after-snapshot index. */
  acted?: number;
}

/** A label as a reader compares it: no mnemonic marks, no trailing ellipsis, any case. */
function comparableLabel(label: string): string {
  return label
    .replace(/[_&](?=\S)/g, '')
    .replace(/(\u2026|\.\.\.)$/, '')
    .trim()
    .toLowerCase();
}

function statePairs(b: Element, a: Element): Array<{ old: string; new: string }> {
  const changes: Array<{ old: string; new: string }> = [];
  for (const [on, off] of STATE_PAIRS) {
    const was = b.flags.includes(on as never);
    const is = a.flags.includes(on as never);
    // A toggle button reports pressed with checked: one change, said once.
    if (on === 'pressed' && changes.some((c) => c.new === 'checked' || c.new === 'unchecked')) {
      continue;
    }
    if (was !== is) changes.push({ old: was ? on : off, new: is ? on : off });
  }
  return changes;
}

/**
 * State changes (checked, enabled, expanded, selected, pressed) of modified elements,
 * e.g. `unchecked -> checked`: the element acted on first, then those of elements visible
 * before or after the action in tree order, then the hidden ones (marked). Focus moves are left out: every click moves
 * it, and the element lines say `focused`.
 *
 * When the element acted on shows no state change itself but a hidden element with the
 * same label does (toolkits expose a setting's state on a menu bar's check item and not on
 * the popover item bound to the same setting), the change is said of the element acted
 * on, naming the twin it was read on: a hidden twin never stands in for the effect.
 */
export function collectStateChanges(
  diff: TreeDiff,
  before: Snapshot,
  after: Snapshot,
  refs: readonly string[],
  ctx: StateChangeContext = {},
): StateChange[] {
  const out: Array<StateChange & { at: number }> = [];
  const hiddenAt = (m: { before: number; after: number }): boolean =>
    ctx.afterVisible !== undefined &&
    !ctx.afterVisible[m.after] &&
    !(ctx.beforeVisible?.[m.before] ?? false);
  let actedChanged = false;
  for (const m of diff.modified) {
    if (!m.changes.some((c) => c.field === 'flags')) continue;
    const b = before.elements[m.before];
    const a = after.elements[m.after];
    if (!a || !b) continue;
    const changes = statePairs(b, a);
    if (changes.length === 0) continue;
    if (m.after === ctx.acted) actedChanged = true;
    const label = isSecure(a) ? maskLeak(a.name, a.value) : a.name || a.description || '';
    const change: StateChange & { at: number } = {
      at: m.after,
      role: a.role,
      label,
      ref: refs[m.after] ?? '',
      changes,
    };
    if (hiddenAt(m)) change.hidden = true;
    out.push(change);
  }
  const acted = ctx.acted !== undefined ? after.elements[ctx.acted] : undefined;
  if (acted && !actedChanged && ctx.afterVisible?.[ctx.acted as number] && !isSecure(acted)) {
    const want = comparableLabel(acted.name);
    const k =
      want === ''
        ? -1
        : out.findIndex((c) => c.hidden && comparableLabel(after.elements[c.at].name) === want);
    if (k >= 0) {
      const twin = out[k];
      out.splice(k, 1);
      out.push({
        at: ctx.acted as number,
        role: acted.role,
        label: acted.name,
        ref: refs[ctx.acted as number] ?? '',
        changes: twin.changes,
        twin: { role: twin.role, ref: twin.ref },
      });
    }
  }
  // The element acted on first: its own change is the effect asked for, and a summary cut
  // short ("+N more") keeps the first lines.
  const rank = (c: { at: number; hidden?: boolean }): number =>
    c.at === ctx.acted ? 0 : c.hidden ? 2 : 1;
  return out
    .sort((x, y) => rank(x) - rank(y) || x.at - y.at)
    .map(({ at: _at, ...change }) => change);
}

function commonest(counts: Map<string, number>): string | null {
  let best: string | null = null;
  let bestN = 0;
  for (const [role, n] of [...counts].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    if (n > bestN) {
      best = role;
      bestN = n;
    }
  }
  return best;
}

/**
 * A role for the `hint:` grep that is really in the file: AXButton when one is
 * visible, else the commonest visible interactive role, else the commonest role
 * (ties by name). Null for an empty tree.
 */
export function pickHintRole(view: SnapshotView): string | null {
  const visibleInteractive = new Map<string, number>();
  const all = new Map<string, number>();
  const els = view.snapshot.elements;
  for (let i = 0; i < els.length; i++) {
    const role = els[i].role;
    if (!role) continue;
    all.set(role, (all.get(role) ?? 0) + 1);
    if (view.visible[i] && isInteractiveRole(role)) {
      visibleInteractive.set(role, (visibleInteractive.get(role) ?? 0) + 1);
    }
  }
  if (visibleInteractive.has('AXButton')) return 'AXButton';
  return commonest(visibleInteractive) ?? commonest(all);
}

export interface DiffCounts {
  added: number;
  removed: number;
  /** Includes the moved ones. */
  modified: number;
  moved: number;
}

export function diffCounts(diff: TreeDiff): DiffCounts {
  return {
    added: diff.added.length,
    removed: diff.removed.length,
    modified: diff.modified.length,
    moved: diff.modified.filter((m) => m.moved).length,
  };
}

function countVisible(view: SnapshotView): number {
  let v = 0;
  for (let i = 0; i < view.snapshot.elements.length; i++) if (view.visible[i]) v++;
  return v;
}

/** The summary facts one view provides (spread into a SummaryInput). */
export function viewFacts(view: SnapshotView, opts: SelectOptions = {}) {
  const s = view.snapshot;
  return {
    pid: s.pid,
    app: s.app,
    window: windowTitle(view),
    dialog: view.dialog ? { role: view.dialog.role, title: view.dialog.title } : null,
    elements: s.elements.length,
    truncated: s.truncated,
    hintRole: pickHintRole(view),
    visible: selectVisibleElements(view, opts),
  };
}

export interface AppSwitchFacts {
  name: string;
  pid: number;
  elements: number;
  /** Count of visible elements. */
  visibleCount: number;
  visible: VisibleSelection;
}

export function appSwitchFacts(view: SnapshotView): AppSwitchFacts {
  return {
    name: view.snapshot.app,
    pid: view.snapshot.pid,
    elements: view.snapshot.elements.length,
    visibleCount: countVisible(view),
    visible: selectVisibleElements(view),
  };
}
