/**
 * `axpage serve --http --max-sessions 2` end to end: the real server process on a real
 * headless desktop, two SDK clients holding the two places; a third initialize gets 503
 * with a JSON-RPC error saying what to do, the open sessions keep working, and ending one
 * (DELETE) makes room again.
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDesktop, type HeadlessDesktop } from '../../src/desktop/headless.js';
import {
  connectHttp,
  startHttpServe,
  type HttpClient,
  type HttpServeProcess,
} from '../../src/harness/http-serve.js';

const TOKEN = 'e2e-token-sessions-0123456789';
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '0' },
  },
});

let desktop: HeadlessDesktop;
let server: HttpServeProcess;
let out: string;
const clients: HttpClient[] = [];

beforeAll(async () => {
  desktop = await startDesktop();
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-http-sessions-'));
  server = await startHttpServe({
    env: {
      ...(desktop.processEnv() as Record<string, string>),
      AXPAGE_OUT: path.join(out, 'artifacts'),
      AXPAGE_TOKEN: TOKEN,
    },
    args: ['--port', '0', '--max-sessions', '2'],
  });
}, 120_000);

afterAll(async () => {
  for (const c of clients) await c.close();
  await server?.stop();
  await desktop?.stop().catch(() => undefined);
  if (out) fs.rmSync(out, { recursive: true, force: true });
});

async function connect(): Promise<HttpClient> {
  const c = await connectHttp(server.url, TOKEN);
  clients.push(c);
  return c;
}

/** A raw initialize POST, as a client past the cap would send it. */
function initialize(): Promise<{ status: number; retryAfter?: string; body: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'] as string | undefined,
            body,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(INIT);
  });
}

describe('--max-sessions', () => {
  it('refuses the initialize past the cap with 503, keeps the open sessions, and frees a place on DELETE', async () => {
    const a = await connect();
    const b = await connect();
    expect(a.sessionId()).toBeTruthy();
    expect(b.sessionId()).not.toBe(a.sessionId());

    const refused = await initialize();
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toBe('60');
    const error = (JSON.parse(refused.body) as { error: { code: number; message: string } }).error;
    expect(error.code).toBe(-32000);
    expect(error.message).toMatch(/limit of 2 open sessions/);
    expect(error.message).toMatch(/DELETE \/mcp with its mcp-session-id/);
    expect(error.message).toMatch(/--max-sessions/);
    // The SDK client sees the refusal as a failed connect.
    await expect(connectHttp(server.url, TOKEN)).rejects.toThrow();

    // The open sessions still answer, and a tool call works.
    const listed = await b.client.listTools();
    expect(listed.tools.length).toBeGreaterThan(10);
    const info = await a.call('ax_session_info');
    expect(info.isError, info.text).toBe(false);

    await a.close();
    clients.splice(clients.indexOf(a), 1);
    const c = await connect();
    expect(c.sessionId()).toBeTruthy();
    expect((await initialize()).status).toBe(503);
    expect(server.alive()).toBe(true);
  }, 120_000);
});
