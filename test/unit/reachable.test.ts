import { describe, expect, it } from 'vitest';
import type { Element, Rect, Snapshot } from '../../src/model/element.js';
import { reachableFrame } from '../../src/viewport/index.js';
import { cutOff } from '../../src/viewport/geometry.js';

type Row = [number, Rect | undefined, string?, string?];

function snapshotOf(frames: Row[]): Snapshot {
  const depths: number[] = [];
  const elements = frames.map(([parent, frame, role, nativeRole], i): Element => ({
    id: `e${i}`,
    parent,
    depth: (depths[i] = parent >= 0 && parent < i ? depths[parent] + 1 : 0),
    role: role ?? 'AXGroup',
    nativeRole: nativeRole ?? 'panel',
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

  it("is not cut by the scroll pane a combo box's list hangs in: the list is a popup of its own", () => {
    // Qt: the open list's rows hang under the combo box, inside the dialog's scroll pane,
    // but are drawn in a popup window below it; the second row is 2 px inside the pane.
    const s = snapshotOf([
      [-1, { x: 0, y: 0, w: 600, h: 600 }, 'AXWindow', 'dialog'],
      [0, { x: 10, y: 100, w: 400, h: 160 }, 'AXScrollArea', 'scroll pane'],
      [1, { x: 62, y: 234, w: 120, h: 23 }, 'AXComboBox', 'combo box'],
      [2, { x: 63, y: 235, w: 118, h: 92 }, 'AXList', 'list'],
      [3, { x: 63, y: 258, w: 231, h: 23 }, 'AXRow', 'list item'],
      [3, { x: 63, y: 304, w: 231, h: 23 }, 'AXRow', 'list item'],
    ]);
    expect(reachableFrame(s, 4)).toEqual({ x: 63, y: 258, w: 118, h: 23 });
    // A row wholly below the pane is cut the same way: by its list, not the pane.
    expect(reachableFrame(s, 5)).toEqual({ x: 63, y: 304, w: 118, h: 23 });
  });

  it("leaves out the table's column header drawn over a cell scrolled under it", () => {
    const s = snapshotOf([
      [-1, { x: 0, y: 0, w: 600, h: 600 }, 'AXWindow', 'frame'],
      [0, { x: 257, y: 51, w: 320, h: 260 }, 'AXTable', 'table'],
      [1, { x: 258, y: 52, w: 100, h: 19 }, 'AXButton', 'table column header'],
      [1, { x: 358, y: 52, w: 100, h: 19 }, 'AXButton', 'table column header'],
      [1, { x: 258, y: 51, w: 99, h: 29 }, 'AXCell', 'table cell'],
      [1, { x: 258, y: 41, w: 200, h: 29 }, 'AXCell', 'table cell'],
      [1, { x: 258, y: 81, w: 99, h: 29 }, 'AXCell', 'table cell'],
    ]);
    expect(reachableFrame(s, 4)).toEqual({ x: 258, y: 71, w: 99, h: 9 });
    // Under both headers at once (a cell spanning two columns): cut by the row of them.
    expect(reachableFrame(s, 5)).toEqual({ x: 258, y: 51, w: 200, h: 1 });
    expect(reachableFrame(s, 6)).toEqual({ x: 258, y: 81, w: 99, h: 29 });
    // A header itself is not cut by its neighbour.
    expect(reachableFrame(s, 2)).toEqual({ x: 258, y: 52, w: 100, h: 19 });
  });
});

describe('cutOff: a rect less a band across it', () => {
  const a = { x: 0, y: 0, w: 100, h: 30 };
  it('keeps the larger side of a band across it, and nothing of a cover', () => {
    expect(cutOff(a, { x: -5, y: -5, w: 200, h: 20 })).toEqual({ x: 0, y: 15, w: 100, h: 15 });
    expect(cutOff(a, { x: -5, y: 25, w: 200, h: 20 })).toEqual({ x: 0, y: 0, w: 100, h: 25 });
    expect(cutOff(a, { x: -5, y: -5, w: 20, h: 50 })).toEqual({ x: 15, y: 0, w: 85, h: 30 });
    expect(cutOff(a, { x: -5, y: -5, w: 200, h: 50 })).toEqual({ x: 0, y: 0, w: 0, h: 0 });
  });
  it('cuts nothing at a corner, inside, or apart', () => {
    expect(cutOff(a, { x: 90, y: 20, w: 50, h: 50 })).toEqual(a);
    expect(cutOff(a, { x: 10, y: 10, w: 5, h: 5 })).toEqual(a);
    expect(cutOff(a, { x: 200, y: 0, w: 5, h: 5 })).toEqual(a);
  });
});
