/**
 * Which rows of a big GTK3 tree view are in view, found with a few frame reads before its
 * cells are read, so that the cells of the other rows are not each asked for a frame.
 *
 * GTK3's tree view (gtktreeviewaccessible.c) lists its children as one header per visible
 * column, then the rows in display order, one cell per visible column: child i is column
 * `i % columns` of row `i / columns - 1`. A cell's GetExtents answers INT_MIN for x and y
 * when no part of the cell lies in the view's visible rectangle, else its real position.
 * Rows are laid out top to bottom in display order, so the rows in view are one run of
 * consecutive rows, and every cell of a row outside that run answers INT_MIN. Finding the
 * run takes a handful of round trips (16 probes at a time); in a 3,000-row list it saves
 * 3,000 GetExtents calls, the costliest call a GTK3 cell answers.
 *
 * Anything unexpected (no column count, children that do not fill whole rows, no row in
 * view to start from, a probe that fails) gives up: the caller then asks every cell, as for
 * any other container.
 */
import type { Rect } from '../../../model/element.js';
import type { ObjectRef } from './bus.js';
import { NULL_PATH } from './bus.js';
import { askExtents, frameOf, getProp, IFACE } from './read.js';
import type { CallFn } from './read.js';

/**
 * Which rows to read of a table of `rows` rows when only `cap` may be: those in view, then
 * the nearest ones, after the view first. Returns the kept row numbers.
 */
export function rowsNearestView(
  rows: number,
  cap: number,
  inView: readonly [number, number],
): Set<number> {
  const kept = new Set<number>();
  const [first, afterLast] = inView;
  for (let r = first; r < afterLast && kept.size < cap; r++) kept.add(r);
  for (let k = 0; kept.size < cap && (afterLast + k < rows || first - 1 - k >= 0); k++) {
    if (afterLast + k < rows) kept.add(afterLast + k);
    if (kept.size < cap && first - 1 - k >= 0) kept.add(first - 1 - k);
  }
  return kept;
}

/**
 * Below this many children the probes would cost about what they save. From 20 up, a
 * first walk's search costs about what it saves (gtk3-demo's 49-row list of demos: the
 * same median in an A/B of 30 walks), and each later walk checks the remembered view in
 * one round instead of asking a frame per cell (the same list: 42 to 33 ms per walk).
 */
export const SHOWN_ROWS_MIN_CHILDREN = 20;

/** Frames asked at once per search round. */
const PROBES_PER_ROUND = 16;

const COORD_SCREEN = 0;

/**
 * Where an earlier walk found a tree view's rows in view: the next walk checks that first
 * (one round of at most 4 probes instead of a search; see treeViewLayout).
 */
export interface SeenLayout {
  /** Its child count then: a table with another count is searched. */
  count: number;
  /** Visible columns: child i is column `i % columns` (headers first, then rows). */
  columns: number;
  /** The column whose cells the probes asked (a cell of it was in view). */
  column: number;
  inView: readonly [number, number];
}

/** How a GTK3 tree view's children lie, as far as the walk needs it. */
export interface TreeViewLayout extends SeenLayout {
  /** Whether child i is a cell of a row out of view (its frame is INT_MIN). */
  outOfView: (childIndex: number) => boolean;
  /** Rows (0 = the first after the headers) in view: [first, afterLast). */
  inView: readonly [number, number];
  /** GetExtents answers the search already has, by child index (not asked again). */
  probed: ReadonlyMap<number, Promise<unknown[]>>;
}

/**
 * A container's children as the layout search reads them: all listed at once (GetChildren),
 * or one by one on demand (GetChildAtIndex), so that a table read in part never has the
 * toolkit make an accessible for every cell (GTK 3 makes one per cell it is asked for).
 */
export interface Children {
  count: number;
  at(index: number): Promise<ObjectRef>;
  /** The index of `ref` among them, or -1. */
  indexOf(ref: ObjectRef): Promise<number>;
}

/** Children already listed. */
export function listedChildren(kids: readonly ObjectRef[]): Children {
  return {
    count: kids.length,
    at: async (i) => kids[i],
    indexOf: async (ref) => kids.findIndex((k) => k[0] === ref[0] && k[1] === ref[1]),
  };
}

/** Children asked for one at a time (each asked once). */
export function childrenByIndex(call: CallFn, parent: ObjectRef, count: number): Children {
  const asked = new Map<number, Promise<ObjectRef>>();
  return {
    count,
    at: (i) => {
      let ref = asked.get(i);
      if (!ref) {
        ref = call(parent[0], parent[1], IFACE.Accessible, 'GetChildAtIndex', 'i', [i]).then(
          ([r]) => r as ObjectRef,
        );
        asked.set(i, ref);
      }
      return ref;
    },
    indexOf: async (ref) => {
      const [i] = await call(ref[0], ref[1], IFACE.Accessible, 'GetIndexInParent');
      return typeof i === 'number' ? i : -1;
    },
  };
}

/**
 * The layout of a GTK3 tree view `table` with children `kids`, or undefined when the rows
 * in view cannot be known for sure (ask every cell then). `seen`: where an earlier walk
 * found them; if the view has not moved, one round of probes says so.
 */
export async function treeViewLayout(
  call: CallFn,
  table: ObjectRef,
  kids: Children,
  seen?: SeenLayout,
): Promise<TreeViewLayout | undefined> {
  try {
    const probed = new Map<number, Promise<unknown[]>>();
    const frameOfChild = async (i: number): Promise<Rect | undefined> => {
      const ref = await kids.at(i);
      if (ref[1] === NULL_PATH) throw new Error('a placeholder child');
      let answer = probed.get(i);
      if (!answer) probed.set(i, (answer = askExtents(call, ref)));
      return frameOf((await answer)[0] as number[]);
    };
    const columnCount = getProp(call, table, IFACE.Table, 'NColumns');
    if (seen?.count === kids.count && (await sameView(seen, columnCount, frameOfChild))) {
      return layoutOf(seen, probed);
    }
    const [columns, tableExtents] = await Promise.all([columnCount, askExtents(call, table)]);
    const frame = frameOf(tableExtents[0] as number[]);
    if (typeof columns !== 'number' || columns < 1 || !frame) return undefined;
    if (kids.count % columns !== 0) return undefined;
    const rows = kids.count / columns - 1;
    if (rows < 1) return undefined;
    const anchor = await rowInView(call, table, kids, columns, rows, frame, frameOfChild);
    if (!anchor) return undefined;
    const { row, column } = anchor;
    const placed = rowPlaced(frameOfChild, columns, column);
    // The run of rows in view holds `row`: search each side for where it ends.
    const [first, afterLast] = await Promise.all([
      firstWhere(0, row, placed),
      firstWhere(row + 1, rows, async (r) => !(await placed(r))),
    ]);
    return layoutOf({ count: kids.count, columns, column, inView: [first, afterLast] }, probed);
  } catch {
    return undefined;
  }
}

function layoutOf(
  seen: SeenLayout,
  probed: ReadonlyMap<number, Promise<unknown[]>>,
): TreeViewLayout {
  const { columns } = seen;
  const [first, afterLast] = seen.inView;
  return {
    ...seen,
    probed,
    outOfView: (i) => {
      if (i < columns) return false; // the column headers: asked as usual
      const r = Math.floor(i / columns) - 1;
      return r < first || r >= afterLast;
    },
  };
}

/** What the next walk checks first (see SeenLayout): the layout without its probes. */
export function seenOf({ count, columns, column, inView }: TreeViewLayout): SeenLayout {
  return { count, columns, column, inView };
}

/** Whether row `r` has a frame in `column` (is in view). */
function rowPlaced(
  frameOfChild: (i: number) => Promise<Rect | undefined>,
  columns: number,
  column: number,
): (r: number) => Promise<boolean> {
  return async (r) => (await frameOfChild((r + 1) * columns + column)) !== undefined;
}

/**
 * Whether the rows in view are still those `seen` found: the first and last of them in
 * view, the rows just before and after them not. The rows in view are one run, so these
 * four frames (asked at once, with the column count) decide it.
 */
async function sameView(
  seen: SeenLayout,
  columnCount: Promise<unknown>,
  frameOfChild: (i: number) => Promise<Rect | undefined>,
): Promise<boolean> {
  const { columns, column } = seen;
  const [first, afterLast] = seen.inView;
  const rows = seen.count / columns - 1;
  const placed = rowPlaced(frameOfChild, columns, column);
  const checks: Array<Promise<boolean>> = [placed(first), placed(afterLast - 1)];
  if (first > 0) checks.push(placed(first - 1).then((p) => !p));
  if (afterLast < rows) checks.push(placed(afterLast).then((p) => !p));
  const [n, ...held] = await Promise.all([columnCount, ...checks]);
  return n === columns && held.every(Boolean);
}

/**
 * A row with a cell in view, and that cell's column: the first row when the view is at
 * the top (a cell of each column is asked), else the cell under the middle of the table.
 */
async function rowInView(
  call: CallFn,
  table: ObjectRef,
  kids: Children,
  columns: number,
  rows: number,
  frame: Rect,
  frameOfChild: (i: number) => Promise<Rect | undefined>,
): Promise<{ row: number; column: number } | undefined> {
  const firstRow = await Promise.all(
    Array.from({ length: columns }, (_, c) => frameOfChild(columns + c)),
  );
  const shown = firstRow.findIndex((f) => f !== undefined);
  if (shown >= 0) return { row: 0, column: shown };
  const [hit] = (await call(table[0], table[1], IFACE.Component, 'GetAccessibleAtPoint', 'iiu', [
    Math.round(frame.x + frame.w / 2),
    Math.round(frame.y + frame.h / 2),
    COORD_SCREEN,
  ])) as [ObjectRef];
  if (!hit || hit[1] === NULL_PATH) return undefined;
  const index = await kids.indexOf(hit);
  if (index < columns) return undefined; // not a cell of this table (or a header)
  const row = Math.floor(index / columns) - 1;
  return row < rows ? { row, column: index % columns } : undefined;
}

/**
 * The smallest i in [lo, hi) for which `test(i)` holds, or hi when none does; `test` must
 * be false up to some point and true after it. Probes PROBES_PER_ROUND points per round.
 */
export async function firstWhere(
  lo: number,
  hi: number,
  test: (i: number) => Promise<boolean>,
): Promise<number> {
  // Invariant: the answer lies in [lo, hi] (hi: none of [lo, hi) holds).
  while (lo < hi) {
    const n = hi - lo;
    const points =
      n <= PROBES_PER_ROUND
        ? Array.from({ length: n }, (_, j) => lo + j)
        : Array.from({ length: PROBES_PER_ROUND }, (_, j) =>
            Math.min(hi - 1, lo + Math.floor(((j + 1) * n) / (PROBES_PER_ROUND + 1))),
          );
    const results = await Promise.all(points.map(test));
    const j = results.indexOf(true);
    if (n <= PROBES_PER_ROUND) return j < 0 ? hi : points[j];
    if (j < 0) lo = points[points.length - 1] + 1;
    else {
      hi = points[j];
      lo = j === 0 ? lo : points[j - 1] + 1;
      if (lo === hi) return hi;
    }
  }
  return hi;
}
