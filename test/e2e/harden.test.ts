/**
 * Hardening on a real desktop: a typo'd argument is refused before anything reaches the
 * app (the fixture's own event log shows nothing); a launch past the budget of running
 * launched apps is refused and starts no process (/proc shows none); while the client's
 * model is slow to answer ax_find_visual, a click on the same app goes through (the
 * fixture's log shows it) and the answer is resolved on a fresh read after.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { fixtureApp, Session } from '../../src/harness/session.js';
import { startSamplingClient } from '../../src/harness/sampling-client.js';
import { eventsOf, mark } from './helpers/oracle.js';

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
  eventsOf(app)
    .slice(from)
    .filter((e) => e.event !== 'ready');

describe('unknown arguments', () => {
  it('refuses a typo with the closest name, and the app gets no input', async () => {
    const from = mark(form);
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

/**
 * Pids of running processes on this test's display whose command line names `file` (read
 * from /proc, not from us; other files' desktops run the same fixture at the same time).
 */
function processesRunning(file: string): number[] {
  const display = `DISPLAY=${session.desktop.env.DISPLAY}`;
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const state = /\) (\S)/.exec(fs.readFileSync(`/proc/${entry}/stat`, 'utf8'))?.[1];
      const env = fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (argv.includes(file) && state !== 'Z' && env.includes(display)) pids.push(Number(entry));
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

describe('ax_find_visual with a slow model', () => {
  it('releases the app while the model thinks: a click on it proceeds, the answer is resolved after', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const client = await startSamplingClient({
      env: {
        ...(session.desktop.processEnv() as Record<string, string>),
        AXPAGE_OUT: session.artifactDir,
      },
      answer: async (ask) => {
        await gate;
        const line = ask.texts
          .join('\n')
          .split('\n')
          .find((l) => /^\d+ e\d+ \S+ "Subscribe"$/.test(l));
        return line ? line.split(' ')[0] : '0';
      },
    });
    try {
      const from = mark(form);
      let findDone = false;
      const find = client
        .call(
          'ax_find_visual',
          { app: form.pid, prompt: 'the Subscribe check box' },
          {
            timeoutMs: 120_000,
          },
        )
        .finally(() => (findDone = true));
      await expect.poll(() => client.asks.length, { timeout: 60_000 }).toBe(1);
      // The model has not answered: the same server must still act on the same app.
      const click = await client.call('ax_click', { app: form.pid, query: 'checkbox:Subscribe' });
      expect(click.isError, click.text).toBe(false);
      expect(findDone).toBe(false);
      await expect
        .poll(() => eventsAfter(form, from).map((e) => e.event), { timeout: 15_000 })
        .toContain('toggled');
      release();
      const r = await find;
      expect(r.isError, r.text).toBe(false);
      const s = r.structured as { sampling: string; match?: { ref: string; text: string } };
      expect(s.sampling).toBe('answered');
      expect(s.match?.text).toBe('Subscribe');
      // The match comes from the read after the answer: its tree file lists that ref.
      const tree = fs.readFileSync(r.structured.file as string, 'utf8');
      expect(tree).toContain(s.match!.ref);
    } finally {
      release();
      await client.close();
    }
  }, 180_000);
});
