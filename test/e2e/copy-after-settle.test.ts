/**
 * Full mode: an app showing a password field copies the field's text a while after the
 * click that asked for it ("Share later", a command not named Copy: after the action settled and its call returned).
 * The clipboard was marked after that action; the next call compares against the mark
 * before anything returns, so the late text, shown nowhere in the app, is a secret: a read
 * masks it, and a paste of it into an ordinary field leaves it in no file the server writes.
 * Oracles: the fixture's own events (it copied; the length of each field's text) and the
 * artifact dir.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { Session } from '../../src/harness/session.js';
import { sessionPerSuite } from './helpers/suite-session.js';

const SECRET = 'LateCopy-Pw-3390';

function filesHolding(dir: string, text: string): string[] {
  const out: string[] = [];
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, name);
    if (fs.statSync(file).isFile() && fs.readFileSync(file).includes(text)) out.push(name);
  }
  return out;
}

async function ok(session: Session, tool: string, args: Record<string, unknown>) {
  const r = await session.call(tool, args);
  expect(r.isError, `${tool} ${JSON.stringify(args)}: ${r.text}`).toBe(false);
  return r;
}

/** Clicks "Share later" and waits for the app to say it copied (after the call returned). */
async function copyLater(session: Session, app: LaunchedApp): Promise<void> {
  const from = app.output!.events.length;
  await ok(session, 'ax_click', { app: app.pid, query: 'button:Share later' });
  await app.output!.waitForEvent((e) => e.event === 'shared-later', { timeoutMs: 20_000, from });
}

describe('full mode: a password copied after the action settled', () => {
  const get = sessionPerSuite({ serverEnv: { AXPAGE_MODE: 'full' } });

  it('is not read out by the next clipboard read', async () => {
    const session = get();
    const app = await session.launchFixture('paste_doors.py', [], {
      env: { AXPAGE_FIXTURE_SECRET: SECRET },
    });
    try {
      await copyLater(session, app);
      const read = await ok(session, 'ax_clipboard_read', {});
      expect(read.text).not.toContain(SECRET);
      expect(read.structured.masked).toBeTruthy();
      expect(filesHolding(session.artifactDir, SECRET)).toEqual([]);
    } finally {
      await app.stop();
    }
  });

  it('pasted into an ordinary field by the next call, is in no file', async () => {
    const session = get();
    const app = await session.launchFixture('paste_doors.py', [], {
      env: { AXPAGE_FIXTURE_SECRET: SECRET },
    });
    try {
      await copyLater(session, app);
      const from = app.output!.events.length;
      await ok(session, 'ax_key_press', {
        app: app.pid,
        query: 'User',
        key: 'v',
        modifiers: ['ctrl'],
      });
      await app.output!.waitForEvent(
        (e) => e.event === 'changed' && e.widget === 'user' && e.length === SECRET.length,
        { timeoutMs: 20_000, from },
      );
      await ok(session, 'ax_get_tree', { app: app.pid });
      expect(filesHolding(session.artifactDir, SECRET)).toEqual([]);
    } finally {
      await app.stop();
    }
  });
});
