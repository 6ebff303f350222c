import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolvePair, writeBeside } from '../../src/visual/index.js';

let root: string;
let dir: string;
const BASE = '1763790000000_get_tree';

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'axpage-visual-pairs-'));
  dir = path.join(root, 'out');
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(path.join(dir, `${BASE}.txt`), 'tree');
  writeFileSync(path.join(dir, `${BASE}.png`), 'png');
  writeFileSync(path.join(dir, '1763790000001_click.txt'), 'tree without a screenshot');
  writeFileSync(path.join(root, `${BASE}.png`), 'outside');
  symlinkSync(path.join(root, `${BASE}.png`), path.join(dir, '1763790000002_click.png'));
  writeFileSync(path.join(dir, '1763790000002_click.txt'), 'tree');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('resolvePair', () => {
  it('takes a basename, the tree file path or the screenshot path', async () => {
    const want = {
      base: BASE,
      txt: path.join(dir, `${BASE}.txt`),
      png: path.join(dir, `${BASE}.png`),
    };
    expect(await resolvePair(dir, BASE, 'before')).toEqual(want);
    expect(await resolvePair(dir, `${BASE}.txt`, 'before')).toEqual(want);
    expect(await resolvePair(dir, path.join(dir, `${BASE}.png`), 'before')).toEqual(want);
  });

  it('refuses anything outside the artifact dir or not named like a pair', async () => {
    for (const arg of [
      path.join(root, `${BASE}.png`),
      `../out/${BASE}.png`,
      '/etc/passwd',
      'notes',
      path.join(dir, 'notes.png'),
    ]) {
      await expect(resolvePair(dir, arg, 'before'), arg).rejects.toThrow(
        /not a pair in the artifact directory/,
      );
    }
  });

  it('refuses a pair without its screenshot, or whose screenshot is a symlink', async () => {
    await expect(resolvePair(dir, '1763790000001_click', 'after')).rejects.toThrow(
      /1763790000001_click.png is not in/,
    );
    await expect(resolvePair(dir, '1763790000002_click', 'after')).rejects.toThrow(
      /1763790000002_click.png is not in/,
    );
  });
});

describe('writeBeside', () => {
  it('writes 0600 and never through a symlink', async () => {
    const file = path.join(dir, `${BASE}.diff.png`);
    await writeBeside(file, Buffer.from('diff'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const link = path.join(dir, `${BASE}.marks.png`);
    symlinkSync(path.join(root, 'target'), link);
    // The link is replaced by a file of our own; what it pointed to is never made.
    await writeBeside(link, Buffer.from('x'));
    expect(lstatSync(link).isFile()).toBe(true);
    expect(existsSync(path.join(root, 'target'))).toBe(false);
  });
});
