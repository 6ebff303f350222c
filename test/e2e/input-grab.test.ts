/**
 * Foreground input while another client holds the keyboard grabbed: X sends every key to
 * that client, whatever window is in front. The grabbing client is a real password prompt,
 * pinentry-gtk-2, asked for a PIN over its Assuan protocol; what it received is what it
 * answers once Return is pressed (by this test, straight through XTest, not through
 * axpage): a "D <pin>" line, or none for an empty PIN. The app the calls aim at, the
 * entries fixture, logs what it receives too.
 *
 * An app's own grab (its open menu) is not another client's: a click on the menu's item
 * still goes.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';
import { X11 } from '../../src/platform/linux/x11.js';
import { describeNeeding, program } from './helpers/needs.js';

const run = promisify(execFile);

let session: Session;

beforeAll(async () => {
  session = await Session.start();
});

afterAll(async () => {
  await session?.close();
});

/**
 * Whether some client holds the keyboard grabbed, asked as any X client can: a grab
 * attempt on the root window (released at once), through libX11 from Python.
 */
const GRABBED_PY = `
import ctypes, sys
x = ctypes.CDLL("libX11.so.6")
x.XOpenDisplay.restype = ctypes.c_void_p
x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
x.XDefaultRootWindow.restype = ctypes.c_ulong
x.XGrabKeyboard.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_ulong]
x.XUngrabKeyboard.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
x.XCloseDisplay.argtypes = [ctypes.c_void_p]
d = x.XOpenDisplay(None)
status = x.XGrabKeyboard(d, x.XDefaultRootWindow(d), 0, 1, 1, 0)
if status == 0:
    x.XUngrabKeyboard(d, 0)
x.XCloseDisplay(d)
print("grabbed" if status == 1 else "free")
`;

async function keyboardGrabbed(): Promise<boolean> {
  const env = session.desktop.processEnv() as Record<string, string>;
  const { stdout } = await run('/usr/bin/python3', ['-c', GRABBED_PY], { env, timeout: 10_000 });
  return stdout.trim() === 'grabbed';
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describeNeeding(
  [program('pinentry-gtk-2', 'pinentry-gtk2')],
  'a password prompt holds the keyboard',
  () => {
    let entries: LaunchedApp;
    let pinentry: ChildProcess;
    let said = '';

    beforeAll(async () => {
      entries = await session.launchFixture('entries.py');
      pinentry = spawn('/usr/bin/pinentry-gtk-2', [], {
        env: session.desktop.processEnv() as Record<string, string>,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      pinentry.stdout!.on('data', (d: Buffer) => (said += d.toString()));
      pinentry.stdin!.write('SETDESC A prompt that grabs the keyboard\nGETPIN\n');
      await until(keyboardGrabbed, 'pinentry-gtk-2 grabs the keyboard');
    }, 60_000);

    afterAll(() => {
      if (pinentry?.exitCode === null) pinentry.kill();
    });

    it('keys, text and clicks aimed at another app are refused; the prompt gets nothing', async () => {
      const refused = /another window holds the keyboard \(a password prompt\?\): nothing was sent/;
      const calls: Array<[string, Record<string, unknown>]> = [
        ['ax_key_press', { key: 'x' }],
        ['ax_type', { query: 'Field 1', text: 'GRAB', delivery_mode: 'foreground' }],
        ['ax_click', { query: 'OK', text: 'QQ', delivery_mode: 'foreground' }],
      ];
      for (const [tool, args] of calls) {
        const r = await session.call(tool, { app: entries.pid, ...args });
        expect(r.isError, `${tool}: ${r.text}`).toBe(true);
        expect(r.text).toMatch(refused);
      }
      // Background typing sends no input events: it still reaches the app.
      const from = entries.output!.events.length;
      const bg = await session.call('ax_type', { app: entries.pid, query: 'Field 1', text: 'bg' });
      expect(bg.isError, bg.text).toBe(false);
      await entries.output!.waitForEvent((e) => e.event === 'changed' && e.value === 'bg', {
        from,
        timeoutMs: 15_000,
      });

      // Return straight through XTest: the prompt answers with what it holds.
      const x = X11.open(session.desktop.processEnv().DISPLAY);
      try {
        x.pressKey(['Return']);
      } finally {
        x.close();
      }
      await until(
        async () => /^OK$/m.test(said.split('\n').slice(2).join('\n')),
        'pinentry answers',
      );
      expect(said).not.toMatch(/^D /m);
      // Nothing but the background text reached the app either.
      const got = entries.output!.events.filter(
        (e) => e.event === 'changed' || e.event === 'clicked',
      );
      expect(got.map((e) => e.value)).toEqual(['bg']);
    }, 120_000);
  },
);

describe("an app's own grab", () => {
  it('a click on an item of an open combo box menu goes', async () => {
    const form = await session.launchFixture('form.py');
    try {
      const open = await session.call('ax_click', {
        app: form.pid,
        query: 'Color',
        delivery_mode: 'foreground',
      });
      expect(open.isError, open.text).toBe(false);
      // The menu is up once it holds the keyboard.
      await until(keyboardGrabbed, 'the combo box menu is up');
      const from = form.output!.events.length;
      const pick = await session.call('ax_click', {
        app: form.pid,
        query: 'menuitem:Blue',
        delivery_mode: 'foreground',
      });
      expect(pick.isError, pick.text).toBe(false);
      await form.output!.waitForEvent((e) => e.event === 'selected' && e.value === 'Blue', {
        from,
        timeoutMs: 15_000,
      });
    } finally {
      await form.stop();
    }
  }, 120_000);
});
