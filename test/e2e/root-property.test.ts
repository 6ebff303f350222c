/**
 * RootProperty on a real Xvfb: one property of the root window that every process on the X
 * server reads and rewrites the same, whatever screen its display name says; updates from
 * processes running at once lose nothing (each reads, decides and writes under a server
 * grab); an update that throws leaves the property as it was and the server ungrabbed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { packageRoot } from '../../src/harness/session.js';
import type * as NativeApi from '@axpage/native';
import { itNeeding, program } from './helpers/needs.js';

const native = createRequire(import.meta.url)('@axpage/native') as typeof NativeApi;
const XVFB = program('Xvfb', 'xvfb');
const NATIVE = JSON.stringify(path.join(packageRoot(), 'native'));

let xvfb: ChildProcess | undefined;
let display = '';

beforeAll(async () => {
  if (!XVFB.present) return;
  // -noreset: root properties would otherwise go with the last client that disconnects.
  xvfb = spawn(
    'Xvfb',
    ['-displayfd', '3', '-screen', '0', '320x240x24', '-nolisten', 'tcp', '-noreset'],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] },
  );
  const fd3 = xvfb.stdio[3] as NodeJS.ReadableStream;
  display = await new Promise<string>((resolve, reject) => {
    let got = '';
    fd3.on('data', (d: Buffer) => {
      got += d.toString();
      if (got.includes('\n')) resolve(`:${got.trim()}`);
    });
    xvfb?.on('exit', () => reject(new Error('Xvfb exited')));
  });
});

afterAll(() => {
  if (xvfb?.pid) process.kill(xvfb.pid, 'SIGTERM');
});

/** The property as another process reads it (a hung read means a grab was left behind). */
function readElsewhere(name: string): string | null {
  const script = `
    const { RootProperty } = require(${NATIVE});
    const p = new RootProperty(${JSON.stringify(display)}, ${JSON.stringify(name)});
    const b = p.read();
    process.stdout.write(JSON.stringify(b === null ? null : b.toString('utf8')));
  `;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`reader failed (${r.signal ?? r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as string | null;
}

itNeeding([XVFB], 'reads, writes, keeps and deletes one property for every process', () => {
  const p = new native.RootProperty(display, '_AXPAGE_TEST_BASICS');
  try {
    expect(p.read()).toBeNull();
    expect(p.update((cur) => (expect(cur).toBeNull(), Buffer.from('één')))).toBe(true);
    expect(p.read()?.toString('utf8')).toBe('één');
    // The same property whatever screen the display name says.
    expect(readElsewhere('_AXPAGE_TEST_BASICS')).toBe('één');
    const other = new native.RootProperty(`${display}.0`, '_AXPAGE_TEST_BASICS');
    expect(other.read()?.toString('utf8')).toBe('één');
    other.close();
    expect(p.update(() => undefined)).toBe(false);
    expect(p.read()?.toString('utf8')).toBe('één');
    expect(p.update(() => null)).toBe(true);
    expect(p.read()).toBeNull();
    expect(readElsewhere('_AXPAGE_TEST_BASICS')).toBeNull();
  } finally {
    p.close();
  }
  expect(() => p.read()).toThrow(expect.objectContaining({ code: 'X11_CLOSED' }));
});

itNeeding([XVFB], 'an update that throws changes nothing and leaves the server ungrabbed', () => {
  const p = new native.RootProperty(display, '_AXPAGE_TEST_THROW');
  try {
    p.update(() => Buffer.from('before'));
    expect(() =>
      p.update(() => {
        throw new Error('decided nothing');
      }),
    ).toThrow('decided nothing');
    expect(() => p.update(() => 42 as unknown as Buffer)).toThrow(TypeError);
    expect(() => p.update(() => Buffer.alloc(64 << 20))).toThrow(
      expect.objectContaining({ code: 'X11_TOO_LARGE' }),
    );
    expect(() => p.update(() => (p.update(() => undefined), undefined))).toThrow(
      expect.objectContaining({ code: 'X11_BUSY' }),
    );
    // Another process gets through: no grab was left behind.
    expect(readElsewhere('_AXPAGE_TEST_THROW')).toBe('before');
    expect(p.read()?.toString('utf8')).toBe('before');
  } finally {
    p.close();
  }
});

itNeeding(
  [XVFB],
  'processes updating at once lose none of each other’s changes',
  async () => {
    const WRITERS = 4;
    const EACH = 40;
    const script = (tag: string) => `
      const { RootProperty } = require(${NATIVE});
      const p = new RootProperty(${JSON.stringify(display)}, '_AXPAGE_TEST_RACE');
      for (let i = 0; i < ${EACH}; i++) {
        p.update((cur) => {
          const list = cur === null ? [] : JSON.parse(cur.toString('utf8'));
          // Widen the read-to-write window: without the grab, others write in between.
          const until = Date.now() + 1; while (Date.now() < until) {}
          list.push('${tag}-' + i);
          return Buffer.from(JSON.stringify(list));
        });
      }
    `;
    const writers = Array.from({ length: WRITERS }, (_, w) =>
      spawn(process.execPath, ['-e', script(`w${w}`)], { stdio: ['ignore', 'ignore', 'pipe'] }),
    );
    const codes = await Promise.all(
      writers.map(
        (child) =>
          new Promise<string>((resolve) => {
            let err = '';
            child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
            child.on('exit', (code) => resolve(code === 0 ? '' : `exit ${code}: ${err}`));
          }),
      ),
    );
    expect(codes.filter(Boolean)).toEqual([]);
    const list = JSON.parse(readElsewhere('_AXPAGE_TEST_RACE') ?? '[]') as string[];
    expect(list).toHaveLength(WRITERS * EACH);
    expect(new Set(list).size).toBe(WRITERS * EACH);
  },
  120_000,
);
