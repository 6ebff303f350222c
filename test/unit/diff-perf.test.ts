import { describe, expect, it } from 'vitest';
import { diffSnapshots } from '../../src/diff/index.js';
import { listWindow, range } from './helpers/diff-fixtures.js';

/** Best of a few runs, so the printed number is not the JIT's first pass. */
function timed<T>(run: () => T): { result: T; ms: number; firstMs: number } {
  let best = Infinity;
  const t = performance.now();
  let result = run();
  const firstMs = performance.now() - t;
  for (let k = 0; k < 5; k++) {
    const t0 = performance.now();
    result = run();
    best = Math.min(best, performance.now() - t0);
  }
  return { result, ms: best, firstMs };
}

describe('diff performance on 10 000-element snapshots', () => {
  it.each([
    ['platform ids', (k: number) => `:1.7/row/${k}`],
    ['path signatures', () => ''],
  ])('diffs a scrolled, edited 10 000-element tree (%s)', (label, rowId) => {
    // 2000 rows of 5 elements (row + 4 cells) plus the window chrome.
    const before = listWindow({ rows: range(0, 2000), rowId, cells: 4 });
    // Scrolled by 3 rows: rows 0..2 gone, 2000..2002 new; every remaining element moved.
    const after = listWindow({ rows: range(3, 2003), rowId, cells: 4, top: 100 - 3 * 20 });
    const box = after.elements.findIndex((el) => el.name === 'Done');
    after.elements[box].flags = ['enabled', 'checked'];
    const { result: d, ms, firstMs } = timed(() => diffSnapshots(before, after));
    console.log(
      `diffSnapshots ${label}: ${before.elements.length} -> ${after.elements.length} elements in ${ms.toFixed(1)} ms ` +
        `(first run ${firstMs.toFixed(1)} ms) ` +
        `(+${d.added.length} -${d.removed.length} ~${d.modified.length})`,
    );
    expect(before.elements.length).toBeGreaterThanOrEqual(10_000);
    expect(d.added).toHaveLength(15);
    expect(d.removed).toHaveLength(15);
    expect(d.modified).toHaveLength(1997 * 5);
    expect(d.modified.filter((m) => !m.moved).map((m) => m.after)).toEqual([box]);
  });

  it('diffs 10 000 re-created elements (every id new) through the second pass', () => {
    const before = listWindow({ rows: range(0, 2000), rowId: (k) => `a${k}`, cells: 4 });
    const after = listWindow({ rows: range(0, 2000), rowId: (k) => `b${k}`, cells: 4 });
    const { result: d, ms, firstMs } = timed(() => diffSnapshots(before, after));
    console.log(
      `diffSnapshots all re-created: ${after.elements.length} elements in ${ms.toFixed(1)} ms (first run ${firstMs.toFixed(1)} ms)`,
    );
    expect(d.added).toEqual([]);
    expect(d.removed).toEqual([]);
    expect(d.modified).toEqual([]);
  });
});
