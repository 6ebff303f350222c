/**
 * What a process descends from while it runs (for the deny list: a denied app's helpers
 * are denied too), stopping at a given process: what this server launched is its own,
 * whatever started the server. A helper whose parent exited (re-parented to init) keeps
 * the forebear it had when first seen; a daemonized one (its session's leader gone) gets
 * the processes with its very environment that started before it. On processes started here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ancestorsOf, procStat } from '../../src/platform/linux/proc.js';
import { pollUntil } from '../../src/model/timeout.js';

const children: ChildProcess[] = [];
const helpers: number[] = [];
afterAll(() => {
  for (const pid of helpers) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  for (const c of children) c.kill('SIGKILL');
});

/** The pid of the live child of `parent` running `program`. */
function childOf(parent: number, program: string): number | undefined {
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'latin1');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && fs.readlinkSync(`/proc/${e}/exe`).endsWith(program)) return Number(e);
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
}

describe('ancestorsOf', () => {
  it('walks up the parents, nearest first, and stops at the process given', async () => {
    const shell = spawn('/bin/sh', ['-c', 'sleep 30 & wait'], { stdio: 'ignore' });
    children.push(shell);
    const shellPid = shell.pid as number;
    let sleeper: number | undefined;
    await pollUntil(async () => (sleeper = childOf(shellPid, 'sleep')) !== undefined, {
      timeoutMs: 5000,
      intervalMs: 10,
      what: 'the shell to start sleep',
    });
    const all = ancestorsOf(sleeper!);
    expect(all.slice(0, 2)).toEqual([shellPid, process.pid]);
    expect(ancestorsOf(sleeper!, process.pid)).toEqual([shellPid]);
    expect(ancestorsOf(shellPid, process.pid)).toEqual([]);
    expect(ancestorsOf(2 ** 22 + 1)).toEqual([]);
    process.kill(sleeper!, 'SIGKILL');
  });
});

/** Runs python code that prints pids, one a line; resolves with the first `n`. */
function pidsFrom(
  code: string,
  n: number,
  env?: NodeJS.ProcessEnv,
): Promise<{ top: number; pids: number[] }> {
  const child = spawn('/usr/bin/python3', ['-c', code], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env,
  });
  children.push(child);
  return new Promise((resolve) => {
    let text = '';
    child.stdout!.on('data', (d: Buffer) => {
      text += d.toString();
      const pids = text
        .split('\n')
        .filter((l) => /^\d+$/.test(l))
        .map(Number);
      if (pids.length >= n) resolve({ top: child.pid as number, pids: pids.slice(0, n) });
    });
  });
}

async function until(test: () => boolean): Promise<void> {
  while (!test()) await new Promise((r) => setTimeout(r, 10));
}

describe('ancestorsOf of helpers that left their parent', () => {
  it('keeps the forebear a helper had when first seen after its parent exits', async () => {
    const { top, pids } = await pidsFrom(
      [
        'import os, signal, time',
        'a = os.fork()',
        'if a == 0:',
        '    b = os.fork()',
        '    if b == 0:',
        '        time.sleep(60); os._exit(0)',
        '    print(os.getpid(), flush=True); print(b, flush=True); signal.pause()',
        'time.sleep(60)',
      ].join('\n'),
      2,
    );
    const [a, b] = pids;
    helpers.push(a, b);
    expect(ancestorsOf(b)).toEqual(expect.arrayContaining([a, top]));
    process.kill(a, 'SIGKILL');
    // Re-parented (to init or a subreaper): the remembered chain goes through the gone parent.
    await until(() => procStat(b)?.ppid !== a);
    expect(ancestorsOf(b)[0]).toBe(top);
  });

  it('gives a daemonized helper the processes with its environment, the last started first', async () => {
    const env = { PATH: '/usr/bin:/bin', AXPAGE_TEST_MARK: `twin-${process.pid}` };
    const { top, pids } = await pidsFrom(
      [
        'import os, time',
        'a = os.fork()',
        'if a == 0:',
        '    os.setsid()',
        '    b = os.fork()',
        '    if b == 0:',
        '        time.sleep(60); os._exit(0)',
        '    print(b, flush=True); os._exit(0)',
        'os.waitpid(a, 0)',
        'time.sleep(60)',
      ].join('\n'),
      1,
      env,
    );
    const [b] = pids;
    helpers.push(b);
    // Its session's leader has exited (a zombie until reaped, then gone).
    await until(() => {
      const leader = procStat(procStat(b)?.session ?? 0);
      return leader === null || leader.state === 'Z';
    });
    expect(ancestorsOf(b)).toContain(top);
    // Another environment is no twin.
    expect(ancestorsOf(b)).not.toContain(process.pid);
  });
});
