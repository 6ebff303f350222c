/** Sample statistics and timing loops for the benchmark. Measured, never asserted. */

export interface Stats {
  n: number;
  median: number;
  p90: number;
  min: number;
  max: number;
}

/** Median (mean of the middle two for even n), p90 by nearest rank, min and max. */
export function stats(samples: readonly number[]): Stats {
  if (samples.length === 0) return { n: 0, median: NaN, p90: NaN, min: NaN, max: NaN };
  const s = [...samples].sort((a, b) => a - b);
  const n = s.length;
  const mid = Math.floor(n / 2);
  const median = n % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  const p90 = s[Math.min(n - 1, Math.ceil(0.9 * n) - 1)];
  return { n, median, p90, min: s[0], max: s[n - 1] };
}

/** Runs `fn` `warmup` times unmeasured, then `n` times; wall ms of each measured run. */
export async function timeRuns(
  n: number,
  warmup: number,
  fn: (i: number) => Promise<unknown> | unknown,
): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(-1 - i);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out;
}

/** Synchronous variant for pure functions, measured in one batch per sample (µs-scale work). */
export function timeSync(n: number, warmup: number, fn: () => unknown): number[] {
  for (let i = 0; i < warmup; i++) fn();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    fn();
    out.push(performance.now() - t0);
  }
  return out;
}
