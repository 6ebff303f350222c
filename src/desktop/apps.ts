/**
 * Launching apps into a headless desktop and waiting until they are usable: registered with
 * the AT-SPI registry under their own pid and, by default, showing a top-level window. A
 * launch that never gets there fails within a bound, with the app's own output attached,
 * instead of leaving a test to time out somewhere later.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';

import { ATSPI } from '../platform/linux/atspi/bus.js';
import type { AtspiBus, ObjectRef, RegisteredApp } from '../platform/linux/atspi/bus.js';
import type { RecordedPid, StopReport } from './procs.js';
import { logTail, sleep, startTimeOf, stopRecorded } from './procs.js';

/** AT-SPI state bit numbers (AtspiStateType). */
const STATE_SHOWING = 25;

export type WaitFor = 'window' | 'registered' | 'none';

export interface LaunchOptions {
  /** Name for the log file and the pid record; default: the command's basename. */
  name?: string;
  /** 'log' (default): stdout+stderr to a file in the state dir. 'pipe': readable from `output`. */
  stdio?: 'log' | 'pipe';
  /** Extra environment on top of the desktop's. */
  env?: Record<string, string>;
  cwd?: string;
  /**
   * 'window' (default): registered and at least one top-level showing; 'registered': its pid
   * is among the registry's apps; 'none': return once spawned.
   */
  waitFor?: WaitFor;
  /** Bound on the wait; default 15 s (a cold GTK start on a loaded 2-core box takes ~0.5 s). */
  timeoutMs?: number;
  /** Let this process exit while the app keeps running (the CLI's `run`). */
  detach?: boolean;
}

export interface LaunchedApp {
  pid: number;
  name: string;
  /** Log file (stdio 'log'). */
  logFile?: string;
  /** The app's stdout, parsed line by line (stdio 'pipe'). */
  output?: AppOutput;
  /** The registry's entry for the app (bus name, root path, app name), unless waitFor 'none'. */
  registered?: RegisteredApp;
  /** Milliseconds from spawn to ready (registered / window showing). */
  readyMs: number;
  /** Resolves with the exit code (or signal name) when the process exits. */
  exited: Promise<number | string>;
  /** Stops the app and anything it spawned into its process group. */
  stop(): Promise<StopReport>;
}

/** Everything launchApp needs from the desktop it launches into. */
export interface LaunchContext {
  /** Full environment for the app (process env + desktop env, minus what breaks a11y). */
  env: NodeJS.ProcessEnv;
  logDir: string;
  a11yBus(): Promise<AtspiBus>;
  /** Called once the app is spawned, so the desktop can stop it later. */
  record(entry: RecordedPid): void;
}

export class LaunchError extends Error {
  override name = 'LaunchError';
}

/**
 * Collects an app's stdout as lines and JSON events (the fixture apps print one JSON object
 * per state change), and its stderr as a tail for error messages.
 */
export class AppOutput {
  readonly lines: string[] = [];
  readonly events: Array<Record<string, unknown>> = [];
  private stderrText = '';
  private partial = '';
  private waiters: Array<() => void> = [];

  constructor(stdout: Readable, stderr: Readable) {
    stdout.setEncoding('utf8');
    stdout.on('data', (chunk: string) => this.onStdout(chunk));
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => {
      this.stderrText = (this.stderrText + chunk).slice(-8192);
    });
  }

  private onStdout(chunk: string): void {
    const parts = (this.partial + chunk).split('\n');
    this.partial = parts.pop() ?? '';
    for (const line of parts) {
      this.lines.push(line);
      if (line.startsWith('{')) {
        try {
          this.events.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // Not JSON after all: it stays in `lines`.
        }
      }
    }
    for (const w of this.waiters.splice(0)) w();
  }

  /** Last lines of stdout and stderr together, for error messages. */
  tail(lines = 15): string {
    const out = [...this.lines, this.partial].filter(Boolean).slice(-lines).join('\n');
    const err = this.stderrText.trimEnd().split('\n').slice(-lines).join('\n');
    return [out && `stdout:\n${out}`, err && `stderr:\n${err}`].filter(Boolean).join('\n');
  }

  /**
   * The first event (from index `from` on) matching `pred`; waits up to `timeoutMs` for it.
   * Pass `from: output.events.length` before acting to see only what the action caused.
   */
  async waitForEvent(
    pred: (e: Record<string, unknown>) => boolean,
    opts: { timeoutMs?: number; from?: number } = {},
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + (opts.timeoutMs ?? 5000);
    let i = opts.from ?? 0;
    for (;;) {
      for (; i < this.events.length; i++) if (pred(this.events[i])) return this.events[i];
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `no matching event within ${opts.timeoutMs ?? 5000} ms; events so far: ` +
            JSON.stringify(this.events.slice(-10)),
        );
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }
}

/** The registry entry of the app running as `pid`, if it has registered. */
export async function findRegisteredApp(bus: AtspiBus, pid: number): Promise<RegisteredApp | null> {
  const apps = await bus.registeredApps();
  return apps.find((a) => a.pid === pid) ?? null;
}

/** Whether the app has a top-level child with the SHOWING state. */
export async function hasShowingWindow(bus: AtspiBus, app: RegisteredApp): Promise<boolean> {
  const [children] = await bus.call(app.bus, app.path, ATSPI + 'Accessible', 'GetChildren');
  const states = await Promise.all(
    (children as ObjectRef[]).map(([name, p]) =>
      bus.call(name, p, ATSPI + 'Accessible', 'GetState').catch(() => [[0, 0]]),
    ),
  );
  return states.some(([bits]) => ((bits as number[])[0] & (1 << STATE_SHOWING)) !== 0);
}

function exitPromise(child: ChildProcess): Promise<number | string> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
}

/** Starts `cmd` in the desktop (own process group) and waits until it is ready. */
export async function launchApp(
  ctx: LaunchContext,
  cmd: string,
  args: string[] = [],
  opts: LaunchOptions = {},
): Promise<LaunchedApp> {
  const name = opts.name ?? path.basename(cmd);
  const waitFor = opts.waitFor ?? 'window';
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const env = { ...ctx.env, ...opts.env };
  const t0 = performance.now();

  let logFile: string | undefined;
  let child: ChildProcess;
  if (opts.stdio === 'pipe') {
    child = spawn(cmd, args, {
      env,
      cwd: opts.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } else {
    fs.mkdirSync(ctx.logDir, { recursive: true, mode: 0o700 });
    // Unique per launch: the same app may run twice at once.
    logFile = path.join(ctx.logDir, `app-${name.replace(/[^\w.-]/g, '_')}-${Date.now()}.log`);
    const fd = fs.openSync(logFile, 'a', 0o600);
    try {
      child = spawn(cmd, args, { env, cwd: opts.cwd, detached: true, stdio: ['ignore', fd, fd] });
    } finally {
      fs.closeSync(fd);
    }
  }
  // A missing executable surfaces as an 'error' event, not as a throw.
  const spawned = await new Promise<number>((resolve, reject) => {
    child.once('spawn', () => resolve(child.pid as number));
    child.once('error', (err) => reject(new LaunchError(`cannot start ${cmd}: ${err.message}`)));
  });
  const pid = spawned;
  const entry: RecordedPid = {
    pid,
    name: `app:${name}`,
    start: startTimeOf(pid),
    group: true,
    cmd: [cmd, ...args],
  };
  ctx.record(entry);
  const output =
    opts.stdio === 'pipe' && child.stdout && child.stderr
      ? new AppOutput(child.stdout, child.stderr)
      : undefined;
  const exited = exitPromise(child);
  let exitedWith: number | string | undefined;
  void exited.then((code) => {
    exitedWith = code;
  });
  const tail = (): string => (output ? output.tail() : logFile ? logTail(logFile) : '');
  const stop = (): Promise<StopReport> => stopRecorded([entry]);

  let registered: RegisteredApp | undefined;
  try {
    if (waitFor !== 'none') {
      const bus = await ctx.a11yBus();
      const deadline = Date.now() + timeoutMs;
      let stage = 'register with the AT-SPI registry';
      for (;;) {
        if (exitedWith !== undefined) {
          throw new LaunchError(
            `${name} (pid ${pid}) exited (${exitedWith}) before it was ready: it did not ${stage}` +
              // A single-instance app (FeatherPad, GApplication apps) hands off and exits 0.
              (exitedWith === 0
                ? '; a single-instance app hands off to its running instance and exits 0 (start a separate one with its own option, e.g. featherpad -s)'
                : '') +
              formatTail(tail()),
          );
        }
        const app = registered ?? (await findRegisteredApp(bus, pid).catch(() => null));
        if (app) {
          registered = app;
          stage = 'show a top-level window';
          if (waitFor === 'registered' || (await hasShowingWindow(bus, app).catch(() => false)))
            break;
        }
        if (Date.now() >= deadline) {
          throw new LaunchError(
            `${name} (pid ${pid}) did not ${stage} within ${timeoutMs} ms` + formatTail(tail()),
          );
        }
        await sleep(registered ? 10 : 20);
      }
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const readyMs = Math.round(performance.now() - t0);
  if (opts.detach) {
    child.unref();
    child.stdout?.destroy();
    child.stderr?.destroy();
  } else {
    // Do not keep the caller's process alive just for this child.
    child.unref();
  }
  return { pid, name, logFile, output, registered, readyMs, exited, stop };
}

function formatTail(tail: string): string {
  return tail ? `\n--- app output (tail) ---\n${tail}` : ' (no output)';
}
