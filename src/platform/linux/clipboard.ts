/**
 * The X11 CLIPBOARD and PRIMARY selections through xclip, as child processes whose pids we
 * hold. Reading is one `xclip -o`. Writing runs `xclip -i -quiet` in the foreground (no
 * fork): X11 has no clipboard storage, the owner serves the text until another client
 * takes the selection, and then exits by itself. We keep each owner's pid and stop it on
 * release or close (the text goes with it, unless a clipboard manager took a copy).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { PlatformError } from '../../errors.js';
import type { Clipboard } from '../desktop.js';

/** Longest a read or a write's handover may take (a hung owner must not stall a call). */
export const CLIPBOARD_TIMEOUT_MS = 3000;
/** xclip says this on stderr once it owns the selection. */
const OWNING = 'Waiting for selection request';
/** What xclip says when no owner offers text: an empty clipboard, not a failure. */
const NOTHING_OFFERED = /not available|no selection|BadWindow/i;

type Selection = 'clipboard' | 'primary';

export class XclipClipboard implements Clipboard {
  /** The xclip serving each selection for us, while it does. */
  private readonly owners = new Map<Selection, ChildProcess>();

  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly binary = 'xclip',
    private readonly timeoutMs = CLIPBOARD_TIMEOUT_MS,
  ) {}

  async read(selection: 'clipboard' | 'primary' = 'clipboard'): Promise<string> {
    this.needDisplay();
    const child = spawn(this.binary, ['-selection', selection, '-o', '-t', 'UTF8_STRING'], {
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await this.exitOf(child, 'reading the clipboard');
    if (code === 0) return Buffer.concat(out).toString('utf8');
    if (NOTHING_OFFERED.test(err)) return '';
    throw new PlatformError(
      'failed',
      `xclip -o failed (exit ${code}): ${err.trim() || 'no message'}`,
    );
  }

  async write(text: string, selection: Selection = 'clipboard'): Promise<void> {
    this.needDisplay();
    const previous = this.owners.get(selection);
    const child = spawn(this.binary, ['-selection', selection, '-i', '-quiet'], {
      env: this.env,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    this.owners.set(selection, child);
    child.once('exit', () => {
      if (this.owners.get(selection) === child) this.owners.delete(selection);
    });
    await new Promise<void>((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => {
        stop(child);
        reject(
          new PlatformError(
            'not_responding',
            `xclip did not take the ${selection} selection within ${this.timeoutMs} ms`,
          ),
        );
      }, this.timeoutMs);
      child.stderr!.on('data', (c: Buffer) => {
        err += c.toString();
        if (err.includes(OWNING)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(spawnError(e, this.binary));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(
          new PlatformError(
            'failed',
            `xclip -i exited (${code}) before owning the ${selection} selection: ${err.trim() || 'no message'}`,
          ),
        );
      });
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(text);
    });
    // The new owner took the selection: the old one has exited or is about to; make sure.
    if (previous && previous !== child) stop(previous);
  }

  owns(selection: Selection = 'clipboard'): boolean {
    const owner = this.owners.get(selection);
    return owner !== undefined && owner.exitCode === null && owner.signalCode === null;
  }

  async release(selection: Selection): Promise<void> {
    const owner = this.owners.get(selection);
    this.owners.delete(selection);
    if (owner) await stopped(owner);
  }

  async close(): Promise<void> {
    const owners = [...this.owners.values()];
    this.owners.clear();
    for (const owner of owners) stop(owner);
  }

  /** The pid of the process that owns the clipboard for us now, if any. */
  get ownerPid(): number | undefined {
    const owner = this.owners.get('clipboard');
    return owner?.exitCode === null ? owner.pid : undefined;
  }

  private needDisplay(): void {
    if (!this.env.DISPLAY) {
      throw new PlatformError('no_display', 'DISPLAY is not set: there is no X clipboard to use');
    }
  }

  private exitOf(child: ChildProcess, what: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        stop(child);
        reject(
          new PlatformError(
            'not_responding',
            `${what} took over ${this.timeoutMs} ms (the clipboard's owner does not answer)`,
          ),
        );
      }, this.timeoutMs);
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(spawnError(e, this.binary));
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve(code ?? -1);
      });
    });
  }
}

function stop(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
}

/** Stops the owner and waits until it is gone: the selection has no owner after. */
async function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await gone;
}

function spawnError(err: Error, binary: string): PlatformError {
  return (err as NodeJS.ErrnoException).code === 'ENOENT'
    ? new PlatformError('unsupported', `${binary} is not installed (Debian package xclip)`)
    : new PlatformError('failed', `cannot run ${binary}: ${err.message}`);
}
