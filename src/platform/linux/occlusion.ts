/**
 * Which apps can show pixels in a captured region, from the top-level windows front to
 * back: a window entirely behind opaque windows in front of it shows nothing there, and its
 * app's password fields need not be looked up for that capture (a lookup costs the app a
 * search of its own tree, a whole walk for toolkits without Collection).
 *
 * Only an X server's plain stacking can say so: without a compositing manager a window's
 * pixels are replaced by any window in front of it, wherever that window's box reaches. A
 * window with a SHAPE region may leave parts of its box to those below, so it hides
 * nothing; decorations and override-redirect windows (menus, tooltips) are not listed and
 * hide nothing either. Where the listing cannot tell (no stacking order, a compositor), the
 * answer is undefined: every app with a window on the region is looked up.
 */
import type { Rect } from '../../model/element.js';

/** A top-level window as a listing describes it. */
export interface StackedWindow {
  pid: number | null;
  x: number;
  y: number;
  w: number;
  h: number;
  mapped: boolean;
  shaped: boolean;
}

/** The windows front to back, and whether that order and their opacity can be trusted. */
export interface WindowOrder {
  windows: readonly StackedWindow[];
  stacked: boolean;
  composited: boolean;
}

const overlaps = (a: Rect, b: Rect): boolean =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** `r` without `cut`: up to four rects (above, below, left, right of the cut). */
export function subtract(r: Rect, cut: Rect): Rect[] {
  if (!overlaps(r, cut)) return [r];
  const out: Rect[] = [];
  const top = Math.max(r.y, cut.y);
  const bottom = Math.min(r.y + r.h, cut.y + cut.h);
  if (cut.y > r.y) out.push({ x: r.x, y: r.y, w: r.w, h: cut.y - r.y });
  if (cut.y + cut.h < r.y + r.h) {
    out.push({ x: r.x, y: cut.y + cut.h, w: r.w, h: r.y + r.h - (cut.y + cut.h) });
  }
  if (cut.x > r.x) out.push({ x: r.x, y: top, w: cut.x - r.x, h: bottom - top });
  if (cut.x + cut.w < r.x + r.w) {
    out.push({ x: cut.x + cut.w, y: top, w: r.x + r.w - (cut.x + cut.w), h: bottom - top });
  }
  return out;
}

/**
 * The pids of the windows that show at least one pixel of `region`, or undefined when the
 * order cannot say (every app with a window on the region must then count).
 */
export function appsShowing(region: Rect, order: WindowOrder): Set<number> | undefined {
  if (!order.stacked || order.composited) return undefined;
  let open: Rect[] = region.w > 0 && region.h > 0 ? [region] : [];
  const showing = new Set<number>();
  for (const win of order.windows) {
    if (open.length === 0) break;
    if (!win.mapped || win.w <= 0 || win.h <= 0) continue;
    if (!open.some((part) => overlaps(part, win))) continue;
    if (win.pid !== null) showing.add(win.pid);
    if (!win.shaped) open = open.flatMap((part) => subtract(part, win));
  }
  return showing;
}

/**
 * The apps that may show pixels on `region`: those with a mapped window on it, less those
 * hidden behind other windows on all of it both in `before` (listed before the pixels were
 * read) and in `after` (listed since). Two listings, because a window raised or lowered
 * between the pixels and one listing would otherwise be taken for where it is now.
 */
export function appsOnRegion(
  region: Rect,
  after: WindowOrder,
  before?: WindowOrder,
): { showing: number[]; hidden: number[] } {
  const onRegion = new Set(
    after.windows
      .filter((w) => w.mapped && w.pid !== null && overlaps(w, region))
      .map((w) => w.pid as number),
  );
  const then = before && appsShowing(region, before);
  const now = appsShowing(region, after);
  if (!then || !now) return { showing: [...onRegion], hidden: [] };
  const showing = new Set([...then, ...now]);
  return { showing: [...showing], hidden: [...onRegion].filter((pid) => !showing.has(pid)) };
}
