/**
 * A pair named by an earlier result (its basename, or the path of its tree file or its
 * PNG), resolved only inside the artifact directory; and the files written beside it.
 */
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { AxError } from '../errors.js';
import {
  parseArtifactFile,
  readPairFile,
  resolveArtifactDir,
  writeNewFile,
} from '../capture/index.js';

export interface PairFiles {
  base: string;
  txt: string;
  png: string;
}

export async function resolvePair(dir: string, arg: string, what: string): Promise<PairFiles> {
  const given = arg.trim();
  const name = path.basename(given).replace(/\.(txt|png)$/, '');
  const parsed = parseArtifactFile(`${name}.png`);
  const realDir = await realpath(dir).catch(() => path.resolve(dir));
  const inside =
    (!given.includes('/') ||
      (path.isAbsolute(given) &&
        (await realpath(path.dirname(given)).catch(() => '')) === realDir)) &&
    parsed !== null;
  if (!inside) {
    throw new AxError(
      'bad_argument',
      `${what} "${clip(given)}" is not a pair in the artifact directory ${dir}`,
      'Pass the basename, tree file or screenshot path of an earlier result',
    );
  }
  const files = {
    base: name,
    txt: path.join(realDir, `${name}.txt`),
    png: path.join(realDir, `${name}.png`),
  };
  for (const file of [files.txt, files.png]) {
    const st = await lstat(file).catch(() => undefined);
    if (!st?.isFile() || st.nlink !== 1) {
      throw new AxError(
        'bad_argument',
        `${what}: ${path.basename(file)} is not in ${dir} (pruned, or taken with screenshots off)`,
        'Pass a recent pair that has a screenshot, or take a new one',
      );
    }
  }
  return files;
}

/**
 * One file of a resolved pair, read as every pair file is read back (see openPairFile): a
 * link planted under its name since it was resolved is not read.
 */
export async function readPairPath(file: string, what: string): Promise<Buffer> {
  const data = await readPairFile(path.dirname(file), path.basename(file));
  if (data === undefined) {
    throw new AxError(
      'bad_argument',
      `${what}: ${path.basename(file)} cannot be read from ${path.dirname(file)} (gone, or not a plain file of its own)`,
      'Pass a recent pair that has a screenshot, or take a new one',
    );
  }
  return data;
}

/**
 * Writes a new file beside a pair (0600), replacing an old one: created new and renamed
 * into place, so a link planted under its name is replaced, never written through.
 */
export async function writeBeside(file: string, data: Buffer): Promise<void> {
  const st = await lstat(file).catch(() => undefined);
  if (st && !st.isFile() && !st.isSymbolicLink()) {
    throw new Error(`${file} exists and is not a regular file`);
  }
  writeNewFile(file, data);
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** The artifact directory the server writes to (AXPAGE_OUT or its default). */
export function artifactDirOf(outDir: string | undefined): string {
  return resolveArtifactDir({ ...process.env, AXPAGE_OUT: outDir });
}
