import { appendFile, chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AxError } from '../../src/errors.js';
import { renderTreeFile } from '../../src/tree/index.js';
import {
  Run,
  callsOfLog,
  callsOfNames,
  newestLog,
  pageBounds,
  resolveRun,
} from '../../src/view/index.js';
import { buildSnapshot, viewOf } from './helpers/synthetic.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'axpage-view-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** The start of a PNG of this size: what pngSize reads. */
function pngHead(w: number, h: number): Buffer {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(w, 16);
  b.writeUInt32BE(h, 20);
  return b;
}

function treeText(name: string): string {
  const snap = buildSnapshot([
    {
      role: 'AXWindow',
      name: 'W',
      frame: [0, 0, 400, 300],
      window: { active: true },
      children: [{ role: 'AXButton', name, frame: [10, 10, 80, 20] }],
    },
  ]);
  return renderTreeFile({
    tool: 'ax_click',
    view: viewOf(snap),
    screenshot: 'x.png',
    capture: { x: 0, y: 0, w: 400, h: 300 },
  });
}

describe('callsOfNames', () => {
  it('lists tree files oldest first (same millisecond by sequence), with their PNG when there', () => {
    const calls = callsOfNames([
      '1700000000002_click.txt',
      '1700000000001-2_get_tree.txt',
      '1700000000001_find.txt',
      '1700000000001_find.png',
      '1700000000001-2_get_tree.png',
      'session-1700000000000-42.jsonl',
      'notes.txt',
      '1700000000003_type.png',
    ]);
    expect(calls.map((c) => [c.index, c.tool, c.tree, c.png])).toEqual([
      [0, 'ax_find', '1700000000001_find.txt', '1700000000001_find.png'],
      [1, 'ax_get_tree', '1700000000001-2_get_tree.txt', '1700000000001-2_get_tree.png'],
      [2, 'ax_click', '1700000000002_click.txt', undefined],
    ]);
    expect(calls[0].time).toBe(new Date(1700000000001).toISOString());
    expect(calls[0].outcome).toBe('unknown');
  });
});

describe('callsOfLog', () => {
  it('reads records in order, skips lines that are not, and never takes a path for a pair', () => {
    const lines = [
      JSON.stringify({
        seq: 1,
        time: '2026-01-01T00:00:00.000Z',
        tool: 'ax_get_tree',
        args: { app: 'x' },
        outcome: 'success',
        ms: 12,
        summary_bytes: 300,
        summary: 'hello',
        tree: '1_get_tree.txt',
        png: '1_get_tree.png',
        app: 'x',
        pid: 7,
      }),
      '{not json',
      JSON.stringify({
        seq: 2,
        time: '2026-01-01T00:00:01.000Z',
        tool: 'ax_click',
        args: {},
        outcome: 'error',
        error_code: 'stale_ref',
        ms: 3,
        summary_bytes: 90,
        tree: '../../etc/passwd',
        target: { role: 'AXButton', text: 'OK', ref: 'e4' },
        changes: { added: 1, removed: 0, modified: 2, moved: 1 },
      }),
      JSON.stringify({ hello: 'world' }),
      '',
    ];
    const calls = callsOfLog(lines.join('\n'));
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({
      index: 0,
      seq: 1,
      tool: 'ax_get_tree',
      outcome: 'success',
      summary: 'hello',
      tree: '1_get_tree.txt',
      png: '1_get_tree.png',
      pid: 7,
    });
    expect(calls[1]).toMatchObject({
      index: 1,
      seq: 2,
      outcome: 'error',
      error_code: 'stale_ref',
      target: { role: 'AXButton', text: 'OK', ref: 'e4' },
      changes: { added: 1, removed: 0, modified: 2, moved: 1 },
    });
    expect(calls[1].tree).toBeUndefined();
  });
});

describe('newestLog and pageBounds', () => {
  it('picks the log that started last', () => {
    expect(
      newestLog([
        'session-100-9.jsonl',
        'session-300-1.jsonl',
        'session-200-5.jsonl',
        'session-x.jsonl',
      ]),
    ).toBe('session-300-1.jsonl');
    expect(newestLog(['a.txt'])).toBeUndefined();
  });
  it('clamps offset and limit', () => {
    expect(pageBounds(10, -5, 3)).toEqual({ start: 0, end: 3 });
    expect(pageBounds(10, 8, 50)).toEqual({ start: 8, end: 10 });
    expect(pageBounds(10, 20, 5)).toEqual({ start: 10, end: 10 });
    expect(pageBounds(5000, 0, 1e9)).toEqual({ start: 0, end: 1000 });
    expect(pageBounds(10, Number.NaN, Number.NaN)).toEqual({ start: 0, end: 0 });
  });
});

describe('Run on a dir of 500 pairs and no log', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir();
    for (let i = 0; i < 500; i++) {
      const base = `${1700000000000 + i * 10}_click`;
      await writeFile(path.join(dir, `${base}.txt`), treeText(`b${i}`));
      await writeFile(path.join(dir, `${base}.png`), pngHead(400, 300));
    }
  });

  it('pages through the calls by time stamp', async () => {
    const run = await Run.open(dir);
    expect(run.source).toEqual({ dir });
    const first = await run.page(0, 50);
    expect(first.total).toBe(500);
    expect(first.calls).toHaveLength(50);
    expect(first.calls[0].tree).toBe('1700000000000_click.txt');
    const last = await run.page(480, 50);
    expect(last.offset).toBe(480);
    expect(last.calls.map((c) => c.index)).toEqual(Array.from({ length: 20 }, (_, i) => 480 + i));
    expect(last.calls[19].tree).toBe(`${1700000000000 + 499 * 10}_click.txt`);
  });

  it('lists without reading any tree file (they are unreadable here), parses one when opened', async () => {
    const run = await Run.open(dir);
    const locked = path.join(dir, '1700000000010_click.txt');
    await chmod(locked, 0o000);
    try {
      if (process.getuid?.() !== 0) {
        const page = await run.page(0, 500);
        expect(page.calls).toHaveLength(500);
        expect(await run.pairOf(1)).toBeUndefined();
      }
    } finally {
      await chmod(locked, 0o600);
    }
    const pair = await run.pairOf(2);
    expect(pair?.tree).toBe('1700000000020_click.txt');
    expect(pair?.png).toBe('1700000000020_click.png');
    expect(pair?.elements.map((e) => e.text)).toEqual(['W', 'b2']);
    expect(pair?.capture).toEqual({ x: 0, y: 0, w: 400, h: 300 });
    expect(pair?.capture_guessed).toBeUndefined();
  });
});

describe('Run on pairs written before tree files stated their capture', () => {
  it('guesses the capture from the PNG size: the viewport, else a window of that size', async () => {
    const dir = await tempDir();
    const snap = buildSnapshot([
      { role: 'AXWindow', name: 'Main', frame: [0, 0, 600, 400], window: { active: true } },
      { role: 'AXDialog', name: 'Ask', frame: [100, 80, 300, 200], window: { dialog: true } },
    ]);
    const old = renderTreeFile({ tool: 'ax_click', view: viewOf(snap), screenshot: 'x.png' });
    expect(old).not.toContain('# capture:');
    await writeFile(path.join(dir, '1700000000000_click.txt'), old);
    await writeFile(path.join(dir, '1700000000000_click.png'), pngHead(600, 400));
    await writeFile(path.join(dir, '1700000000001_click.txt'), old);
    await writeFile(path.join(dir, '1700000000001_click.png'), pngHead(300, 200));
    await writeFile(path.join(dir, '1700000000002_click.txt'), old);
    await writeFile(path.join(dir, '1700000000002_click.png'), 'not a png');
    const run = await Run.open(dir);
    expect(await run.pairOf(0)).toMatchObject({
      capture: { x: 0, y: 0, w: 600, h: 400 },
      capture_guessed: true,
    });
    expect((await run.pairOf(1))?.capture).toEqual({ x: 100, y: 80, w: 300, h: 200 });
    const broken = await run.pairOf(2);
    expect(broken?.png).toBeUndefined();
    expect(broken?.capture).toBeUndefined();
  });
});

describe('Run on a session log', () => {
  it('uses the newest log of a dir, its pairs, and sees lines appended later', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, '1700000000000_click.txt'), treeText('Old'));
    await writeFile(path.join(dir, '1700000000500_click.txt'), treeText('New'));
    const rec = (seq: number, tree: string) =>
      JSON.stringify({
        seq,
        time: new Date(1700000000000 + seq).toISOString(),
        tool: 'ax_click',
        args: {},
        outcome: 'success',
        ms: 1,
        summary_bytes: 1,
        tree,
      }) + '\n';
    await writeFile(
      path.join(dir, 'session-1600000000000-1.jsonl'),
      rec(1, '1700000000000_click.txt'),
    );
    const log = path.join(dir, 'session-1700000000000-2.jsonl');
    await writeFile(log, rec(1, '1700000000500_click.txt'));
    const run = await Run.open(dir);
    expect(run.source.log).toBe(log);
    expect((await run.page()).calls.map((c) => c.tree)).toEqual(['1700000000500_click.txt']);
    expect((await run.pairOf(0))?.elements[1].text).toBe('New');
    expect((await run.pairOf(0))?.png).toBeUndefined();
    expect(await run.pairOf(1)).toBeUndefined();
    await appendFile(log, rec(2, '1700000000000_click.txt'));
    expect((await run.page()).total).toBe(2);
    expect((await run.pairOf(1))?.elements[1].text).toBe('Old');
  });

  it('takes a log given by path, and refuses what is neither', async () => {
    const dir = await tempDir();
    const log = path.join(dir, 'session-1-1.jsonl');
    await writeFile(log, '');
    expect(await resolveRun(log)).toEqual({ dir, log });
    const other = path.join(dir, 'other.txt');
    await writeFile(other, '');
    await expect(resolveRun(other)).rejects.toBeInstanceOf(AxError);
    await expect(resolveRun(path.join(dir, 'missing'))).rejects.toThrow(/does not exist/);
  });
});
