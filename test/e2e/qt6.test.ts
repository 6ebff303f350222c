/**
 * Qt 6 (6.4, PyQt6) on a real headless desktop, through the MCP SDK client: typing, scrolling,
 * a modal QMessageBox answered by a click, and a cross-app handoff to a Qt 6 child. The
 * oracle is the fixture's own report on stdout (test/fixtures/apps/qt6_form.py): the text its
 * line edit holds, its scroll bar's value, which button answered its message box, its pid.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';
import { eventsOf, mark, settled } from './helpers/oracle.js';
import { allPresent, describeNeeding, pythonModule } from './helpers/needs.js';
import { handOff } from './helpers/handoff.js';

const PYQT6 = pythonModule('PyQt6.QtWidgets', 'python3-pyqt6');
const havePyQt6 = allPresent([PYQT6]);
let session: Session;

beforeAll(async () => {
  if (havePyQt6) session = await Session.start();
}, 60_000);

afterAll(async () => {
  await session?.close();
});

/** The file's app_switch section: its header line and element lines. */

describeNeeding([PYQT6], 'Qt 6: a PyQt6 form', () => {
  let app: LaunchedApp;
  beforeAll(async () => {
    app = await session.launchFixture('qt6_form.py', [], { timeoutMs: 60_000 });
    const ready = await app.output!.waitForEvent((e) => e.event === 'ready', {
      timeoutMs: 30_000,
    });
    // Really Qt 6 (PyQt6 links the system Qt), not a Qt 5 fallback.
    expect(String(ready.qt)).toMatch(/^6\./);
  }, 90_000);
  afterAll(async () => {
    await app?.stop().catch(() => undefined);
  });

  it('types into a line edit: the fixture reports the text', async () => {
    const from = mark(app);
    const r = await session.call('ax_type', {
      app: app.pid,
      query: 'Name',
      text: 'typed in Qt 6',
    });
    expect(r.isError, r.text).toBe(false);
    const got = await app.output!.waitForEvent(
      (e) => e.event === 'text' && e.text === 'typed in Qt 6',
      { from, timeoutMs: 10_000 },
    );
    expect(got.widget).toBe('name');
  }, 60_000);

  it("scrolls a QScrollArea: the fixture's scroll bar moves, and the summary says steps", async () => {
    const from = mark(app);
    const r = await session.call('ax_scroll', {
      app: app.pid,
      query: 'Rows',
      direction: 'down',
      amount: 120,
    });
    expect(r.isError, r.text).toBe(false);
    const moved = await app.output!.waitForEvent((e) => e.event === 'scrolled', {
      from,
      timeoutMs: 10_000,
    });
    // A QScrollArea's bar counts pixels: an amount of N moves it N of Qt's own steps, and
    // the summary says steps, with the value and maximum the fixture itself reports.
    expect(moved.value).toBe(120);
    expect(r.text).toContain(`down by 120 steps (scroll bar 0 -> 120 of ${String(moved.maximum)})`);
  }, 60_000);

  it('shows the QMessageBox in the result and a click on its button answers it', async () => {
    const opened = await session.call('ax_click', { app: app.pid, query: 'button:Ask' });
    expect(opened.isError, opened.text).toBe(false);
    expect(opened.fields.dialog, opened.text).toMatch(/^AXWindow "Confirm"/);
    // Still open: the click that opened it answered nothing.
    await settled(session, app);
    expect(eventsOf(app).filter((e) => e.event === 'answered')).toEqual([]);
    const from = mark(app);
    const answer = await session.call('ax_click', { app: app.pid, query: 'button:No' });
    expect(answer.isError, answer.text).toBe(false);
    const answered = await app.output!.waitForEvent((e) => e.event === 'answered', {
      from,
      timeoutMs: 10_000,
    });
    expect(answered.button).toBe('No');
  }, 60_000);
});

describeNeeding([PYQT6], 'Qt 6: handoff from a launcher', () => {
  it('a click that starts a Qt 6 app hands off to it; a ref from its section types into it', async () => {
    const form = new URL('../fixtures/apps/qt6_form.py', import.meta.url).pathname;
    const handed = await handOff(session, ['/usr/bin/python3', form]);
    const { launcher: app, child, section } = handed;
    try {
      expect(section[0], handed.click.fields.file).toMatch(/^# app_switch: qt6_form\.py/);
      // The child inherits the launcher's stdout: its own ready line names its pid.
      const ready = await app.output!.waitForEvent(
        (e) => e.event === 'ready' && e.app === 'qt6-form',
        { timeoutMs: 30_000 },
      );
      expect(ready.pid).toBe(child);
      const field = section.find((l) => /\[AXTextField[^\]]*\] "Name" e\d+/.test(l));
      expect(field, section.join('\n')).toBeDefined();
      const ref = /\b(e\d+)\b/.exec(field!)![1];
      const from = mark(app);
      const typed = await session.call('ax_type', { ref, text: 'handed' });
      expect(typed.isError, typed.text).toBe(false);
      await app.output!.waitForEvent((e) => e.event === 'text' && e.text === 'handed', {
        from,
        timeoutMs: 10_000,
      });
    } finally {
      await app.stop();
    }
  }, 90_000);
});
