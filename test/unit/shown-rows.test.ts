import { describe, expect, it } from 'vitest';
import type { ObjectRef } from '../../src/platform/linux/atspi/bus.js';
import type { CallFn } from '../../src/platform/linux/atspi/read.js';
import {
  firstWhere,
  listedChildren,
  rowsNearestView,
  treeViewLayout,
} from '../../src/platform/linux/atspi/shown-rows.js';

describe('firstWhere (the search for the ends of the rows in view)', () => {
  it('finds the first index where a false-then-true test holds, for every boundary', async () => {
    for (const n of [0, 1, 2, 15, 16, 17, 100, 3001]) {
      const step = Math.max(1, Math.floor(n / 40));
      for (let boundary = 0; boundary <= n; boundary += step) {
        const asked = new Set<number>();
        const found = await firstWhere(0, n, async (i) => {
          expect(i).toBeGreaterThanOrEqual(0);
          expect(i).toBeLessThan(n);
          asked.add(i);
          return i >= boundary;
        });
        expect(found).toBe(boundary);
        // A few rounds of 16, not a probe per row.
        expect(asked.size).toBeLessThanOrEqual(Math.min(n, 16 * 4));
      }
    }
  });

  it('searches only inside the range it is given', async () => {
    const found = await firstWhere(100, 200, async (i) => {
      expect(i >= 100 && i < 200).toBe(true);
      return i >= 150;
    });
    expect(found).toBe(150);
    expect(await firstWhere(5, 5, async () => true)).toBe(5);
  });
});

describe('rowsNearestView (which rows a cut keeps)', () => {
  const sorted = (s: Set<number>) => [...s].sort((a, b) => a - b);

  it('keeps the rows in view, then the nearest ones, after the view first', () => {
    expect(sorted(rowsNearestView(100, 4, [10, 14]))).toEqual([10, 11, 12, 13]);
    expect(sorted(rowsNearestView(100, 6, [10, 14]))).toEqual([9, 10, 11, 12, 13, 14]);
    expect(sorted(rowsNearestView(100, 5, [10, 14]))).toEqual([10, 11, 12, 13, 14]);
  });

  it('stays inside the table at either end', () => {
    expect(sorted(rowsNearestView(20, 6, [0, 3]))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(sorted(rowsNearestView(20, 6, [17, 20]))).toEqual([14, 15, 16, 17, 18, 19]);
    expect(rowsNearestView(5, 50, [1, 2]).size).toBe(5);
    expect(rowsNearestView(5, 0, [1, 2]).size).toBe(0);
  });
});

/**
 * A GTK 3 tree view as its bridge answers: `columns` headers, then `rows` rows of cells;
 * a cell whose row is outside [first, afterLast) answers INT_MIN for its frame.
 */
function fakeTreeView(rows: number, columns: number, [first, afterLast]: [number, number]) {
  const INT_MIN = -2147483648;
  const count = (rows + 1) * columns;
  const kids: ObjectRef[] = Array.from({ length: count }, (_, i) => [':1.9', `/c/${i}`]);
  const calls: string[] = [];
  const call: CallFn = async (_dest, path, _iface, member, _sig, body) => {
    calls.push(`${member} ${path}${member === 'Get' ? ` ${(body as string[])[1]}` : ''}`);
    if (member === 'Get') return [{ value: columns }];
    if (member === 'GetAccessibleAtPoint') {
      const mid = Math.floor((first + afterLast) / 2);
      return [kids[(mid + 1) * columns]];
    }
    if (path === '/table') return [[0, 0, 100, 10 * (afterLast - first + 1)]];
    const i = Number(path.slice(3));
    const r = Math.floor(i / columns) - 1;
    const x = (i % columns) * 10;
    if (r < 0) return [[x, 0, 10, 10]];
    return r >= first && r < afterLast
      ? [[x, (r - first + 1) * 10, 10, 10]]
      : [[INT_MIN, INT_MIN, 10, 10]];
  };
  return { call, calls, kids: listedChildren(kids), count };
}

describe('treeViewLayout (which rows of a GTK 3 tree view are in view)', () => {
  const views: Array<[number, [number, number]]> = [
    [40, [0, 10]],
    [40, [15, 25]],
    [40, [30, 40]],
    [8, [0, 8]],
    [300, [137, 151]],
  ];

  it('finds the rows in view by searching', async () => {
    for (const [rows, view] of views) {
      const t = fakeTreeView(rows, 2, view);
      const layout = await treeViewLayout(t.call, [':1.9', '/table'], t.kids);
      expect(layout?.inView).toEqual(view);
      expect(layout?.count).toBe(t.count);
      for (let i = 2; i < t.count; i++) {
        const r = Math.floor(i / 2) - 1;
        expect(layout?.outOfView(i)).toBe(r < view[0] || r >= view[1]);
      }
    }
  });

  it('checks where an earlier walk found them with one round of at most 4 frames', async () => {
    for (const [rows, view] of views) {
      const first = fakeTreeView(rows, 2, view);
      const before = await treeViewLayout(first.call, [':1.9', '/table'], first.kids);
      const t = fakeTreeView(rows, 2, view);
      const layout = await treeViewLayout(t.call, [':1.9', '/table'], t.kids, before);
      expect(layout?.inView).toEqual(view);
      const frames = t.calls.filter((c) => c.startsWith('GetExtents'));
      expect(frames.length).toBeLessThanOrEqual(4);
      expect(t.calls).not.toContain('GetExtents /table');
      expect(t.calls.filter((c) => c.startsWith('GetAccessibleAtPoint'))).toEqual([]);
      expect(t.calls.filter((c) => c.startsWith('Get '))).toEqual(['Get /table NColumns']);
      // The probes' answers are handed on, not asked again.
      for (const c of frames)
        expect(layout?.probed.has(Number(c.slice('GetExtents /c/'.length)))).toBe(true);
    }
  });

  it('searches again when the view moved, the rows changed or the columns did', async () => {
    const seen = { count: 82, columns: 2, column: 0, inView: [15, 25] as const };
    for (const [rows, columns, view] of [
      [40, 2, [16, 26]], // scrolled one row
      [40, 2, [14, 24]],
      [40, 2, [15, 24]], // the window got shorter
      [40, 2, [15, 26]],
      [41, 2, [15, 25]], // a row more
      [81, 1, [15, 25]], // as many children, one column
    ] as Array<[number, number, [number, number]]>) {
      const t = fakeTreeView(rows, columns, view);
      const layout = await treeViewLayout(t.call, [':1.9', '/table'], t.kids, seen);
      expect(layout?.inView).toEqual(view);
      expect(layout?.columns).toBe(columns);
    }
  });
});
