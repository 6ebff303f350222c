/**
 * Safe mode empties the clipboard while an action goes to an app that shows a password
 * field, then offers back what it held: every format, not only text. Another
 * X client (xclip, a separate process) puts a PNG on the clipboard; after a key to the
 * password-field fixture, a separate `xclip -o -t image/png` reads the same bytes back,
 * and the fixture's password field got nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/harness/session.js';
import { pollUntil } from '../../src/desktop/procs.js';
import { sessionPerSuite } from './helpers/suite-session.js';

/** A small valid PNG: 24 by 8 grey pixels in a pattern. */
function png(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(24, 0);
  ihdr.writeUInt32BE(8, 4);
  ihdr.set([8, 0, 0, 0, 0], 8);
  const rows = [];
  for (let y = 0; y < 8; y++) {
    rows.push(Buffer.from([0, ...Array.from({ length: 24 }, (_, x) => (x * 11 + y * 29) % 256)]));
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Another X client owns the clipboard with `data` as `type` (stopped at the end). */
async function putFromOutside(session: Session, data: Buffer, type: string): Promise<ChildProcess> {
  const child = spawn('xclip', ['-selection', 'clipboard', '-t', type, '-i', '-quiet'], {
    env: session.desktop.processEnv() as Record<string, string>,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      if (err.includes('Waiting for selection request')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`xclip exited ${code}: ${err}`)));
    child.stdin!.end(data);
  });
  return child;
}

/** What the clipboard offers as `type`, read by a separate xclip; null when it offers none. */
function readFromOutside(session: Session, type: string): Promise<Buffer | null> {
  const child = spawn('xclip', ['-selection', 'clipboard', '-o', '-t', type], {
    env: session.desktop.processEnv() as Record<string, string>,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const out: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => out.push(c));
  return new Promise((resolve) =>
    child.once('close', (code) => resolve(code === 0 ? Buffer.concat(out) : null)),
  );
}

async function ok(session: Session, tool: string, args: Record<string, unknown>) {
  const r = await session.call(tool, args);
  expect(r.isError, `${tool} ${JSON.stringify(args)}: ${r.text}`).toBe(false);
  return r;
}

describe('safe mode: what the clipboard held around an action at a password field', () => {
  const get = sessionPerSuite({ serverEnv: { AXPAGE_MODE: 'safe' } });

  it('an image on it is offered again byte for byte', async () => {
    const session = get();
    const app = await session.launchFixture('paste_doors.py');
    const image = png();
    let outsider: ChildProcess | undefined;
    try {
      await ok(session, 'ax_click', { app: app.pid, query: 'Password' });
      outsider = await putFromOutside(session, image, 'image/png');
      expect(await readFromOutside(session, 'image/png')).toEqual(image);
      // A key while the password field has the focus: the clipboard is held empty for it.
      await ok(session, 'ax_key_press', { app: app.pid, key: 'Tab' });
      // It was held: the outsider lost the clipboard (xclip exits then). It stays empty
      // while the form shows its password field (the app may paste later), and the agent's
      // own read of the clipboard gives it back: this server offers the image then.
      const held = outsider;
      await pollUntil(() => held.exitCode !== null || held.signalCode !== null, {
        timeoutMs: 15_000,
        what: 'the outside owner to lose the clipboard',
      });
      expect((await readFromOutside(session, 'image/png'))?.length ?? 0).toBe(0);
      await ok(session, 'ax_clipboard_read', {});
      expect(await readFromOutside(session, 'image/png')).toEqual(image);
      const pw = (app.output?.events ?? []).filter(
        (e) => e.event === 'changed' && e.widget === 'pw',
      );
      expect(pw.every((e) => e.length === 0)).toBe(true);
    } finally {
      if (outsider && outsider.exitCode === null) outsider.kill();
      await app.stop();
    }
  });
});
