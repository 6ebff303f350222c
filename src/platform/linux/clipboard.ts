/**
 * The X11 CLIPBOARD and PRIMARY selections through xclip, as child processes whose pids we
 * hold. Reading is one `xclip -o`. Writing runs `xclip -i -quiet` in the foreground (no
 * fork): X11 has no clipboard storage, the owner serves the text until another client
 * takes the selection, and then exits by itself. We keep each owner's pid and stop it on
 * release or close (the text goes with it, unless a clipboard manager took a copy).
 *
 * hold() reads every target the owner lists (TARGETS) with one `xclip -o -t` each; offer()
 * gives text back through xclip, and anything else (an image, a file list) through a small
 * GTK 3 owner run by the system python (OWNER_SCRIPT), which serves every target at once:
 * xclip serves one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { PlatformError } from '../../errors.js';
import type { Clipboard, HeldSelection } from '../desktop.js';

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
    await this.owning(child, selection, this.binary, OWNING, () => {
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(text);
    });
    // The new owner took the selection: the old one has exited or is about to; make sure.
    if (previous && previous !== child) stop(previous);
  }

  async hold(selection: Selection, maxBytes: number): Promise<HeldSelection> {
    this.needDisplay();
    const held: HeldSelection = { formats: [], tooBig: [] };
    const listed = await this.readTarget(selection, 'TARGETS', 64 * 1024);
    if (listed === null || listed === 'too big') return held;
    const targets = [
      ...new Set(
        listed
          .toString('utf8')
          .split('\n')
          .map((t) => t.trim()),
      ),
    ].filter((t) => t !== '' && !META_TARGETS.has(t));
    // Text only (the common case): one read, and xclip offers every text target again.
    if (targets.length > 0 && targets.every((t) => TEXT_TARGETS.has(t))) {
      targets.splice(
        0,
        targets.length,
        targets.includes('UTF8_STRING') ? 'UTF8_STRING' : targets[0],
      );
    }
    let room = maxBytes;
    for (const target of targets) {
      const data = await this.readTarget(selection, target, room);
      if (data === 'too big') held.tooBig.push(target);
      else if (data !== null) {
        held.formats.push({ type: target, data });
        room -= data.length;
      }
    }
    return held;
  }

  async offer(held: HeldSelection, selection: Selection): Promise<void> {
    if (held.formats.length === 0) return this.release(selection);
    if (held.formats.every((f) => TEXT_TARGETS.has(f.type))) {
      const text = held.formats.find((f) => f.type === 'UTF8_STRING') ?? held.formats[0];
      return this.write(text.data.toString('utf8'), selection);
    }
    this.needDisplay();
    const previous = this.owners.get(selection);
    const child = spawn(SYSTEM_PYTHON, ['-c', OWNER_SCRIPT, selection.toUpperCase()], {
      // Not an app on the accessibility bus: only an owner of the selection.
      env: { ...this.env, NO_AT_BRIDGE: '1' },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    this.owners.set(selection, child);
    child.once('exit', () => {
      if (this.owners.get(selection) === child) this.owners.delete(selection);
    });
    const header = JSON.stringify({
      targets: held.formats.map((f) => ({ type: f.type, size: f.data.length })),
    });
    await this.owning(child, selection, SYSTEM_PYTHON, OWNING_SAID, () => {
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(
        Buffer.concat([Buffer.from(`${header}\n`), ...held.formats.map((f) => f.data)]),
      );
    });
    if (previous && previous !== child) stop(previous);
  }

  /** One target's bytes; null when it is not offered; 'too big' past `maxBytes`. */
  private async readTarget(
    selection: Selection,
    target: string,
    maxBytes: number,
  ): Promise<Buffer | null | 'too big'> {
    const child = spawn(this.binary, ['-selection', selection, '-o', '-t', target], {
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    child.stdout.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) {
        tooBig = true;
        stop(child);
      } else out.push(c);
    });
    child.stderr.on('data', () => undefined);
    const code = await this.exitOf(child, `reading the ${selection} selection as ${target}`);
    if (tooBig) return 'too big';
    return code === 0 ? Buffer.concat(out) : null;
  }

  /** Waits until `child` says it owns the selection (`said` on stderr), feeding it by `feed`. */
  private owning(
    child: ChildProcess,
    selection: Selection,
    binary: string,
    said: string,
    feed: () => void,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => {
        stop(child);
        reject(
          new PlatformError(
            'not_responding',
            `${binary} did not take the ${selection} selection within ${this.timeoutMs} ms`,
          ),
        );
      }, this.timeoutMs);
      child.stderr!.on('data', (c: Buffer) => {
        err += c.toString();
        if (err.includes(said)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(spawnError(e, binary));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(
          new PlatformError(
            'failed',
            `${binary} exited (${code}) before owning the ${selection} selection: ${err.trim() || 'no message'}`,
          ),
        );
      });
      feed();
    });
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

/** Targets every owner answers that are about the selection, not a format of its content. */
const META_TARGETS = new Set([
  'TARGETS',
  'MULTIPLE',
  'TIMESTAMP',
  'SAVE_TARGETS',
  'DELETE',
  'INSERT_SELECTION',
  'INSERT_PROPERTY',
]);

/** Targets xclip serves when it is given text: a selection of only these is text. */
const TEXT_TARGETS = new Set([
  'UTF8_STRING',
  'STRING',
  'TEXT',
  'COMPOUND_TEXT',
  'text/plain',
  'text/plain;charset=utf-8',
]);

/** The system python, which has PyGObject and GTK 3 (a pyenv one on PATH may not). */
const SYSTEM_PYTHON = '/usr/bin/python3';
/** What OWNER_SCRIPT says on stderr once it owns the selection. */
const OWNING_SAID = 'owning';

/**
 * Owns the selection named in argv[1] and serves each target read from stdin (a JSON line
 * {targets: [{type, size}]}, then their bytes in that order) until another client takes it
 * or SIGTERM. GTK answers TARGETS and large transfers (INCR) itself.
 */
const OWNER_SCRIPT = `
import json, signal, sys
import gi
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk
selection = Gdk.Atom.intern(sys.argv[1], False)
header = json.loads(sys.stdin.buffer.readline())
held = [(t["type"], sys.stdin.buffer.read(t["size"])) for t in header["targets"]]
owner = Gtk.Invisible()
for i, (name, _data) in enumerate(held):
    Gtk.selection_add_target(owner, selection, Gdk.Atom.intern(name, False), i)
def serve(_widget, data, info, _time):
    name, payload = held[info]
    data.set(Gdk.Atom.intern(name, False), 8, payload)
owner.connect("selection-get", serve)
owner.connect("selection-clear-event", lambda *_a: Gtk.main_quit())
GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, Gtk.main_quit)
if not Gtk.selection_owner_set(owner, selection, Gdk.CURRENT_TIME):
    sys.exit(3)
sys.stderr.write("${OWNING_SAID}\\n")
sys.stderr.flush()
Gtk.main()
`;

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
