/**
 * What a launch started, and watching it for denied programs: launchFamily reads /proc for
 * real processes (a shell that backgrounds a child and exits leaves it in its session),
 * LaunchWatch is driven with a desktop and policy of our own.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, Policy } from '../../src/guard/policy.js';
import { LaunchWatch } from '../../src/pipeline/launch-watch.js';
import type { Desktop } from '../../src/platform/desktop.js';
import { launchFamily, procStat } from '../../src/platform/linux/proc.js';

const started: number[] = [];

afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
});

async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  return check();
}

const alive = (pid: number): boolean => {
  const st = procStat(pid);
  return st !== null && st.state !== 'Z' && st.state !== 'X';
};

describe('launchFamily', () => {
  it('lists what a session leader left running after it exited, and nothing else', async () => {
    // Leads a session of its own, as a launch does (setsid); backgrounds a sleep and exits.
    const leader = spawn('/bin/sh', ['-c', 'sleep 30 & echo $!; exit 0'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    leader.stdout.on('data', (c: Buffer) => (out += c.toString()));
    await new Promise((r) => leader.once('exit', r));
    const sleeper = Number(out.trim());
    started.push(sleeper);
    expect(sleeper).toBeGreaterThan(0);
    expect(alive(sleeper)).toBe(true);
    // Its parent is gone: it is no descendant of the leader any more, but still in its session.
    expect(procStat(sleeper)!.ppid).not.toBe(leader.pid);
    expect(procStat(sleeper)!.session).toBe(leader.pid);
    const family = launchFamily(leader.pid!);
    expect(family).toEqual([sleeper]);
    expect(family).not.toContain(process.pid);
  });

  it('lists a descendant that left the session while its parent runs', async () => {
    const leader = spawn('/bin/sh', ['-c', 'setsid sleep 30 & echo $!; exec sleep 30'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    started.push(leader.pid!);
    let out = '';
    leader.stdout.on('data', (c: Buffer) => (out += c.toString()));
    expect(await until(() => out.includes('\n'))).toBe(true);
    const escaped = Number(out.trim());
    started.push(escaped);
    expect(await until(() => procStat(escaped)?.session === escaped)).toBe(true);
    expect(launchFamily(leader.pid!)).toContain(escaped);
  });
});

/** A desktop that runs the given pids, each until terminated (`stubborn` ones until killed). */
function processes(running: number[], family: Record<number, number[]>, stubborn: number[] = []) {
  const live = new Set(running);
  const signals: Array<[number, string]> = [];
  const desktop = {
    isRunning: async (pid: number) => live.has(pid),
    launchFamily: async (leader: number) => (family[leader] ?? []).filter((p) => live.has(p)),
    childProcesses: async () => [],
    terminate: async (pid: number, kill?: boolean) => {
      signals.push([pid, kill ? 'KILL' : 'TERM']);
      if (kill || !stubborn.includes(pid)) live.delete(pid);
    },
  } as unknown as Desktop;
  return { desktop, live, signals };
}

/** A policy that denies the pids in `denied` (as if each ran a denied program). */
function policyDenying(denied: number[]): Policy {
  const policy = new Policy({ ...DEFAULT_POLICY, denyApps: ['galculator'] });
  policy.denies = (app) => denied.includes(app.pid);
  return policy;
}

describe('LaunchWatch', () => {
  it('stops what runs a denied program, by pid, and kills what ignores SIGTERM', async () => {
    const { desktop, live, signals } = processes([10, 11, 12, 13], { 10: [11, 12, 13] }, [13]);
    const watch = new LaunchWatch(async () => desktop, policyDenying([12, 13]));
    const family = await watch.family(desktop, 10);
    expect(family).toEqual([10, 11, 12, 13]);
    expect(watch.denied(family)).toEqual([12, 13]);
    expect(await watch.stop(desktop, watch.denied(family))).toEqual([]);
    expect(signals).toEqual([
      [12, 'TERM'],
      [13, 'TERM'],
      [13, 'KILL'],
    ]);
    expect([...live]).toEqual([10, 11]);
  });

  it('denies nothing without a deny list', () => {
    const watch = new LaunchWatch(
      async () => ({}) as Desktop,
      new Policy({ ...DEFAULT_POLICY }, Date.now, () => '/usr/bin/galculator'),
    );
    expect(watch.active).toBe(false);
    expect(watch.denied([1, 2, 3])).toEqual([]);
  });

  it('looks on while a launch runs: stops a denied program it starts later, then lets go', async () => {
    const { desktop, live } = processes([20, 21], { 20: [21, 22] });
    const denied: number[] = [];
    const told: string[] = [];
    const watch = new LaunchWatch(
      async () => desktop,
      policyDenying(denied),
      (m) => told.push(m),
    );
    watch.watch(20);
    await watch.look();
    expect(told).toEqual([]);
    // A child execs a denied program: stopped at the next look, the app goes on.
    live.add(22);
    denied.push(22);
    await watch.look();
    expect(live.has(22)).toBe(false);
    expect(live.has(20)).toBe(true);
    expect(told).toEqual([
      "stopped a program this server's policy denies (pid 22), started by what ax_launch_app launched as pid 20",
    ]);
    // All of it gone: the launch is no longer watched (and no timer keeps running).
    live.clear();
    await watch.look();
    live.add(22);
    await watch.look();
    expect(live.has(22)).toBe(true);
    expect(told).toHaveLength(1);
    watch.close();
  });
});

it('reads a session id that /proc agrees with', () => {
  const stat = fs.readFileSync('/proc/self/stat', 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  expect(procStat(process.pid)!.session).toBe(Number(fields[3]));
});
