/**
 * Call logs beside the artifacts: private JSON-lines files (0600, appended, one whole
 * line per write, never through a symlink or a planted hard link: see capture/safe-file),
 * masked by the one rule of mask.ts. The audit log (`audit.jsonl`) is one view of the
 * session recorder's records: the mutating calls, with typed text and values never
 * recorded, not even their length.
 */
import path from 'node:path';
import { lstatSync } from 'node:fs';
import { LogReserve } from '../capture/reserve.js';
import { appendToLog, UnsafeFileError } from '../capture/safe-file.js';
import { maskArgs, type MaskOptions } from './mask.js';

export interface AuditRecord {
  tool: string;
  args: Record<string, unknown>;
  outcome: 'success' | 'error';
  error_code?: string;
  pid?: number;
  app?: string;
  ms: number;
  /** How the call's arguments are masked (the session log's options): see maskArgs. */
  mask?: MaskOptions;
  /** What the call asked the person and the answer (elicit/asking.ts): never a form's text. */
  asked?: unknown;
}

/**
 * The audit log's view of arguments: the one masking rule, with no content kept, not
 * even its length.
 */
export function redactArgs(
  args: Record<string, unknown>,
  mask: MaskOptions = {},
): Record<string, unknown> {
  // The steps' options take keepText and lengths from these: never kept here either.
  return maskArgs(args, { ...mask, keepText: false, lengths: false });
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
    // 0600, and never through a symlink or a hard link planted in its place.
    try {
      appendToLog(this.file, Buffer.from(line));
    } catch (err) {
      if (err instanceof UnsafeFileError) this.warnOnce(err.message);
      // The disk filled (by another process, perhaps mid-call): the dir's reserve is
      // given back so that this line, and those of the calls refused after it, are kept.
      if (!isDiskFull(err) || !LogReserve.in(path.dirname(this.file)).release()) throw err;
      appendToLog(this.file, Buffer.from(line));
    }
  }

  private warned = false;

  /** A planted file is said once on stderr (never into a call): the log is not written. */
  private warnOnce(message: string): void {
    if (this.warned) return;
    this.warned = true;
    process.stderr.write(`axpage: ${message}; its records are not kept until it is removed\n`);
  }
}

export { appendWhole } from '../capture/safe-file.js';

function isDiskFull(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
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
    const { mask, ...rest } = record;
    return this.lines.append({
      time: at.toISOString(),
      ...rest,
      args: redactArgs(record.args, mask),
    });
  }
}
