/**
 * With no desktop session at all (no DISPLAY, no session bus, no AT-SPI bus), the server
 * still starts, says clearly what is missing and what to do, and stays up.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { spawn } from 'node:child_process';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { packageRoot } from '../../src/harness/session.js';
import { parseSummary } from '../../src/harness/summary-parse.js';

let client: Client;
let out: string;

beforeAll(async () => {
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-nodesk-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: os.tmpdir(),
    AXPAGE_OUT: out,
  };
  client = new Client({ name: 'no-desktop-test', version: '0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.join(packageRoot(), 'dist', 'cli.js'), 'serve'],
      env,
      stderr: 'pipe',
    }),
  );
  await client.listTools();
});

afterAll(async () => {
  await client?.close();
  fs.rmSync(out, { recursive: true, force: true });
});

function text(r: Awaited<ReturnType<Client['callTool']>>): string {
  return (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');
}

it('ax_is_accessible says why not and what to do', async () => {
  const r = await client.callTool({ name: 'ax_is_accessible', arguments: {} });
  const s = parseSummary(text(r));
  expect(r.structuredContent).toMatchObject({ enabled: false });
  expect(s.fields.error).toMatch(/DBUS_SESSION_BUS_ADDRESS|AT_SPI_BUS_ADDRESS|DISPLAY/);
  expect(s.fields.error).toMatch(/axpage desktop up/);
});

it('a tool that needs the desktop fails clearly and the server stays up', async () => {
  const r = await client.callTool({ name: 'ax_get_tree', arguments: { app: 'anything' } });
  expect(r.isError).toBe(true);
  const s = parseSummary(text(r));
  expect(s.fields.status).toBe('error');
  expect(s.fields.error.length).toBeGreaterThan(20);
  const again = await client.callTool({ name: 'ax_list_apps', arguments: {} });
  expect(again.isError).toBe(true);
  const tools = await client.listTools();
  expect(tools.tools.length).toBeGreaterThan(5);
});

it('exits by itself when its client closes stdin', async () => {
  const child = spawn(process.execPath, [path.join(packageRoot(), 'dist', 'cli.js'), 'serve'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', AXPAGE_OUT: out },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 't', version: '0' },
    },
  };
  child.stdin.write(`${JSON.stringify(init)}\n`);
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  child.stdin.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const code = await exited;
  clearTimeout(timer);
  expect(code).toBe(0);
});
