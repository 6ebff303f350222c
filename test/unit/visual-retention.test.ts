import { mkdtempSync, rmSync } from 'node:fs';
import { readdir as readdirAll, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ArtifactStore } from '../../src/capture/index.js';

/** The dir's files but the call logs' reserve (made with the dir; see capture/reserve.ts). */
const readdir = async (dir: string) => (await readdirAll(dir)).filter((n) => n !== '.reserve');

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('retention of the images made from a pair', () => {
  it('deletes a pruned pair’s .diff.png and .marks.png with it, and nothing else', async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'axpage-visual-ret-'));
    const dir = path.join(root, 'out');
    let ms = 1_763_790_000_000;
    const store = await ArtifactStore.open({ dir, maxPairs: 1, maxBytes: 1e9, now: () => ms });
    const bases: string[] = [];
    for (let i = 0; i < 2; i++) {
      ms += 10;
      const names = await store.allocate('visual_diff');
      await store.writeBinary(names.pngPath, Buffer.from('png'));
      await store.writeText(names.txtPath, 'tree');
      for (const extra of ['diff.png', 'marks.png']) {
        await writeFile(path.join(dir, `${names.base}.${extra}`), 'img', { mode: 0o600 });
      }
      bases.push(names.base);
    }
    await writeFile(path.join(dir, 'notes.diff.png'), 'foreign');
    const result = await store.prune();
    expect(result.removed).toEqual([bases[0]]);
    expect((await readdir(dir)).sort()).toEqual(
      [
        `${bases[1]}.diff.png`,
        `${bases[1]}.marks.png`,
        `${bases[1]}.png`,
        `${bases[1]}.txt`,
        'notes.diff.png',
      ].sort(),
    );
    await store.close();
  });
});
