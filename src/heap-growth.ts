/**
 * How far the server's old heap may grow past what a full collection left live before V8
 * collects it in full again.
 *
 * V8 sets that limit anew after each full collection from the speeds it measured, and for
 * a heap as small as the server's (~25 MB) the limit often lands close above the live
 * size. Each call keeps its snapshot, view and refs until the next call on the app, so
 * some of every call's objects live through a young collection and move to the old heap:
 * a server whose limit landed low then collects in full every two or three calls. Four
 * servers of the same build, called in turn on one desktop, ran 11, 30, 32 and 37 full
 * collections over the same ~70 calls, and the slow ones spent twice the CPU per call.
 * With the heap allowed to grow to 3x its live size the same servers ran 3 or 4, and
 * their round trips were 15 ms shorter (medians 44.8 / 47.4 against 63.0 / 58.5 ms).
 * The price is memory: the old heap may reach 3x what is live (those servers' heaps ended
 * at 40-53 MB against 23-31 MB).
 */
import v8 from 'node:v8';

export const DEFAULT_HEAP_GROWTH_PERCENT = 200;

/**
 * Applies `percent` to this process (V8 reads the flag at every full collection, so it
 * holds from the next one on). 0 leaves V8's own rule.
 */
export function applyHeapGrowth(percent: number): void {
  if (!Number.isInteger(percent) || percent < 0) {
    throw new RangeError(`heap growth must be a whole number of percent >= 0, got ${percent}`);
  }
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
