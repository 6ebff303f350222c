/**
 * Waits bounded in time, for every layer: `withTimeout` for one operation that may hang,
 * `pollUntil`/`pollFor` for a condition read again until it holds, with bounds that grow
 * with the machine's load (a busy machine makes every app slow to answer).
 */
import os from 'node:os';

/** How often a condition is read again. */
const POLL_MS = 10;

/**
 * A promise bounded in time: the one helper for every wait on something that may hang
 * (a bus call to a frozen app, a mkdir on a hung mount). The operation itself is not
 * cancelled; its late result or rejection is absorbed by the race.
 */
export function withTimeout<T>(op: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
    // A pending bound must not keep the process alive on its own.
    timer.unref();
  });
  return Promise.race([op, timeout]).finally(() => clearTimeout(timer));
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * A signal that aborts with `parent` or after `ms`, and `clear` to stop its timer. Not
 * AbortSignal.any with AbortSignal.timeout: on Node 20 a timeout signal that only the
 * combined signal refers to can be garbage-collected before it fires, and then never does.
 */
export function abortAfter(
  parent: AbortSignal,
  ms: number,
): { signal: AbortSignal; clear: () => void } {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new Error(`timed out after ${ms} ms`)), ms);
  return { signal: AbortSignal.any([parent, timeout.signal]), clear: () => clearTimeout(timer) };
}

export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError';
}

/**
 * Polls `check` every `intervalMs` until it returns a value other than undefined/null/false,
 * or `timeoutMs` passes (then throws, naming `what`). `check` may throw to abort the wait.
 */
export async function pollUntil<T>(
  check: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  opts: { timeoutMs: number; intervalMs?: number; what: string },
): Promise<T> {
  let found: T | undefined;
  const held = await pollFor(
    async () => {
      const v = await check();
      if (v === undefined || v === null || v === false) return false;
      found = v;
      return true;
    },
    opts.timeoutMs,
    opts.intervalMs,
  );
  if (!held) throw new WaitTimeoutError(`${opts.what}: not ready within ${opts.timeoutMs} ms`);
  return found as T;
}

/**
 * Reads `check` until it holds or `timeoutMs` has passed (it is read once more at the end);
 * whether it held. A check that throws ends the wait with that error.
 */
export async function pollFor(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  intervalMs = POLL_MS,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(intervalMs);
  }
}

/** Runnable tasks per CPU over the last minute (1 or more when every CPU is busy). */
export function loadPerCpu(): number {
  const load = os.loadavg()[0] / Math.max(1, os.availableParallelism());
  return Number.isFinite(load) ? load : 1;
}

/** `ms` stretched by the load per CPU (never less than `ms`), capped at `mostMs`. */
export function scaledByLoad(ms: number, mostMs: number, load = loadPerCpu()): number {
  return Math.round(Math.min(mostMs, ms * Math.max(1, Number.isFinite(load) ? load : 1)));
}
