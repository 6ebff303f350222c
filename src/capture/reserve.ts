/**
 * Room kept in the artifact dir for the call logs. Another process can fill the disk
 * while a call runs: its action is done, its pair cannot be written, and its session and
 * audit lines must still be. So the dir holds a private `.reserve` file (made when the
 * dir is opened); a log append that finds the disk full gives the reserve back and
 * appends again. Actions are then refused until the reserve can be made again, which is
 * when room returns.
 */
import { closeSync, constants, fstatSync, ftruncateSync, lstatSync, openSync } from 'node:fs';
import path from 'node:path';
import { writeNewFile } from './safe-file.js';

/** Enough for hundreds of log lines: every call refused until room returns keeps its lines. */
export const RESERVE_BYTES = 256 * 1024;
export const RESERVE_NAME = '.reserve';

export class LogReserve {
  private static readonly byDir = new Map<string, LogReserve>();

  /** The reserve of the artifact dir `dir` (one per dir in this process). */
  static in(dir: string): LogReserve {
    const key = path.resolve(dir);
    let reserve = LogReserve.byDir.get(key);
    if (!reserve) {
      reserve = new LogReserve(path.join(key, RESERVE_NAME));
      LogReserve.byDir.set(key, reserve);
    }
    return reserve;
  }

  private constructor(readonly file: string) {}

  /** Whether the reserve is in place, whole (a file of our own, not a planted link). */
  held(): boolean {
    try {
      const st = lstatSync(this.file);
      return st.isFile() && st.nlink === 1 && st.size >= RESERVE_BYTES;
    } catch {
      return false;
    }
  }

  /**
   * Makes the reserve whole again when it is not: false when the disk has no room for
   * it (nothing is left half made).
   */
  refill(): boolean {
    if (this.held()) return true;
    try {
      writeNewFile(this.file, Buffer.alloc(RESERVE_BYTES));
      return true;
    } catch {
      return false;
    }
  }

  /** Gives the reserve's room back to the disk: false when there was none to give. */
  release(): boolean {
    let fd: number;
    try {
      fd = openSync(this.file, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      return false;
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile() || st.nlink !== 1 || st.size === 0) return false;
      ftruncateSync(fd, 0);
      return true;
    } catch {
      return false;
    } finally {
      closeSync(fd);
    }
  }
}
