/**
 * The private artifact directory: where it is, and making sure it is ours alone.
 * Screens and trees hold private data (mail, chats, documents), so the directory is
 * 0700 and owned by us; anything else is refused.
 */
import { constants } from 'node:fs';
import { mkdir, open, lstat, type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { withTimeout } from '../model/timeout.js';
import { ArtifactError } from './errors.js';

/** `$AXPAGE_OUT` (absolute; a leading `~/` is expanded) if set, else `<os tmpdir>/axpage-<uid>`. */
export function resolveArtifactDir(env: NodeJS.ProcessEnv = process.env): string {
  const out = env.AXPAGE_OUT?.trim();
  if (out) {
    // MCP client configs pass env verbatim, with no shell to expand `~`.
    const expanded =
      out === '~' || out.startsWith('~/') ? path.join(os.homedir(), out.slice(1)) : out;
    return path.resolve(expanded);
  }
  return path.join(os.tmpdir(), `axpage-${currentUser()}`);
}

function currentUser(): string | number {
  return process.getuid?.() ?? os.userInfo().username;
}

/** How long creating or opening the directory may take (a hung mount, a path under /proc). */
export const DIR_SETUP_TIMEOUT_MS = 5_000;

/** The directory, opened: its descriptor pins it, so a path swapped later is never followed. */
export interface PrivateDir {
  path: string;
  handle: FileHandle;
  /** Device and inode, to notice the path being replaced. */
  dev: number;
  ino: number;
}

/**
 * Creates `dir` (and its parents) 0700, or checks an existing one: it must be a real
 * directory (not a symlink: in a shared tmp dir another user could point it anywhere),
 * owned by us, and private (no access for group or others). A directory that is not is
 * refused, never chmod'ed: AXPAGE_OUT=/tmp would otherwise lock everyone out of /tmp.
 * The checks run on a descriptor opened with O_NOFOLLOW, which the store keeps.
 */
export async function openPrivateDir(
  dir: string,
  timeoutMs = DIR_SETUP_TIMEOUT_MS,
): Promise<PrivateDir> {
  const hint = 'Remove it, or set AXPAGE_OUT to a directory of your own';
  try {
    await bounded(makeDirs(dir), timeoutMs, `creating ${dir}`);
  } catch (err) {
    const kind = err instanceof ArtifactError ? undefined : await describePath(dir);
    throw new ArtifactError(
      'unsafe_dir',
      `cannot create artifact dir ${dir}: ${kind ?? errText(err)}. ${hint}`,
      { cause: err },
    );
  }
  let handle: FileHandle;
  try {
    handle = await bounded(
      open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW),
      timeoutMs,
      `opening ${dir}`,
    );
  } catch (err) {
    const kind = err instanceof ArtifactError ? undefined : await describePath(dir);
    throw new ArtifactError(
      'unsafe_dir',
      `refusing artifact dir ${dir}: ${kind ?? errText(err)}. ${hint}`,
      { cause: err },
    );
  }
  try {
    const st = await handle.stat();
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) {
      throw new ArtifactError(
        'unsafe_dir',
        `refusing artifact dir ${dir}: it is owned by uid ${st.uid}, not by us (uid ${uid}), so another user could read or plant files there. ${hint}`,
      );
    }
    if ((st.mode & 0o077) !== 0) {
      const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
      throw new ArtifactError(
        'unsafe_dir',
        `refusing artifact dir ${dir}: its mode is ${mode}, so others can read the screenshots and trees written there; axpage does not change the mode of a directory it did not create. Run chmod 700 on it if it is yours alone, or set AXPAGE_OUT to a new path (axpage creates it 0700)`,
      );
    }
    return { path: dir, handle, dev: st.dev, ino: st.ino };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** Checks the directory the way openPrivateDir does, and closes it again. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await (await openPrivateDir(dir)).handle.close();
}

/**
 * `mkdir -p` one level at a time, each 0700. Node's recursive mkdir never returns for a
 * path under /proc (it retries ENOENT forever on a pool thread); this ends with ENOENT.
 */
async function makeDirs(dir: string): Promise<void> {
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    const parent = path.dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw err;
    await makeDirs(parent);
    await mkdir(dir, { mode: 0o700 }).catch((again: NodeJS.ErrnoException) => {
      if (again.code !== 'EEXIST') throw again;
    });
  }
}

/** Rejects after `ms` with an error that says what usually hangs there. */
function bounded<T>(op: Promise<T>, ms: number, what: string): Promise<T> {
  return withTimeout(
    op,
    ms,
    () =>
      new ArtifactError(
        'io',
        `${what} did not finish within ${ms} ms (a hung mount, or a path like /proc where directories cannot be made)`,
      ),
  );
}

async function describePath(p: string): Promise<string | undefined> {
  try {
    const st = await lstat(p);
    if (st.isSymbolicLink()) return 'it is a symbolic link';
    if (!st.isDirectory()) return 'it exists and is not a directory';
  } catch {
    // Not there (or a parent is not a directory): the original error says more.
  }
  return undefined;
}

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
