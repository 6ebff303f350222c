/**
 * Where a pointer event reaches an element: its frame less what its ancestors cut off. A
 * toolkit may report a row as wide as its list's content while the popup that shows the
 * list is narrower, or a cell whose half is scrolled out: the middle of such a frame is
 * outside what shows it, and a click there lands elsewhere.
 */
import type { Element, Rect, Snapshot } from '../model/element.js';
import { vocabulary } from '../model/vocabulary.js';
import { cutOff, hasArea, intersect } from './geometry.js';
import { union } from './region.js';
import { isComboList, isMenuTitle, isSurfaceRole } from './visibility.js';

/** Ancestors looked at, at most (a cycle in a broken tree ends there). */
const MAX_DEPTH = 256;

/** Containers whose headers (children of theirs) are drawn over the rows under them. */
const HEADED_ROLES: ReadonlySet<string> = new Set(['AXTable', 'AXOutline', 'AXGrid']);

/**
 * The element's frame clipped by each ancestor's that shares some of it, up to the surface
 * it is drawn on (its window, a menu, a popover, a combo box's popup list), as the
 * visibility does: a popup is drawn above what it hangs from. An ancestor that shares none
 * cuts nothing: a web list of floating items (zero high). A table's headers cut off what
 * of a row or cell is scrolled under them. Undefined: the element has no frame with an
 * area; a zero-size rect: nothing of it shows.
 */
export function reachableFrame(snapshot: Snapshot, index: number): Rect | undefined {
  const { elements } = snapshot;
  const frame = elements[index]?.frame;
  if (!hasArea(frame)) return undefined;
  let area = frame;
  let child = index;
  let p = elements[index].parent;
  for (let depth = 0; p >= 0 && p < elements.length && depth < MAX_DEPTH; depth++) {
    const el = elements[p];
    const parent = el.parent >= 0 ? elements[el.parent] : undefined;
    // A menu hanging in another element: its frame is the title, its items pop up apart.
    if (isMenuTitle(el, parent !== undefined)) break;
    const f = el.frame;
    const cut = hasArea(f) ? intersect(area, f) : null;
    if (cut) area = cut;
    if (HEADED_ROLES.has(el.role)) area = belowHeaders(elements, p, child, area);
    if (isSurfaceRole(el) || isComboList(el, parent)) break;
    child = p;
    p = el.parent;
  }
  return area;
}

/**
 * `area` (in a child `child` of table `table`) less what the table's headers cover: they
 * are the table's children too, drawn over the rows scrolled under them. A row of column
 * headers (one top, one height) is cut off as one band, as is a column of row headers.
 */
function belowHeaders(
  elements: readonly Element[],
  table: number,
  child: number,
  area: Rect,
): Rect {
  const roles = vocabulary().headerRoles;
  if (!roles || roles.size === 0 || roles.has(elements[child].nativeRole)) return area;
  const bands = new Map<string, Rect>();
  const depth = elements[table].depth;
  for (let i = table + 1; i < elements.length && elements[i].depth > depth; i++) {
    const e = elements[i];
    const f = e.frame;
    if (e.parent !== table || !roles.has(e.nativeRole) || !hasArea(f)) continue;
    for (const key of [`row ${f.y} ${f.h}`, `column ${f.x} ${f.w}`]) {
      const band = bands.get(key);
      bands.set(key, band ? (union([band, f]) as Rect) : f);
    }
  }
  let out = area;
  for (const band of bands.values()) if (hasArea(out)) out = cutOff(out, band);
  return out;
}
