/**
 * The viewer's web server on a dir of made-up pairs: the token gate (URL, then cookie or
 * bearer header), the Host check, files only by basename from inside the dir (no
 * traversal, no symlink out), read-only, the JSON API and the pixel diff of two calls.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePng, encodePng } from '../../src/visual/index.js';
import type { CallPage, ViewCall, ViewPair } from '../../src/view/model.js';
import { startViewServer, type ViewServer, type ViewSource } from '../../src/view/server.js';

const TOKEN = 'unit-test-token-0123456789abcdef';
let dir: string;
let outside: string;
let server: ViewServer;

function solid(width: number, height: number, rgb: [number, number, number]) {
  const data = new Uint8Array(width * height * 4);
  for (let p = 0; p < width * height; p++) data.set([...rgb, 255], p * 4);
  return { width, height, data };
}

const calls: ViewCall[] = [];

const source: ViewSource = {
  get dir() {
    return dir;
  },
  async page(offset, limit): Promise<CallPage> {
    return { total: calls.length, offset, calls: calls.slice(offset, offset + limit) };
  },
  async call(index) {
    return calls[index];
  },
  async pairOf(index): Promise<ViewPair | undefined> {
    const call = calls[index];
    if (!call?.tree) return undefined;
    return { tree: call.tree, png: call.png, header: {}, elements: [], diff: [] };
  },
};

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'view-server-'));
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'view-outside-'));
  const white = solid(20, 10, [255, 255, 255]);
  const changed = solid(20, 10, [255, 255, 255]);
  for (let y = 2; y < 5; y++)
    for (let x = 3; x < 7; x++) changed.data.set([0, 0, 0, 255], (y * 20 + x) * 4);
  fs.writeFileSync(path.join(dir, '1700000000001_click.png'), await encodePng(white));
  fs.writeFileSync(path.join(dir, '1700000000002_click.png'), await encodePng(changed));
  fs.writeFileSync(
    path.join(dir, '1700000000003_click.png'),
    await encodePng(solid(30, 10, [0, 0, 0])),
  );
  fs.writeFileSync(path.join(dir, '1700000000001_click.txt'), '# tree\n');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'not for the viewer\n');
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'link.txt'));
  // Planted under pair names: a symlink and a hard link out, and a .txt that is no pair's.
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, '1700000000009_click.txt'));
  fs.linkSync(path.join(outside, 'secret.txt'), path.join(dir, '1700000000008_click.txt'));
  fs.copyFileSync(path.join(outside, 'secret.txt'), path.join(dir, 'notes.txt'));
  for (let i = 0; i < 450; i++) {
    calls.push({ index: i, time: '', tool: 'ax_click', outcome: 'success' });
  }
  Object.assign(calls[0], { tree: '1700000000001_click.txt', png: '1700000000001_click.png' });
  Object.assign(calls[1], { png: '1700000000002_click.png' });
  Object.assign(calls[2], { png: '1700000000003_click.png' });
  server = await startViewServer({ source, token: TOKEN });
});

afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A raw request, so the path and Host go out exactly as written (fetch would normalize). */
function get(
  pathname: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: server.port, path: pathname, method, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const cookie = (): Record<string, string> => ({ Cookie: `axpage_view_${server.port}=${TOKEN}` });

describe('view server', () => {
  it('listens on loopback and prints a URL with the token', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?t=${TOKEN}`);
  });

  it('refuses every path without the token, and a wrong one', async () => {
    for (const p of [
      '/',
      '/api/calls',
      '/files/1700000000001_click.png',
      '/page/app.js',
      '/api/pair/0',
    ]) {
      expect((await get(p)).status).toBe(403);
    }
    expect((await get('/?t=wrong-token-wrong-token-wrong')).status).toBe(403);
    expect((await get('/api/calls', { Cookie: `axpage_view_${server.port}=wrong` })).status).toBe(
      403,
    );
    // Another viewer's cookie (another port, same host) is not this one's.
    expect((await get('/api/calls', { Cookie: `axpage_view_1=${TOKEN}` })).status).toBe(403);
  });

  it('serves the page for the token in the URL and sets the cookie the API then takes', async () => {
    const page = await get(`/?t=${TOKEN}`);
    expect(page.status).toBe(200);
    expect(page.body.toString()).toContain('/page/app.js');
    expect(String(page.headers['set-cookie'])).toContain(`axpage_view_${server.port}=${TOKEN}`);
    expect(String(page.headers['set-cookie'])).toContain('HttpOnly');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect((await get('/page/app.js', cookie())).status).toBe(200);
    expect((await get('/api/calls', { Authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  it('answers only to loopback host names (DNS rebinding)', async () => {
    const r = await get('/api/calls', { ...cookie(), Host: `evil.example:${server.port}` });
    expect(r.status).toBe(403);
    expect(
      (await get('/api/calls', { ...cookie(), Host: `localhost:${server.port}` })).status,
    ).toBe(200);
  });

  it('is read-only', async () => {
    expect((await get('/api/calls', cookie(), 'POST')).status).toBe(405);
    expect((await get('/files/1700000000001_click.png', cookie(), 'DELETE')).status).toBe(405);
  });

  it('pages the calls, never more than its cap at once', async () => {
    const r = await get('/api/calls?offset=400&limit=100', cookie());
    const page = JSON.parse(r.body.toString()) as CallPage;
    expect(page.total).toBe(450);
    expect(page.calls.map((c) => c.index)).toEqual(calls.slice(400, 450).map((c) => c.index));
    const big = JSON.parse((await get('/api/calls?limit=100000', cookie())).body.toString());
    expect(big.calls.length).toBe(200);
    expect((await get('/api/calls?offset=-1', cookie())).status).toBe(400);
  });

  it('serves a pair and a file by basename, nothing outside the dir', async () => {
    const pair = await get('/api/pair/0', cookie());
    expect(JSON.parse(pair.body.toString()).tree).toBe('1700000000001_click.txt');
    expect((await get('/api/pair/1', cookie())).status).toBe(404);
    const png = await get('/files/1700000000001_click.png', cookie());
    expect(png.status).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.body).toEqual(fs.readFileSync(path.join(dir, '1700000000001_click.png')));
    for (const p of [
      '/files/..%2F..%2Fetc%2Fpasswd',
      '/files/%2Fetc%2Fpasswd',
      '/files/../../etc/passwd',
      `/files/..%2F${path.basename(outside)}%2Fsecret.txt`,
      '/files/link.txt',
      '/files/1700000000009_click.txt',
      '/files/1700000000008_click.txt',
      '/files/notes.txt',
      '/files/.hidden.txt',
      '/files/no-such.png',
    ]) {
      const r = await get(p, cookie());
      expect([403, 404], p).toContain(r.status);
      expect(r.body.toString()).not.toContain('not for the viewer');
    }
  });

  it('draws the pixel diff of two calls; different sizes are a clear 409', async () => {
    const r = await get('/api/pixeldiff?a=0&b=1', cookie());
    expect(r.status).toBe(200);
    const img = await decodePng(r.body);
    const red = (x: number, y: number) => {
      const o = (y * img.width + x) * 4;
      return img.data[o] === 255 && img.data[o + 1] === 0 && img.data[o + 2] === 0;
    };
    expect(red(4, 3)).toBe(true);
    expect(red(15, 8)).toBe(false);
    const mismatch = await get('/api/pixeldiff?a=0&b=2', cookie());
    expect(mismatch.status).toBe(409);
    expect(JSON.parse(mismatch.body.toString()).error).toContain('differ in size');
    expect((await get('/api/pixeldiff?a=0&b=3', cookie())).status).toBe(404);
  });
});
