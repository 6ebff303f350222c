import { describe, expect, it } from 'vitest';
import type { Rect } from '../../src/model/element.js';
import {
  appsOnRegion,
  appsShowing,
  subtract,
  type StackedWindow,
  type WindowOrder,
} from '../../src/platform/linux/occlusion.js';

const win = (pid: number | null, x: number, y: number, w: number, h: number, more = {}) =>
  ({ pid, x, y, w, h, mapped: true, shaped: false, ...more }) as StackedWindow;

const plain = (...windows: StackedWindow[]): WindowOrder => ({
  windows,
  stacked: true,
  composited: false,
});

const area = (rects: Rect[]): number => rects.reduce((a, r) => a + r.w * r.h, 0);

describe('subtract', () => {
  it('leaves the parts of a rect around a cut, without overlaps', () => {
    const r = { x: 0, y: 0, w: 100, h: 100 };
    const parts = subtract(r, { x: 20, y: 30, w: 10, h: 10 });
    expect(area(parts)).toBe(100 * 100 - 10 * 10);
    for (const [i, a] of parts.entries()) {
      for (const b of parts.slice(i + 1)) {
        const apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
        expect(apart, `${JSON.stringify(a)} and ${JSON.stringify(b)}`).toBe(true);
      }
    }
  });

  it('keeps a rect the cut misses, and nothing of a rect the cut holds', () => {
    const r = { x: 0, y: 0, w: 10, h: 10 };
    expect(subtract(r, { x: 10, y: 0, w: 5, h: 5 })).toEqual([r]);
    expect(subtract(r, { x: -1, y: -1, w: 12, h: 12 })).toEqual([]);
  });

  it('cuts an edge: one strip is left', () => {
    expect(subtract({ x: 0, y: 0, w: 10, h: 10 }, { x: 4, y: -5, w: 20, h: 20 })).toEqual([
      { x: 0, y: 0, w: 4, h: 10 },
    ]);
  });
});

describe('appsShowing', () => {
  const region = { x: 100, y: 100, w: 400, h: 300 };

  it('leaves out an app whose window is entirely behind a window in front', () => {
    const order = plain(win(1, 100, 100, 400, 300), win(2, 150, 150, 100, 100));
    expect(appsShowing(region, order)).toEqual(new Set([1]));
  });

  it('counts an app whose window reaches past the front window inside the region', () => {
    const order = plain(win(1, 100, 100, 300, 300), win(2, 150, 150, 300, 100));
    expect(appsShowing(region, order)).toEqual(new Set([1, 2]));
  });

  it('ignores what lies outside the region', () => {
    // App 2 sticks out of app 1's window, but only outside the captured region.
    const order = plain(win(1, 100, 100, 400, 300), win(2, 50, 50, 200, 200));
    expect(appsShowing(region, order)).toEqual(new Set([1]));
  });

  it('covers with several windows together', () => {
    const order = plain(
      win(1, 100, 100, 200, 300),
      win(3, 300, 100, 200, 300),
      win(2, 120, 120, 360, 260),
    );
    expect(appsShowing(region, order)).toEqual(new Set([1, 3]));
  });

  it('a shaped window in front hides nothing', () => {
    const order = plain(win(1, 100, 100, 400, 300, { shaped: true }), win(2, 150, 150, 10, 10));
    expect(appsShowing(region, order)).toEqual(new Set([1, 2]));
  });

  it('an unmapped window hides nothing and shows nothing', () => {
    const order = plain(win(1, 100, 100, 400, 300, { mapped: false }), win(2, 150, 150, 10, 10));
    expect(appsShowing(region, order)).toEqual(new Set([2]));
  });

  it('a window without a pid hides what is behind it', () => {
    const order = plain(win(null, 100, 100, 400, 300), win(2, 150, 150, 10, 10));
    expect(appsShowing(region, order)).toEqual(new Set());
  });

  it('cannot tell without the stacking order or with a compositor', () => {
    const windows = [win(1, 100, 100, 400, 300), win(2, 150, 150, 10, 10)];
    expect(appsShowing(region, { windows, stacked: false, composited: false })).toBeUndefined();
    expect(appsShowing(region, { windows, stacked: true, composited: true })).toBeUndefined();
  });
});

describe('appsOnRegion', () => {
  const byPid = (r: { showing: number[]; hidden: number[] }) => ({
    showing: [...r.showing].sort(),
    hidden: [...r.hidden].sort(),
  });
  const region = { x: 0, y: 0, w: 300, h: 200 };
  const front = win(1, 0, 0, 300, 200);
  const behind = win(2, 50, 50, 100, 100);
  const elsewhere = win(3, 400, 400, 50, 50);

  it('leaves out an app hidden in both listings, and says it is hidden', () => {
    const order = plain(front, behind, elsewhere);
    expect(appsOnRegion(region, order, order)).toEqual({ showing: [1], hidden: [2] });
  });

  it('counts an app that showed before the pixels were read, though hidden now', () => {
    const before = plain(behind, front, elsewhere);
    const after = plain(front, behind, elsewhere);
    expect(byPid(appsOnRegion(region, after, before))).toEqual({ showing: [1, 2], hidden: [] });
  });

  it('counts an app that shows now, though hidden before', () => {
    const before = plain(front, behind);
    const after = plain(behind, front);
    expect(byPid(appsOnRegion(region, after, before))).toEqual({ showing: [1, 2], hidden: [] });
  });

  it('counts every app on the region without a listing from before the pixels', () => {
    expect(byPid(appsOnRegion(region, plain(front, behind, elsewhere)))).toEqual({
      showing: [1, 2],
      hidden: [],
    });
  });

  it('counts every app on the region when either listing cannot tell', () => {
    const order = plain(front, behind);
    const composited = { ...order, composited: true };
    expect(appsOnRegion(region, order, composited).hidden).toEqual([]);
    expect(appsOnRegion(region, composited, order).hidden).toEqual([]);
  });
});
