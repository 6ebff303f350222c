/**
 * A launched app prints a token before anyone knows it is secret; then the agent types that
 * token into the app's password field. From then on the app's launch log holds no plain
 * copy of it, the lines printed before and after are still there, and the log stays 0600.
 * Oracle: the log file itself, and the app's own event that it printed.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixtureApp } from '../../src/harness/session.js';
import { sessionPerSuite } from './helpers/suite-session.js';

const SECRET = 'PrintedFirst-7719';

describe("a launched app's log holding a text later typed into a password field", () => {
  const get = sessionPerSuite({
    serverEnv: {
      AXPAGE_FIXTURE_PASSWORD: '1',
      AXPAGE_FIXTURE_PRINTS: '1',
      AXPAGE_FIXTURE_GREETING: SECRET,
    },
  });

  it('is masked again once the text is known to be secret', async () => {
    const session = get();
    const launch = await session.call('ax_launch_app', {
      command: ['/usr/bin/python3', fixtureApp('echo_search.py')],
    });
    expect(launch.isError, launch.text).toBe(false);
    const { app_pid: app, log } = launch.structured.launched as { app_pid: number; log: string };
    try {
      await expect
        .poll(() => fs.readFileSync(log, 'utf8'), { timeout: 20_000, interval: 100 })
        .toContain(`DEBUG hint=${SECRET}`);
      const typed = await session.call('ax_type', {
        app,
        query: 'Search',
        text: SECRET,
        key: 'Return',
      });
      expect(typed.isError, typed.text).toBe(false);
      // The app printed the field's text on Return: that line is in the log, masked.
      await expect
        .poll(() => fs.readFileSync(log, 'utf8'), { timeout: 20_000, interval: 100 })
        .toMatch(/DEBUG search=•••/);
      const text = fs.readFileSync(log, 'utf8');
      expect(text).not.toContain(SECRET);
      expect(text).toMatch(/DEBUG hint=•••/);
      expect(fs.statSync(log).mode & 0o777).toBe(0o600);
    } finally {
      await session.call('ax_quit_app', { app });
    }
  });
});
