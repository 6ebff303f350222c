/**
 * Safe mode and the keys that do more than their name says: a Tab or a line break inside
 * typed text (each typed as its key, it takes the focus, and the rest of the text, to the
 * password field or the "Show passphrase" toggle), and the keypad's navigation keys, which
 * type their digit once Num Lock is on. The oracle is the login fixture's own log
 * (test/fixtures/apps/login_dialog.py: the password's length on every change, the toggle,
 * the submit), and for Qt the Name field's text read with pyatspi. Keys that click the
 * pointer (X's mouse keys) are refused too: their click would land on the toggle unchecked.
 *
 * Nothing-happened is checked against a barrier, as in safe-mode-routes.test.ts: a
 * character typed into the user name after the refused call; once the app logs it,
 * anything the refused call had sent would be logged too.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { CallResult } from '../../src/harness/session.js';
import { fixtureRun, type FixtureEvent } from './helpers/fixture-run.js';
import { X11 } from '../../src/platform/linux/x11.js';
import { describeNeeding, pythonModule } from './helpers/needs.js';
import { readApp } from './helpers/oracle.js';

type Event = FixtureEvent;

const run = fixtureRun('login_dialog.py', { session: { serverEnv: { AXPAGE_MODE: 'safe' } } });
const { events, call } = run;

/** What would show that input reached the password field or its reveal toggle. */
const reached = (from: number): Event[] =>
  events()
    .slice(from)
    .filter(
      (e) =>
        (e.event === 'changed' && e.widget === 'password') ||
        e.event === 'toggled' ||
        e.event === 'submitted',
    );

function waitFor(pred: (e: Event) => boolean, from: number): Promise<Event> {
  return run.app.output!.waitForEvent(pred, { from, timeoutMs: 15_000 });
}

/** Types one character into the user name with key events and waits until the app logs it. */
async function barrier(): Promise<void> {
  const from = events().length;
  const r = await call('ax_type', { query: 'User name', text: '.', delivery_mode: 'foreground' });
  expect(r.isError, r.text).toBe(false);
  await waitFor((e) => e.event === 'changed' && e.widget === 'user', from);
}

/** After the barrier: nothing reached the password field, the toggle, or the user name. */
async function expectUntouched(from: number): Promise<void> {
  await barrier();
  expect(reached(from)).toEqual([]);
  const typed = events()
    .slice(from)
    .filter((e) => e.event === 'changed' && e.widget === 'user' && /SECRET/.test(String(e.value)));
  expect(typed).toEqual([]);
}

function expectBlocked(r: CallResult, message: RegExp): void {
  expect(r.isError, r.text).toBe(true);
  expect(r.text).toMatch(message);
  expect(r.text).toContain('nothing was typed');
}

describe('safe mode: text that moves the focus as it is typed', () => {
  let from = 0;
  beforeEach(() => {
    from = events().length;
  });

  it('a Tab inside the text (ax_type, either delivery, and ax_click) is refused whole', async () => {
    const tab = /holds a Tab, which moves the keyboard focus/;
    for (const delivery_mode of ['foreground', 'background']) {
      expectBlocked(
        await call('ax_type', { query: 'User name', text: 'ab\tTABSECRET', delivery_mode }),
        tab,
      );
    }
    const click = await call('ax_click', {
      query: 'User name',
      text: 'gh\tCLICKSECRET',
      delivery_mode: 'foreground',
    });
    expectBlocked(click, tab);
    // Refused before the click: the user name did not even take the focus.
    expect(events().slice(from)).toEqual([]);
    // Tab, Tab, Space: the toggle would have been pressed.
    expectBlocked(
      await call('ax_type', { query: 'User name', text: 'x\t\t ', delivery_mode: 'foreground' }),
      tab,
    );
    await expectUntouched(from);
  });

  it('a line break is refused in an app with a password field (Return submits or moves on)', async () => {
    expectBlocked(
      await call('ax_type', {
        query: 'User name',
        text: 'ef\nNLSECRET',
        delivery_mode: 'foreground',
      }),
      /line break, typed as Return/,
    );
    await expectUntouched(from);
  });

  it('the way the refusal names works: Tab as a key, then the text into the field named', async () => {
    await barrier();
    const tabFrom = events().length;
    expect((await call('ax_key_press', { key: 'Tab' })).isError).toBe(false);
    await waitFor((e) => e.event === 'focus' && e.widget === 'password', tabFrom);
    const r = await call('ax_type', {
      query: 'User name',
      text: 'bob',
      delivery_mode: 'foreground',
    });
    expect(r.isError, r.text).toBe(false);
    await waitFor(
      (e) => e.event === 'changed' && e.widget === 'user' && /bob$/.test(String(e.value)),
      tabFrom,
    );
    expect(reached(from)).toEqual([]);
  });
});

/** A key pressed as the person at the desktop would (XTest, not through axpage). */
function pressDirectly(keys: string[]): void {
  const x = X11.open(run.session.desktop.processEnv().DISPLAY);
  try {
    x.pressKey(keys);
  } finally {
    x.close();
  }
}

describe('safe mode: keypad keys type digits under Num Lock', () => {
  it('KP_Home, KP_Up, KP_Left, KP_End, KP_Page_Up are refused in the password field', async () => {
    const from = events().length;
    await barrier();
    // Num Lock on, as the person may have left it.
    pressDirectly(['Num_Lock']);
    try {
      const tab = events().length;
      expect((await call('ax_key_press', { key: 'Tab' })).isError).toBe(false);
      await waitFor((e) => e.event === 'focus' && e.widget === 'password', tab);
      for (const key of ['KP_Home', 'KP_Up', 'KP_Left', 'KP_End', 'KP_Page_Up']) {
        const r = await call('ax_key_press', { key });
        expect(r.isError, `${key}: ${r.text}`).toBe(true);
        expect(r.text).toMatch(/is a password field, and this server runs in safe mode/);
        expect(r.text).toContain(`${key} was not sent`);
      }
      await expectUntouched(from);
    } finally {
      pressDirectly(['Num_Lock']);
    }
  });
});

describe('keys that click the pointer (X mouse keys)', () => {
  it('Pointer_EnableKeys, Shift+Num_Lock and Pointer_Button1 are sent by no tool', async () => {
    const from = events().length;
    await barrier();
    // The pointer rests on the show-password toggle; a key click there would press it.
    const box = (await readApp(run.session, run.app.pid)).find((e) => e.name === 'Show passphrase');
    const [x, y, w, h] = box!.extents!;
    const display = X11.open(run.session.desktop.processEnv().DISPLAY);
    try {
      display.mouseMove(x + Math.round(w / 2), y + Math.round(h / 2));
    } finally {
      display.close();
    }
    for (const args of [
      { key: 'Pointer_EnableKeys' },
      { key: 'Num_Lock', modifiers: ['shift'] },
      { key: 'Pointer_Button1' },
    ]) {
      const r = await call('ax_key_press', args);
      expect(r.isError, `${args.key}: ${r.text}`).toBe(true);
      expect(r.text).toMatch(/clicks or moves the pointer.*nothing was sent/);
    }
    // Had mouse keys been turned on, the keypad's 5 would click the toggle now.
    expect((await call('ax_key_press', { key: 'KP_Begin' })).isError).toBe(false);
    await expectUntouched(from);
  });
});

describeNeeding(
  [pythonModule('PyQt5.QtWidgets', 'python3-pyqt5')],
  'safe mode on Qt: a Tab in the text',
  () => {
    let qt: LaunchedApp;
    beforeAll(async () => {
      qt = await run.session.launchFixture('qt_secret.py', [], {
        env: { AXPAGE_FIXTURE_SECRET: 'qt-secret' },
        name: 'qt_secret.py',
        timeoutMs: 60_000,
      });
    }, 90_000);
    afterAll(async () => {
      await qt?.stop().catch(() => undefined);
    });

    it('typing "n<Tab>QTTABSECRET" into Name is refused in both deliveries; Name stays empty', async () => {
      for (const delivery_mode of ['background', 'foreground']) {
        const r = await run.session.call('ax_type', {
          app: qt.pid,
          query: 'Name',
          text: 'n\tQTTABSECRET',
          delivery_mode,
        });
        expectBlocked(r, /holds a Tab/);
      }
      const name = (await readApp(run.session, qt.pid)).find(
        (e) => e.role === 'text' && e.name === 'Name',
      );
      expect(name, 'the Name field').toBeDefined();
      expect(name!.text ?? '').toBe('');
    }, 120_000);
  },
);
