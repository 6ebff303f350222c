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

/**
 * `a` less the part `b` covers, when what is left is a rect: `b` across the whole of `a`
 * (a table's header over a row scrolled under it) leaves the larger side of `a` beside it,
 * and covering all of `a` leaves a zero-size rect at its corner. A `b` over a corner or
 * inside `a` cuts nothing.
 */
export function cutOff(a: Rect, b: Rect): Rect {
  const o = intersect(a, b);
  if (!o) return a;
  const across = o.x <= a.x && o.x + o.w >= a.x + a.w;
  const down = o.y <= a.y && o.y + o.h >= a.y + a.h;
  if (across && down) return { x: a.x, y: a.y, w: 0, h: 0 };
  if (across) {
    const above = o.y - a.y;
    const below = a.y + a.h - (o.y + o.h);
    return below >= above
      ? { x: a.x, y: o.y + o.h, w: a.w, h: below }
      : { x: a.x, y: a.y, w: a.w, h: above };
  }
  if (down) {
    const left = o.x - a.x;
    const right = a.x + a.w - (o.x + o.w);
    return right >= left
      ? { x: o.x + o.w, y: a.y, w: right, h: a.h }
      : { x: a.x, y: a.y, w: left, h: a.h };
  }
  return a;
}
