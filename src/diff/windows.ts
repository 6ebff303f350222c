/** Windows an action closed: showing before it, gone or hidden after it. */
import type { Snapshot } from '../model/element.js';

/** Top-level roles that are windows a person closes (not tooltips). */
const WINDOW_ROLES: ReadonlySet<string> = new Set(['AXWindow', 'AXDialog', 'AXSheet']);

/**
 * A titled top-level window that shows: untitled top-levels are popups (a menu, a combo
 * box's list) that come and go with every pick, not windows a person closes.
 */
function isOpenWindow(el: Snapshot['elements'][number]): boolean {
  return WINDOW_ROLES.has(el.role) && el.name.trim() !== '' && showing(el.flags);
}

export interface ClosedWindow {
  /** Index of the window in the before snapshot. */
  before: number;
  title: string;
  /** The element the action was on (`own` argument) was inside it. */
  own: boolean;
}

function showing(flags: readonly string[]): boolean {
  return !flags.includes('offscreen');
}

/** The top-level ancestor of element `i` (itself for a top-level); -1 for a bad index. */
export function topLevelOf(s: Snapshot, i: number): number {
  const els = s.elements;
  if (i < 0 || i >= els.length) return -1;
  while (els[i].parent >= 0 && els[i].parent < i) i = els[i].parent;
  return i;
}

/**
 * The windows showing in `before` that are gone from `after` or no longer showing there
 * (a toolkit that hides a dialog rather than destroying it), in before order. `matchOf`:
 * the diff's matching (after index → before index). `acted`: the before index of the
 * element acted on, if any.
 */
export function closedWindows(
  before: Snapshot,
  after: Snapshot,
  matchOf: Int32Array,
  acted?: number,
): ClosedWindow[] {
  const afterOf = new Int32Array(before.elements.length).fill(-1);
  for (let i = 0; i < matchOf.length; i++) if (matchOf[i] >= 0) afterOf[matchOf[i]] = i;
  const ownTop = acted === undefined ? -1 : topLevelOf(before, acted);
  const closed: ClosedWindow[] = [];
  before.elements.forEach((el, j) => {
    if (el.parent !== -1 || !isOpenWindow(el)) return;
    const i = afterOf[j];
    if (i >= 0 && showing(after.elements[i].flags)) return;
    closed.push({ before: j, title: el.name, own: j === ownTop });
  });
  return closed;
}

/** Whether `s` still has a (titled) window showing. */
export function hasShowingWindow(s: Snapshot): boolean {
  return s.elements.some((el) => el.parent === -1 && isOpenWindow(el));
}
