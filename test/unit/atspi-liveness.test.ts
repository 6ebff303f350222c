import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { AtspiBus } from '../../src/platform/linux/atspi/bus.js';
import { AtspiCallError, AtspiTimeoutError } from '../../src/platform/linux/atspi/bus.js';
import { probeApp, probeApps } from '../../src/platform/linux/atspi/liveness.js';
import { isFrozenState, stoppedProcess } from '../../src/platform/linux/proc.js';

/** A bus whose apps answer as `answer` says; it records every call and the silent marks. */
function fakeBus(answer: (dest: string) => 'ok' | 'hang' | 'gone' | 'refuse') {
  const silent = new Set<string>();
  const calls: Array<{ dest: string; member: string; body: unknown[]; timeoutMs: number }> = [];
  const hung: Array<() => void> = [];
  const bus = {
    isSilent: (name: string) => silent.has(name),
    markSilent: (name: string) => void silent.add(name),
    clearSilent: (name: string) => void silent.delete(name),
    call(
      dest: string,
      _path: string,
      _iface: string,
      member: string,
      _sig: string,
      body: unknown[],
      timeoutMs: number,
    ): Promise<unknown[]> {
      calls.push({ dest, member, body, timeoutMs });
      switch (answer(dest)) {
        case 'ok':
          return Promise.resolve([{ value: 1 }]);
        case 'gone':
          return Promise.reject(
            new AtspiCallError('no such name', 'org.freedesktop.DBus.Error.ServiceUnknown'),
          );
        case 'refuse':
          return Promise.reject(
            new AtspiCallError('unknown method', 'org.freedesktop.DBus.Error.UnknownMethod'),
          );
        case 'hang':
          return new Promise((_, reject) =>
            hung.push(() => reject(new AtspiTimeoutError('Properties.Get', timeoutMs))),
          );
      }
    },
  };
  /** The deadline passes for every call sent so far (once `n` calls have been sent). */
  const expire = async (n = 1): Promise<void> => {
    await until(() => calls.length >= n);
    for (const fail of hung.splice(0)) fail();
  };
  return { bus: bus as unknown as AtspiBus, calls, silent, expire };
}

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 1));
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) {
    c.kill('SIGCONT');
    c.kill('SIGKILL');
  }
});

/** A child process, stopped by SIGSTOP once /proc says so. */
async function stoppedChild(): Promise<number> {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  children.push(child);
  const pid = child.pid!;
  child.kill('SIGSTOP');
  while (!stoppedProcess(pid)) await new Promise((r) => setTimeout(r, 10));
  return pid;
}

describe('isFrozenState', () => {
  it('is true for stopped and traced, false for running, sleeping, disk wait, zombie', () => {
    expect(['T', 't'].map(isFrozenState)).toEqual([true, true]);
    expect(['R', 'S', 'D', 'Z', 'I', 'X', ''].map(isFrozenState)).toEqual(Array(7).fill(false));
  });
});

describe('stoppedProcess', () => {
  it('reads the state from /proc/<pid>/stat', async () => {
    expect(stoppedProcess(process.pid)).toBe(false);
    expect(stoppedProcess(await stoppedChild())).toBe(true);
  });

  it('is null for a pid that does not exist', () => {
    let pid = 4_000_000; // above pid_max on common systems
    while (fs.existsSync(`/proc/${pid}`)) pid++;
    expect(stoppedProcess(pid)).toBeNull();
  });
});

describe('probeApp', () => {
  const app = (bus: string, pid = process.pid) => ({ bus, path: '/root', pid });

  it('asks a stopped process nothing, and marks it silent for the other callers', async () => {
    const { bus, calls, silent } = fakeBus(() => 'ok');
    const pid = await stoppedChild();
    expect(await probeApp(bus, app(':1.7', pid))).toBe('stopped');
    expect(calls).toEqual([]);
    expect(silent.has(':1.7')).toBe(true);
  });

  it('reads one property of the root, with the short deadline', async () => {
    const { bus, calls } = fakeBus(() => 'ok');
    expect(await probeApp(bus, app(':1.8'), 123)).toBe('answering');
    expect(calls).toEqual([
      {
        dest: ':1.8',
        member: 'Get',
        body: ['org.a11y.atspi.Accessible', 'ChildCount'],
        timeoutMs: 123,
      },
    ]);
  });

  it('says gone for a name without an owner, answering for any other error reply', async () => {
    expect(await probeApp(fakeBus(() => 'gone').bus, app(':1.9'))).toBe('gone');
    expect(await probeApp(fakeBus(() => 'refuse').bus, app(':1.9'))).toBe('answering');
  });

  it('a missed deadline is silent; then it is answered for at once, one probe at a time behind', async () => {
    const f = fakeBus(() => 'hang');
    const first = probeApp(f.bus, app(':1.10'));
    await f.expire();
    expect(await first).toBe('silent');
    expect(f.silent.has(':1.10')).toBe(true);
    // Silent now: no caller waits, and the background probes are one, not one per caller.
    expect(await probeApp(f.bus, app(':1.10'))).toBe('silent');
    expect(await probeApp(f.bus, app(':1.10'))).toBe('silent');
    await until(() => f.calls.length === 2);
    expect(f.calls).toHaveLength(2);
    await f.expire(2);
  });

  it('a continued process is waited for again, not answered for from its stop', async () => {
    const f = fakeBus(() => 'ok');
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(child);
    const pid = child.pid!;
    child.kill('SIGSTOP');
    while (!stoppedProcess(pid)) await new Promise((r) => setTimeout(r, 10));
    expect(await probeApp(f.bus, app(':1.11', pid))).toBe('stopped');
    child.kill('SIGCONT');
    while (stoppedProcess(pid)) await new Promise((r) => setTimeout(r, 10));
    expect(await probeApp(f.bus, app(':1.11', pid))).toBe('answering');
    expect(f.calls).toHaveLength(1);
  });
});

describe('probeApps', () => {
  it('probes all in parallel: one hung app does not hold up the answer for the others', async () => {
    const f = fakeBus((dest) => (dest === ':1.20' ? 'hang' : 'ok'));
    const pending = probeApps(f.bus, [
      { bus: ':1.20', path: '/root', pid: process.pid },
      { bus: ':1.21', path: '/root', pid: process.pid },
    ]);
    // Both probes are out before either answers.
    await until(() => f.calls.length === 2);
    expect(f.calls.map((c) => c.dest).sort()).toEqual([':1.20', ':1.21']);
    await f.expire(2);
    expect(await pending).toEqual(
      new Map([
        [':1.20', 'silent'],
        [':1.21', 'answering'],
      ]),
    );
  });
});
