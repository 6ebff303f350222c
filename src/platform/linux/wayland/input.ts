/**
 * Real pointer and keyboard input on a wlroots compositor (sway) through axpage-wl-input
 * (native/wayland/wl-input.c): one virtual pointer and one virtual keyboard, created once
 * and kept while the session lives. Measured on sway 1.7: the seat offers clients no
 * pointer at all until some pointer device exists, and a keyboard created just before a key
 * loses it after a focus change; so the devices outlive every call.
 *
 * Each command is one line; the helper answers it once the compositor has processed its
 * requests (a Wayland roundtrip), so a resolved call means the events are in the
 * compositor, on their way to the focused client.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { PlatformError } from '../../../errors.js';
import { withTimeout } from '../../../model/timeout.js';

/** Bound on the helper connecting and creating its devices (a loaded machine: hundreds of ms). */
const READY_TIMEOUT_MS = 5000;
/** Bound on one command's roundtrip; typing a long text is a few ms per character. */
const COMMAND_TIMEOUT_MS = 10_000;

const INSTALL_HINT =
  'build it with `npm rebuild @axpage/native` after installing libwayland-dev and ' +
  'libxkbcommon-dev (Debian/Ubuntu)';

/** Where the helper is: beside the native addon's build, or undefined when not built. */
export function helperPath(): string | undefined {
  try {
    const pkg = createRequire(import.meta.url).resolve('@axpage/native/package.json');
    const file = path.join(path.dirname(pkg), 'build', 'axpage-wl-input');
    return fs.existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

function notBuilt(): PlatformError {
  return new PlatformError(
    'unsupported',
    `the Wayland input helper axpage-wl-input is not built, so clicks and keys cannot be sent on sway: ${INSTALL_HINT}`,
  );
}

/** Why the helper cannot run, or undefined when it is built. */
export function helperProblem(): PlatformError | undefined {
  return helperPath() ? undefined : notBuilt();
}

/** Lines as they come, to whoever waits for the next. */
class LineReader {
  private partial = '';
  private readonly lines: string[] = [];
  private waiter?: (line: string | null) => void;
  private ended = false;

  constructor(stream: ChildProcessWithoutNullStreams['stdout']) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (this.partial + chunk).split('\n');
      this.partial = parts.pop() ?? '';
      for (const p of parts) this.push(p);
    });
    stream.on('end', () => {
      this.ended = true;
      this.waiter?.(null);
      this.waiter = undefined;
    });
  }

  private push(line: string): void {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w(line);
    } else this.lines.push(line);
  }

  /** The next line; null once the stream ended. */
  next(): Promise<string | null> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }
}

type Helper = ChildProcessWithoutNullStreams;

export class WaylandInput {
  private helper?: Promise<{ child: Helper; lines: LineReader }>;
  /** Commands go one at a time: each waits for the answer to the one before. */
  private queue: Promise<unknown> = Promise.resolve();
  private stderr = '';
  private closed = false;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    /** The layout's size, asked once the helper is up: absolute motion is scaled to it. */
    private readonly layoutSize: () => Promise<{ w: number; h: number }>,
    /** The helper; null when it is not built. */
    private readonly program: string | null = helperPath() ?? null,
  ) {}

  /**
   * Starts the helper now, not at the first action: a client that had no pointer before
   * (a seat without one) binds it when the capability appears, and input sent in that
   * moment is lost. A failure here is said again by the first action.
   */
  warm(): void {
    if (this.program && this.env.WAYLAND_DISPLAY) void this.started().catch(() => undefined);
  }

  /** Runs one command line and resolves once the compositor has processed it. */
  run(line: string): Promise<void> {
    const next = this.queue.then(() => this.send(line));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async send(line: string): Promise<void> {
    const { child, lines } = await this.started();
    child.stdin.write(`${line}\n`);
    const answer = await withTimeout(lines.next(), COMMAND_TIMEOUT_MS, () => {
      this.stop();
      return new PlatformError(
        'not_responding',
        `the compositor did not take the input within ${COMMAND_TIMEOUT_MS} ms`,
      );
    });
    if (answer === 'ok') return;
    if (answer === null) {
      this.helper = undefined;
      throw new PlatformError(
        'failed',
        `the Wayland input helper exited${this.stderr ? `: ${this.stderr.trim()}` : ''}`,
      );
    }
    const why = answer.replace(/^err /, '');
    // Its refusals of a key or character come before anything of that command was sent.
    throw new PlatformError(
      /key name|no key can be given|no keysym/.test(why) ? 'bad_key' : 'failed',
      why,
    );
  }

  private started(): Promise<{ child: Helper; lines: LineReader }> {
    if (this.closed) {
      return Promise.reject(new PlatformError('no_display', 'this Wayland session was closed'));
    }
    this.helper ??= this.start().catch((err: unknown) => {
      this.helper = undefined;
      throw err;
    });
    return this.helper;
  }

  private async start(): Promise<{ child: Helper; lines: LineReader }> {
    if (!this.program) throw notBuilt();
    if (!this.env.WAYLAND_DISPLAY) {
      throw new PlatformError('no_display', 'WAYLAND_DISPLAY is not set: no compositor for input');
    }
    const child = spawn(this.program, [], {
      env: this.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => {
      this.stderr = (this.stderr + c).slice(-2048);
    });
    child.stdin.on('error', () => undefined); // an exited helper: its answer says so
    const lines = new LineReader(child.stdout);
    const spawned = new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (err) =>
        reject(new PlatformError('failed', `cannot run ${this.program}: ${err.message}`)),
      );
    });
    await spawned;
    child.once('exit', () => {
      if (this.helper) this.helper = undefined;
    });
    // The helper must not keep the server's process alive.
    child.unref();
    const first = await withTimeout(lines.next(), READY_TIMEOUT_MS, () => {
      child.kill('SIGKILL');
      return new PlatformError(
        'not_responding',
        `the Wayland input helper did not create its devices within ${READY_TIMEOUT_MS} ms`,
      );
    });
    if (first !== 'ready') {
      child.kill('SIGKILL');
      const why = first?.replace(/^fail /, '') ?? (this.stderr.trim() || 'it exited');
      throw new PlatformError(
        /no zwlr|no zwp|no wl_seat/.test(why) ? 'unsupported' : 'no_display',
        `the Wayland input helper cannot start: ${why}`,
        { display: this.env.WAYLAND_DISPLAY ?? '' },
      );
    }
    const { w, h } = await this.layoutSize();
    child.stdin.write(`size ${w} ${h}\n`);
    if ((await lines.next()) !== 'ok') {
      child.kill('SIGKILL');
      throw new PlatformError('failed', 'the Wayland input helper refused the layout size');
    }
    return { child, lines };
  }

  private stop(): void {
    const helper = this.helper;
    this.helper = undefined;
    void helper?.then(({ child }) => child.kill('SIGKILL')).catch(() => undefined);
  }

  /** Ends the helper: its devices go away with it. */
  close(): void {
    this.closed = true;
    const helper = this.helper;
    this.helper = undefined;
    // Closing stdin lets it destroy its devices and exit by itself.
    void helper?.then(({ child }) => child.stdin.end()).catch(() => undefined);
  }
}
