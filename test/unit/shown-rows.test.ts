import { describe, expect, it } from 'vitest';
import { firstWhere, rowsNearestView } from '../../src/platform/linux/atspi/shown-rows.js';

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
