/**
 * An action that fronted a window and then failed puts the previously active window back.
 * The window manager's own answer (_NET_ACTIVE_WINDOW, read with xprop) is the oracle.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';

let session: Session;
let form: LaunchedApp;
let other: LaunchedApp;

beforeAll(async () => {
  session = await Session.start();
  form = await session.launchFixture('form.py');
  other = await session.launchFixture('dialog.py'); // opens in front of the form
});

afterAll(async () => {
  await session?.close();
});

/** The pid of the window the window manager says is active. */
function activePid(): number {
  const env = { ...process.env, DISPLAY: `:${session.desktop.display}` };
  const root = execFileSync('xprop', ['-root', '_NET_ACTIVE_WINDOW'], { env, encoding: 'utf8' });
  const id = /window id # (0x[0-9a-f]+)/.exec(root)?.[1];
  if (!id) return -1;
  const pid = execFileSync('xprop', ['-id', id, '_NET_WM_PID'], { env, encoding: 'utf8' });
  return Number(/= (\d+)/.exec(pid)?.[1] ?? -1);
}

it('a foreground action that fails after fronting its app puts the previous window back', async () => {
  // Front the other app with the window manager, as a user would have it.
  const r0 = await session.call('ax_key_press', { app: other.pid, key: 'Shift_L' });
  expect(r0.isError, r0.text).toBe(false);
  expect(activePid()).toBe(other.pid);
  const from = form.output?.events.length ?? 0;
  // A label takes no keyboard focus: the form is fronted, focus fails, nothing is typed.
  const r = await session.call('ax_type', {
    app: form.pid,
    query: 'Status',
    text: 'x',
    delivery_mode: 'foreground',
  });
  expect(r.isError, r.text).toBe(true);
  // Said after the form was fronted and a focus request and a click were tried.
  expect(r.fields.error).toMatch(/did not take the keyboard focus, so nothing was typed/);
  expect(activePid()).toBe(other.pid);
  expect((form.output?.events ?? []).slice(from).filter((e) => e.event === 'changed')).toEqual([]);
});
