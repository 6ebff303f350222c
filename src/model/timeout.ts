/**
 * Waits bounded in time, for every layer: `withTimeout` for one operation that may hang,
 * `pollUntil` for a condition read again until it holds.
 */

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
  const deadline = Date.now() + opts.timeoutMs;
  const interval = opts.intervalMs ?? 10;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() >= deadline) {
      throw new WaitTimeoutError(`${opts.what}: not ready within ${opts.timeoutMs} ms`);
    }
    await sleep(interval);
  }
}
