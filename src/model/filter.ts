/**
 * What the app hides, as far as geometry cannot tell otherwise.
 *
 * Toolkits flag "not showing" on more than is hidden: GTK3 flags the page tab of a
 * notebook whose tabs are hidden (mousepad with one document), and everything below it
 * then carries an unshowing ancestor though its frame is on screen. So the flag decides
 * only where geometry cannot:
 *
 * - an element with a frame of positive area is placed by that frame (the viewport then
 *   checks it against its window, the screen and any blocking dialog);
 * - one without (no frame, zero size) that says it is not showing, or sits below such
 *   an ancestor, is hidden;
 * - a whole subtree is hidden, frames or not, when the app hides it as a unit: an
 *   unmapped top-level window (its frame is stale), the content of a tab page that is
 *   not the selected one while a sibling page is (GTK3 reports no frames there, but a
 *   toolkit that keeps a hidden page's last frames would put them at the shown page's
 *   rect), and a not-showing element whose frame
 *   coincides with a showing sibling's (pages stacked at one rect).
 */
import type { Element, Rect, Snapshot } from './element.js';

const SCROLLED_ITEM_ROLES = new Set(['AXRow', 'AXCell', 'AXOutlineRow']);
/** Roles whose children are pages, one of them shown (selected). */
const PAGE_CONTAINER_ROLES = new Set(['AXTabGroup']);
/** How much two frames must overlap (of the larger one's area) to count as the same rect. */
const COINCIDE = 0.9;
/**
 * Stacked pages are a handful of siblings; a list of thousands of rows is not a stack,
 * and comparing each of its unshown rows with every sibling would be quadratic.
 */
const MAX_STACK = 32;

function hasArea(r: Rect | undefined): r is Rect {
  return r !== undefined && Number.isFinite(r.w) && Number.isFinite(r.h) && r.w > 0 && r.h > 0;
}

function overlapArea(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

const offscreen = (el: Element): boolean => el.flags.includes('offscreen');

function validParent(elements: readonly Element[], i: number): number {
  const p = elements[i].parent;
  return Number.isInteger(p) && p >= 0 && p < i ? p : -1;
}

/**
 * Children of every element as linked lists (first child, next sibling), for elements
 * listed after their parents: two typed arrays instead of an array per element.
 */
class Children {
  private readonly first: Int32Array;
  private readonly next: Int32Array;

  constructor(elements: readonly Element[]) {
    const n = elements.length;
    this.first = new Int32Array(n).fill(-1);
    this.next = new Int32Array(n).fill(-1);
    const last = new Int32Array(n).fill(-1);
    for (let i = 0; i < n; i++) {
      const p = validParent(elements, i);
      if (p < 0) continue;
      if (last[p] < 0) this.first[p] = i;
      else this.next[last[p]] = i;
      last[p] = i;
    }
  }

  count(parent: number): number {
    let c = 0;
    for (let k = this.first[parent]; k >= 0; k = this.next[k]) c++;
    return c;
  }

  some(parent: number, pred: (child: number) => boolean): boolean {
    for (let k = this.first[parent]; k >= 0; k = this.next[k]) if (pred(k)) return true;
    return false;
  }
}

/**
 * Where the app's "not showing" holds whatever the frames say, per element:
 * 1 = hidden with its whole subtree (see the module comment), 0 = geometry decides.
 * Elements listed before their parent (or in a cycle) are treated as roots.
 */
export function hiddenSubtrees(snapshot: Snapshot): Uint8Array {
  const { elements } = snapshot;
  const n = elements.length;
  const hidden = new Uint8Array(n);
  let kids: Children | undefined; // built on first need: most trees never ask
  const siblingCount = new Int32Array(n);
  const selectedChild = new Uint8Array(n);
  // Below a tab page that is not the shown one (0: no; 1: yes).
  const inOtherPage = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const el = elements[i];
    const p = validParent(elements, i);
    if (p >= 0 && hidden[p]) {
      hidden[i] = 1;
      continue;
    }
    if (p < 0) {
      if (offscreen(el)) hidden[i] = 1; // an unmapped (or minimized) window
      continue;
    }
    if (inOtherPage[p] && offscreen(el)) {
      hidden[i] = 1;
      continue;
    }
    inOtherPage[i] = inOtherPage[p];
    if (PAGE_CONTAINER_ROLES.has(elements[p].role) && !el.flags.includes('selected')) {
      kids ??= new Children(elements);
      // Per page container, once: 1 = no child is selected, 2 = one is.
      selectedChild[p] ||= kids.some(p, (k) => elements[k].flags.includes('selected')) ? 2 : 1;
      if (selectedChild[p] === 2) {
        inOtherPage[i] = 1;
        if (offscreen(el)) hidden[i] = 1;
      }
    }
    if (!hidden[i] && offscreen(el) && hasArea(el.frame) && !SCROLLED_ITEM_ROLES.has(el.role)) {
      const frame = el.frame;
      const area = frame.w * frame.h;
      kids ??= new Children(elements);
      siblingCount[p] ||= kids.count(p);
      const stacked =
        siblingCount[p] <= MAX_STACK &&
        kids.some(p, (k) => {
          const s = elements[k];
          if (k === i || offscreen(s) || !hasArea(s.frame)) return false;
          const larger = Math.max(area, s.frame.w * s.frame.h);
          return overlapArea(frame, s.frame) >= COINCIDE * larger;
        });
      if (stacked) hidden[i] = 1;
    }
  }
  return hidden;
}

/**
 * Per element: the app hides it and geometry cannot say otherwise (a hidden subtree, or
 * no frame of positive area while it or an ancestor is not showing). Rows and cells
 * flagged not showing are not hidden by their own flag: toolkits flag rows scrolled out
 * of a list that way, and the agent may scroll to them.
 */
export function hiddenByApp(
  snapshot: Snapshot,
  subtree: Uint8Array = hiddenSubtrees(snapshot),
): Uint8Array {
  const { elements } = snapshot;
  const out = new Uint8Array(elements.length);
  // An ancestor (or the element) that is not a row or cell says it is not showing.
  const unshown = new Uint8Array(elements.length);
  const underItem = new Uint8Array(elements.length);
  for (let i = 0; i < elements.length; i++) {
    const el = elements[i];
    const p = validParent(elements, i);
    const item = SCROLLED_ITEM_ROLES.has(el.role) || (p >= 0 && underItem[p] === 1);
    underItem[i] = item ? 1 : 0;
    unshown[i] = (p >= 0 && unshown[p] === 1) || (offscreen(el) && !item) ? 1 : 0;
    out[i] = subtree[i] || (unshown[i] && !hasArea(el.frame)) ? 1 : 0;
  }
  return out;
}

/**
 * Leave out what the app hides (see hiddenByApp), keeping every ancestor of what stays:
 * a not-showing page tab without a frame stays when the text area below it is on screen.
 * `kept[j]` is the index in `snapshot` of the result's element j (so a view of the whole
 * tree can be narrowed without presenting the result again).
 */
export function dropHidden(snapshot: Snapshot): {
  snapshot: Snapshot;
  dropped: number;
  kept: Int32Array;
} {
  const { elements } = snapshot;
  const n = elements.length;
  const subtree = hiddenSubtrees(snapshot);
  const hidden = hiddenByApp(snapshot, subtree);
  const keep = new Uint8Array(n);
  for (let i = 0; i < n; i++) keep[i] = hidden[i] ? 0 : 1;
  // Children come after parents: walking backwards, a kept child keeps its ancestors
  // (unless the app hides that whole subtree, which hides the child too).
  for (let i = n - 1; i >= 0; i--) {
    const p = validParent(elements, i);
    if (keep[i] && p >= 0 && !subtree[p]) keep[p] = 1;
  }
  const newIndex = new Int32Array(n).fill(-1);
  const kept: Element[] = [];
  const from: number[] = [];
  for (let i = 0; i < n; i++) {
    const el = elements[i];
    const p = el.parent;
    const parentGone = p >= 0 && (p >= n || newIndex[p] < 0);
    if (!keep[i] || parentGone) continue;
    newIndex[i] = kept.length;
    kept.push({ ...el, parent: p >= 0 ? newIndex[p] : -1 });
    from.push(i);
  }
  const windows = snapshot.windows
    .filter((w) => newIndex[w.index] >= 0)
    .map((w) => ({ ...w, index: newIndex[w.index] }));
  return {
    snapshot: { ...snapshot, elements: kept, windows },
    dropped: n - kept.length,
    kept: Int32Array.from(from),
  };
}
