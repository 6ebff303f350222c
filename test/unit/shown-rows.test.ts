import { describe, expect, it } from 'vitest';
import { firstWhere } from '../../src/platform/linux/atspi/shown-rows.js';

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
