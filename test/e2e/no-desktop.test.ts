/**
 * With no desktop session at all (no DISPLAY, no session bus, no AT-SPI bus), the server
 * still starts, says clearly what is missing and what to do, and stays up.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { packageRoot } from '../../src/harness/session.js';
import { parseSummary } from '../../src/harness/summary-parse.js';
import { startServeClient, type ServeClient } from '../../src/harness/serve-client.js';

let client: ServeClient;
let out: string;

beforeAll(async () => {
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-nodesk-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: os.tmpdir(),
    AXPAGE_OUT: out,
  };
  client = await startServeClient({ name: 'no-desktop-test', env, onStderr: () => undefined });
  await client.toolNames();
});

afterAll(async () => {
  await client?.close();
  fs.rmSync(out, { recursive: true, force: true });
});

it('ax_is_accessible says why not and what to do', async () => {
  const r = await client.call('ax_is_accessible');
  const s = parseSummary(r.text);
  expect(r.structured).toMatchObject({ enabled: false });
  expect(s.fields.error).toMatch(/DBUS_SESSION_BUS_ADDRESS|AT_SPI_BUS_ADDRESS|DISPLAY/);
  expect(s.fields.error).toMatch(/axpage desktop up/);
});

it('a tool that needs the desktop fails clearly and the server stays up', async () => {
  const r = await client.call('ax_get_tree', { app: 'anything' });
  expect(r.isError).toBe(true);
  const s = parseSummary(r.text);
  expect(s.fields.status).toBe('error');
  // Clearly: what is missing, and the command that brings a desktop up.
  expect(s.fields.error).toMatch(/DBUS_SESSION_BUS_ADDRESS is set/);
  expect(s.fields.error).toMatch(/`axpage desktop up`/);
  expect(r.structured).toMatchObject({ status: 'error' });
  // Up: the same server answers the next calls, a failing one and one that succeeds.
  const again = await client.call('ax_list_apps');
  expect(again.isError).toBe(true);
  expect(parseSummary(again.text).fields.error).toMatch(/`axpage desktop up`/);
  const report = await client.call('ax_is_accessible');
  expect(report.structured).toMatchObject({ enabled: false });
  expect((await client.toolNames()).length).toBeGreaterThan(5);
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
