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
