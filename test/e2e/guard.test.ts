/**
 * Guard rails on a real desktop: a server started in safe mode, with a deny list and a
 * low rate limit. Each refusal is a clear error, and the fixture apps' own logs show
 * that nothing reached them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';
import { eventsOf, mark } from './helpers/oracle.js';

let session: Session;
let form: LaunchedApp;
let denied: LaunchedApp;

const RATE = 4;

beforeAll(async () => {
  session = await Session.start({
    serverEnv: {
      AXPAGE_MODE: 'safe',
      AXPAGE_DENY_APPS: 'dialog.py',
      AXPAGE_RATE_LIMIT: String(RATE),
    },
  });
  form = await session.launchFixture('form.py');
  denied = await session.launchFixture('dialog.py');
});

afterAll(async () => {
  await session?.close();
});

describe('guard rails', () => {
  it('refuses every tool on a denied app, by name and by pid, and it sees nothing', async () => {
    const from = mark(denied);
    for (const [app, unknown] of [
      ['dialog.py', 'no-such-app.py'],
      [denied.pid, 2_147_000_000],
    ] as const) {
      for (const [tool, args] of [
        ['ax_get_tree', {}],
        ['ax_click', { query: 'button:Open dialog' }],
      ] as const) {
        const r = await session.call(tool, { app, ...args });
        const u = await session.call(tool, { app: unknown, ...args });
        expect(r.isError, r.text).toBe(true);
        // The answer an app that does not run gets: nothing tells that it runs, its pid
        // when named by name, or the deny list.
        expect(r.structured.error_code).toBe('app_not_found');
        expect(r.fields.error.replace(String(app), 'X')).toBe(
          u.fields.error.replace(String(unknown), 'X'),
        );
        if (typeof app === 'string') expect(r.text).not.toContain(String(denied.pid));
        expect(r.text).not.toMatch(/blocked/);
        expect(r.text).not.toMatch(/^file:/m);
      }
    }
    expect(eventsOf(denied, from).filter((e) => e.event !== 'ready')).toEqual([]);
  });

  it('safe mode refuses typing into a password field, and the field is untouched', async () => {
    const from = mark(form);
    const r = await session.call('ax_type', { app: form.pid, query: 'Password', text: 'x' });
    expect(r.isError, r.text).toBe(true);
    expect(r.fields.error).toMatch(/password field, and this server runs in safe mode/);
    const set = await session.call('ax_set_value', {
      app: form.pid,
      query: 'Password',
      value: 'x',
    });
    expect(set.isError, set.text).toBe(true);
    expect(eventsOf(form, from).filter((e) => e.widget === 'password')).toEqual([]);
  });

  it('refuses mutating calls past the rate limit, saying how long to wait; reads still work', async () => {
    // The password attempts above counted as mutating calls on the form too.
    const results = [];
    for (let i = 0; i < RATE + 1; i++) {
      results.push(await session.call('ax_click', { app: form.pid, query: 'checkbox:Subscribe' }));
    }
    const limited = results.filter((r) => r.structured.error_code === 'rate_limited');
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0].fields.error).toMatch(
      /rate limit: \d+ mutating calls on .* the limit is 4.*Wait \d+ s/,
    );
    const toggles = eventsOf(form).filter((e) => e.event === 'toggled').length;
    expect(toggles).toBe(results.filter((r) => !r.isError).length);
    const read = await session.call('ax_get_value', { app: form.pid, query: 'Name' });
    expect(read.isError, read.text).toBe(false);
  });

  it('records each mutating call in audit.jsonl, without typed text', () => {
    const lines = fs
      .readFileSync(path.join(session.artifactDir, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.some((l) => l.tool === 'ax_type' && l.error_code === 'blocked')).toBe(true);
    expect(lines.some((l) => l.error_code === 'rate_limited')).toBe(true);
    expect(lines.every((l) => !JSON.stringify(l).includes('"x"'))).toBe(true);
  });
});
