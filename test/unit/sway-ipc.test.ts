/**
 * The sway IPC client: i3-ipc framing (encode, and decode across arbitrary chunk splits),
 * RUN_COMMAND results checked, and the client against a fake sway on a real unix socket
 * (replies in pieces, a refused command, a reply that never comes, a socket that is not
 * sway's, a socket that is not there). The client against a real sway is in
 * test/e2e/sway-ipc.test.ts.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { PlatformError } from '../../src/errors.js';
import {
  FrameDecoder,
  IPC_MAGIC,
  MessageType,
  SwayIpc,
  checkCommandResults,
  encodeMessage,
} from '../../src/platform/linux/wayland/sway-ipc.js';

const outputs = fs.readFileSync(new URL('./fixtures/sway/outputs.json', import.meta.url), 'utf8');
const tree = fs.readFileSync(
  new URL('./fixtures/sway/tree-tiled-floating-popup.json', import.meta.url),
  'utf8',
);

describe('i3-ipc framing', () => {
  it('encodes magic, little-endian length and type, then the payload', () => {
    const m = encodeMessage(MessageType.RUN_COMMAND, 'focus');
    expect(m.subarray(0, 6).toString()).toBe('i3-ipc');
    expect(m.readUInt32LE(6)).toBe(5);
    expect(m.readUInt32LE(10)).toBe(0);
    expect(m.subarray(14).toString()).toBe('focus');
    expect(encodeMessage(MessageType.GET_TREE)).toHaveLength(14);
  });

  it('decodes messages split anywhere, and several in one chunk', () => {
    const wire = Buffer.concat([
      encodeMessage(4, tree),
      encodeMessage(0, '[{"success":true}]'),
      encodeMessage(3, 'ü'),
    ]);
    for (const step of [1, 3, 7, 14, 100, wire.length]) {
      const d = new FrameDecoder();
      const got = [];
      for (let i = 0; i < wire.length; i += step) got.push(...d.push(wire.subarray(i, i + step)));
      expect(got.map((m) => [m.type, m.payload.toString()])).toEqual([
        [4, tree],
        [0, '[{"success":true}]'],
        [3, 'ü'],
      ]);
      expect(d.pending).toBe(0);
    }
  });

  it('refuses a stream that is not i3-ipc, or a length no reply has', () => {
    expect(() => new FrameDecoder().push(Buffer.from('HTTP/1.1 200 OK\r\n\r\n'))).toThrow(
      /does not start with "i3-ipc".*"HTTP\/1"/,
    );
    const huge = Buffer.alloc(14);
    IPC_MAGIC.copy(huge);
    huge.writeUInt32LE(0xffff_fff0, 6);
    expect(() => new FrameDecoder().push(huge)).toThrow(/claims 4294967280 bytes/);
  });
});

describe('checkCommandResults', () => {
  it('passes when every command succeeded', () => {
    expect(checkCommandResults('a, b', [{ success: true }, { success: true }])).toHaveLength(2);
  });

  it('throws with sway’s error, naming which command of several failed', () => {
    const call = (): unknown =>
      checkCommandResults('floating enable, nonsense', [
        { success: true },
        { success: false, parse_error: true, error: "Unknown/invalid command 'nonsense'" },
      ]);
    expect(call).toThrow(PlatformError);
    expect(call).toThrow(
      /sway refused "floating enable, nonsense": command 2: parse error: Unknown\/invalid command 'nonsense'/,
    );
    expect(() => checkCommandResults('x', [{ success: false }])).toThrow(/x": no reason given/);
  });

  it('throws on a reply that is not a list of results', () => {
    expect(() => checkCommandResults('x', { success: true })).toThrow(/other than a list/);
    expect(() => checkCommandResults('x', [{}])).toThrow(/other than a list/);
  });
});

/** A fake sway: answers each request by `reply`, which writes raw bytes (or nothing). */
let dir: string;
let server: net.Server | null = null;
const clients: SwayIpc[] = [];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-swayipc-'));
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  if (server) await new Promise((r) => server?.close(r));
  server = null;
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function fakeSway(
  reply: (type: number, payload: string, sock: net.Socket) => void,
): Promise<string> {
  const sockPath = path.join(dir, `sway-${Math.random().toString(36).slice(2)}.sock`);
  server = net.createServer((sock) => {
    const d = new FrameDecoder();
    sock.on('data', (c: Buffer) => {
      for (const m of d.push(c)) reply(m.type, m.payload.toString(), sock);
    });
  });
  await new Promise<void>((r) => server?.listen(sockPath, r));
  return sockPath;
}

async function connect(sockPath: string, timeoutMs = 2000): Promise<SwayIpc> {
  const c = await SwayIpc.connect(sockPath, { timeoutMs });
  clients.push(c);
  return c;
}

describe('SwayIpc against a fake sway', () => {
  it('gets the tree and the outputs, replies sent a byte at a time', async () => {
    const sock = await fakeSway((type, _payload, s) => {
      const body = type === MessageType.GET_TREE ? tree : outputs;
      const wire = encodeMessage(type, body);
      // Dribbled out: the client must reassemble.
      for (let i = 0; i < wire.length; i += 1000) s.write(wire.subarray(i, i + 1000));
    });
    const ipc = await connect(sock);
    const [t, o] = await Promise.all([ipc.getTree(), ipc.getOutputs()]);
    expect(t.type).toBe('root');
    expect(o[0]).toMatchObject({ name: 'HEADLESS-1', active: true });
    expect(o[0].current_mode).toMatchObject({ width: 1280, height: 800 });
  });

  it('sends the command text and throws with sway’s error when it fails', async () => {
    const seen: string[] = [];
    const sock = await fakeSway((type, payload, s) => {
      seen.push(payload);
      const ok = payload === 'focus';
      s.write(
        encodeMessage(
          type,
          JSON.stringify([ok ? { success: true } : { success: false, error: 'No matching node.' }]),
        ),
      );
    });
    const ipc = await connect(sock);
    await expect(ipc.runCommand('focus')).resolves.toEqual([{ success: true }]);
    await expect(ipc.runCommand('[pid=1] focus')).rejects.toThrow(
      /sway refused "\[pid=1\] focus": No matching node\./,
    );
    expect(seen).toEqual(['focus', '[pid=1] focus']);
    await expect(ipc.runCommand('  ')).rejects.toThrow(/empty one/);
  });

  it('fails a request sway does not answer in time, and the connection with it', async () => {
    const sock = await fakeSway(() => undefined);
    const ipc = await connect(sock, 100);
    await expect(ipc.getTree()).rejects.toThrow(/did not answer IPC message type 4 within 100 ms/);
    expect(ipc.isClosed).toBe(true);
    await expect(ipc.getOutputs()).rejects.toThrow(/did not answer/);
  });

  it('fails waiting requests when sway closes the socket', async () => {
    const sock = await fakeSway((_t, _p, s) => s.destroy());
    const ipc = await connect(sock);
    await expect(ipc.getTree()).rejects.toThrow(/sway closed its IPC socket/);
  });

  it('refuses a socket that does not speak i3-ipc', async () => {
    const sock = await fakeSway((_t, _p, s) => s.write('SSH-2.0-OpenSSH\r\n'));
    const ipc = await connect(sock);
    await expect(ipc.getTree()).rejects.toThrow(/does not start with "i3-ipc"/);
  });

  it('refuses a reply of another type than the request', async () => {
    const sock = await fakeSway((_t, _p, s) => s.write(encodeMessage(0x8000_0001, '{}')));
    const ipc = await connect(sock);
    await expect(ipc.getTree()).rejects.toThrow(/type 2147483649 while waiting for type 4/);
  });

  it('says why it cannot connect: no SWAYSOCK, no socket, nobody listening', async () => {
    await expect(SwayIpc.connect('')).rejects.toThrow(/SWAYSOCK is not set/);
    await expect(SwayIpc.connect(path.join(dir, 'none.sock'))).rejects.toThrow(
      /none\.sock does not exist \(sway is not running/,
    );
    // A socket file nobody listens on (bound, never listened: what a dead sway leaves).
    const stale = path.join(dir, 'stale.sock');
    execFileSync('/usr/bin/python3', [
      '-c',
      `import socket; socket.socket(socket.AF_UNIX).bind(${JSON.stringify(stale)})`,
    ]);
    await expect(SwayIpc.connect(stale)).rejects.toThrow(/refuses connections/);
  });
});
