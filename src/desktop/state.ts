/**
 * Where a desktop keeps its state, so that `axpage desktop up` can return while the desktop
 * keeps running and later commands (run, down, env, status) find it again:
 *
 *   <os tmpdir>/axpage-<uid>/desktop-<display>/   0700, one per desktop
 *     state.json    display, env, daemon pids (start order), timings, created
 *     apps.jsonl    one line per app launched into it (appended, so concurrent `run`s are safe)
 *     owner.json    the process that is bringing the desktop up (claims the directory)
 *     xdg/          XDG_RUNTIME_DIR (0700): a11y bus socket, session bus socket
 *     fb/           Xvfb -fbdir (Xvfb_screen0)
 *     logs/         daemon and app logs
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { RecordedPid } from './procs.js';
import { isAlive, startTimeOf } from './procs.js';

export const STATE_VERSION = 1;

export interface DesktopState {
  version: number;
  display: number;
  /** Screen geometry as given to Xvfb, e.g. 1280x800x24. */
  size: string;
  stateDir: string;
  /** Variables to set for clients of this desktop. */
  env: Record<string, string>;
  /** Daemons in start order (stop goes in reverse). */
  pids: RecordedPid[];
  /** ISO time the desktop came up. */
  created: string;
  windowManager: boolean;
  /** Milliseconds each bring-up step took (xvfb, sessionBus, a11yBus, registry, wm, total). */
  timings: Record<string, number>;
}

function uid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : 0;
}

/** `<os tmpdir>/axpage-<uid>`, created 0700 and checked to be ours (not a planted symlink). */
export function baseDir(): string {
  const dir = path.join(os.tmpdir(), `axpage-${uid()}`);
  ensurePrivateDir(dir);
  return dir;
}

/** Creates `dir` (mode 0700) if missing; refuses a symlink or a directory owned by someone else. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} exists and is not a directory`);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    throw new Error(`${dir} belongs to uid ${st.uid}, not to us; refusing to use it`);
  }
}

export function defaultStateDir(display: number): string {
  return path.join(baseDir(), `desktop-${display}`);
}

export function stateFile(stateDir: string): string {
  return path.join(stateDir, 'state.json');
}

export function appsFile(stateDir: string): string {
  return path.join(stateDir, 'apps.jsonl');
}

export function writeState(state: DesktopState): void {
  // Write then rename: readers never see a half-written file.
  const file = stateFile(state.stateDir);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
}

export function readState(stateDir: string): DesktopState | null {
  try {
    const s = JSON.parse(fs.readFileSync(stateFile(stateDir), 'utf8')) as DesktopState;
    return s.version === STATE_VERSION ? s : null;
  } catch {
    return null;
  }
}

/** Records an app launched into the desktop. Appends are atomic for lines this short. */
export function recordApp(stateDir: string, entry: RecordedPid): void {
  fs.appendFileSync(appsFile(stateDir), JSON.stringify(entry) + '\n', { mode: 0o600 });
}

export function readApps(stateDir: string): RecordedPid[] {
  let text: string;
  try {
    text = fs.readFileSync(appsFile(stateDir), 'utf8');
  } catch {
    return [];
  }
  const out: RecordedPid[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as RecordedPid);
    } catch {
      // A torn line from a crashed writer: skip it.
    }
  }
  return out;
}

/** Every desktop with a state file under the base dir, oldest first. */
export function listStates(): DesktopState[] {
  const base = baseDir();
  const out: DesktopState[] = [];
  for (const name of fs.readdirSync(base)) {
    if (!/^desktop-\d+$/.test(name)) continue;
    const s = readState(path.join(base, name));
    if (s) out.push(s);
  }
  return out.sort((a, b) => a.created.localeCompare(b.created) || a.display - b.display);
}

interface Owner {
  pid: number;
  start: number | null;
}

function ownerFile(stateDir: string): string {
  return path.join(stateDir, 'owner.json');
}

/**
 * A state dir is stale when nobody is bringing it up and none of its recorded processes
 * runs: a crashed `up`, or a desktop whose processes were killed from outside. A dir younger
 * than `minAgeMs` is never stale: it may be a claim that is still being set up.
 */
export function isStale(stateDir: string, minAgeMs = 0): boolean {
  try {
    if (Date.now() - fs.statSync(stateDir).mtimeMs < minAgeMs) return false;
  } catch {
    return false;
  }
  try {
    const owner = JSON.parse(fs.readFileSync(ownerFile(stateDir), 'utf8')) as Owner;
    if (isAlive(owner.pid, owner.start)) return false;
  } catch {
    // No owner file: not made by claimStateDir; judge by its processes alone.
  }
  const state = readState(stateDir);
  const recorded = [...(state?.pids ?? []), ...readApps(stateDir)];
  return !recorded.some((p) => isAlive(p.pid, p.start));
}

/**
 * Claims `stateDir` for this process. The dir is built under a private name with its owner
 * file inside, then renamed into place: rename fails on a non-empty target, so two processes
 * picking the same display cannot both own it, and nobody ever sees an ownerless claim.
 * A stale dir (older than 30 s) is moved aside and removed first. Returns false when someone
 * else owns it.
 */
export function claimStateDir(stateDir: string): boolean {
  ensurePrivateDir(path.dirname(stateDir));
  const tmp = `${stateDir}.claim-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { mode: 0o700 });
  const owner: Owner = { pid: process.pid, start: startTimeOf(process.pid) };
  fs.writeFileSync(ownerFile(tmp), JSON.stringify(owner) + '\n', { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        fs.renameSync(tmp, stateDir);
        return true;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
        if (attempt > 0 || !isStale(stateDir, 30_000)) return false;
        // Move aside first: only one of several processes can win this rename.
        const trash = `${stateDir}.stale-${process.pid}`;
        try {
          fs.renameSync(stateDir, trash);
        } catch {
          return false;
        }
        fs.rmSync(trash, { recursive: true, force: true });
      }
    }
    return false;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export function removeStateDir(stateDir: string): void {
  fs.rmSync(stateDir, { recursive: true, force: true });
}
