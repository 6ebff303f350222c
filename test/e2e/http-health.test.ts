/**
 * `axpage serve --http` as a container runs it: the token from a file (a mounted secret),
 * and GET /healthz for the orchestrator's probes, which say ready only while the desktop's
 * display and accessibility bus answer, with no token and whatever Host the prober sends.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDesktop, type HeadlessDesktop } from '../../src/desktop/headless.js';
import { packageRoot } from '../../src/harness/session.js';
import {
  connectHttp,
  startHttpServe,
  type HttpServeProcess,
} from '../../src/harness/http-serve.js';

const TOKEN = 'health-token-0123456789abcdef';
let desktop: HeadlessDesktop | undefined;
let server: HttpServeProcess | undefined;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-health-'));
  desktop = await startDesktop();
  const tokenFile = path.join(dir, 'token');
  fs.writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  server = await startHttpServe({
    env: {
      ...(desktop.processEnv() as Record<string, string>),
      AXPAGE_OUT: path.join(dir, 'artifacts'),
      AXPAGE_TOKEN_FILE: tokenFile,
    },
  });
});

afterAll(async () => {
  await server?.stop();
  await desktop?.stop().catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

function get(
  url: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const healthUrl = () => server!.url.replace(/\/mcp$/, '/healthz');

describe('axpage serve --http in a container', () => {
  it('takes its token from the file: a client with it works, the file is not echoed', async () => {
    expect(server!.printedToken).toBeUndefined();
    expect(server!.stderr()).not.toContain(TOKEN);
    const c = await connectHttp(server!.url, TOKEN);
    try {
      const r = await c.call('ax_is_accessible');
      expect(r.isError, r.text).toBe(false);
    } finally {
      await c.close();
    }
  });

  it('GET /healthz answers ready with no token, under the Host a kubelet sends', async () => {
    const r = await get(healthUrl(), { Host: '10.244.1.7:8939' });
    expect(r.status, r.body).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ ready: true });
    // Nothing else is reachable that way: /mcp still wants the Host check and the token.
    expect((await get(server!.url, { Host: '10.244.1.7:8939' })).status).toBe(403);
    expect((await get(server!.url)).status).toBe(401);
    expect((await get(healthUrl(), {}, 'POST')).status).toBe(405);
  });

  it('says not ready (503, with why) once the desktop is gone, and is ready never again by itself', async () => {
    await desktop!.stop();
    desktop = undefined;
    const r = await get(healthUrl());
    expect(r.status, r.body).toBe(503);
    const body = JSON.parse(r.body) as { ready: boolean; reason: string };
    expect(body.ready).toBe(false);
    expect(body.reason.length).toBeGreaterThan(0);
    expect(server!.alive()).toBe(true);
  });

  it('a token file that is missing stops the server at start with exit 2 and says which file', () => {
    const cli = path.join(packageRoot(), 'dist', 'cli.js');
    const r = spawnSync(process.execPath, [cli, 'serve', '--http', '--port', '0'], {
      env: { PATH: process.env.PATH, AXPAGE_TOKEN_FILE: path.join(dir, 'nope') },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cannot read the token file .*nope \(ENOENT\)/);
  });
});
