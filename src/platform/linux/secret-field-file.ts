/**
 * Where the memory of password fields outlives the server: one JSON file in the desktop's
 * runtime dir (XDG_RUNTIME_DIR, else <os tmpdir>/axpage-<uid>), so the next server on the same
 * desktop keeps secret a field an earlier one saw as a password field before the app revealed
 * it. Ids are kept per process, keyed by pid and start time (/proc starttime), so a reused pid
 * never inherits another process's fields; dead processes are pruned on every read.
 *
 * The file is the user's alone (0600 in a 0700 dir we own), opened without following
 * symlinks, and replaced whole by temp + rename, so a reader never sees half of it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { procStat } from './proc.js';

const VERSION = 1;
const FILE = 'secret-fields.json';

interface Entry {
  start: number;
  ids: string[];
}

export class SecretFieldFile {
  /** What was last read or written (inode, size, mtime): unchanged means nothing new to load. */
  private seen = '';

  constructor(readonly file: string) {}

  /** The remembered ids of live processes; null when the file has not changed since last time. */
  loadIfChanged(): Map<number, string[]> | null {
    const stamp = stampOf(this.file);
    if (stamp === this.seen) return null;
    const entries = this.read();
    this.seen = stamp;
    return new Map([...entries].map(([pid, e]) => [pid, e.ids]));
  }

  /** Adds `byPid`'s ids of live processes to the file (merged with what others wrote). */
  save(byPid: ReadonlyMap<number, Iterable<string>>): void {
    const entries = this.read();
    for (const [pid, ids] of byPid) {
      const start = procStat(pid)?.start;
      if (start === undefined) continue;
      const known = entries.get(pid);
      const merged = new Set(known?.start === start ? known.ids : []);
      for (const id of ids) merged.add(id);
      entries.set(pid, { start, ids: [...merged] });
    }
    const apps: Record<string, Entry> = {};
    for (const [pid, e] of entries) apps[String(pid)] = e;
    writePrivate(this.file, JSON.stringify({ version: VERSION, apps }) + '\n');
    this.seen = stampOf(this.file);
  }

  /** Entries of processes still alive with the recorded start time; anything unreadable counts as empty. */
  private read(): Map<number, Entry> {
    const out = new Map<number, Entry>();
    let parsed: unknown;
    try {
      parsed = JSON.parse(readPrivate(this.file));
    } catch {
      return out;
    }
    const apps = (parsed as { apps?: unknown } | null)?.apps;
    if (typeof apps !== 'object' || apps === null) return out;
    for (const [key, value] of Object.entries(apps as Record<string, unknown>)) {
      const pid = Number(key);
      const e = value as Partial<Entry> | null;
      if (!Number.isInteger(pid) || pid <= 0 || typeof e?.start !== 'number') continue;
      if (!Array.isArray(e.ids) || procStat(pid)?.start !== e.start) continue;
      out.set(pid, { start: e.start, ids: e.ids.filter((id) => typeof id === 'string' && id) });
    }
    return out;
  }
}

/** The store for the desktop of `env`. */
export function secretFieldFile(env: NodeJS.ProcessEnv = process.env): SecretFieldFile {
  const runtime = env.XDG_RUNTIME_DIR;
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const dir =
    runtime && path.isAbsolute(runtime)
      ? path.join(runtime, 'axpage')
      : path.join(os.tmpdir(), `axpage-${uid}`);
  return new SecretFieldFile(path.join(dir, FILE));
}

function stampOf(file: string): string {
  try {
    const st = fs.lstatSync(file);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return 'none';
  }
}

function readPrivate(file: string): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error(`${file} is not a regular file`);
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
      throw new Error(`${file} belongs to uid ${st.uid}, not to us`);
    }
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

function writePrivate(file: string, text: string): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory`);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    throw new Error(`${dir} belongs to uid ${st.uid}, not to us`);
  }
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
  const fd = fs.openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  try {
    fs.writeFileSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}
