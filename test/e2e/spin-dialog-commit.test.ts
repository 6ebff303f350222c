/**
 * Text typed into a GTK 3 spin button in a dialog is committed without pressing the
 * dialog's default button: the spin's own "activate" (Enter) passes on to it, which
 * applies and closes the dialog (gnumeric's Format Cells did). The oracle is the fixture's
 * own log of the spin's value and of the dialog's response
 * (test/fixtures/apps/spin_dialog.py), and pyatspi reading the spin's value and, in
 * gnumeric, that Format Cells is still up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../../src/harness/session.js';
import { fixtureRun } from './helpers/fixture-run.js';
import { describeNeeding, program } from './helpers/needs.js';
import { readWindow, waitForApp } from './helpers/oracle.js';

describe('typing into a spin button of a dialog with a default button', () => {
  const run = fixtureRun('spin_dialog.py', { perTest: true });

  for (const mode of ['background', 'foreground'] as const) {
    it(`${mode}: the value is committed and the dialog stays open`, async () => {
      const r = await run.call('ax_type', {
        query: 'Decimal places',
        text: '5',
        clear_first: true,
        delivery_mode: mode,
      });
      expect(r.isError, r.text).toBe(false);
      await run.waitFor((e) => e.event === 'value' && e.value === 5);
      const value = await waitForApp(
        run.session,
        run.app.pid,
        (els) => els.find((e) => e.role === 'spin button' && e.value === 5)?.value,
        'the spin button at 5',
      );
      expect(value).toBe(5);
      expect(run.events().filter((e) => e.event === 'response')).toEqual([]);
      expect(r.text).toMatch(/value 2 → 5/);
      expect(r.text).toMatch(/effect: confirmed/);
    });
  }
});

describeNeeding([program('gnumeric', 'gnumeric')], "gnumeric's Format Cells dialog", () => {
  let session: Session;
  beforeAll(async () => {
    session = await Session.start();
  });
  afterAll(async () => {
    await session?.close();
  });

  it('typing decimal places commits them and leaves the dialog open', async () => {
    const app = await session.launch('gnumeric', ['--no-splash'], { timeoutMs: 90_000 });
    const opened = await session.call('ax_key_press', { app: app.pid, key: 'ctrl+1' });
    expect(opened.isError, opened.text).toBe(false);
    const number = await session.call('ax_click', {
      app: app.pid,
      query: 'cell:Number',
      delivery_mode: 'foreground',
    });
    expect(number.isError, number.text).toBe(false);
    for (const [text, mode] of [
      ['3', 'foreground'],
      ['1', 'background'],
    ] as const) {
      const r = await session.call('ax_type', {
        app: app.pid,
        query: 'stepper',
        text,
        clear_first: true,
        delivery_mode: mode,
      });
      expect(r.isError, r.text).toBe(false);
      const { windows, elements } = await readWindow(session, app.pid, 'Format Cells');
      expect(windows, r.text).toContain('Format Cells');
      expect(
        elements.some((e) => e.role === 'spin button' && e.value === Number(text)),
        r.text,
      ).toBe(true);
    }
  }, 180_000);
});
