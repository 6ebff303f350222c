/**
 * diffSnapshots on 10 000-element trees: what it finds when a big list scrolls and one
 * row's check box changes, and when every id is new. How long it takes is not asserted
 * here (speed belongs to npm run bench).
 */
import { describe, expect, it } from 'vitest';
import { diffSnapshots } from '../../src/diff/index.js';
import { listWindow, range } from './helpers/diff-fixtures.js';

describe('diffs of 10 000-element snapshots', () => {
  it.each([
    ['platform ids', (k: number) => `:1.7/row/${k}`],
    ['path signatures', () => ''],
  ])(
    'a scrolled, edited 10 000-element tree: 15 rows in, 15 out, one real change (%s)',
    (_label, rowId) => {
      // 2000 rows of 5 elements (row + 4 cells) plus the window chrome.
      const before = listWindow({ rows: range(0, 2000), rowId, cells: 4 });
      // Scrolled by 3 rows: rows 0..2 gone, 2000..2002 new; every remaining element moved.
      const after = listWindow({ rows: range(3, 2003), rowId, cells: 4, top: 100 - 3 * 20 });
      const box = after.elements.findIndex((el) => el.name === 'Done');
      after.elements[box].flags = ['enabled', 'checked'];
      const d = diffSnapshots(before, after);
      expect(before.elements.length).toBeGreaterThanOrEqual(10_000);
      expect(d.added).toHaveLength(15);
      expect(d.removed).toHaveLength(15);
      expect(d.modified).toHaveLength(1997 * 5);
      expect(d.modified.filter((m) => !m.moved).map((m) => m.after)).toEqual([box]);
    },
  );

  it('10 000 re-created elements (every id new) are matched by the second pass: no change', () => {
    const before = listWindow({ rows: range(0, 2000), rowId: (k) => `a${k}`, cells: 4 });
    const after = listWindow({ rows: range(0, 2000), rowId: (k) => `b${k}`, cells: 4 });
    const d = diffSnapshots(before, after);
    expect(after.elements.length).toBeGreaterThanOrEqual(10_000);
    expect(d.added).toEqual([]);
    expect(d.removed).toEqual([]);
    expect(d.modified).toEqual([]);
  });
});
