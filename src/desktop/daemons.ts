/**
 * Starting the daemons of a test desktop: finding programs, spawning one detached with its
 * output to a log, reading the first line it writes on fd 3 (Xvfb -displayfd,
 * dbus-daemon --print-address). The X11 desktop (headless.ts) and the sway session
 * (sway.ts) both start theirs with these.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { DesktopError } from './errors.js';
import type { RecordedPid } from './procs.js';
import { startTimeOf } from './procs.js';

export function findInPath(name: string, envPath = process.env.PATH): string | null {
  for (const dir of (envPath ?? '/usr/bin:/bin').split(':')) {
    const p = path.join(dir || '.', name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch {
      // keep looking
    }
  }
  return null;
}

/** An at-spi2-core daemon: in libexec (Debian 12+) or lib/at-spi2-core (older Ubuntu). */
export function findAtspiDaemon(name: string): string | null {
  return (
    [
      `/usr/libexec/${name}`,
      `/usr/lib/at-spi2-core/${name}`,
      `/usr/lib/x86_64-linux-gnu/${name}`,
      `/usr/lib/aarch64-linux-gnu/${name}`,
    ].find((p) => fs.existsSync(p)) ?? null
  );
}

/** Records a pid with its start time, so a reused pid is never taken for ours. */
export function recordPid(pids: RecordedPid[], pid: number, name: string, group = false): void {
  pids.push({ pid, name, start: startTimeOf(pid), ...(group ? { group: true } : {}) });
}

/**
 * Spawns a daemon in its own session (its own process group) with stdout+stderr appended
 * to `logFile`; resolves once it runs. Unref'd: it never keeps this process alive.
 */
export async function spawnDaemon(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
  extraFds: Array<'pipe'> = [],
): Promise<ChildProcess> {
  const fd = fs.openSync(logFile, 'a', 0o600);
  let child: ChildProcess;
  try {
    child = spawn(cmd, args, { env, detached: true, stdio: ['ignore', fd, fd, ...extraFds] });
  } finally {
    fs.closeSync(fd);
  }
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', (err) =>
      reject(new DesktopError(`cannot start ${cmd}: ${err.message}`, 'start-failed')),
    );
  });
  child.unref();
  return child;
}

/** The first line a child writes on its fd 3 (Xvfb -displayfd 3, dbus-daemon --print-address=3). */
export function firstLineOnFd3(
  child: ChildProcess,
  what: string,
  timeoutMs: number,
): Promise<string> {
  const stream = child.stdio[3] as NodeJS.ReadableStream & { destroy(): void };
  return new Promise((resolve, reject) => {
    let acc = '';
    const finish = (err: Error | null, line?: string): void => {
      clearTimeout(timer);
      child.removeListener('exit', onExit);
      stream.removeListener('data', onData);
      // Our end of the pipe must not keep this process alive.
      stream.destroy();
      if (err) reject(err);
      else resolve(line as string);
    };
    const onData = (chunk: Buffer | string): void => {
      acc += chunk.toString();
      const nl = acc.indexOf('\n');
      if (nl >= 0) finish(null, acc.slice(0, nl).trim());
    };
    const onExit = (code: number | null, signal: string | null): void =>
      finish(
        new DesktopError(`${what} exited (${code ?? signal}) before it was ready`, 'start-failed'),
      );
    const timer = setTimeout(
      () =>
        finish(new DesktopError(`${what} was not ready within ${timeoutMs} ms`, 'start-failed')),
      timeoutMs,
    );
    stream.on('data', onData);
    child.once('exit', onExit);
  });
}
