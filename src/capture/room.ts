/**
 * Whether the artifact dir can take a call's pair, asked before an action acts: a click
 * done and then reported as an error because its files could not be written is worse
 * than a click refused. The check is cheap (one access and one statfs), so every action
 * asks; a write can still fail later (the disk filled meanwhile), and that is handled
 * where the pair is written.
 */
import { constants } from 'node:fs';
import { access, statfs } from 'node:fs/promises';
import { AxError } from '../errors.js';

/** Room a pair needs at least: a large tree file and a full-screen PNG. */
export const MIN_PAIR_BYTES = 1024 * 1024;
/** Room kept beyond the pair for the call's session and audit log lines. */
export const LOG_RESERVE_BYTES = 64 * 1024;
/** Files a pair creates at most at once: its tree, its PNG, a temp file of each. */
const PAIR_FILES = 4;

/** What a pair needs: twice the largest recent pair (a temp file then a rename), at least the minimum. */
export function pairNeed(recentPairBytes: readonly number[]): number {
  const largest = recentPairBytes.reduce((a, b) => Math.max(a, b), 0);
  return Math.max(MIN_PAIR_BYTES, 2 * largest) + LOG_RESERVE_BYTES;
}

/** Free space and files on a file system, as statfs gives them to an unprivileged user. */
export interface Room {
  freeBytes: number;
  /** Free inodes; undefined when the file system does not count them (reports 0 in all). */
  freeFiles?: number;
}

export async function roomOn(dir: string): Promise<Room> {
  const st = await statfs(dir);
  return {
    freeBytes: st.bavail * st.bsize,
    freeFiles: st.files > 0 ? st.ffree : undefined,
  };
}

/** Why `room` cannot take a pair of `need` bytes, or undefined when it can. */
export function lackOfRoom(room: Room, need: number): string | undefined {
  if (room.freeBytes < need) {
    return `only ${mib(room.freeBytes)} free there, and a call's tree file and screenshot need about ${mib(need)}`;
  }
  if (room.freeFiles !== undefined && room.freeFiles < PAIR_FILES) {
    return `no free inodes there (${room.freeFiles} left)`;
  }
  return undefined;
}

/**
 * Throws a clear AxError when `ioDir` (the artifact dir, `shown` by its path) cannot be
 * written or has no room for a pair of `need` bytes.
 */
export async function checkRoom(ioDir: string, shown: string, need: number): Promise<void> {
  try {
    await access(ioDir, constants.W_OK);
  } catch (err) {
    throw unwritable(shown, err);
  }
  let room: Room;
  try {
    room = await roomOn(ioDir);
  } catch {
    // A file system that cannot say (statfs unsupported): the writes will tell.
    return;
  }
  const lack = lackOfRoom(room, need);
  if (lack) {
    throw new AxError(
      'disk_full',
      `the artifact dir ${shown} is full: ${lack}; nothing was done`,
      'Free space there (old pairs go with a lower AXPAGE_MAX_BYTES or AXPAGE_MAX_PAIRS), or restart with AXPAGE_OUT set to a dir with room, then call again',
    );
  }
}

/** Refused: the room kept for the call logs (reserve.ts) was used up and cannot be made again. */
export function noRoomForLogs(shown: string): AxError {
  return new AxError(
    'disk_full',
    `the artifact dir ${shown} is full: the room kept for its call logs was used and cannot be made again; nothing was done`,
    'Free space there (old pairs go with a lower AXPAGE_MAX_BYTES or AXPAGE_MAX_PAIRS), or restart with AXPAGE_OUT set to a dir with room, then call again',
  );
}

/** The error for a dir that cannot be written: read-only, or not ours to write. */
export function unwritable(shown: string, err: unknown): AxError {
  return new AxError(
    'artifacts_unwritable',
    `the artifact dir ${shown} cannot be written (${errnoText(err)}); nothing was done`,
    'Make it writable (a read-only mount, or its permissions), or restart with AXPAGE_OUT set to a dir of your own',
  );
}

/** Why a pair could not be written, from the write's error, and what to do. */
export function pairWriteFailure(err: unknown, shown: string): AxError {
  const code = errnoOf(err);
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new AxError(
      'disk_full',
      `the artifact dir ${shown} is full (${errnoText(err)})`,
      'Free space there, or restart with AXPAGE_OUT set to a dir with room',
    );
  }
  return new AxError(
    'artifacts_unwritable',
    `the artifact dir ${shown} cannot be written (${errnoText(err)})`,
    'Make it writable (a read-only mount, or its permissions), or restart with AXPAGE_OUT set to a dir of your own',
  );
}

/** A few words for a summary line: why a pair is missing and what to do (the full text is beside it). */
export function unwrittenNote(why: AxError): string {
  return why.code === 'disk_full'
    ? 'pair not written: artifact dir full; free space or set AXPAGE_OUT'
    : 'pair not written: artifact dir not writable; fix it or set AXPAGE_OUT';
}

/** The errno code of an error or of its cause (an ArtifactError wraps the fs error). */
function errnoOf(err: unknown): string | undefined {
  for (let e = err; e instanceof Error; e = (e as Error & { cause?: unknown }).cause) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  }
  return undefined;
}

function errnoText(err: unknown): string {
  const code = errnoOf(err);
  const known: Record<string, string> = {
    ENOSPC: 'no space left on the device',
    EDQUOT: 'disk quota exceeded',
    EROFS: 'read-only file system',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
  };
  if (code && known[code]) return `${code}: ${known[code]}`;
  return code ?? (err instanceof Error ? err.message : String(err));
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
