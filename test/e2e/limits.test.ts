/**
 * Walk bounds set in the server's environment: a capped walk says so in the summary and
 * in the tree file header, never silently.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Session } from '../../src/harness/session.js';

let session: Session;

beforeAll(async () => {
  session = await Session.start({ serverEnv: { AXPAGE_MAX_ELEMENTS: '40' } });
});

afterAll(async () => {
  await session?.close();
});

it('reports truncation by the element cap in the summary and the file', async () => {
  const app = await session.launch('gtk3-widget-factory');
  const r = await session.call('ax_get_tree', { app: app.pid, include_invisible: true });
  expect(r.isError, r.text).toBe(false);
  expect(r.fields.file_size).toMatch(/\(40 elements, truncated: .*40/);
  const header = fs.readFileSync(r.fields.file, 'utf8').split('\n').slice(0, 3).join('\n');
  expect(header).toMatch(/truncated: .*40/);
});

it('refuses a malformed limit at start with the variable named', async () => {
  const { spawnSync } = await import('node:child_process');
  const { packageRoot } = await import('../../src/harness/session.js');
  const path = await import('node:path');
  const res = spawnSync(process.execPath, [path.join(packageRoot(), 'dist', 'cli.js'), 'serve'], {
    env: { PATH: process.env.PATH, AXPAGE_MAX_ELEMENTS: 'lots' },
    input: '',
    encoding: 'utf8',
    timeout: 10_000,
  });
  expect(res.status).toBe(2);
  expect(res.stderr).toMatch(/AXPAGE_MAX_ELEMENTS=lots/);
});
