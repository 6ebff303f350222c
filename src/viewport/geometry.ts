/** Rectangle arithmetic in screen points (top-left origin). */
import type { Rect } from '../model/element.js';

/** A rect with finite numbers and a positive area. */
export function hasArea(r: Rect | undefined): r is Rect {
  return (
    r !== undefined &&
    Number.isFinite(r.x) &&
    Number.isFinite(r.y) &&
    Number.isFinite(r.w) &&
    Number.isFinite(r.h) &&
    r.w > 0 &&
    r.h > 0
  );
}

/** The overlap of two rects, or null when they share no area (touching edges share none). */
export function intersect(a: Rect, b: Rect): Rect | null {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.w, b.x + b.w);
  const bottom = Math.min(a.y + a.h, b.y + b.h);
  if (right <= x || bottom <= y) return null;
  return { x, y, w: right - x, h: bottom - y };
}

/** Whether `inner` lies inside `outer`, allowing it to stick out by `slack` on each side. */
export function contains(outer: Rect, inner: Rect, slack = 0): boolean {
  return (
    inner.x >= outer.x - slack &&
    inner.y >= outer.y - slack &&
    inner.x + inner.w <= outer.x + outer.w + slack &&
    inner.y + inner.h <= outer.y + outer.h + slack
  );
}

/**
 * `a` clipped to `b` as a reportable rect: the overlap, or a zero-size rect at `a`'s
 * position pulled inside `b` when they do not overlap (a window dragged off-screen).
 */
export function clipForReport(a: Rect, b: Rect): Rect {
  const hit = intersect(a, b);
  if (hit) return hit;
  const x = Math.min(Math.max(a.x, b.x), b.x + b.w);
  const y = Math.min(Math.max(a.y, b.y), b.y + b.h);
  return { x, y, w: 0, h: 0 };
}
