/**
 * Hardening on a real desktop: a typo'd argument is refused before anything reaches the
 * app (the fixture's own event log shows nothing); a launch past the budget of running
 * launched apps is refused and starts no process (/proc shows none).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { fixtureApp, Session } from '../../src/harness/session.js';

let session: Session;
let form: LaunchedApp;

beforeAll(async () => {
  session = await Session.start({ serverEnv: { AXPAGE_MAX_LAUNCHED_APPS: '1' } });
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

/** Pids of running processes whose command line names `file` (read from /proc, not from us). */
function processesRunning(file: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const state = /\) (\S)/.exec(fs.readFileSync(`/proc/${entry}/stat`, 'utf8'))?.[1];
      if (argv.includes(file) && state !== 'Z') pids.push(Number(entry));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return pids;
}

async function until(cond: () => boolean): Promise<void> {
  await expect.poll(cond, { timeout: 15_000 }).toBe(true);
}

describe('launch budget', () => {
  const toggles = fixtureApp('toggles.py');
  const launch = () => session.call('ax_launch_app', { command: ['/usr/bin/python3', toggles] });

  it('refuses a launch while the one allowed launched app runs, and starts nothing', async () => {
    const first = await launch();
    expect(first.isError, first.text).toBe(false);
    const pid = (first.structured.launched as { app_pid: number }).app_pid;
    expect(processesRunning(toggles)).toEqual([pid]);

    const second = await launch();
    expect(second.isError, second.text).toBe(true);
    expect(second.structured.error_code).toBe('rate_limited');
    expect(second.fields.error).toMatch(
      new RegExp(`launch budget: 1 apps .* still running \\(pids ${pid}\\), the limit is 1`),
    );
    expect(processesRunning(toggles)).toEqual([pid]);

    // Once it has exited, there is room again.
    const quit = await session.call('ax_quit_app', { app: pid, force: true });
    expect(quit.isError, quit.text).toBe(false);
    await until(() => processesRunning(toggles).length === 0);
    const third = await launch();
    expect(third.isError, third.text).toBe(false);
    const again = (third.structured.launched as { app_pid: number }).app_pid;
    expect(processesRunning(toggles)).toEqual([again]);
    await session.call('ax_quit_app', { app: again, force: true });
    await until(() => processesRunning(toggles).length === 0);
  }, 180_000);
});
