/**
 * Hardening on a real desktop: a typo'd argument is refused before anything reaches the
 * app (the fixture's own event log shows nothing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';

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
  (app.output?.events ?? []).slice(from).filter((e) => e.event !== 'ready');

describe('unknown arguments', () => {
  it('refuses a typo with the closest name, and the app gets no input', async () => {
    const from = form.output?.events.length ?? 0;
    const r = await session.call('ax_click', { app: form.pid, qurey: 'checkbox:Subscribe' });
    expect(r.isError, r.text).toBe(true);
    expect(r.structured.error_code).toBe('bad_argument');
    expect(r.fields.error).toMatch(
      /unknown argument "qurey" for ax_click\. Did you mean "query"\? Arguments: .*\bquery\b/,
    );
    // The same call spelled right does reach the app, so the empty log above can fail.
    expect(eventsAfter(form, from)).toEqual([]);
    const ok = await session.call('ax_click', { app: form.pid, query: 'checkbox:Subscribe' });
    expect(ok.isError, ok.text).toBe(false);
    await expect.poll(() => eventsAfter(form, from).map((e) => e.event)).toContain('toggled');
  }, 120_000);
});
