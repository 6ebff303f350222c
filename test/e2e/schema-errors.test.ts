/**
 * Arguments of the wrong type or out of range: an isError result that names the argument,
 * what it takes and an example (not a protocol error the agent cannot act on), the app
 * gets nothing, the server answers the next call, and the call is in the session log
 * with its text masked like any other call's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';
import { eventsOf, mark } from './helpers/oracle.js';

let session: Session;
let form: LaunchedApp;

beforeAll(async () => {
  session = await Session.start();
  form = await session.launchFixture('form.py');
}, 120_000);

afterAll(async () => {
  await session?.close();
});

const eventsAfter = (app: LaunchedApp, from: number) =>
  eventsOf(app)
    .slice(from)
    .filter((e) => e.event !== 'ready');

function sessionLog(): Array<Record<string, unknown>> {
  const file = fs.readdirSync(session.artifactDir).find((f) => /^session-.*\.jsonl$/.test(f));
  if (file === undefined) return [];
  return fs
    .readFileSync(path.join(session.artifactDir, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('arguments that fail a tool schema', () => {
  it('a number out of range: isError naming the argument, its range and an example', async () => {
    const r = await session.call('ax_get_tree', { app: form.pid, max_depth: -1 });
    expect(r.isError, r.text).toBe(true);
    expect(r.structured.error_code).toBe('bad_argument');
    expect(r.fields.error).toMatch(/max_depth/);
    expect(r.fields.error).toMatch(/>=\s*0/);
    expect(r.fields.error).toMatch(/e\.g\. "max_depth": 0\b/);
    // The server answers the same call with a good value.
    const ok = await session.call('ax_get_tree', { app: form.pid, max_depth: 2 });
    expect(ok.isError, ok.text).toBe(false);
  }, 120_000);

  it('a wrong type and a missing required argument: named, with an example', async () => {
    const obj = await session.call('ax_get_tree', { app: { toString: 'x' } });
    expect(obj.isError, obj.text).toBe(true);
    expect(obj.fields.error).toMatch(/\bapp\b.*e\.g\. "app": "gedit"/);
    const missing = await session.call('ax_assert', { app: form.pid, query: 'Name' });
    expect(missing.isError, missing.text).toBe(true);
    expect(missing.fields.error).toMatch(/\bassertions\b.*required/);
  }, 120_000);

  it('an action with a bad argument reaches no app and is logged, its text masked', async () => {
    const from = mark(form);
    const typed = 'Schema-Typed-4471';
    const r = await session.call('ax_type', {
      app: form.pid,
      query: 'Name',
      text: typed,
      delivery_mode: 'sideways',
    });
    expect(r.isError, r.text).toBe(true);
    expect(r.fields.error).toMatch(/delivery_mode.*background.*foreground/);
    expect(r.text).not.toContain(typed);
    // Nothing reached the app: the same call spelled right does (so the check can fail).
    expect(eventsAfter(form, from)).toEqual([]);
    const ok = await session.call('ax_type', { app: form.pid, query: 'Name', text: 'ok' });
    expect(ok.isError, ok.text).toBe(false);
    await expect.poll(() => eventsAfter(form, from).map((e) => e.event)).toContain('changed');

    const records = sessionLog();
    const bad = records.filter((c) => c.error_code === 'bad_argument');
    expect(bad.map((c) => c.tool)).toEqual(['ax_get_tree', 'ax_get_tree', 'ax_assert', 'ax_type']);
    const badType = bad[3];
    expect(badType.outcome).toBe('error');
    expect((badType.args as Record<string, unknown>).delivery_mode).toBe('sideways');
    // An action's refusal is in the audit log as well.
    const audit = fs
      .readFileSync(path.join(session.artifactDir, 'audit.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"bad_argument"'));
    expect(audit.some((l) => l.includes('"ax_type"'))).toBe(true);
    const files = fs.readdirSync(session.artifactDir);
    for (const f of files.filter((n) => n.endsWith('.jsonl'))) {
      expect(fs.readFileSync(path.join(session.artifactDir, f), 'utf8')).not.toContain(typed);
    }
  }, 120_000);
});
