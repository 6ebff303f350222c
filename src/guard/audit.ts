/**
 * The audit log: one JSON line per mutating call (tool, target, outcome, timing) in
 * `audit.jsonl` beside the artifacts, 0600. Typed text, values and scripts never reach it:
 * only which arguments were given, and for text how it was sent, not what or how long.
 */
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
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

/** Arguments that carry what the user typed or set: recorded as given, never their content. */
const CONTENT_ARGS = new Set(['text', 'value', 'script']);
/** Arguments that are safe to record, capped. */
const MAX_ARG_CHARS = 200;

export function redactArgs(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined) continue;
    if (CONTENT_ARGS.has(key)) {
      out[key] = '(not recorded)';
    } else if (typeof value === 'string') {
      out[key] = value.length > MAX_ARG_CHARS ? `${value.slice(0, MAX_ARG_CHARS)}…` : value;
    } else if (typeof value === 'number' || typeof value === 'boolean') {
      out[key] = value;
    } else {
      const json = JSON.stringify(value) ?? '';
      out[key] = json.length > MAX_ARG_CHARS ? `${json.slice(0, MAX_ARG_CHARS)}…` : value;
    }
  }
  return out;
}

export class AuditLog {
  private queue: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  static in(dir: string): AuditLog {
    return new AuditLog(path.join(dir, 'audit.jsonl'));
  }

  /** Appends one record; writes are serialized and never throw into the call. */
  write(record: AuditRecord, at = new Date()): Promise<void> {
    const line =
      JSON.stringify({ time: at.toISOString(), ...record, args: redactArgs(record.args) }) + '\n';
    this.queue = this.queue.then(() => this.append(line)).catch(() => undefined);
    return this.queue;
  }

  private async append(line: string): Promise<void> {
    // The dir may have been swapped for a symlink while running: O_NOFOLLOW guards only
    // the file's own name, so check the dir itself is still a private dir of ours.
    const dir = await lstat(path.dirname(this.file));
    const mine = process.getuid === undefined || dir.uid === process.getuid();
    if (!dir.isDirectory() || !mine || (dir.mode & 0o077) !== 0) {
      throw new Error(`${path.dirname(this.file)} is no longer a private dir of ours`);
    }
    // 0600, and never through a symlink planted in its place.
    const handle = await open(
      this.file,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      await handle.write(line);
    } finally {
      await handle.close();
    }
  }
}
