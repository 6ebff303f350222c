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
  /**
   * With no change event yet, stop waiting for a first one once the app has been quiet
   * for long enough by its own answers to `ping` (within `firstEventMs`).
   */
  pace?: { ping: () => Promise<unknown>; quiet: AnswerQuiet };
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
  const pace = opts.pace && new AnswerPace(opts.pace.quiet);
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
      if (pace && opts.pace) {
        await pace.ping(opts.pace.ping);
        const quietFor = Date.now() - Math.max(startedAt, source.activity(pid).lastAt);
        if (source.activity(pid).count === startCount && pace.quietEnough(quietFor)) {
          return done('no-events, answered');
        }
      }
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

/**
 * How long an app must stay quiet, judged by its own pace: `factor` times its slowest
 * answer to a ping since the wait began, at least `minMs` and at most `maxMs`. A ping is
 * answered from the app's main loop, so an app still busy with the action answers late and
 * gets a longer window, and one that answers at once has nothing left to say.
 */
export interface AnswerQuiet {
  minMs: number;
  factor: number;
  maxMs: number;
}

/** Ends when the app sent a change event (true) or has been quiet long enough by its pace. */
export async function changeOrQuiet(
  source: ActivitySource,
  pid: number,
  ping: () => Promise<unknown>,
  opts: AnswerQuiet,
): Promise<boolean> {
  const seen = source.activity(pid).count;
  const start = Date.now();
  const pace = new AnswerPace(opts);
  for (;;) {
    await pace.ping(ping);
    const { count, lastAt } = source.activity(pid);
    if (count !== seen) return true;
    const now = Date.now();
    if (now - start >= opts.maxMs || pace.quietEnough(now - Math.max(start, lastAt))) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** The app's answer times during one wait, and whether a quiet stretch is long enough. */
export class AnswerPace {
  private answers = 0;
  private slowest = 0;

  constructor(private readonly opts: AnswerQuiet) {}

  /** Times one read the app answers itself (a failed read counts: the app did answer). */
  async ping<T>(read: () => Promise<T>): Promise<T | undefined> {
    const t0 = Date.now();
    try {
      return await read();
    } catch {
      return undefined;
    } finally {
      this.note(Date.now() - t0);
    }
  }

  note(answerMs: number): void {
    this.answers++;
    this.slowest = Math.max(this.slowest, answerMs);
  }

  /** The window the app must stay quiet for, by its slowest answer so far. */
  windowMs(): number {
    return Math.min(this.opts.maxMs, Math.max(this.opts.minMs, this.opts.factor * this.slowest));
  }

  /** Two answers at least (the app had a turn of its main loop in between) and quiet since. */
  quietEnough(quietForMs: number): boolean {
    return this.answers >= 2 && quietForMs >= this.windowMs();
  }
}
