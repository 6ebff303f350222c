/**
 * The log of a launched app's output (stdout and stderr, in the artifact dir). An app may
 * print what was typed into it (a debug build logs the password it was given, reversed or
 * not): the log is written by this server from pipes, never by the app itself, and every
 * secret the server knows is masked in it before it reaches the disk, as everywhere else.
 *
 * What is read is held back until its line ends (a pipe hands text over in chunks that
 * may cut a secret in two), until the app goes quiet for a moment (a prompt with no line
 * end), or, for a line longer than LINE_MAX, up to HOLD characters before its end, never
 * cutting where a secret runs across.
 *
 * An app may outlive the server (it runs in its own session). When the server closes, each
 * log still open is handed on to a relay process of its own (launch-relay.ts) with the
 * pipes, the file and the secrets known then (through a pipe, never the disk): the app
 * writes on as before, and the log stays masked. A server killed outright hands nothing
 * on: the app's next write to its output then fails (EPIPE, or SIGPIPE where not handled).
 *
 * A secret may be learned after the app printed it (it logs a token, then the agent types
 * that token into a password field): each time one is, the logs already written are masked
 * again (remaskFile: a new file renamed over the old, 0600 as it was). The writes are this
 * process's own and synchronous, so none comes between the read and the rename.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fsyncSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import type { LaunchOutput } from '../platform/desktop.js';
import { scrubLines } from './response.js';
import { SecretEchoes } from './secrets.js';

/** What masks the secrets in a text (SecretEchoes). */
export interface Scrubber {
  scrub(text: string): string;
  /** How many characters at the end of a text may begin a secret still to come. */
  heldTail?(text: string): number;
}

/** Longest text held back for its line to end. */
export const LINE_MAX = 64 * 1024;
/** What is kept back of a long line when part of it is written: twice any secret's form. */
export const HOLD = 4096;
/** A line not ended after this long quiet (a prompt) is written as it is. */
export const IDLE_MS = 250;

/** One stream's text on its way to the log, masked line by line. */
export class ScrubbedStream {
  private pending = '';
  private readonly decoder = new TextDecoder('utf-8');
  private idle?: NodeJS.Timeout;

  constructor(
    private readonly out: (text: string) => void,
    private readonly echoes: Scrubber,
    private readonly idleMs = IDLE_MS,
  ) {}

  write(chunk: Uint8Array | string): void {
    this.pending +=
      typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    const end = this.pending.lastIndexOf('\n');
    if (end >= 0) {
      const lines = this.pending.slice(0, end + 1);
      this.pending = this.pending.slice(end + 1);
      this.out(scrubLines(lines, this.echoes));
    }
    while (this.pending.length > LINE_MAX) this.writeHead();
    this.armIdle();
  }

  /** The stream ended: what is left is written. */
  end(): void {
    if (this.idle) clearTimeout(this.idle);
    this.pending += this.decoder.decode();
    this.flush();
  }

  /**
   * Writes what is pending. After a quiet spell (`idle`) the line is not over: its last
   * characters that may begin a known secret are held back for the rest to come, so a
   * secret printed slowly is masked whole, never written in halves.
   */
  private flush(idle = false): void {
    if (this.pending === '') return;
    const held = idle ? (this.echoes.heldTail?.(this.pending) ?? 0) : 0;
    const text = this.pending.slice(0, this.pending.length - held);
    this.pending = this.pending.slice(this.pending.length - held);
    if (text !== '') this.out(scrubLines(text, this.echoes));
  }

  private armIdle(): void {
    if (this.idle) clearTimeout(this.idle);
    if (this.pending === '') return;
    this.idle = setTimeout(() => this.flush(true), this.idleMs);
    this.idle.unref();
  }

  /**
   * Writes a long line's head: all but HOLD characters or more, cut where no secret runs
   * across (nothing of one within HOLD / 2 on either side); with no such place, all of it.
   */
  private writeHead(): void {
    const side = HOLD / 2;
    for (let at = this.pending.length - HOLD; at > side; at -= side) {
      const around = this.pending.slice(at - side, at + side);
      if (this.echoes.scrub(around) !== around) continue;
      const head = this.pending.slice(0, at);
      this.pending = this.pending.slice(at);
      this.out(this.echoes.scrub(head));
      return;
    }
    const all = this.pending;
    this.pending = '';
    this.out(this.echoes.scrub(all));
  }
}

/**
 * Secrets looked for as echoes (SecretEchoes, its matching unchanged), with the texts kept
 * as they were added: what a launch log's relay is given when the server hands it on.
 */
export class HandedOnEchoes extends SecretEchoes {
  private readonly texts: string[] = [];
  private readonly listeners: Array<() => void> = [];

  override add(text: string): void {
    const before = this.size;
    super.add(text);
    if (!this.texts.includes(text)) this.texts.push(text);
    if (this.size !== before) for (const listener of this.listeners) listener();
  }

  /** Calls `listener` each time a secret not looked for before is added (synchronously). */
  whenAdded(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The texts added, in memory only (for a relay, through a pipe). */
  added(): readonly string[] {
    return this.texts;
  }
}

/** The relay a log is handed on to (the built cli/launch-relay.js). */
const RELAY = decodeURIComponent(new URL('../cli/launch-relay.js', import.meta.url).pathname);

/** A launched app's log: its pipes read, masked and written to the file while it runs. */
export class LaunchLog {
  private open = 2;
  /** Its pipes and file went to a relay: the file is that process's to write from then on. */
  private handed = false;
  private output?: LaunchOutput;
  private readonly streams: ScrubbedStream[] = [];
  private readonly ended: Promise<void>;
  private readonly done: () => void;
  private closed = false;

  constructor(
    readonly path: string,
    private fd: number,
    private readonly echoes: Scrubber,
    private readonly onEnd: () => void = () => {},
  ) {
    let done!: () => void;
    this.ended = new Promise((resolve) => (done = resolve));
    this.done = done;
  }

  /** Reads the app's stdout and stderr into the log until both end. */
  follow(output: LaunchOutput): void {
    this.output = output;
    for (let i = 0; i < 2; i++) {
      this.streams.push(new ScrubbedStream((text) => this.append(text), this.echoes));
    }
    output.read({
      data: (stream, chunk) => this.streams[stream]?.write(chunk),
      end: (stream) => {
        this.streams[stream]?.end();
        if (--this.open === 0) this.close();
      },
    });
  }

  /** Everything the app printed is in the file (its pipes ended), or `ms` went by. */
  async settled(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.ended,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
        timer.unref();
      }),
    ]);
    if (timer) clearTimeout(timer);
  }

  /**
   * The server closes while the app may run on: what was read is written, and the pipes
   * and the file go to a relay process that goes on masking `secrets` in what comes.
   */
  async handOn(secrets: readonly string[]): Promise<void> {
    const output = this.output;
    if (this.closed || !output) return this.close();
    this.handed = true;
    // What was read is written first (the relay gets what is still in the pipes).
    const handing = output.handOver(
      [process.execPath, RELAY],
      JSON.stringify({ secrets, path: this.path }),
      this.fd,
    );
    for (const stream of this.streams) stream.end();
    this.close();
    await handing.catch(() => undefined);
  }

  /**
   * Masks again what the file holds, with the secrets known now; a log still written goes
   * on in the new file. Nothing when it was handed on or has no path.
   */
  remask(): void {
    if (this.handed || this.path === '') return;
    try {
      if (!remaskFile(this.path, this.echoes) || this.closed) return;
      const fd = openSync(
        this.path,
        constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW,
      );
      closeSync(this.fd);
      this.fd = fd;
    } catch {
      // Gone (pruned) or the disk is full: the old file, as masked as it was, stays.
    }
  }

  /** Stops writing: the file is closed (a launch that never started). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      closeSync(this.fd);
    } catch {
      // Closed already: nothing more is written either way.
    }
    this.done();
    this.onEnd();
  }

  private append(text: string): void {
    if (this.closed || text === '') return;
    const bytes = Buffer.from(text, 'utf8');
    try {
      let at = 0;
      while (at < bytes.length) at += writeSync(this.fd, bytes, at, bytes.length - at);
    } catch {
      // The disk is full or the dir was swapped: the log is not kept, the app runs on.
    }
  }
}

/** The logs of this server's launches: those still written, and the latest finished. */
export class LaunchLogs {
  private readonly live = new Set<LaunchLog>();
  private finished: LaunchLog[] = [];

  add(log: LaunchLog): void {
    this.live.add(log);
  }

  /** The log's app ended: its file is still masked again when a secret is learned. */
  delete(log: LaunchLog): void {
    if (!this.live.delete(log)) return;
    this.finished = [...this.finished.filter((l) => l.path !== log.path), log].slice(-KEPT);
  }

  /** A secret was learned: every log written so far is masked again (LaunchLog.remask). */
  remask(): void {
    for (const log of [...this.finished, ...this.live]) log.remask();
  }

  /** The server closes: each log still written is handed on to a relay (see LaunchLog.handOn). */
  async handOn(secrets: readonly string[]): Promise<void> {
    const live = [...this.live];
    this.live.clear();
    await Promise.all(live.map((log) => log.handOn(secrets)));
  }
}

/** Finished logs still masked again as secrets are learned (older ones are pruned anyway). */
const KEPT = 32;
/** What a re-mask reads at a time: whole lines of it are masked and written. */
const CHUNK = 1 << 20;

/**
 * Masks the file at `path` again, line by line, into a new file (0600, next to it) renamed
 * over it. False when nothing in it changed (the file is left as it was). Throws when it
 * cannot be read or the new file not written (the new file is then removed).
 */
export function remaskFile(path: string, echoes: Scrubber): boolean {
  const src = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  let out: number | undefined;
  let changed = false;
  try {
    out = openSync(
      tmp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    const decoder = new TextDecoder('utf-8');
    const buf = Buffer.alloc(CHUNK);
    let pending = '';
    const put = (text: string) => {
      const masked = scrubLines(text, echoes);
      if (masked !== text) changed = true;
      const bytes = Buffer.from(masked, 'utf8');
      for (let at = 0; at < bytes.length;) at += writeSync(out!, bytes, at, bytes.length - at);
    };
    for (let n = readSync(src, buf); n > 0; n = readSync(src, buf)) {
      pending += decoder.decode(buf.subarray(0, n), { stream: true });
      // Whole lines at a time, as they were masked when written; a line longer than a
      // chunk goes as it is once it is longer than what a line is held back for.
      const end = pending.lastIndexOf('\n');
      if (end >= 0 || pending.length > LINE_MAX) {
        const upTo = end >= 0 ? end + 1 : pending.length;
        put(pending.slice(0, upTo));
        pending = pending.slice(upTo);
      }
    }
    put(pending + decoder.decode());
    if (!changed) {
      closeSync(out);
      out = undefined;
      unlinkSync(tmp);
      return false;
    }
    fsyncSync(out);
    closeSync(out);
    out = undefined;
    renameSync(tmp, path);
    return true;
  } catch (err) {
    if (out !== undefined) closeSync(out);
    try {
      unlinkSync(tmp);
    } catch {
      // Never made, or renamed already.
    }
    throw err;
  } finally {
    closeSync(src);
  }
}
