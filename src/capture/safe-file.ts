/**
 * The one way a file under the artifact dir is written. Anyone who can write in the dir
 * for a moment (or planted something before it was made private) could leave a hard link
 * or a symlink under a name we are about to write: writing through it would truncate or
 * append to a file outside the dir. So:
 *
 * - a file is only ever created new: written under a fresh temp name (O_EXCL, which never
 *   follows a link) and renamed into place, which replaces whatever was planted under the
 *   name instead of writing through it;
 * - a log is appended to only when the file opened (O_NOFOLLOW) is a regular file with a
 *   single link: a hard link planted as the log's name is refused, never written through.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';

/** A file under the artifact dir that is not ours to write: a planted link or a non-file. */
export class UnsafeFileError extends Error {
  readonly code = 'EUNSAFE';
}

/** The temp name a new file is written under before it is renamed into place. */
export function tempNameFor(file: string): string {
  const base = path.basename(file);
  return path.join(
    path.dirname(file),
    `.${base}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
}

/**
 * Writes `data` as the file `file`, created new: 0600, under a temp name first, then
 * renamed over whatever `file` was (a planted hard link or symlink is replaced, its target
 * untouched). A failed write leaves no temp file behind.
 */
export function writeNewFile(file: string, data: string | Uint8Array): void {
  const tmp = tempNameFor(file);
  let fd: number | undefined;
  try {
    fd = openSync(
      tmp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, file);
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // Never made, or already renamed.
    }
    throw err;
  }
}

/** Creates `file` new and empty (0600): EEXIST when anything, a link too, has the name. */
export function claimNewFile(file: string): void {
  closeSync(
    openSync(
      file,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    ),
  );
}

/**
 * Appends `data` to the log `file` (made 0600 when missing) in one O_APPEND write, whole
 * or not at all (see appendWhole). Refused (UnsafeFileError) when the name is a symlink,
 * not a regular file, or a file with another name too (a hard link planted in its place).
 */
export function appendToLog(file: string, data: Buffer): void {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO planted under the log's name must not hang the open (no reader:
    // ENXIO at once); on a regular file it changes nothing.
    fd = openSync(
      file,
      constants.O_WRONLY |
        constants.O_APPEND |
        constants.O_CREAT |
        constants.O_NOFOLLOW |
        constants.O_NONBLOCK,
      0o600,
    );
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new UnsafeFileError(`${file} is a symlink: not written through`);
    if (code === 'ENXIO') throw new UnsafeFileError(`${file} is not a regular file: not written`);
    throw err;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UnsafeFileError(`${file} is not a regular file: not written`);
    if (st.nlink > 1) {
      throw new UnsafeFileError(
        `${file} has ${st.nlink} links (one planted from outside the dir?): not written through`,
      );
    }
    appendWhole(fd, data);
  } finally {
    closeSync(fd);
  }
}

/**
 * Appends `data` to the O_APPEND file `fd` whole or not at all: a short write (a full
 * disk takes part of it) is cut off again, so the file never ends in a torn line that
 * would also spoil the next one. Throws when it was not written whole.
 */
export function appendWhole(
  fd: number,
  data: Buffer,
  write: (fd: number, data: Buffer) => number = writeSync,
): void {
  const written = write(fd, data);
  if (written === data.length) return;
  // O_APPEND put the piece at the end: take exactly that much back off.
  if (written > 0) ftruncateSync(fd, fstatSync(fd).size - written);
  const error: NodeJS.ErrnoException = new Error(
    `only ${written} of ${data.length} bytes could be written (the disk is full?); the line was taken back`,
  );
  error.code = 'ENOSPC';
  throw error;
}
