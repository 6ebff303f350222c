/**
 * Settle, not sleep: after an action, wait until the app is quiet instead of sleeping a
 * fixed time. Quiet means no change event for `quietMs` after the last one; an action
 * whose effect is asynchronous (GTK runs DoAction from an idle callback, XTest input is
 * queued) gets `firstEventMs` to show a first sign of change. A process the action
 * started extends the wait until it shows a window, within `spawnWaitMs`.
 */
import type { Desktop } from '../platform/desktop.js';

export interface SettleOptions {
  quietMs: number;
  /** Wait at most this long for the first change event. */
  firstEventMs: number;
  maxMs: number;
  spawnWaitMs: number;
}

export interface SettleResult {
  ms: number;
  /** quiet | no-events | bound | spawn-ready | spawn-timeout | unwatched */
  reason: string;
  events: number;
  /** Processes the action started that now have an accessible window. */
  spawned: number[];
}

export interface ActivitySource {
  activity(pid: number): { count: number; lastAt: number };
}

const POLL_MS = 10;
const CHILD_POLL_MS = 40;

export async function settle(
  desktop: Desktop,
  source: ActivitySource,
  pid: number,
  childrenBefore: Set<number>,
  startedAt: number,
  opts: SettleOptions,
  watching: boolean,
): Promise<SettleResult> {
  const startCount = source.activity(pid).count;
  let lastChildPoll = 0;
  let pending: number[] = [];
  const spawned: number[] = [];
  const done = (reason: string): SettleResult => ({
    ms: Date.now() - startedAt,
    reason,
    events: source.activity(pid).count - startCount,
    spawned: [...spawned],
  });
  for (;;) {
    const now = Date.now();
    const elapsed = now - startedAt;
    const { count, lastAt } = source.activity(pid);
    const events = count - startCount;

    if (now - lastChildPoll >= CHILD_POLL_MS) {
      lastChildPoll = now;
      const kids = await desktop.childProcesses(pid).catch(() => []);
      const fresh = kids.filter((k) => !childrenBefore.has(k) && !spawned.includes(k));
      if (fresh.length > 0) {
        const windows = await desktop.listApps().catch(() => []);
        const ready = fresh.filter((k) => windows.some((a) => a.pid === k && a.windows > 0));
        spawned.push(...ready);
        // Once one started process shows a window, the others (a shell wrapper, a
        // helper with no window) are not waited for.
        pending = spawned.length > 0 ? [] : fresh.filter((k) => !ready.includes(k));
      } else {
        pending = [];
      }
    }

    if (pending.length > 0) {
      if (elapsed >= opts.spawnWaitMs) return done('spawn-timeout');
    } else if (spawned.length > 0 && now - Math.max(lastAt, startedAt) >= opts.quietMs) {
      return done('spawn-ready');
    } else if (!watching) {
      // No events to go by: the caller compares snapshots instead.
      if (elapsed >= opts.quietMs) return done('unwatched');
    } else if (events === 0) {
      if (elapsed >= opts.firstEventMs) return done('no-events');
    } else if (now - lastAt >= opts.quietMs) {
      return done('quiet');
    }
    if (pending.length === 0 && elapsed >= opts.maxMs) return done('bound');
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Wait until no change event came for `quietMs` (after late events), bounded by `maxMs`. */
export async function waitQuiet(
  source: ActivitySource,
  pid: number,
  quietMs: number,
  maxMs: number,
): Promise<void> {
  const start = Date.now();
  while (Date.now() - start < maxMs) {
    const now = Date.now();
    if (now - Math.max(source.activity(pid).lastAt, start - quietMs) >= quietMs) return;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
