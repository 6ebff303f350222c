/**
 * Safe mode: the agent's clipboard reaches no password field by a command that moves the
 * focus there and pastes, by one that reads the clipboard straight into it while another
 * field has the focus, or by a paste the app makes after the action settled (a timer, an
 * autofill when the field gets the focus). The selections stay empty after an action on an
 * app that shows a password field, and the agent's text comes back when it reads the
 * clipboard or acts on an app that shows none. The fixture reports lengths, never text.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { Session } from '../../src/harness/session.js';
import { pollUntil } from '../../src/desktop/procs.js';
import { sessionPerSuite } from './helpers/suite-session.js';

const TEXT = 'AgentText123';

const events = (app: LaunchedApp, from = 0) => (app.output?.events ?? []).slice(from);

/** Every length the fixture reported for the password field's text since `from`. */
const pwLengths = (app: LaunchedApp, from: number): number[] =>
  events(app, from)
    .filter((e) => e.event === 'changed' && e.widget === 'pw')
    .map((e) => e.length as number);

async function ok(session: Session, tool: string, args: Record<string, unknown>) {
  const r = await session.call(tool, args);
  expect(r.isError, `${tool} ${JSON.stringify(args)}: ${r.text}`).toBe(false);
  return r;
}

/** Waits for the fixture's door event `door` after `from`, and its marker ping after it. */
async function doorFired(app: LaunchedApp, door: string, from: number) {
  await pollUntil(() => events(app, from).some((e) => e.event === 'door' && e.door === door), {
    timeoutMs: 15_000,
    what: `the ${door} door to fire`,
  });
  return events(app, from).find((e) => e.event === 'door' && e.door === door)!;
}

const DOORS: Array<[string, string, (s: Session, app: number) => Promise<void>]> = [
  [
    'a command that moves the focus into the field and pastes',
    'quick entry',
    async (s, app) => {
      await ok(s, 'ax_click', { app, query: 'User name' });
      await ok(s, 'ax_click', { app, query: 'button:Quick entry' });
    },
  ],
  [
    'a command that reads the clipboard into the field while another has the focus',
    'import',
    async (s, app) => {
      await ok(s, 'ax_click', { app, query: 'User name' });
      await ok(s, 'ax_click', { app, query: 'button:Import' });
    },
  ],
  [
    'a paste the app makes after the action settled',
    'later',
    async (s, app) => {
      await ok(s, 'ax_click', { app, query: 'Password' });
      await ok(s, 'ax_click', { app, query: 'button:Later' });
    },
  ],
];

describe('safe mode: pastes into a password field from elsewhere, or later', () => {
  const get = sessionPerSuite({ serverEnv: { AXPAGE_MODE: 'safe' } });

  it.each(DOORS)('%s pastes nothing, and the agent reads its text back', async (_t, door, run) => {
    const session = get();
    const app = await session.launchFixture('paste_later.py', [], {
      env: { AXPAGE_FIXTURE_DELAY_MS: '800' },
    });
    try {
      await ok(session, 'ax_clipboard_write', { text: TEXT });
      const from = events(app).length;
      await run(session, app.pid);
      const fired = await doorFired(app, door, from);
      if (door === 'import') expect(fired.length).toBe(0);
      // The app answers its own events in order: a ping after the door shows what it did.
      await ok(session, 'ax_get_tree', { app: app.pid });
      expect(pwLengths(app, from).filter((n) => n > 0)).toEqual([]);
      const read = await ok(session, 'ax_clipboard_read', {});
      expect(read.text).toContain(TEXT);
    } finally {
      await app.stop();
    }
  });

  it('an autofill when the field gets the focus pastes nothing', async () => {
    const session = get();
    const app = await session.launchFixture('paste_later.py', ['auto'], {
      env: { AXPAGE_FIXTURE_DELAY_MS: '800' },
    });
    try {
      await ok(session, 'ax_clipboard_write', { text: TEXT });
      const from = events(app).length;
      await ok(session, 'ax_click', { app: app.pid, query: 'Password' });
      await doorFired(app, 'auto', from);
      await ok(session, 'ax_get_tree', { app: app.pid });
      expect(pwLengths(app, from).filter((n) => n > 0)).toEqual([]);
    } finally {
      await app.stop();
    }
  });

  it('keeps the clipboard empty between calls beside a password field, and gives it back on an action elsewhere', async () => {
    const session = get();
    const login = await session.launchFixture('paste_later.py');
    const other = await session.launchFixture('toggles.py');
    // The clipboard as another client of the display reads it, not through the server.
    const clipboardNow = () =>
      execFileSync('xclip', ['-o', '-selection', 'clipboard'], {
        env: session.desktop.processEnv(),
        encoding: 'utf8',
        timeout: 10_000,
      });
    try {
      await ok(session, 'ax_clipboard_write', { text: TEXT });
      await ok(session, 'ax_click', { app: login.pid, query: 'User name' });
      expect(clipboardNow()).toBe('');
      await ok(session, 'ax_click', { app: other.pid, query: 'MS' });
      expect(clipboardNow()).toBe(TEXT);
    } finally {
      await login.stop();
      await other.stop();
    }
  });
});
