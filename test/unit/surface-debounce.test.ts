/** Subscriptions' debounce: one call per burst, after quiet, at the latest maxMs in. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Debouncer } from '../../src/surface/debounce.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Debouncer', () => {
  const timing = { quietMs: 400, maxMs: 2000 };

  it('fires once after a burst has been quiet for quietMs', () => {
    const fire = vi.fn();
    const d = new Debouncer(fire, timing);
    d.poke();
    vi.advanceTimersByTime(300);
    d.poke();
    vi.advanceTimersByTime(300);
    d.poke();
    vi.advanceTimersByTime(399);
    expect(fire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fire).toHaveBeenCalledTimes(1);
  });

  it('fires at maxMs when events never stop, then starts a new burst', () => {
    const fire = vi.fn();
    const d = new Debouncer(fire, timing);
    for (let t = 0; t < 2000; t += 100) {
      d.poke();
      vi.advanceTimersByTime(100);
    }
    expect(fire).toHaveBeenCalledTimes(1);
    d.poke();
    vi.advanceTimersByTime(400);
    expect(fire).toHaveBeenCalledTimes(2);
  });

  it('does nothing without events, and nothing after stop', () => {
    const fire = vi.fn();
    const d = new Debouncer(fire, timing);
    vi.advanceTimersByTime(10_000);
    expect(fire).not.toHaveBeenCalled();
    d.poke();
    d.stop();
    d.poke();
    vi.advanceTimersByTime(10_000);
    expect(fire).not.toHaveBeenCalled();
  });
});
