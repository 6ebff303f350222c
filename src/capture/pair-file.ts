/**
 * The only way a file of the artifact dir is read back (the viewer, the pair resources,
 * the artifact index): a pair file (its name is one
 * the capture store gives, src/capture/names.ts) directly in the dir, opened without
 * following a link (O_NOFOLLOW) and checked on its descriptor to be a regular file with
 * no other name. A symlink or a hard link planted in the dir could otherwise point the
 * viewer at any file the user can read; whatever is not served is the same "not there".
 */
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { parseArtifactFile, type ArtifactKind } from './names.js';

/** Whether `name` is a pair file's name of `kind` (any kind when not given), and a bare name. */
export function isPairFileName(name: string, kind?: ArtifactKind): boolean {
  if (name !== path.basename(name)) return false;
  const parsed = parseArtifactFile(name);
  return parsed !== null && (kind === undefined || parsed.kind === kind);
}

/**
 * The pair file `name` in `dir`, opened for reading; undefined when the name is no pair
 * file's, or the file is not there, is a link (symbolic or hard), or is not a regular file.
 */
export async function openPairFile(dir: string, name: string): Promise<FileHandle | undefined> {
  if (!isPairFileName(name)) return undefined;
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO planted under a pair's name must not hang the open.
    handle = await open(
      path.join(dir, name),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch {
    return undefined;
  }
  const st = await handle.stat().catch(() => undefined);
  // One name only: a hard link made in the dir to a file elsewhere has two.
  if (!st?.isFile() || st.nlink !== 1) {
    await handle.close();
    return undefined;
  }
  return handle;
}

/** The whole pair file, or undefined (see openPairFile). */
export async function readPairFile(dir: string, name: string): Promise<Buffer | undefined> {
  const handle = await openPairFile(dir, name);
  if (!handle) return undefined;
  try {
    return await handle.readFile();
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
