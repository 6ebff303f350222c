/**
 * Text typed into a spin button is committed the way its toolkit commits it (Enter in the
 * field), and the summary reports the value, not only the text. The oracle is the aim
 * fixture's log of the spin button's committed value (test/fixtures/apps/aim.py).
 */
import { describe, expect, it } from 'vitest';
import { fixtureRun } from './helpers/fixture-run.js';
import { waitForApp } from './helpers/oracle.js';

const run = fixtureRun('aim.py', { perTest: true });
const { events, call } = run;

/** The spin button's value as pyatspi reads it (the Value interface), once it is `want`. */
function valueRead(want: number): Promise<number> {
  return waitForApp(
    run.session,
    run.app.pid,
    (els) => els.find((e) => e.role === 'spin button' && e.value === want)?.value,
    `the spin button's value ${want}`,
  );
}

describe('typing into a spin button', () => {
  for (const mode of ['background', 'foreground'] as const) {
    it(`${mode}: the typed number is committed, and the summary says the value`, async () => {
      const r = await call('ax_type', {
        query: 'Amount',
        text: '12',
        clear_first: true,
        delivery_mode: mode,
      });
      expect(r.isError, r.text).toBe(false);
      await run.app.output!.waitForEvent((e) => e.event === 'value' && e.value === 12, {
        timeoutMs: 15_000,
      });
      await valueRead(12);
      expect(r.text).toMatch(/value 70 → 12/);
      expect(r.text).toMatch(/effect: confirmed/);
    });
  }

  it('a number out of its range is refused before anything is typed', async () => {
    const from = events().length;
    // Text that is no number goes to the app, which may read it its own way (spin-formats).
    for (const text of ['5000', '-1']) {
      const r = await call('ax_type', { query: 'Amount', text, clear_first: true });
      expect(r.isError, r.text).toBe(true);
      expect(r.text).toMatch(/takes a number in 0\.\.1000/);
    }
    // Appended to "70", "1" would read 701: in range, so it goes.
    const ok = await call('ax_type', { query: 'Amount', text: '1' });
    expect(ok.isError, ok.text).toBe(false);
    await run.app.output!.waitForEvent((e) => e.event === 'value' && e.value === 701, {
      timeoutMs: 15_000,
    });
    expect(
      events()
        .slice(from)
        .filter((e) => e.event === 'value')
        .map((e) => e.value),
    ).toEqual([701]);
  });
});

describe('typing into a Qt spin box', () => {
  it('background: it takes no text through accessibility, so the number is set as its value', async () => {
    const qt = await run.session.launchFixture('qt_aim.py', [], { timeoutMs: 60_000 });
    const r = await run.session.call('ax_type', {
      app: qt.pid,
      query: 'Count',
      text: '33',
      clear_first: true,
    });
    expect(r.isError, r.text).toBe(false);
    await qt.output!.waitForEvent((e) => e.event === 'value' && e.value === 33, {
      timeoutMs: 15_000,
    });
    expect(r.text).toMatch(/value 7 → 33/);
    expect(r.text).toMatch(/effect: confirmed/);
  });

  it('foreground: the value follows the text, and the summary reports it', async () => {
    const qt = await run.session.launchFixture('qt_aim.py', [], { timeoutMs: 60_000 });
    const r = await run.session.call('ax_type', {
      app: qt.pid,
      query: 'Count',
      text: '42',
      clear_first: true,
      delivery_mode: 'foreground',
    });
    expect(r.isError, r.text).toBe(false);
    await qt.output!.waitForEvent((e) => e.event === 'value' && e.value === 42, {
      timeoutMs: 15_000,
    });
    expect(r.text).toMatch(/value 7 → 42/);
    expect(r.text).toMatch(/effect: confirmed/);
  });
});

describe('typing into a spin button that snaps to its step of 30', () => {
  const snapping = fixtureRun('aim.py', { appEnv: { AXPAGE_FIXTURE_AMOUNT_STEP: '30' } });

  it('reports the value the field took, not the number typed', async () => {
    const r = await snapping.call('ax_type', { query: 'Amount', text: '7', clear_first: true });
    expect(r.isError, r.text).toBe(false);
    // 7 snaps to 0, the nearest multiple of 30.
    await snapping.app.output!.waitForEvent((e) => e.event === 'value' && e.value === 0, {
      timeoutMs: 15_000,
    });
    expect(r.text).toMatch(/committed: value \d+ → 0 \(not 7\)/);
    expect(r.text).not.toMatch(/effect: confirmed/);
  });
});

describe('setting a spin button by a number', () => {
  it('takes a JSON number as well as its text', async () => {
    const r = await call('ax_set_value', { query: 'Amount', value: 42 });
    expect(r.isError, r.text).toBe(false);
    await run.app.output!.waitForEvent((e) => e.event === 'value' && e.value === 42, {
      timeoutMs: 15_000,
    });
    await valueRead(42);
  });
});

describe('clear_first where the window takes ctrl+a for its own Select All', () => {
  const accel = fixtureRun('aim.py', { appEnv: { AXPAGE_FIXTURE_SELECT_ALL_ACCEL: '1' } });

  it('foreground: the field is still emptied before the number is typed, and read back so', async () => {
    const r = await accel.call('ax_type', {
      query: 'Amount',
      text: '12',
      clear_first: true,
      delivery_mode: 'foreground',
    });
    expect(r.isError, r.text).toBe(false);
    // Not "7012" (clamped to 1000), nor "712".
    await accel.app.output!.waitForEvent((e) => e.event === 'value' && e.value === 12, {
      timeoutMs: 15_000,
    });
    expect(
      accel
        .events()
        .filter((e) => e.event === 'value')
        .map((e) => e.value),
    ).toEqual([12]);
    expect(r.text).toMatch(/\(cleared first\)/);
    expect(r.text).toMatch(/value 70 → 12/);
  });
});

describe('typing into a Qt spin box in a dialog with a default button', () => {
  it('foreground: the number is committed without pressing the default button', async () => {
    const dlg = await run.session.launchFixture('qt_aim.py', [], {
      timeoutMs: 60_000,
      env: { AXPAGE_FIXTURE_DIALOG: '1' },
    });
    const r = await run.session.call('ax_type', {
      app: dlg.pid,
      query: 'Count',
      text: '42',
      clear_first: true,
      delivery_mode: 'foreground',
    });
    expect(r.isError, r.text).toBe(false);
    await dlg.output!.waitForEvent((e) => e.event === 'value' && e.value === 42, {
      timeoutMs: 15_000,
    });
    // The dialog is still up: OK was not pressed.
    expect(dlg.output!.events.filter((e) => e.event === 'accepted')).toEqual([]);
    const exited = await Promise.race([
      dlg.exited.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 500)),
    ]);
    expect(exited).toBe(false);
    expect(r.text).toMatch(/value 7 → 42/);
    expect(r.text).not.toMatch(/closed/);
    expect(r.text).toMatch(/effect: confirmed/);
  });
});
