/**
 * Change events seen from the bench's own backend: waiting for an app to go quiet before
 * timing it, and counting the events a walk of ours provokes in an otherwise idle app
 * (each one marks the server's cached view dirty, so the next call walks again).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { LinuxDesktop } from '../platform/linux/index.js';

/** Waits until `quietMs` pass without a change event (at most `maxMs`); ms waited. */
export async function waitQuiet(
  backend: LinuxDesktop,
  pid: number,
  quietMs = 300,
  maxMs = 5000,
): Promise<number> {
  let last = performance.now();
  const t0 = last;
  const unwatch = await backend.watchChanges(pid, () => {
    last = performance.now();
  });
  try {
    while (performance.now() - last < quietMs && performance.now() - t0 < maxMs) await sleep(20);
  } finally {
    await unwatch();
  }
  return performance.now() - t0;
}

/**
 * Events during `walks` walks (each followed by `gapMs`), against the events of an idle
 * stretch of the same total length before them.
 */
export async function eventsPerWalk(
  backend: LinuxDesktop,
  pid: number,
  walk: () => Promise<unknown>,
  walks = 3,
  gapMs = 150,
): Promise<{ idle: number; perWalk: number }> {
  let n = 0;
  const unwatch = await backend.watchChanges(pid, () => {
    n++;
  });
  try {
    await sleep(gapMs);
    n = 0;
    const t0 = performance.now();
    for (let i = 0; i < walks; i++) {
      await walk();
      await sleep(gapMs);
    }
    const during = n;
    const span = performance.now() - t0;
    n = 0;
    await sleep(span);
    return { idle: n / walks, perWalk: during / walks };
  } finally {
    await unwatch();
  }
}
