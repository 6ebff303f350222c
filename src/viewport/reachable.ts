/**
 * Where a pointer event reaches an element: its frame less what its ancestors cut off. A
 * toolkit may report a row as wide as its list's content while the popup that shows the
 * list is narrower, or a cell whose half is scrolled out: the middle of such a frame is
 * outside what shows it, and a click there lands elsewhere.
 */
import type { Rect, Snapshot } from '../model/element.js';
import { hasArea, intersect } from './geometry.js';

/** Ancestors looked at, at most (a cycle in a broken tree ends there). */
const MAX_DEPTH = 256;

/**
 * The element's frame clipped by each ancestor's that shares some of it. An ancestor that
 * shares none cuts nothing: a menu's title (its items are drawn in a popup below it), a web
 * list of floating items (zero high). Undefined: the element has no frame with an area.
 */
export function reachableFrame(snapshot: Snapshot, index: number): Rect | undefined {
  const { elements } = snapshot;
  const frame = elements[index]?.frame;
  if (!hasArea(frame)) return undefined;
  let area = frame;
  let p = elements[index].parent;
  for (let depth = 0; p >= 0 && p < elements.length && depth < MAX_DEPTH; depth++) {
    const f = elements[p].frame;
    const cut = hasArea(f) ? intersect(area, f) : null;
    if (cut) area = cut;
    p = elements[p].parent;
  }
  return area;
}
