/**
 * `axpage serve --http` end to end: a real headless desktop with galculator in it, the real
 * server process, the MCP SDK's Streamable HTTP client with the bearer token, and raw HTTP
 * requests for what a client library would never send (no token, a foreign Host or
 * Origin, an oversized body).
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDesktop, type HeadlessDesktop } from '../../src/desktop/headless.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { packageRoot } from '../../src/harness/session.js';
import {
  connectHttp,
  startHttpServe,
  type HttpClient,
  type HttpServeProcess,
} from '../../src/harness/http-serve.js';
import { parseSummary } from '../../src/harness/summary-parse.js';

const TOKEN = 'e2e-token-0123456789abcdef';
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '0' },
  },
};

let desktop: HeadlessDesktop;
let calc: LaunchedApp;
let server: HttpServeProcess;
let out: string;
const clients: HttpClient[] = [];

beforeAll(async () => {
  desktop = await startDesktop();
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-http-'));
  calc = await desktop.launch('galculator', [], {
    env: { HOME: out, XDG_CONFIG_HOME: path.join(out, 'config') },
  });
  server = await startHttpServe({
    env: {
      ...(desktop.processEnv() as Record<string, string>),
      AXPAGE_OUT: path.join(out, 'artifacts'),
      AXPAGE_TOKEN: TOKEN,
    },
  });
});

afterAll(async () => {
  for (const c of clients) await c.close();
  await server?.stop();
  await calc?.stop().catch(() => undefined);
  await desktop?.stop().catch(() => undefined);
  if (out) fs.rmSync(out, { recursive: true, force: true });
});

async function connect(): Promise<HttpClient> {
  const c = await connectHttp(server.url, TOKEN);
  clients.push(c);
  return c;
}

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP request with exactly these headers (Host included), as no MCP client sends. */
function raw(
  method: string,
  headers: Record<string, string>,
  body?: string | Buffer,
  where?: string,
): Promise<RawResponse> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: where ?? url.pathname,
        method,
        headers: {
          host: url.host,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const auth = { authorization: `Bearer ${TOKEN}` };

/** Waits (generously) for a condition the server reports on its own schedule. */
async function until(cond: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function jsonRpcError(r: RawResponse): { code: number; message: string } {
  const parsed = JSON.parse(r.body) as {
    jsonrpc: string;
    error: { code: number; message: string };
  };
  expect(parsed.jsonrpc).toBe('2.0');
  return parsed.error;
}

describe('MCP over HTTP through the SDK client', () => {
  it('lists the same tools as over stdio', async () => {
    const c = await connect();
    const names = (await c.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('ax_get_tree');
    expect(names).toContain('ax_click');
    expect(c.sessionId()).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('ax_get_tree on galculator writes a tree file naming its window and its keys', async () => {
    const c = await connect();
    const r = await c.call('ax_get_tree', { app: calc.pid });
    expect(r.isError, r.text).toBe(false);
    const { fields } = parseSummary(r.text);
    expect(fields.pid).toBe(String(calc.pid));
    expect(fs.statSync(fields.file).mode & 0o777).toBe(0o600);
    const tree = fs.readFileSync(fields.file, 'utf8');
    expect(tree).toMatch(/^\[AXWindow \(frame\)\] "galculator" .*e\d+ x:/m);
    // Keys galculator has; the window title alone could come from the window manager.
    for (const key of ['AC', 'MS', '=']) expect(tree).toContain(`"${key}"`);
  });

  it('resources, completions and prompts work over HTTP as over stdio', async () => {
    const c = await connect();
    const listed = await c.client.listResources();
    expect(listed.resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining(['axpage://apps', 'axpage://artifacts', 'axpage://status']),
    );
    // A tree read through its template walks galculator and writes a pair on disk.
    const read = await c.client.readResource({ uri: `axpage://app/${calc.pid}/tree` });
    const text = (read.contents[0] as { text?: string }).text ?? '';
    for (const key of ['AC', 'MS', '=']) expect(text).toContain(`"${key}"`);
    const index = await c.client.readResource({ uri: 'axpage://artifacts' });
    const pairs = JSON.parse((index.contents[0] as { text: string }).text) as {
      pairs: Array<{ tree?: { uri: string } }>;
    };
    // Over HTTP a client has no access to the server's files: it reads the pair's tree by URI.
    const newest = await c.client.readResource({ uri: pairs.pairs[0]?.tree?.uri ?? '' });
    expect((newest.contents[0] as { text?: string }).text).toBe(text);
    const completed = await c.client.complete({
      ref: { type: 'ref/resource', uri: 'axpage://app/{name}/tree' },
      argument: { name: 'name', value: 'galc' },
    });
    expect(completed.completion.values).toContain('galculator');
    const prompt = await c.client.getPrompt({
      name: 'test_app',
      arguments: { app: 'galculator', goal: 'add 7 and 8' },
    });
    const said = prompt.messages.map((m) => (m.content as { text?: string }).text ?? '').join('');
    expect(said).toContain('galculator');
    expect(said).toContain('add 7 and 8');
  });

  it('two sessions keep their own state: aliases and what each has been shown', async () => {
    const a = await connect();
    const b = await connect();
    expect(a.sessionId()).not.toBe(b.sessionId());
    const connected = await a.call('ax_connect', { app: calc.pid, alias: 'calcA' });
    expect(connected.isError, connected.text).toBe(false);
    const viaAlias = await a.call('ax_get_tree', { app: 'calcA' });
    expect(viaAlias.isError, viaAlias.text).toBe(false);
    expect(parseSummary(viaAlias.text).fields.pid).toBe(String(calc.pid));
    // The other session never heard of the alias.
    const other = await b.call('ax_get_tree', { app: 'calcA' });
    expect(other.isError).toBe(true);
    // A has been shown galculator already; B's first look lists its visible elements.
    const again = parseSummary((await a.call('ax_get_tree', { app: calc.pid })).text);
    expect(again.fields.visible_elements).toMatch(/^\d+ unchanged since /);
    const first = await b.call('ax_get_tree', { app: calc.pid });
    expect(parseSummary(first.text).fields.visible_elements ?? '').not.toMatch(/unchanged since/);
    expect(first.text).toContain('"AC"');
  });

  it('DELETE ends a session: its id is unknown afterwards, other sessions go on', async () => {
    const a = await connect();
    const b = await connect();
    const id = a.sessionId();
    expect(id).toBeDefined();
    await a.close();
    const after = await raw(
      'POST',
      { ...auth, 'mcp-session-id': id ?? '', 'mcp-protocol-version': '2025-06-18' },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    );
    expect(after.status).toBe(404);
    expect(jsonRpcError(after).message).toMatch(/Session not found/);
    expect(server.stderr()).toContain(`session ${id?.slice(0, 8)} ended (DELETE)`);
    expect((await b.client.listTools()).tools.length).toBeGreaterThan(0);
  });
});

describe('requests refused before MCP sees them', () => {
  it('401 with WWW-Authenticate: Bearer without a token and with a wrong one', async () => {
    const none = await raw('POST', {}, JSON.stringify(INIT));
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer /);
    expect(jsonRpcError(none).message).toMatch(/Authorization: Bearer/);
    const wrong = await raw('POST', { authorization: `Bearer ${TOKEN}x` }, JSON.stringify(INIT));
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toMatch(/^Bearer .*invalid_token/);
    const basic = await raw('POST', { authorization: `Basic ${TOKEN}` }, JSON.stringify(INIT));
    expect(basic.status).toBe(401);
  });

  it('403 with a JSON-RPC error for a foreign Host, even with the right token', async () => {
    const r = await raw('POST', { ...auth, host: 'evil.example.com:80' }, JSON.stringify(INIT));
    expect(r.status).toBe(403);
    expect(jsonRpcError(r).message).toMatch(/Host "evil\.example\.com:80"/);
    // Checked before the token: a page in a browser learns nothing from a 401.
    const noToken = await raw('POST', { host: 'evil.example.com' }, JSON.stringify(INIT));
    expect(noToken.status).toBe(403);
    // Loopback names pass on any port.
    const ok = await raw('POST', { ...auth, host: 'localhost:1' }, JSON.stringify(INIT));
    expect(ok.status).toBe(200);
    expect(ok.headers['mcp-session-id']).toBeDefined();
  });

  it('403 for a foreign Origin; a loopback Origin passes', async () => {
    const r = await raw(
      'POST',
      { ...auth, origin: 'http://evil.example.com' },
      JSON.stringify(INIT),
    );
    expect(r.status).toBe(403);
    expect(jsonRpcError(r).message).toMatch(/Origin "http:\/\/evil\.example\.com"/);
    const ok = await raw(
      'POST',
      { ...auth, origin: 'http://127.0.0.1:3000' },
      JSON.stringify(INIT),
    );
    expect(ok.status).toBe(200);
  });

  it('413 for a body over the limit, 400 for one that is not JSON, 404 off /mcp', async () => {
    const big = Buffer.alloc(17 * 1024 * 1024, 0x20);
    const tooBig = await raw('POST', auth, big);
    expect(tooBig.status).toBe(413);
    expect(jsonRpcError(tooBig).message).toMatch(/over the \d+-byte limit/);
    const notJson = await raw('POST', auth, '{"jsonrpc": "2.0", "id": 1,');
    expect(notJson.status).toBe(400);
    expect(jsonRpcError(notJson).code).toBe(-32700);
    const noSession = await raw(
      'POST',
      auth,
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    );
    expect(noSession.status).toBe(400);
    expect(jsonRpcError(noSession).message).toMatch(/initialize/);
    const put = await raw('PUT', auth, JSON.stringify(INIT));
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, POST, DELETE');
    const elsewhere = await raw('POST', auth, JSON.stringify(INIT), '/');
    expect(elsewhere.status).toBe(404);
    expect(jsonRpcError(elsewhere).message).toMatch(/\/mcp/);
  });

  it('the server is still up and serving after all of that', async () => {
    expect(server.alive()).toBe(true);
    const c = await connect();
    const r = await c.call('ax_list_apps');
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toContain(`galculator (pid ${calc.pid})`);
  });
});

describe('starting it', () => {
  const cli = path.join(packageRoot(), 'dist', 'cli.js');
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.tmpdir() };

  it('axpage serve --http --bogus is a usage error', () => {
    const r = spawnSync(process.execPath, [cli, 'serve', '--http', '--bogus'], {
      env,
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown argument '--bogus'/);
  });

  it('a token that is too short is refused without echoing it', () => {
    const r = spawnSync(process.execPath, [cli, 'serve', '--http'], {
      env: { ...env, AXPAGE_TOKEN: 'short-secret' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/AXPAGE_TOKEN is 12 characters; give at least 16/);
    expect(r.stderr).not.toContain('short-secret');
  });

  it('a session idle for --session-idle-ms ends; SIGTERM ends the others and exits 0', async () => {
    const s = await startHttpServe({
      env: { ...env, AXPAGE_OUT: path.join(out, 'idle'), AXPAGE_TOKEN: TOKEN },
      args: ['--port', '0', '--session-idle-ms', '1000'],
    });
    try {
      const idle = await connectHttp(s.url, TOKEN);
      const id = idle.sessionId() ?? '';
      await until(() => s.stderr().includes(`session ${id.slice(0, 8)} ended (idle`));
      await expect(idle.client.listTools()).rejects.toThrow(/404|Session not found/);
      const open = await connectHttp(s.url, TOKEN);
      const openId = open.sessionId() ?? '';
      expect(await s.stop()).toBe(0);
      expect(s.stderr()).toContain(`session ${openId.slice(0, 8)} ended (server shutdown)`);
    } finally {
      await s.stop();
    }
  });

  it('without a token, one is generated, printed once, and is the one that works', async () => {
    const s = await startHttpServe({ env: { ...env, AXPAGE_OUT: path.join(out, 'gen') } });
    try {
      const token = s.printedToken;
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(s.stderr().split(token ?? '').length - 1).toBe(1);
      const c = await connectHttp(s.url, token ?? '');
      expect((await c.client.listTools()).tools.length).toBeGreaterThan(0);
      await c.close();
      await expect(connectHttp(s.url, TOKEN)).rejects.toThrow(/401|Unauthorized/);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });
});
