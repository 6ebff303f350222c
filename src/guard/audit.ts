/**
 * Call logs beside the artifacts: private JSON-lines files (0600, appended, one whole
 * line per write, never through a symlink) and the masking that keeps typed text (and scripts) out of
 * them. The audit log (`audit.jsonl`) is one view of the session recorder's records: the
 * mutating calls, with typed text and values never recorded, not even their length.
 */
import { closeSync, constants, lstatSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';

export interface AuditRecord {
  tool: string;
  args: Record<string, unknown>;
  outcome: 'success' | 'error';
  error_code?: string;
  pid?: number;
  app?: string;
  ms: number;
}

/** Arguments that carry what the user typed, set, scripted or put on the clipboard. */
export const CONTENT_ARGS = new Set(['text', 'value', 'script']);
/** Arguments that are safe to record, capped. */
const MAX_ARG_CHARS = 200;

/** One argument that is not content, capped so no log line echoes an unbounded string. */
function capped(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.length > MAX_ARG_CHARS ? `${value.slice(0, MAX_ARG_CHARS)}…` : value;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  const json = JSON.stringify(value) ?? '';
  return json.length > MAX_ARG_CHARS ? `${json.slice(0, MAX_ARG_CHARS)}…` : value;
}

/** The audit log's view of arguments: content arguments only as given, nothing of them. */
export function redactArgs(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined) continue;
    out[key] = CONTENT_ARGS.has(key) ? '(not recorded)' : capped(value);
  }
  return out;
}

/**
 * What the session log keeps of typed text: its length (so a replay can say what it
 * skipped), or, when the call went to a password field, not even that.
 */
export type MaskedText =
  | { masked: 'text'; length: number }
  | { masked: 'secret' }
  /** A failed call: its target may have been a password field that the error kept us from knowing. */
  | { masked: 'withheld' };

export interface MaskOptions {
  /** Keep typed text as given (opt-in, never for a secret call). */
  keepText?: boolean;
  /** The call typed into, set or copied from a password field: nothing of its text, nor its keys. */
  secret?: boolean;
  /** The call failed: nothing of its text, not even the length, and never kept. */
  withhold?: boolean;
}

/** Arguments that are key names: masked only in a secret call (keys typed into a password field). */
const KEY_ARGS = new Set(['key', 'keys']);

export function maskArgs(
  args: Record<string, unknown>,
  opts: MaskOptions = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined) continue;
    if (CONTENT_ARGS.has(key) || (opts.secret && KEY_ARGS.has(key))) {
      if (opts.secret) out[key] = { masked: 'secret' } satisfies MaskedText;
      else if (opts.withhold && CONTENT_ARGS.has(key)) {
        out[key] = { masked: 'withheld' } satisfies MaskedText;
      } else if (opts.keepText && typeof value === 'string') out[key] = value;
      else out[key] = { masked: 'text', length: String(value).length } satisfies MaskedText;
    } else {
      out[key] = capped(value);
    }
  }
  return out;
}

export function isMasked(value: unknown): value is MaskedText {
  return (
    typeof value === 'object' &&
    value !== null &&
    'masked' in value &&
    ['text', 'secret', 'withheld'].includes((value as MaskedText).masked)
  );
}

/**
 * A private JSON-lines file: each record one line, appended with O_APPEND in a single
 * write (a crash leaves whole lines), failures never thrown into a call.
 *
 * Written synchronously: a line is a few hundred bytes to a local private dir, and a
 * call's result waited for its session line; through the thread pool the checks, open,
 * write and close were four hops back to a busy event loop on every call.
 */
export class JsonLines {
  constructor(readonly file: string) {}

  /**
   * Appends one record now. False when it could not be written: the dir is gone, or no
   * longer a private dir of ours (never written through then), or the write failed.
   */
  append(record: Record<string, unknown>): boolean {
    try {
      this.write(JSON.stringify(record) + '\n');
      return true;
    } catch {
      return false;
    }
  }

  private write(line: string): void {
    // The dir may have been swapped for a symlink while running: O_NOFOLLOW guards only
    // the file's own name, so check the dir itself is still a private dir of ours.
    const dir = lstatSync(path.dirname(this.file));
    const mine = process.getuid === undefined || dir.uid === process.getuid();
    if (!dir.isDirectory() || !mine || (dir.mode & 0o077) !== 0) {
      throw new Error(`${path.dirname(this.file)} is no longer a private dir of ours`);
    }
    // 0600, and never through a symlink planted in its place.
    const fd = openSync(
      this.file,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      writeSync(fd, line);
    } finally {
      closeSync(fd);
    }
  }
}

export class AuditLog {
  private readonly lines: JsonLines;

  constructor(readonly file: string) {
    this.lines = new JsonLines(file);
  }

  static in(dir: string): AuditLog {
    return new AuditLog(path.join(dir, 'audit.jsonl'));
  }

  /** Appends one record now (false when it could not be); never throws into the call. */
  write(record: AuditRecord, at = new Date()): boolean {
    return this.lines.append({ time: at.toISOString(), ...record, args: redactArgs(record.args) });
  }
}
