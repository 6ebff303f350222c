/**
 * Waiting on a condition: the one loop behind every bounded wait for an app to catch up
 * (a focus to move, a value to land, a character to show). Waits grow with the machine's
 * load, since a busy machine makes every app slow to answer.
 */
import os from 'node:os';

/** How often a condition is read again. */
const POLL_MS = 10;

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
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Runnable tasks per CPU over the last minute (1 or more when the machine is busy). */
export function loadPerCpu(): number {
  const load = os.loadavg()[0] / Math.max(1, os.availableParallelism());
  return Number.isFinite(load) ? load : 1;
}

/** `ms` stretched by the load per CPU (never less than `ms`), capped at `mostMs`. */
export function scaledByLoad(ms: number, mostMs: number): number {
  return Math.round(Math.min(mostMs, ms * Math.max(1, loadPerCpu())));
}
