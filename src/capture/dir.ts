/**
 * The private artifact directory: where it is, and making sure it is ours alone.
 * Screens and trees hold private data (mail, chats, documents), so the directory is
 * 0700 and owned by us; anything else is fixed (our own dir, too open) or refused.
 */
import { constants } from 'node:fs';
import { mkdir, open, lstat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
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

/**
 * Creates `dir` (and its parents) 0700, or checks an existing one: it must be a real
 * directory (not a symlink: in a shared tmp dir another user could point it anywhere)
 * owned by us; if its mode lets others in, it is tightened to 0700.
 * The checks run on a descriptor opened with O_NOFOLLOW, so nothing can be swapped
 * in between the check and the chmod.
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  const hint = 'Remove it, or set AXPAGE_OUT to a directory of your own';
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    const kind = await describePath(dir);
    throw new ArtifactError(
      'unsafe_dir',
      `cannot create artifact dir ${dir}: ${kind ?? errText(err)}. ${hint}`,
      {
        cause: err,
      },
    );
  }
  let handle;
  try {
    handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (err) {
    const kind = await describePath(dir);
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
    if ((st.mode & 0o077) !== 0) await handle.chmod(0o700);
  } finally {
    await handle.close();
  }
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
