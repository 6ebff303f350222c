import { describe, expect, it } from 'vitest';
import type { Rect } from '../../src/model/element.js';
import type { DesktopWindow } from '../../src/platform/desktop.js';
import { MOVING_MS, MovingWindows, pinFields } from '../../src/pipeline/field-pins.js';

const rect = (x: number, y: number, w: number, h: number): Rect => ({ x, y, w, h });
const win = (id: number, pid: number, frame: Rect): DesktopWindow => ({
  id,
  pid,
  title: `w${id}`,
  frame,
  active: false,
});

const A = rect(100, 100, 360, 120);
const B = rect(560, 420, 360, 120);
/** The field at 20,20 in the window. */
const fieldIn = (w: Rect): Rect => rect(w.x + 20, w.y + 20, 320, 30);

describe('pinFields', () => {
  it('keeps a field whose window stood still around the pixels and at the lookup', () => {
    const at = [win(1, 7, A)];
    const r = pinFields([{ pid: 7, frames: [fieldIn(A)] }], { before: at, after: at }, at);
    expect(r).toEqual({ frames: [fieldIn(A)], moved: [] });
  });

  it('fills the window whole, at both places, when it moved while the pixels were read', () => {
    const r = pinFields(
      [{ pid: 7, frames: [fieldIn(B)] }],
      { before: [win(1, 7, A)], after: [win(1, 7, B)] },
      [win(1, 7, B)],
    );
    expect(r.moved).toEqual([7]);
    expect(r.frames).toEqual(expect.arrayContaining([A, B]));
  });

  it('fills the window whole when it moved between the pixels and the lookup', () => {
    const around = { before: [win(1, 7, A)], after: [win(1, 7, A)] };
    const r = pinFields([{ pid: 7, frames: [fieldIn(B)] }], around, [win(1, 7, B)]);
    expect(r.moved).toEqual([7]);
    expect(r.frames).toEqual(expect.arrayContaining([A]));
  });

  it('a field outside every window of its app (read while the window was elsewhere): whole', () => {
    const at = [win(1, 7, A)];
    const r = pinFields([{ pid: 7, frames: [fieldIn(B)] }], { before: at, after: at }, at);
    expect(r.moved).toEqual([7]);
    expect(r.frames).toEqual(expect.arrayContaining([A, fieldIn(B)]));
  });

  it('a window gone or new around the pixels is filled whole', () => {
    const r = pinFields([{ pid: 7, frames: [fieldIn(A)] }], { before: [], after: [win(1, 7, A)] }, [
      win(1, 7, A),
    ]);
    expect(r.moved).toEqual([7]);
    expect(r.frames).toEqual(expect.arrayContaining([A]));
  });

  it('tells windows of one app apart by id: only the one that moved is filled whole', () => {
    const other = rect(0, 500, 200, 100);
    const at = [win(1, 7, A), win(2, 7, other)];
    const r = pinFields(
      [{ pid: 7, frames: [fieldIn(A), fieldIn(other)] }],
      { before: at, after: at },
      [win(1, 7, A), win(2, 7, rect(10, 500, 200, 100))],
    );
    expect(r.frames).toEqual(expect.arrayContaining([fieldIn(A), other]));
    expect(r.moved).toEqual([7]);
  });

  it('an app with no window listed keeps its frames as read', () => {
    const r = pinFields([{ pid: 9, frames: [fieldIn(A)] }], { before: [], after: [] }, []);
    expect(r).toEqual({ frames: [fieldIn(A)], moved: [] });
  });
});

describe('MovingWindows', () => {
  it('a window that keeps moving is not pinned: filled whole at every place, even when still now', () => {
    let now = 0;
    const moving = new MovingWindows(() => now);
    moving.note([win(1, 7, A)]);
    now = 100;
    moving.note([win(1, 7, B)]);
    now = 200;
    // It left and came back between the listings of this capture: they all say A.
    const at = [win(1, 7, A)];
    moving.note(at);
    const r = pinFields([{ pid: 7, frames: [fieldIn(A)] }], { before: at, after: at }, at, moving);
    expect(r.moved).toEqual([7]);
    expect(r.frames).toEqual(expect.arrayContaining([A, B]));
  });

  it('a window moved once (relocated) is pinned at once', () => {
    const moving = new MovingWindows(() => 0);
    moving.note([win(1, 7, A)]);
    const at = [win(1, 7, B)];
    moving.note(at);
    const r = pinFields([{ pid: 7, frames: [fieldIn(B)] }], { before: at, after: at }, at, moving);
    expect(r).toEqual({ frames: [fieldIn(B)], moved: [] });
  });

  it('a window that stopped moving long enough ago is pinned again', () => {
    let now = 0;
    const moving = new MovingWindows(() => now);
    moving.note([win(1, 7, A)]);
    moving.note([win(1, 7, B)]);
    moving.note([win(1, 7, A)]);
    now = MOVING_MS + 1;
    const at = [win(1, 7, A)];
    moving.note(at);
    const r = pinFields([{ pid: 7, frames: [fieldIn(A)] }], { before: at, after: at }, at, moving);
    expect(r).toEqual({ frames: [fieldIn(A)], moved: [] });
  });
});

describe('pinFields: a window filled whole is filled where it shows', () => {
  it('less another window in front of it in both listings, in the same place', () => {
    const front = win(9, 8, rect(300, 150, 300, 200));
    const r = pinFields(
      [{ pid: 7, frames: [fieldIn(B)] }],
      { before: [front, win(1, 7, A)], after: [front, win(1, 7, A)] },
      [front, win(1, 7, A)],
    );
    expect(r.moved).toEqual([7]);
    const filled = (x: number, y: number) =>
      r.frames.some((f) => x >= f.x && y >= f.y && x < f.x + f.w && y < f.y + f.h);
    expect(filled(100, 100)).toBe(true);
    expect(filled(299, 219)).toBe(true);
    expect(filled(300, 150)).toBe(false);
    expect(filled(459, 219)).toBe(false);
  });

  it('whole when the window in front was not there, or elsewhere, in one of the listings', () => {
    const front = win(9, 8, rect(300, 150, 300, 200));
    const moved = win(9, 8, rect(600, 150, 300, 200));
    for (const after of [[win(1, 7, A)], [moved, win(1, 7, A)]]) {
      const r = pinFields(
        [{ pid: 7, frames: [fieldIn(B)] }],
        { before: [front, win(1, 7, A)], after },
        [win(1, 7, A)],
      );
      expect(r.frames).toContainEqual(A);
    }
  });
});
