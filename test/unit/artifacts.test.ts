import { mkdtempSync } from 'node:fs';
import {
  chmod,
  chown,
  lstat,
  mkdir,
  readFile,
  readdir as readdirAll,
  rename,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { itNeeding, runsAsRoot } from '../e2e/helpers/needs.js';
import { FOREIGN_GRACE_MS } from '../../src/capture/artifacts.js';
import {
  ArtifactError,
  ArtifactStore,
  parseArtifactFile,
  resolveArtifactDir,
} from '../../src/capture/index.js';

/** The dir's files but the call logs' reserve (made with the dir; see capture/reserve.ts). */
const readdir = async (dir: string) => (await readdirAll(dir)).filter((n) => n !== '.reserve');

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'axpage-artifacts-test-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const mode = async (p: string) => (await stat(p)).mode & 0o777;

/** Runs `fn` with a wide-open umask, as a careless shell profile might set. */
async function withUmask<T>(mask: number, fn: () => Promise<T>): Promise<T> {
  const old = process.umask(mask);
  try {
    return await fn();
  } finally {
    process.umask(old);
  }
}

/** A clock the test moves by hand. */
function clock(start = 1_763_790_000_000) {
  let t = start;
  return { now: () => t, tick: (ms = 1) => (t += ms) };
}

async function writePair(store: ArtifactStore, tool: string, txt: string, png: Buffer) {
  const names = await store.allocate(tool);
  await store.writeBinary(names.pngPath, png);
  await store.writeText(names.txtPath, txt);
  return names;
}

describe('resolveArtifactDir', () => {
  it('uses AXPAGE_OUT (made absolute, ~ expanded), else <tmpdir>/axpage-<uid>', () => {
    expect(resolveArtifactDir({ AXPAGE_OUT: '/data/out' })).toBe('/data/out');
    expect(resolveArtifactDir({ AXPAGE_OUT: 'rel/out' })).toBe(path.resolve('rel/out'));
    expect(resolveArtifactDir({ AXPAGE_OUT: '~/shots' })).toBe(path.join(os.homedir(), 'shots'));
    const uid = process.getuid?.();
    expect(resolveArtifactDir({})).toBe(path.join(os.tmpdir(), `axpage-${uid}`));
    expect(resolveArtifactDir({ AXPAGE_OUT: '  ' })).toBe(path.join(os.tmpdir(), `axpage-${uid}`));
  });
});

describe('ArtifactStore.open: a private directory', () => {
  it('creates the dir and its parents 0700 even under umask 000', async () => {
    const dir = path.join(root, 'a', 'b', 'out');
    await withUmask(0, () => ArtifactStore.open({ dir, maxPairs: 10, maxBytes: 1e6 }));
    expect(await mode(dir)).toBe(0o700);
    expect(await mode(path.join(root, 'a'))).toBe(0o700);
  });

  it('refuses an existing dir that others can read, and never changes its mode', async () => {
    for (const m of [0o777, 0o1777, 0o750]) {
      const dir = path.join(root, `open-${m.toString(8)}`);
      await mkdir(dir);
      await chmod(dir, m);
      const err = await ArtifactStore.open({ dir, maxPairs: 10, maxBytes: 1e6 }).catch((e) => e);
      expect(err).toBeInstanceOf(ArtifactError);
      expect(err.code).toBe('unsafe_dir');
      expect(err.message).toMatch(/others can read/);
      expect(err.message).toMatch(/AXPAGE_OUT/);
      expect((await stat(dir)).mode & 0o7777).toBe(m);
    }
  });

  it('fails in bounded time with a clear error under /proc, where mkdir -p never returns', async () => {
    const err = await ArtifactStore.open({
      dir: '/proc/axpage-test-no-such/out',
      maxPairs: 10,
      maxBytes: 1e6,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(ArtifactError);
    expect(err.message).toMatch(/cannot create artifact dir/);
  });

  it('never follows a symlink swapped in for its dir while running', async () => {
    const dir = path.join(root, 'swapped');
    const store = await ArtifactStore.open({ dir, maxPairs: 10, maxBytes: 1e6 });
    const first = await store.allocate('click');
    const moved = path.join(root, 'swapped-away');
    const elsewhere = path.join(root, 'elsewhere');
    await mkdir(elsewhere, { mode: 0o700 });
    await rename(dir, moved);
    await symlink(elsewhere, dir);
    // A write already under way lands in the directory it was claimed in, not the link's target.
    await store.writeText(first.txtPath, 'tree');
    expect(await readdir(elsewhere)).toEqual([]);
    expect(await readFile(path.join(moved, path.basename(first.txtPath)), 'utf8')).toBe('tree');
    // A new call is refused, saying why.
    const err = await store.allocate('click').catch((e) => e);
    expect(err).toBeInstanceOf(ArtifactError);
    expect(err.message).toMatch(/was replaced while running .*symbolic link/);
    expect(await readdir(elsewhere)).toEqual([]);
    await store.close();
  });

  it('refuses a symlinked dir, and leaves its target alone', async () => {
    const target = path.join(root, 'target');
    await mkdir(target, { mode: 0o755 });
    await chmod(target, 0o755);
    const link = path.join(root, 'link');
    await symlink(target, link);
    const err = await ArtifactStore.open({ dir: link, maxPairs: 10, maxBytes: 1e6 }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(ArtifactError);
    expect(err.code).toBe('unsafe_dir');
    expect(err.message).toMatch(/symbolic link/);
    expect(err.message).toMatch(/AXPAGE_OUT/);
    expect(await mode(target)).toBe(0o755);
    expect(await readdir(target)).toEqual([]);
  });

  it('refuses a path that is a file', async () => {
    const file = path.join(root, 'file');
    await writeFile(file, 'x');
    await expect(ArtifactStore.open({ dir: file, maxPairs: 10, maxBytes: 1e6 })).rejects.toThrow(
      /not a directory/,
    );
  });

  itNeeding(
    [runsAsRoot()],
    'refuses a dir owned by another user (needs root to set up)',
    async () => {
      const dir = path.join(root, 'theirs');
      await mkdir(dir, { mode: 0o777 });
      await chmod(dir, 0o777);
      await chown(dir, 65534, 65534);
      await expect(ArtifactStore.open({ dir, maxPairs: 10, maxBytes: 1e6 })).rejects.toThrow(
        /owned by uid 65534/,
      );
      expect(await mode(dir)).toBe(0o777); // not ours: not touched
    },
  );

  it('validates caps from the environment with clear errors, and reads good ones', async () => {
    const dir = path.join(root, 'env');
    for (const [env, pattern] of [
      [{ AXPAGE_MAX_PAIRS: 'lots' }, /AXPAGE_MAX_PAIRS=lots is not a whole number >= 1/],
      [{ AXPAGE_MAX_PAIRS: '0' }, /AXPAGE_MAX_PAIRS=0/],
      [{ AXPAGE_MAX_PAIRS: '2.5' }, /AXPAGE_MAX_PAIRS=2.5/],
      [{ AXPAGE_MAX_BYTES: '12 parsecs' }, /AXPAGE_MAX_BYTES=12 parsecs is not a size/],
      [{ AXPAGE_MAX_BYTES: '0' }, /AXPAGE_MAX_BYTES=0/],
    ] as const) {
      const err = await ArtifactStore.open({ dir, env }).catch((e) => e);
      expect(err).toBeInstanceOf(ArtifactError);
      expect(err.code).toBe('config');
      expect(err.message).toMatch(pattern);
    }
    const defaults = await ArtifactStore.open({ dir, env: {} });
    expect([defaults.maxPairs, defaults.maxBytes]).toEqual([500, 500 * 1024 * 1024]);
    const set = await ArtifactStore.open({
      dir,
      env: { AXPAGE_MAX_PAIRS: '42', AXPAGE_MAX_BYTES: '1.5GiB' },
    });
    expect([set.maxPairs, set.maxBytes]).toEqual([42, 1.5 * 1024 ** 3]);
    const explicit = await ArtifactStore.open({
      dir,
      maxPairs: 3,
      env: { AXPAGE_MAX_BYTES: '64k' },
    });
    expect([explicit.maxPairs, explicit.maxBytes]).toEqual([3, 65536]);
    await expect(ArtifactStore.open({ dir, maxPairs: 0, maxBytes: 1 })).rejects.toThrow(/maxPairs/);
  });
});

describe('ArtifactStore names', () => {
  it('claims <epoch-ms>[-<n>]_<tool> by creating the .txt 0600, dropping ax_', async () => {
    const dir = path.join(root, 'names');
    const t = clock();
    const store = await ArtifactStore.open({ dir, maxPairs: 100, maxBytes: 1e9, now: t.now });
    const a = await store.allocate('ax_click');
    const b = await store.allocate('ax_click');
    const c = await store.allocate('get_tree');
    t.tick();
    const d = await store.allocate('ax_click');
    expect([a.base, b.base, c.base, d.base]).toEqual([
      '1763790000000_click',
      '1763790000000-1_click',
      '1763790000000-2_get_tree',
      '1763790000001_click',
    ]);
    expect(a.txtPath).toBe(path.join(dir, '1763790000000_click.txt'));
    expect(a.pngPath).toBe(path.join(dir, '1763790000000_click.png'));
    expect((await stat(a.txtPath)).size).toBe(0);
    expect(await mode(a.txtPath)).toBe(0o600);
    await expect(store.allocate('click; rm -rf /')).rejects.toThrow(
      /cannot be used in a file name/,
    );
    await expect(store.allocate('../x')).rejects.toThrow(ArtifactError);
  });

  it('gives back a claim nothing was written to, and keeps one that has a file', async () => {
    const dir = path.join(root, 'release');
    const store = await ArtifactStore.open({ dir, maxPairs: 100, maxBytes: 1e9 });
    const unused = await store.allocate('ax_get_tree');
    const shot = await store.allocate('ax_get_tree');
    const pair = await store.allocate('ax_get_tree');
    await store.writeBinary(shot.pngPath, Buffer.from('png'));
    await store.writeBinary(pair.pngPath, Buffer.from('png'));
    await store.writeText(pair.txtPath, 'tree\n');
    expect(store.stats.pairs).toBe(3);
    for (const names of [unused, shot, pair]) await store.release(names);
    // Only the empty claim is gone, from the dir and from the count.
    expect((await readdir(dir)).sort()).toEqual(
      [shot.txtPath, shot.pngPath, pair.txtPath, pair.pngPath].map((p) => path.basename(p)).sort(),
    );
    expect(store.stats.pairs).toBe(2);
    expect(await readFile(pair.txtPath, 'utf8')).toBe('tree\n');
    // Released twice, or a name it never gave: nothing happens.
    await store.release(unused);
    await store.release({ ...unused, base: '1_none' });
    expect(store.stats.pairs).toBe(2);
  });

  it('gives 1000 unique names in a tight loop, and 500 more claimed concurrently', async () => {
    const dir = path.join(root, 'many');
    const store = await ArtifactStore.open({ dir, maxPairs: 10_000, maxBytes: 1e12 });
    const bases = new Set<string>();
    for (let i = 0; i < 1000; i++) bases.add((await store.allocate('click')).base);
    expect(bases.size).toBe(1000);
    const concurrent = await Promise.all(
      Array.from({ length: 500 }, () => store.allocate('click')),
    );
    for (const n of concurrent) bases.add(n.base);
    expect(bases.size).toBe(1500);
    const files = await readdir(dir);
    expect(files.length).toBe(1500);
    expect(files.every((f) => parseArtifactFile(f)?.kind === 'txt')).toBe(true);
    // Real time: most calls share a millisecond with another, so -<n> is exercised.
    expect([...bases].some((b) => /^\d+-\d+_click$/.test(b))).toBe(true);
  });

  it('never hands two stores on one dir (two servers) the same name, even on one clock tick', async () => {
    const dir = path.join(root, 'shared');
    const frozen = () => 1_763_790_000_000; // every claim races for the same millisecond
    const s1 = await ArtifactStore.open({ dir, maxPairs: 10_000, maxBytes: 1e12, now: frozen });
    const s2 = await ArtifactStore.open({ dir, maxPairs: 10_000, maxBytes: 1e12, now: frozen });
    const claims = await Promise.all(
      Array.from({ length: 300 }, (_, i) => (i % 2 ? s1 : s2).allocate('click')),
    );
    const more = await Promise.all([
      ...Array.from({ length: 100 }, () => s1.allocate('click')),
      ...Array.from({ length: 100 }, () => s2.allocate('click')),
    ]);
    const all = [...claims, ...more].map((n) => n.base);
    expect(new Set(all).size).toBe(500);
    expect((await readdir(dir)).length).toBe(500);
  });
});

describe('ArtifactStore writes', () => {
  it('writes files 0600 under umask 000, replacing the claim, with no temp files left', async () => {
    const dir = path.join(root, 'writes');
    await withUmask(0, async () => {
      const store = await ArtifactStore.open({ dir, maxPairs: 10, maxBytes: 1e9 });
      const names = await store.allocate('screenshot');
      await store.writeBinary(names.pngPath, Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      await store.writeText(names.txtPath, '# app: demo\n[AXButton (push button)] "OK"\n');
      expect(await readFile(names.txtPath, 'utf8')).toBe(
        '# app: demo\n[AXButton (push button)] "OK"\n',
      );
      expect(await readFile(names.pngPath)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      expect(await mode(names.txtPath)).toBe(0o600);
      expect(await mode(names.pngPath)).toBe(0o600);
      expect((await readdir(dir)).sort()).toEqual([`${names.base}.png`, `${names.base}.txt`]);
      expect(store.stats).toEqual({ pairs: 1, bytes: 4 + 42 });
    });
  });

  it('never lets a reader see a half-written file', async () => {
    const dir = path.join(root, 'atomic');
    const store = await ArtifactStore.open({ dir, maxPairs: 10, maxBytes: 1e12 });
    const names = await store.allocate('screenshot');
    const size = 16 * 1024 * 1024;
    await store.writeBinary(names.pngPath, Buffer.alloc(size, 0x61));
    let done = false;
    let reads = 0;
    const reader = (async () => {
      while (!done) {
        const seen = await readFile(names.pngPath);
        expect(seen.length).toBe(size);
        expect(
          seen[0] === seen[size - 1] && seen.indexOf(seen[0] === 0x61 ? 0x62 : 0x61) === -1,
        ).toBe(true);
        reads++;
      }
    })();
    for (let i = 0; i < 4; i++)
      await store.writeBinary(names.pngPath, Buffer.alloc(size, i % 2 ? 0x61 : 0x62));
    done = true;
    await reader;
    expect(reads).toBeGreaterThan(0);
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses to write outside its own names', async () => {
    const dir = path.join(root, 'outside');
    const store = await ArtifactStore.open({ dir, maxPairs: 10, maxBytes: 1e9 });
    await expect(store.writeText(path.join(dir, 'notes.txt'), 'x')).rejects.toThrow(
      /not an artifact path/,
    );
    await expect(store.writeText(path.join(root, '1_click.txt'), 'x')).rejects.toThrow(
      ArtifactError,
    );
    expect(await readdir(root)).toEqual(['outside']);
  });

  it('makes the directory again when it is removed under a running store', async () => {
    const dir = path.join(root, 'gone');
    const store = await ArtifactStore.open({ dir, maxPairs: 10, maxBytes: 1e9 });
    await writePair(store, 'click', 'one', Buffer.from('png'));
    await rm(dir, { recursive: true });
    const names = await writePair(store, 'click', 'two', Buffer.from('png'));
    expect(await readFile(names.txtPath, 'utf8')).toBe('two');
    expect(await mode(dir)).toBe(0o700);
    expect(store.stats.pairs).toBe(1);
  });
});

describe('ArtifactStore.prune', () => {
  it('keeps the newest maxPairs pairs, deleting both files of the oldest', async () => {
    const dir = path.join(root, 'count');
    const t = clock();
    const store = await ArtifactStore.open({ dir, maxPairs: 3, maxBytes: 1e9, now: t.now });
    const written = [];
    for (let i = 0; i < 6; i++) {
      t.tick(10);
      written.push(await writePair(store, 'click', `tree ${i}`, Buffer.from(`png ${i}`)));
      const result = await store.prune();
      expect(result.pairs).toBe(Math.min(i + 1, 3));
      if (i >= 3) expect(result.removed).toEqual([written[i - 3].base]);
    }
    const left = (await readdir(dir)).sort();
    expect(left).toEqual(written.slice(3).flatMap((n) => [`${n.base}.png`, `${n.base}.txt`]));
  });

  it('keeps total bytes under maxBytes, oldest first, but never the pair just written', async () => {
    const dir = path.join(root, 'bytes');
    const t = clock();
    const store = await ArtifactStore.open({ dir, maxPairs: 100, maxBytes: 250, now: t.now });
    const names = [];
    for (let i = 0; i < 4; i++) {
      t.tick();
      names.push(await writePair(store, 'find', 'x'.repeat(40), Buffer.alloc(60))); // 100 bytes a pair
      await store.prune();
    }
    expect(store.stats).toEqual({ pairs: 2, bytes: 200 });
    expect((await readdir(dir)).sort()).toEqual(
      names.slice(2).flatMap((n) => [`${n.base}.png`, `${n.base}.txt`]),
    );
    t.tick();
    const big = await writePair(store, 'screenshot', 'tree', Buffer.alloc(1000));
    const result = await store.prune();
    expect(result.removed).toEqual(names.slice(2).map((n) => n.base));
    expect(await readdir(dir)).toEqual(
      expect.arrayContaining([`${big.base}.png`, `${big.base}.txt`]),
    );
    expect(store.stats).toEqual({ pairs: 1, bytes: 1004 });
  });

  it('does not delete a pair still being written by a concurrent call', async () => {
    const dir = path.join(root, 'inflight');
    const t = clock();
    const store = await ArtifactStore.open({ dir, maxPairs: 1, maxBytes: 1e9, now: t.now });
    const slow = await store.allocate('click'); // claimed, tree not written yet
    t.tick();
    await writePair(store, 'click', 'fast', Buffer.from('png'));
    expect((await store.prune()).removed).toEqual([]);
    await store.writeText(slow.txtPath, 'slow');
    expect(await readFile(slow.txtPath, 'utf8')).toBe('slow');
    t.tick();
    await writePair(store, 'click', 'next', Buffer.from('png'));
    expect((await store.prune()).removed.length).toBe(2);
  });

  it('seeds from the directory once, prunes old runs oldest-first, and never touches foreign files', async () => {
    const dir = path.join(root, 'seed');
    await mkdir(dir, { mode: 0o700 });
    const old = [
      '1700000000000_click',
      '1700000000001_find',
      '1700000000001-1_find',
      '1700000000500_type',
    ];
    for (const base of old) {
      await writeFile(path.join(dir, `${base}.txt`), 'old tree');
      await writeFile(path.join(dir, `${base}.png`), 'old png');
    }
    const foreign = [
      'notes.txt',
      'photo.png',
      '1700000000000.txt',
      '1700000000000_click.txt.bak',
      '1700000000000-0_click.txt',
      '1700000000000_click.jpg',
      '.1700000000000_click.txt.swp',
      'x1700000000000_click.png',
    ];
    for (const name of foreign) await writeFile(path.join(dir, name), 'not ours');
    await mkdir(path.join(dir, '1600000000000_click.txt')); // a directory with our name: left alone

    const t = clock(1_800_000_000_000);
    const store = await ArtifactStore.open({ dir, maxPairs: 3, maxBytes: 1e9, now: t.now });
    expect(store.stats.pairs).toBe(5);
    await writePair(store, 'click', 'new', Buffer.from('png'));
    const result = await store.prune();
    expect(result.removed).toEqual([
      '1600000000000_click',
      '1700000000000_click',
      '1700000000001_find',
    ]);
    const left = await readdir(dir);
    for (const name of foreign) expect(left).toContain(name);
    expect(left).toContain('1600000000000_click.txt');
    expect(left).toContain('1700000000001-1_find.txt');
    expect(left).toContain('1700000000500_type.png');
    expect(left).not.toContain('1700000000001_find.png');
  });

  it('works from its index between rescans: another process’s pairs are seen on the next rescan', async () => {
    const dir = path.join(root, 'rescan');
    const t = clock();
    const store = await ArtifactStore.open({
      dir,
      maxPairs: 100,
      maxBytes: 1e9,
      now: t.now,
      rescanMs: 60_000,
    });
    await writePair(store, 'click', 'ours', Buffer.from('png'));
    // Another server writes a pair into the same dir.
    await writeFile(path.join(dir, '1763789000000_find.txt'), 'theirs', { mode: 0o600 });
    await store.prune();
    expect(store.stats.pairs).toBe(1); // no directory walk on this call
    t.tick(61_000);
    await store.prune();
    expect(store.stats.pairs).toBe(2);
  });

  it("never deletes another server's recent pairs, only old ones", async () => {
    const dir = path.join(root, 'shared');
    await mkdir(dir, { mode: 0o700 });
    const t = clock(1_800_000_000_000);
    const theirsOld = `${1_800_000_000_000 - FOREIGN_GRACE_MS - 1}_click`;
    const theirsNew = `${1_800_000_000_000 - 1000}_find`;
    for (const base of [theirsOld, theirsNew]) {
      await writeFile(path.join(dir, `${base}.txt`), 'their tree', { mode: 0o600 });
      await writeFile(path.join(dir, `${base}.png`), 'their png', { mode: 0o600 });
    }
    const store = await ArtifactStore.open({ dir, maxPairs: 2, maxBytes: 1e9, now: t.now });
    for (let i = 0; i < 4; i++) {
      t.tick();
      await writePair(store, 'click', `ours ${i}`, Buffer.from('png'));
      await store.prune();
    }
    const left = await readdir(dir);
    expect(left).not.toContain(`${theirsOld}.txt`);
    expect(left).toContain(`${theirsNew}.txt`);
    expect(left).toContain(`${theirsNew}.png`);
    // Our own oldest pairs went instead, down to our newest.
    expect(left.filter((n) => n.endsWith('.txt')).length).toBe(2);
  });

  it('removes its own stale temp files on a scan, not fresh ones', async () => {
    const dir = path.join(root, 'temps');
    await mkdir(dir, { mode: 0o700 });
    const stale = path.join(dir, '.1763790000000_click.4242.a1b2c3.tmp');
    const fresh = path.join(dir, '.1763790000001_click.4242.d4e5f6.tmp');
    const notOurs = path.join(dir, '.something.tmp');
    for (const f of [stale, fresh, notOurs]) await writeFile(f, 'partial');
    const hourAgo = new Date(Date.now() - 3600_000);
    await utimes(stale, hourAgo, hourAgo);
    await utimes(notOurs, hourAgo, hourAgo);
    await ArtifactStore.open({ dir, maxPairs: 10, maxBytes: 1e9 });
    const left = await readdir(dir);
    expect(left).not.toContain(path.basename(stale));
    expect(left).toContain(path.basename(fresh));
    expect(left).toContain(path.basename(notOurs));
  });

  it('on a large directory, holds the cap of 2000 pairs call after call, pruning the oldest', async () => {
    const dir = path.join(root, 'large');
    await mkdir(dir, { mode: 0o700 });
    for (let i = 0; i < 2000; i++) {
      await writeFile(path.join(dir, `${1_700_000_000_000 + i}_click.txt`), 'tree');
      await writeFile(path.join(dir, `${1_700_000_000_000 + i}_click.png`), 'png');
    }
    const t0 = performance.now();
    const store = await ArtifactStore.open({ dir, maxPairs: 2000, maxBytes: 1e9 });
    const seedMs = performance.now() - t0;
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t1 = performance.now();
      await writePair(store, 'click', 'tree', Buffer.from('png'));
      await store.prune();
      times.push(performance.now() - t1);
    }
    times.sort((a, b) => a - b);
    console.log(
      `artifact store, 2000 pairs: seed ${seedMs.toFixed(1)} ms; allocate+write pair+prune median ${times[25].toFixed(2)} ms, max ${times[49].toFixed(2)} ms`,
    );
    expect(store.stats.pairs).toBe(2000);
    expect((await readdir(dir)).length).toBe(4000);
    expect(await lstat(path.join(dir, '1700000000000_click.txt')).catch(() => null)).toBeNull();
  });
});
