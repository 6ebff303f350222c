/**
 * Full mode: an app showing a password field may copy the field's text by a command of its
 * own not named Copy (here "Share"). The text it put on the clipboard, shown nowhere in the
 * app, is taken for a secret: a clipboard read does not show it, and a paste of it into an
 * ordinary field makes that field a password field, so no file the server writes holds it.
 * A copy of text the app does show stays plain.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { Session } from '../../src/harness/session.js';
import { pollUntil } from '../../src/desktop/procs.js';
import { sessionPerSuite } from './helpers/suite-session.js';

const SECRET = 'PwValue-77Zq';

/** Every file the server wrote that holds the text. */
function filesHolding(dir: string, text: string): string[] {
  const out: string[] = [];
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, name);
    if (fs.statSync(file).isFile() && fs.readFileSync(file).includes(text)) out.push(name);
  }
  return out;
}

const events = (app: LaunchedApp, from = 0) => (app.output?.events ?? []).slice(from);

async function ok(session: Session, tool: string, args: Record<string, unknown>) {
  const r = await session.call(tool, args);
  expect(r.isError, `${tool} ${JSON.stringify(args)}: ${r.text}`).toBe(false);
  return r;
}

describe('full mode: a password copied by a command not named Copy', () => {
  const get = sessionPerSuite({ serverEnv: { AXPAGE_MODE: 'full' } });

  it('is not read out, and a paste of it is kept secret', async () => {
    const session = get();
    const app = await session.launchFixture('paste_doors.py', [], {
      env: { AXPAGE_FIXTURE_SECRET: SECRET },
    });
    try {
      const from = events(app).length;
      await ok(session, 'ax_click', { app: app.pid, query: 'button:Share' });
      await pollUntil(() => events(app, from).some((e) => e.event === 'shared'), {
        timeoutMs: 15_000,
        what: 'the app to copy its password',
      });
      const read = await ok(session, 'ax_clipboard_read', {});
      expect(read.text).not.toContain(SECRET);
      // Pasted into the user name, it is there (the app says so), and in no file.
      await ok(session, 'ax_click', { app: app.pid, query: 'User' });
      await ok(session, 'ax_key_press', { app: app.pid, key: 'v', modifiers: ['ctrl'] });
      await pollUntil(
        () =>
          events(app).some(
            (e) => e.event === 'changed' && e.widget === 'user' && e.length === SECRET.length,
          ),
        { timeoutMs: 15_000, what: 'the paste into User' },
      );
      await ok(session, 'ax_get_tree', { app: app.pid });
      expect(filesHolding(session.artifactDir, SECRET)).toEqual([]);
    } finally {
      await app.stop();
    }
  });

  it('a copy of text the app shows stays plain', async () => {
    const session = get();
    const app = await session.launchFixture('paste_doors.py', [], {
      env: { AXPAGE_FIXTURE_SECRET: SECRET },
    });
    try {
      await ok(session, 'ax_type', { app: app.pid, query: 'User', text: 'alice-shown' });
      await ok(session, 'ax_key_press', { app: app.pid, key: 'a', modifiers: ['ctrl'] });
      await ok(session, 'ax_key_press', { app: app.pid, key: 'c', modifiers: ['ctrl'] });
      const read = await ok(session, 'ax_clipboard_read', {});
      expect(read.text).toContain('alice-shown');
    } finally {
      await app.stop();
    }
  });
});
