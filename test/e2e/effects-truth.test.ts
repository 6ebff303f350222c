/**
 * What a summary says an action did is what the app shows once it has settled: a change
 * is said of the element acted on, not of a hidden element that mirrors it; a state a
 * button holds only while it is being clicked is not its new state; a window that closed
 * and an app that exited are said first, before the change counts. Each effect is checked
 * by what the app itself logs or what an independent pyatspi read shows, never only by the
 * summary.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session, type CallResult } from '../../src/harness/session.js';
import { describeNeeding, program, pythonModule } from './helpers/needs.js';
import { mark, readApp, waitForApp, type AtspiElement } from './helpers/oracle.js';

const PYQT5 = pythonModule('PyQt5.QtWidgets', 'python3-pyqt5');
const WIDGET_FACTORY = program('gtk3-widget-factory', 'gtk-3-examples');

let session: Session;

beforeAll(async () => {
  session = await Session.start();
  await session.client.listTools();
});

afterAll(async () => {
  await session?.close();
});

/** The summary line's first sentence. */
function firstSentence(r: CallResult): string {
  return /^(.*?[.!?])(?: |$)/.exec(r.fields.summary ?? '')?.[1] ?? '';
}

async function launchQt(): Promise<LaunchedApp> {
  return session.launchFixture('qt_buttons.py', [], { timeoutMs: 60_000 });
}

/** The first event the app logs from `from` on that matches. */
function logged(
  app: LaunchedApp,
  from: number,
  pred: (e: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  return app.output!.waitForEvent(pred, { from, timeoutMs: 15_000 });
}

/** Opens the Options dialog and waits until the app says it is up. */
async function openOptions(qt: LaunchedApp): Promise<CallResult> {
  const from = mark(qt);
  const r = await session.call('ax_click', { app: qt.pid, query: 'button:Options...' });
  expect(r.isError, r.text).toBe(false);
  await logged(qt, from, (e) => e.event === 'dialog' && e.state === 'opened');
  return r;
}

describeNeeding([PYQT5], 'Qt 5: a state held only during a click is not the effect', () => {
  let qt: LaunchedApp;
  beforeAll(async () => {
    qt = await launchQt();
  });
  afterAll(async () => {
    await qt?.stop();
  });

  it('a push button clicked in the background is not reported left pressed', async () => {
    const from = mark(qt);
    const r = await session.call('ax_click', { app: qt.pid, query: 'button:Apply' });
    expect(r.isError, r.text).toBe(false);
    const clicked = await logged(qt, from, (e) => e.event === 'clicked' && e.widget === 'apply');
    // What the click did once the button was let go is the effect the summary reports.
    expect(r.text).toContain(`-> 'Applied ${String(clicked.count)}'`);
    expect(r.text).toMatch(/effect: confirmed/);
    const apply = (await readApp(session, qt.pid)).find((e) => e.name === 'Apply');
    expect(apply, 'pyatspi sees Apply').toBeDefined();
    expect(apply?.states).not.toContain('pressed');
    expect(r.text).not.toMatch(/-> pressed/);
    const line = (r.lists.visible_elements ?? []).find((l) => l.includes('"Apply"'));
    expect(line ?? '').not.toMatch(/\bpressed\b/);
  });

  it('a checkable button keeps its new state: checked is reported', async () => {
    const from = mark(qt);
    const r = await session.call('ax_click', { app: qt.pid, query: 'Bold' });
    expect(r.isError, r.text).toBe(false);
    const e = await logged(qt, from, (ev) => ev.event === 'toggled' && ev.widget === 'bold');
    expect(e.checked).toBe(true);
    const bold = (await readApp(session, qt.pid)).find((el) => el.name === 'Bold');
    expect(bold?.states).toContain('checked');
    expect(r.lists.state_changes ?? []).toContainEqual(
      expect.stringMatching(/"Bold" e\d+: unchecked -> checked/),
    );
  });

  it('a dialog the button opens once it is released is in the same call’s summary', async () => {
    const r = await openOptions(qt);
    expect(r.text).toMatch(/"Options"/);
    expect(r.text).not.toMatch(/-> pressed/);
    const cancel = await session.call('ax_click', { app: qt.pid, query: 'button:Cancel' });
    expect(cancel.isError, cancel.text).toBe(false);
  });
});

describeNeeding([PYQT5], 'Qt 5: a window that closes, an app that exits, said first', () => {
  let qt: LaunchedApp;
  beforeAll(async () => {
    qt = await launchQt();
  });
  afterAll(async () => {
    await qt?.stop();
  });

  async function expectClosed(r: CallResult, from: number): Promise<void> {
    expect(r.isError, r.text).toBe(false);
    const e = await logged(qt, from, (ev) => ev.event === 'dialog' && ev.state === 'closed');
    expect(e.result).toBe(1);
    const options = (await readApp(session, qt.pid)).find((el) => el.name === 'Options');
    expect(options?.states ?? []).not.toContain('showing');
    expect(firstSentence(r)).toBe('Its window "Options" closed.');
    expect(r.fields.window).toBe('"Qt Buttons"');
  }

  it('ax_click on the dialog’s OK', async () => {
    await openOptions(qt);
    const from = mark(qt);
    await expectClosed(await session.call('ax_click', { app: qt.pid, query: 'button:OK' }), from);
  });

  it('ax_type into its field with key Return', async () => {
    await openOptions(qt);
    const from = mark(qt);
    const r = await session.call('ax_type', {
      app: qt.pid,
      query: 'textfield:Name',
      text: 'abc',
      key: 'Return',
    });
    await expectClosed(r, from);
  });

  it('ax_key_press Return in its field', async () => {
    await openOptions(qt);
    const from = mark(qt);
    await expectClosed(await session.call('ax_key_press', { app: qt.pid, key: 'Return' }), from);
  });

  it('ax_key_press of the shortcut that quits: the app exited comes first', async () => {
    const from = mark(qt);
    const r = await session.call('ax_key_press', { app: qt.pid, key: 'ctrl+q' });
    expect(r.isError, r.text).toBe(false);
    await logged(qt, from, (e) => e.event === 'quit' && e.how === 'shortcut');
    await qt.exited;
    expect(firstSentence(r)).toMatch(/^The app exited \(qt_buttons\.py, pid \d+\)\.$/);
    expect(r.text).toMatch(/effect: confirmed/);
  });

  it('ax_click on a Quit button: the app exited comes first', async () => {
    qt = await launchQt();
    const from = mark(qt);
    const r = await session.call('ax_click', { app: qt.pid, query: 'button:Quit' });
    expect(r.isError, r.text).toBe(false);
    await logged(qt, from, (e) => e.event === 'quit' && e.how === 'button');
    await qt.exited;
    expect(firstSentence(r)).toMatch(/^The app exited \(qt_buttons\.py, pid \d+\)\.$/);
  });
});

it('GTK: clicking OK in a dialog says first that its window closed', async () => {
  const app = await session.launchFixture('dialog.py');
  try {
    const opened = await session.call('ax_click', { app: app.pid, query: 'button:Open Dialog' });
    expect(opened.fields.dialog, opened.text).toMatch(/"Confirm"/);
    const from = mark(app);
    const r = await session.call('ax_click', { app: app.pid, query: 'button:OK' });
    expect(r.isError, r.text).toBe(false);
    await logged(app, from, (e) => e.event === 'response' && e.response === 'ok');
    expect((await readApp(session, app.pid)).some((e) => e.name === 'Confirm')).toBe(false);
    expect(firstSentence(r)).toBe('Its window "Confirm" closed.');
  } finally {
    await app.stop();
  }
});

describeNeeding(
  [WIDGET_FACTORY],
  'GTK 3: a popover item whose state only a hidden twin shows',
  () => {
    /** The View menu's "Dark theme" check item on page 2: bound to the same setting, hidden. */
    const twinOf = (els: AtspiElement[]) =>
      els.find((e) => e.role === 'check menu item' && e.name === 'Dark theme');
    const popoverItem = (els: AtspiElement[]) =>
      els.find((e) => e.role === 'check box' && e.name === 'Dark Theme');

    it('the change is said of the popover item clicked, and the popover staying open is said', async () => {
      const app = await session.launch('gtk3-widget-factory');
      try {
        // Page 2 shows a menu bar whose View menu (closed, so hidden) has the twin item.
        const page = await session.call('ax_click', { app: app.pid, query: 'radio:Page 2' });
        expect(page.isError, page.text).toBe(false);
        await waitForApp(session, app.pid, twinOf, 'the View menu’s Dark theme item');
        // The header bar's gear toggle comes first in tree order (page 2 has another "Menu").
        const gear = await session.call('ax_click', { app: app.pid, query: 'checkbox:Menu nth:1' });
        expect(gear.isError, gear.text).toBe(false);
        await waitForApp(
          session,
          app.pid,
          (els) => (popoverItem(els)?.states.includes('showing') ? true : undefined),
          'the gear popover open',
        );
        expect(twinOf(await readApp(session, app.pid))?.states).not.toContain('checked');

        const r = await session.call('ax_click', { app: app.pid, query: 'checkbox:Dark Theme' });
        expect(r.isError, r.text).toBe(false);
        // The app switched to its dark theme: the twin bound to the setting reads checked,
        // and the popover is still up.
        await waitForApp(
          session,
          app.pid,
          (els) => (twinOf(els)?.states.includes('checked') ? true : undefined),
          'the dark theme on',
        );
        expect(popoverItem(await readApp(session, app.pid))?.states).toContain('showing');

        const states = r.lists.state_changes ?? [];
        expect(states[0], r.text).toMatch(
          /^\[AXCheckBox\] "Dark Theme" e\d+: unchecked -> checked \(read on its hidden twin \[AXMenuItem\] e\d+\)$/,
        );
        expect(states.filter((l) => l.includes('"Dark theme"'))).toEqual([]);
        expect(r.fields.summary).toMatch(/; the popover it is in stays open\./);
        expect(r.text).toMatch(/effect: confirmed/);
      } finally {
        await app.stop();
      }
    });

    it('with no twin in the tree, a popover check item that changed only in its look is no no-op', async () => {
      const app = await session.launch('gtk3-widget-factory');
      try {
        // Page 1 only: the menu bar of page 2 (and its twin item) is not in the tree yet.
        expect(twinOf(await readApp(session, app.pid))).toBeUndefined();
        const gear = await session.call('ax_click', { app: app.pid, query: 'checkbox:Menu nth:1' });
        expect(gear.isError, gear.text).toBe(false);
        await waitForApp(
          session,
          app.pid,
          (els) => (popoverItem(els)?.states.includes('showing') ? true : undefined),
          'the gear popover open',
        );
        // The popover slides in: once it has stopped, a fresh walk is the click's before.
        let last = '';
        await waitForApp(
          session,
          app.pid,
          (els) => {
            const at = JSON.stringify(popoverItem(els)?.extents);
            const still = at === last;
            last = at;
            return still ? true : undefined;
          },
          'the gear popover still',
        );
        await session.call('ax_get_tree', { app: app.pid });
        const r = await session.call('ax_click', { app: app.pid, query: 'checkbox:Dark Theme' });
        expect(r.isError, r.text).toBe(false);
        // The app switched its theme: page 2's twin, once shown, reads checked.
        const page = await session.call('ax_click', { app: app.pid, query: 'radio:Page 2' });
        expect(page.isError, page.text).toBe(false);
        await waitForApp(
          session,
          app.pid,
          (els) => (twinOf(els)?.states.includes('checked') ? true : undefined),
          'the dark theme on',
        );
        // What the toolkit exposes did not change, what it shows did: not a suspected
        // no-op, and no advice to send the click again (that would switch it back).
        expect(r.text).not.toMatch(/suspected_noop/);
        expect(r.fields.escalation).toBeUndefined();
      } finally {
        await app.stop();
      }
    });
  },
);
