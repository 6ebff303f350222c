/**
 * What a process descends from while it runs (for the deny list: a denied app's helpers
 * are denied too), stopping at a given process: what this server launched is its own,
 * whatever started the server. On processes started here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ancestorsOf } from '../../src/platform/linux/proc.js';
import { pollUntil } from '../../src/model/timeout.js';

const children: ChildProcess[] = [];
afterAll(() => {
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
