/**
 * Keys pressed one letter at a time are typed text: through a real server (default
 * settings) and the entries fixture, which reports what its field holds, letters pressed
 * into a field reach it, and neither log keeps them, nor names them in a summary; a
 * named key (Tab) and a shortcut (ctrl+a) are kept.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Session } from '../../src/harness/session.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { parseLog } from '../../src/cli/replay.js';

const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-keylogs-')), 'out');
let session: Session;
let app: LaunchedApp;

beforeAll(async () => {
  session = await Session.start({ artifactDir: out });
  app = await session.launchFixture('entries.py');
}, 120_000);

afterAll(async () => {
  await session?.close();
  fs.rmSync(path.dirname(out), { recursive: true, force: true });
});

it('letters pressed one by one are masked like typed text; named keys and shortcuts are kept', async () => {
  const focus = await session.call('ax_click', {
    app: app.pid,
    query: 'Field 1',
    delivery_mode: 'foreground',
  });
  expect(focus.isError, focus.text).toBe(false);
  const from = app.output!.events.length;
  for (const key of ['q', 'W', 'shift+k']) {
    const r = await session.call('ax_key_press', { app: app.pid, key });
    expect(r.isError, r.text).toBe(false);
  }
  await app.output!.waitForEvent(
    (e) => e.event === 'changed' && e.widget === 'field-1' && String(e.value).endsWith('qWK'),
    { from, timeoutMs: 10_000 },
  );
  for (const key of ['ctrl+a', 'Tab']) {
    const r = await session.call('ax_key_press', { app: app.pid, key });
    expect(r.isError, r.text).toBe(false);
  }
  const log = fs.readdirSync(out).find((f) => /^session-.*\.jsonl$/.test(f))!;
  const presses = parseLog(fs.readFileSync(path.join(out, log), 'utf8')).filter(
    (r) => r.tool === 'ax_key_press',
  );
  expect(presses.map((r) => r.args.key)).toEqual([
    { masked: 'text', length: 1 },
    { masked: 'text', length: 1 },
    { masked: 'text', length: 7 },
    'ctrl+a',
    'Tab',
  ]);
  for (const r of presses.slice(0, 3)) expect(r.summary).not.toMatch(/Pressed \S*[qWK]\b/);
  const audit = fs.readFileSync(path.join(out, 'audit.jsonl'), 'utf8');
  expect(audit).not.toMatch(/"key":"(q|W|shift\+k)"/);
  expect(audit).toContain('"key":"ctrl+a"');
});
