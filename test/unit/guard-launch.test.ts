/** The launch budget: apps launched and still running, and launches per minute. */
import { describe, expect, it } from 'vitest';
import { AxError } from '../../src/errors.js';
import { DEFAULT_POLICY, Policy, type PolicySettings } from '../../src/guard/policy.js';

function policy(over: Partial<PolicySettings>, now: () => number = () => 0): Policy {
  return new Policy({ ...DEFAULT_POLICY, ...over }, now);
}

function refusal(fn: () => void): AxError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AxError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('Policy.admitLaunch', () => {
  it('refuses a launch while the limit of launched apps still runs, and names them', () => {
    const p = policy({ maxLaunchedApps: 2, launchesPerMinute: 0 });
    const alive = new Set([101, 102]);
    for (const pid of alive) {
      p.admitLaunch((x) => alive.has(x));
      p.recordLaunched(pid);
    }
    const err = refusal(() => p.admitLaunch((x) => alive.has(x)));
    expect(err.code).toBe('rate_limited');
    expect(err.message).toBe(
      'launch budget: 2 apps this server launched are still running (pids 101, 102), the limit is 2',
    );
    expect(err.hint).toMatch(/ax_quit_app.*AXPAGE_MAX_LAUNCHED_APPS/);
    // One of them exits: there is room again.
    alive.delete(101);
    expect(() => p.admitLaunch((x) => alive.has(x))).not.toThrow();
  });

  it('refuses past the launches per minute, saying how long to wait, and counts no refusal', () => {
    let now = 1_000_000;
    const p = policy({ maxLaunchedApps: 0, launchesPerMinute: 3 }, () => now);
    for (let i = 0; i < 3; i++) {
      p.admitLaunch(() => false);
      now += 10_000;
    }
    const err = refusal(() => p.admitLaunch(() => false));
    expect(err.message).toBe('launch rate limit: 3 launches in the last minute, the limit is 3');
    expect(err.details).toEqual({ retry_after_s: 30 });
    // The first launch leaves the window after 60 s; the refused ones never counted.
    now = 1_000_000 + 60_000;
    expect(() => p.admitLaunch(() => false)).not.toThrow();
    expect(() => p.admitLaunch(() => false)).toThrow(/launch rate limit/);
  });

  it('has no limit at 0', () => {
    const p = policy({ maxLaunchedApps: 0, launchesPerMinute: 0 });
    for (let pid = 1; pid < 200; pid++) {
      expect(() => p.admitLaunch(() => true), `launch ${pid}`).not.toThrow();
      p.recordLaunched(pid);
    }
  });
});
