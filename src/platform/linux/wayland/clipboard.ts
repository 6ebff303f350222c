/**
 * The Wayland clipboard through wl-clipboard (wl-copy, wl-paste), as child processes whose
 * pids we hold. On sway they use the wlr-data-control protocol, so neither needs a focused
 * window. As with X11, the owner serves the text: `wl-copy --foreground` keeps it, and we
 * stop it on close (the text goes with it, unless a clipboard manager took a copy).
 */
import { spawn, type ChildProcess } from 'node:child_process';

import { PlatformError } from '../../../errors.js';
import { pollUntil } from '../../../model/timeout.js';
import type { Clipboard } from '../../desktop.js';

/** Longest a read or a write's handover may take (a hung owner must not stall a call). */
const CLIPBOARD_TIMEOUT_MS = 3000;
/** What wl-paste says when nothing offers text: an empty clipboard, not a failure. */
const NOTHING_OFFERED = /No selection|Nothing is copied|No suitable type/i;

export class WlClipboard implements Clipboard {
  private owner?: ChildProcess;

  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly programs = { copy: 'wl-copy', paste: 'wl-paste' },
    private readonly timeoutMs = CLIPBOARD_TIMEOUT_MS,
  ) {}

  async read(selection: 'clipboard' | 'primary' = 'clipboard'): Promise<string> {
    this.needDisplay();
    const args = ['--no-newline', '--type', 'text/plain;charset=utf-8'];
    if (selection === 'primary') args.push('--primary');
    const { code, out, err } = await this.run(this.programs.paste, args);
    if (code === 0) return out;
    if (NOTHING_OFFERED.test(err)) return '';
    throw new PlatformError(
      'failed',
      `wl-paste failed (exit ${code}): ${err.trim() || 'no message'}`,
    );
  }

  async write(text: string): Promise<void> {
    this.needDisplay();
    const previous = this.owner;
    const child = spawn(
      this.programs.copy,
      ['--foreground', '--type', 'text/plain;charset=utf-8'],
      { env: this.env, stdio: ['pipe', 'ignore', 'pipe'] },
    );
    this.owner = child;
    let err = '';
    let exited: number | null | undefined;
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('exit', (code) => {
      exited = code;
      if (this.owner === child) this.owner = undefined;
    });
    const spawned = new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (e) => reject(spawnError(e, this.programs.copy)));
    });
    await spawned;
    child.stdin.on('error', () => undefined);
    child.stdin.end(text);
    // wl-copy says nothing once it owns the selection: it does when the text reads back.
    await pollUntil(
      async () => {
        if (exited !== undefined) {
          throw new PlatformError(
            'failed',
            `wl-copy exited (${exited}) before owning the clipboard: ${err.trim() || 'no message'}`,
          );
        }
        return (await this.read().catch(() => null)) === text ? true : null;
      },
      { timeoutMs: this.timeoutMs, intervalMs: 10, what: 'wl-copy owning the clipboard' },
    ).catch((e: unknown) => {
      stop(child);
      throw e instanceof PlatformError
        ? e
        : new PlatformError(
            'not_responding',
            `wl-copy did not take the clipboard within ${this.timeoutMs} ms`,
          );
    });
    // The new owner took the selection: the old one has exited or is about to; make sure.
    if (previous && previous !== child) stop(previous);
  }

  async close(): Promise<void> {
    const owner = this.owner;
    this.owner = undefined;
    if (owner) stop(owner);
  }

  /** The pid of the process that owns the clipboard for us now, if any. */
  get ownerPid(): number | undefined {
    return this.owner?.exitCode === null ? this.owner.pid : undefined;
  }

  private needDisplay(): void {
    if (!this.env.WAYLAND_DISPLAY) {
      throw new PlatformError(
        'no_display',
        'WAYLAND_DISPLAY is not set: there is no Wayland clipboard to use',
      );
    }
  }

  private run(
    program: string,
    args: string[],
  ): Promise<{ code: number; out: string; err: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(program, args, { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      let err = '';
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      const timer = setTimeout(() => {
        stop(child);
        reject(
          new PlatformError(
            'not_responding',
            `${program} took over ${this.timeoutMs} ms (the clipboard's owner does not answer)`,
          ),
        );
      }, this.timeoutMs);
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(spawnError(e, program));
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code: code ?? -1, out: Buffer.concat(out).toString('utf8'), err });
      });
    });
  }
}

function stop(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
}

function spawnError(err: Error, program: string): PlatformError {
  return (err as NodeJS.ErrnoException).code === 'ENOENT'
    ? new PlatformError(
        'unsupported',
        `${program} is not installed: the clipboard on Wayland needs it (Debian package wl-clipboard)`,
      )
    : new PlatformError('failed', `cannot run ${program}: ${err.message}`);
}
