import { describe, expect, it } from 'vitest';
import type { Element, Rect, Snapshot } from '../../src/model/element.js';
import { reachableFrame } from '../../src/viewport/index.js';

function snapshotOf(frames: Array<[number, Rect | undefined]>): Snapshot {
  const elements = frames.map(([parent, frame], i): Element => ({
    id: `e${i}`,
    parent,
    depth: 0,
    role: 'AXGroup',
    nativeRole: 'panel',
    name: '',
    flags: [],
    actions: [],
    childCount: 0,
    ...(frame ? { frame } : {}),
  }));
  return {
    pid: 1,
    app: 'a',
    elements,
    windows: [],
    truncated: null,
    elapsedMs: 0,
    takenAt: 0,
    method: 'x',
  };
}

describe('reachableFrame: where a pointer event reaches an element', () => {
  it('is the part of a row its narrower popup shows', () => {
    const s = snapshotOf([
      [-1, { x: 0, y: 0, w: 1000, h: 800 }],
      [0, { x: 827, y: 452, w: 63, h: 92 }],
      [1, { x: 827, y: 475, w: 176, h: 23 }],
    ]);
    expect(reachableFrame(s, 2)).toEqual({ x: 827, y: 475, w: 63, h: 23 });
  });

  it('is not cut by an ancestor that shares none of it (a menu title above its popup), nor one without a frame', () => {
    const s = snapshotOf([
      [-1, { x: 0, y: 0, w: 1000, h: 800 }],
      [0, { x: 10, y: 30, w: 40, h: 20 }],
      [1, undefined],
      [2, { x: 10, y: 52, w: 120, h: 24 }],
    ]);
    expect(reachableFrame(s, 3)).toEqual({ x: 10, y: 52, w: 120, h: 24 });
  });

  it('is undefined without a frame of its own, and ends at a cycle', () => {
    const s = snapshotOf([
      [1, { x: 0, y: 0, w: 10, h: 10 }],
      [0, { x: 5, y: 5, w: 10, h: 10 }],
      [0, undefined],
    ]);
    expect(reachableFrame(s, 2)).toBeUndefined();
    expect(reachableFrame(s, 0)).toEqual({ x: 5, y: 5, w: 5, h: 5 });
  });
});
