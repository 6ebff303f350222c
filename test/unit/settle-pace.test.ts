/**
 * Waiting at the app's pace: a wait for a late change ends once the app has stayed quiet
 * for a window set by its own answer times, not at a flat bound. Virtual time (fake
 * timers), so nothing here depends on the machine's speed.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { changeOrQuiet, settle, type ActivitySource } from '../../src/pipeline/settle.js';
import type { Desktop } from '../../src/platform/desktop.js';

/** Change events of one app, as the pipeline's views count them. */
class Events implements ActivitySource {
  count = 0;
  lastAt = 0;
  activity(): { count: number; lastAt: number } {
    return { count: this.count, lastAt: this.lastAt };
  }
  fire(): void {
    this.count++;
    this.lastAt = Date.now();
  }
}

/** A ping the app answers after `ms` of (virtual) time. */
const answersIn = (ms: number) => () => new Promise((r) => setTimeout(r, ms));

const BOUND = 5000;
const quiet = { minMs: 60, factor: 4, maxMs: BOUND };

/** Runs `wait` in virtual time; what it resolved to and when. */
async function inVirtualTime<T>(wait: () => Promise<T>): Promise<{ value: T; at: number }> {
  const start = Date.now();
  let settled: { value: T; at: number } | undefined;
  void wait().then((value) => (settled = { value, at: Date.now() - start }));
  for (let i = 0; i < 10_000 && !settled; i++) await vi.advanceTimersByTimeAsync(5);
  if (!settled) throw new Error('the wait never ended');
  return settled;
}

describe('changeOrQuiet', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ends when an app that answers at once stays quiet, long before the bound', async () => {
    const events = new Events();
    const r = await inVirtualTime(() => changeOrQuiet(events, 1, answersIn(1), quiet));
    expect(r.value).toBe(false);
    expect(r.at).toBeGreaterThanOrEqual(quiet.minMs);
    expect(r.at).toBeLessThan(BOUND / 10);
  });

  it('gives an app that answers slowly a longer window', async () => {
    const fast = await inVirtualTime(() => changeOrQuiet(new Events(), 1, answersIn(1), quiet));
    const slow = await inVirtualTime(() => changeOrQuiet(new Events(), 1, answersIn(80), quiet));
    expect(slow.value).toBe(false);
    // 4 x 80 ms of answer time: the window is at least 320 ms of quiet.
    expect(slow.at).toBeGreaterThanOrEqual(4 * 80);
    expect(slow.at).toBeGreaterThan(fast.at);
  });

  it('reports a change that comes before the app has been quiet long enough', async () => {
    const events = new Events();
    setTimeout(() => events.fire(), 30);
    const r = await inVirtualTime(() => changeOrQuiet(events, 1, answersIn(1), quiet));
    expect(r.value).toBe(true);
  });

  it('ends at the bound when the app keeps changing without a counted event (never quiet)', async () => {
    const events = new Events();
    // Activity that moves lastAt on but was counted before the wait began.
    events.count = 5;
    const keepBusy = setInterval(() => (events.lastAt = Date.now()), 10);
    const r = await inVirtualTime(() =>
      changeOrQuiet(events, 1, answersIn(1), { ...quiet, maxMs: 300 }),
    );
    clearInterval(keepBusy);
    expect(r.value).toBe(false);
    expect(r.at).toBeGreaterThanOrEqual(300);
  });
});

describe('settle between steps', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const desktop = {
    childProcesses: async () => [],
    listApps: async () => [],
  } as unknown as Desktop;
  const opts = { quietMs: 60, firstEventMs: 350, maxMs: 1500, spawnWaitMs: 0 };

  it('without a pace, waits the whole first-event window for an app that says nothing', async () => {
    const r = await inVirtualTime(() =>
      settle(desktop, new Events(), 1, new Set(), Date.now(), opts, true),
    );
    expect(r.value.reason).toBe('no-events');
    expect(r.at).toBeGreaterThanOrEqual(350);
  });

  it('with a pace, stops once the app answered at once and stayed quiet', async () => {
    const pace = { ping: answersIn(1), quiet: { minMs: 150, factor: 4, maxMs: 350 } };
    const r = await inVirtualTime(() =>
      settle(desktop, new Events(), 1, new Set(), Date.now(), { ...opts, pace }, true),
    );
    expect(r.value.reason).toBe('no-events, answered');
    expect(r.at).toBeGreaterThanOrEqual(150);
    expect(r.at).toBeLessThan(350);
  });

  it('with a pace, still waits for quiet after a reaction that comes late', async () => {
    const events = new Events();
    const pace = { ping: answersIn(1), quiet: { minMs: 150, factor: 4, maxMs: 350 } };
    setTimeout(() => events.fire(), 100);
    const r = await inVirtualTime(() =>
      settle(desktop, events, 1, new Set(), Date.now(), { ...opts, pace }, true),
    );
    expect(r.value.reason).toBe('quiet');
    expect(r.value.events).toBe(1);
  });
});
