/**
 * Spare keycodes remapped for typing survive a SIGKILL of the process that remapped them;
 * the journal on the root window lets the next process put them back. Without it, one
 * killed server leaves the keymap full and every later one fails to type.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { packageRoot } from '../../src/harness/session.js';
import type * as NativeApi from '@axpage/native';
import { allPresent, itNeeding, program } from './helpers/needs.js';

const native = createRequire(import.meta.url)('@axpage/native') as typeof NativeApi;
const XVFB = program('Xvfb', 'xvfb');
const xvfbPresent = allPresent([XVFB]);

let xvfb: ChildProcess | undefined;
let display = '';

/** More characters missing from a stock keymap than Xvfb has spare keycodes (~19). */
const MANY = Array.from({ length: 0x40 }, (_, i) => String.fromCodePoint(0x410 + i)).join('');

beforeAll(async () => {
  if (!xvfbPresent) return;
  // -noreset: a real desktop keeps clients (a window manager) connected; without it Xvfb
  // resets (keymap and root properties included) when the killed typer was the last client.
  xvfb = spawn(
    'Xvfb',
    [
      '-displayfd',
      '3',
      '-screen',
      '0',
      '640x480x24',
      '-nolisten',
      'tcp',
      '+extension',
      'XTEST',
      '-noreset',
    ],
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

function journal(): string {
  return spawnSync('xprop', ['-display', display, '-root', '_AXPAGE_REMAPPED_KEYS'], {
    encoding: 'utf8',
  }).stdout;
}

itNeeding(
  [XVFB],
  'a typer killed with SIGKILL leaves its spares in the journal; the next Display restores them',
  async () => {
    // A process that remaps every spare keycode and is then killed before it restores them.
    const script = `
      const { Display } = require(${JSON.stringify(path.join(packageRoot(), 'native'))});
      const d = new Display(${JSON.stringify(display)});
      let text = ${JSON.stringify(MANY)};
      for (let i = 0; i < 200 && text.length > 0; i++) {
        const r = d.typeText(text);
        text = text.slice(r.consumed);
        const until = Date.now() + (r.retryAfterMs ?? 0) + 5; while (Date.now() < until) {}
      }
      process.stdout.write('typed\\n');
      setInterval(() => {}, 1000);
    `;
    const typer = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let errText = '';
    typer.stderr?.on('data', (d: Buffer) => (errText += d.toString()));
    await new Promise<void>((resolve, reject) => {
      typer.stdout?.on('data', (d: Buffer) => d.toString().includes('typed') && resolve());
      typer.on('exit', () => reject(new Error(`typer exited: ${errText}`)));
    });
    expect(journal()).toMatch(new RegExp(`= ${typer.pid}, `));
    typer.kill('SIGKILL');
    await new Promise((r) => typer.on('exit', r));

    // The next process: its Display restores the dead typer's spares, so typing works.
    const d = new native.Display(display);
    try {
      expect(journal()).not.toMatch(new RegExp(`${typer.pid}`));
      // Throws "keymap is full" when the dead typer's spares were not restored.
      let text = MANY;
      for (let i = 0; i < 200 && text.length > 0; i++) {
        const r = d.typeText(text);
        text = text.slice(r.consumed);
        await new Promise((res) => setTimeout(res, (r.retryAfterMs ?? 0) + 5));
      }
      expect(text).toBe('');
      d.restoreKeymap();
      // Restored spares leave the journal too.
      expect(journal()).not.toMatch(new RegExp(`= ${process.pid}, `));
    } finally {
      d.close();
    }
  },
);
