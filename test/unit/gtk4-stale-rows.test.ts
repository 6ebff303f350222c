/**
 * GTK4 list views keep the last boxes of rows they no longer allocate: the rows out of
 * order are dropped from the screen, the shown run is kept.
 */
import { describe, expect, it } from 'vitest';
import type { Element } from '../../src/model/element.js';
import { dropStaleRows, rowRuns } from '../../src/platform/linux/atspi/gtk4.js';

const box = (y: number, x = 0) => ({ x, y, w: 100, h: 36 });

function list(rowYs: number[]): Element[] {
  const out: Element[] = [
    {
      id: 'a/1',
      parent: -1,
      depth: 0,
      role: 'AXList',
      nativeRole: 'list',
      name: '',
      frame: { x: 0, y: 0, w: 100, h: 500 },
      flags: [],
      actions: [],
      childCount: rowYs.length,
    },
  ];
  rowYs.forEach((y, k) => {
    const row = out.length;
    out.push({
      id: `a/r${k}`,
      parent: 0,
      depth: 1,
      role: 'AXRow',
      nativeRole: 'list item',
      name: '',
      frame: box(y),
      flags: [],
      actions: [],
      childCount: 1,
    });
    out.push({
      id: `a/l${k}`,
      parent: row,
      depth: 2,
      role: 'AXStaticText',
      nativeRole: 'label',
      name: `row ${k}`,
      frame: box(y),
      flags: [],
      actions: [],
      childCount: 0,
    });
  });
  return out;
}

const shown = (els: Element[]) =>
  els
    .filter((e) => e.nativeRole === 'label' && e.frame && !e.flags.includes('offscreen'))
    .map((e) => e.name);

describe('rowRuns', () => {
  it('splits where a row overlaps the one before it', () => {
    expect(rowRuns([box(0), box(38), box(76), box(10), box(48)])).toEqual([
      [0, 1, 2],
      [3, 4],
    ]);
  });
  it('takes rows that touch, or overlap by a rounding pixel, as one run', () => {
    expect(rowRuns([box(0), box(36), box(71)])).toEqual([[0, 1, 2]]);
  });
  it('judges no grid (rows side by side)', () => {
    expect(rowRuns([box(0, 0), box(0, 100), box(36, 0)])).toBeUndefined();
  });
});

describe('dropStaleRows', () => {
  it('hides the rows scrolled out above, left at their old boxes over the shown ones', () => {
    // Rows 0-2 kept their boxes from before a 120 px scroll; rows 3-8 are allocated now.
    const els = list([0, 38, 76, -6, 32, 70, 108, 146, 184]);
    dropStaleRows(els);
    expect(shown(els)).toEqual(['row 3', 'row 4', 'row 5', 'row 6', 'row 7', 'row 8']);
    expect(els.find((e) => e.name === 'row 0')?.flags).toContain('offscreen');
  });
  it('hides the rows scrolled out below after scrolling back up', () => {
    // Rows 0-3 are allocated now; rows 4-5 kept the boxes they had when scrolled to.
    const els = list([0, 38, 76, 114, 40, 78]);
    dropStaleRows(els);
    expect(shown(els)).toEqual(['row 0', 'row 1', 'row 2', 'row 3']);
    expect(els.find((e) => e.name === 'row 5')?.frame).toBeUndefined();
  });
  it('leaves a list in order alone', () => {
    const els = list([0, 38, 76, 114]);
    dropStaleRows(els);
    expect(shown(els)).toEqual(['row 0', 'row 1', 'row 2', 'row 3']);
  });
  it('drops both runs when they are as long (which is shown cannot be told)', () => {
    const els = list([0, 38, 10, 48]);
    dropStaleRows(els);
    expect(shown(els)).toEqual([]);
  });
});
