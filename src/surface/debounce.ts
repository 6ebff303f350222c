/**
 * Coalesces bursts of events into one call: `fire` runs once the events have been quiet
 * for `quietMs`, and at the latest `maxMs` after the first event of the burst, so an app
 * that never stops changing (a clock) still reports, at most once per `maxMs`.
 */
export interface DebounceTiming {
  quietMs: number;
  maxMs: number;
}

/** What subscriptions use: an app settles within a few hundred ms of a change. */
export const SUBSCRIPTION_DEBOUNCE: DebounceTiming = { quietMs: 400, maxMs: 2000 };

export class Debouncer {
  private timer?: NodeJS.Timeout;
  private firstAt = 0;
  private stopped = false;

  constructor(
    private readonly fire: () => void,
    private readonly timing: DebounceTiming = SUBSCRIPTION_DEBOUNCE,
    private readonly now: () => number = Date.now,
  ) {}

  /** One event: (re)start the quiet wait, bounded by the burst's deadline. */
  poke(): void {
    if (this.stopped) return;
    const now = this.now();
    if (this.timer === undefined) this.firstAt = now;
    else clearTimeout(this.timer);
    const wait = Math.min(this.timing.quietMs, this.firstAt + this.timing.maxMs - now);
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.fire();
      },
      Math.max(0, wait),
    );
    this.timer.unref?.();
  }

  /** Drop a pending call; later events are ignored. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
