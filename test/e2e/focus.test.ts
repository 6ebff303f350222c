/**
 * An action that fronted a window and then failed puts the previously active window back.
 * The window manager's own answer (_NET_ACTIVE_WINDOW, read with xprop) is the oracle.
 */
import { execFileSync, spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';
import { eventsOf, mark, readApp } from './helpers/oracle.js';

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

const xEnv = (): NodeJS.ProcessEnv => ({ ...process.env, DISPLAY: `:${session.desktop.display}` });

/** The pid that owns an X window, by its _NET_WM_PID; -1 for none. */
function pidOfWindow(id: string | undefined): number {
  if (!id || /^0x0+$/.test(id)) return -1;
  const pid = execFileSync('xprop', ['-id', id, '_NET_WM_PID'], { env: xEnv(), encoding: 'utf8' });
  return Number(/= (\d+)/.exec(pid)?.[1] ?? -1);
}

/** The pid of the window the window manager says is active. */
function activePid(): number {
  const root = execFileSync('xprop', ['-root', '_NET_ACTIVE_WINDOW'], {
    env: xEnv(),
    encoding: 'utf8',
  });
  return pidOfWindow(/window id # (0x[0-9a-f]+)/.exec(root)?.[1]);
}

/**
 * Every window the window manager makes active from now on, as another X client (xprop
 * -spy) sees the changes: resolves once the spy has printed the current one.
 */
async function spyActiveWindows(): Promise<{ ids: string[]; stop: () => void }> {
  const spy = spawn('xprop', ['-root', '-spy', '_NET_ACTIVE_WINDOW'], {
    env: xEnv(),
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const ids: string[] = [];
  let buffered = '';
  spy.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      const id = /window id # (0x[0-9a-f]+)/.exec(line)?.[1];
      if (id) ids.push(id);
    }
  });
  await waitUntil('xprop -spy printing the active window', () => ids.length > 0);
  return { ids, stop: () => spy.kill() };
}

async function waitUntil(what: string, cond: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

it('a foreground action that fails after fronting its app puts the previous window back', async () => {
  // Front the other app with the window manager, as a user would have it.
  const r0 = await session.call('ax_key_press', { app: other.pid, key: 'Shift_L' });
  expect(r0.isError, r0.text).toBe(false);
  expect(activePid()).toBe(other.pid);
  const spy = await spyActiveWindows();
  const from = mark(form);
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
  // It really was fronted in between, and then put back: the window manager's own record.
  try {
    await waitUntil('the form fronted, then the other window back', () => {
      const pids = spy.ids.map(pidOfWindow);
      return pids.includes(form.pid) && pids.at(-1) === other.pid;
    });
  } finally {
    spy.stop();
  }
  const active = spy.ids.map(pidOfWindow);
  expect(active.indexOf(form.pid), JSON.stringify(active)).toBeGreaterThan(0);
  expect(active.at(-1)).toBe(other.pid);
  // A round trip through the form's main loop (an AT-SPI read) after the call: a key it
  // was sent before would have been handled by then.
  await readApp(session, form.pid);
  expect(eventsOf(form, from).filter((e) => e.event === 'changed')).toEqual([]);
});
