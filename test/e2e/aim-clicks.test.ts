/**
 * A click on an element that takes text gives it the keyboard focus, never runs its
 * "activate" action (what Enter does: a dialog submitted, a spin button's text committed),
 * and a real click lands inside its text, never on a spin button's arrows. The oracle is
 * the aim fixtures' own logs (test/fixtures/apps/aim.py, qt_aim.py).
 */
import { describe, expect, it } from 'vitest';
import { fixtureRun, type FixtureEvent } from './helpers/fixture-run.js';

type Event = FixtureEvent;

const run = fixtureRun('aim.py', { perTest: true });
const { events, call, waitFor } = run;

/** A character typed into the notes with key events: once logged, earlier input was handled. */
async function barrier(): Promise<void> {
  const from = events().length;
  const r = await call('ax_type', { query: 'Notes', text: '.', delivery_mode: 'foreground' });
  expect(r.isError, r.text).toBe(false);
  await waitFor((e) => e.event === 'changed' && e.widget === 'notes', from);
}

describe('a click on a text field focuses it', () => {
  it('in the background: the entry takes the focus, its Enter action is not run', async () => {
    const from = events().length;
    const r = await call('ax_click', { query: 'textfield:Name' });
    expect(r.isError, r.text).toBe(false);
    await waitFor((e) => e.event === 'focus' && e.widget === 'name', from);
    await barrier();
    expect(events().filter((e) => e.event === 'activated')).toEqual([]);
    expect(r.text).toMatch(/gave it the keyboard focus/);
    expect(r.text).toMatch(/effect: confirmed/);
  });

  it('in the background: a spin button takes the focus, its value stays', async () => {
    // Move the focus away first: the spin button has it at start.
    const away = await call('ax_click', { query: 'textfield:Name' });
    expect(away.isError, away.text).toBe(false);
    await waitFor((e) => e.event === 'focus' && e.widget === 'name');
    const from = events().length;
    const r = await call('ax_click', { query: 'Amount' });
    expect(r.isError, r.text).toBe(false);
    await waitFor((e) => e.event === 'focus' && e.widget === 'amount', from);
    await barrier();
    expect(events().filter((e) => e.event === 'activated' || e.event === 'value')).toEqual([]);
  });

  it('in the foreground: the click lands in the spin button’s text, not on its minus button', async () => {
    const from = events().length;
    const r = await call('ax_click', { query: 'Amount', delivery_mode: 'foreground' });
    expect(r.isError, r.text).toBe(false);
    await barrier();
    expect(
      events()
        .slice(from)
        .filter((e) => e.event === 'value'),
    ).toEqual([]);
  });
});

describe('a click on an entry of a dialog', () => {
  it('in the background: focuses it and does not submit the dialog (Return would)', async () => {
    const login = await run.session.launchFixture('login_dialog.py');
    const log = (): Event[] => login.output?.events ?? [];
    const r = await run.session.call('ax_click', { app: login.pid, query: 'User name' });
    expect(r.isError, r.text).toBe(false);
    await login.output!.waitForEvent((e) => e.event === 'focus' && e.widget === 'user', {
      timeoutMs: 15_000,
    });
    // Barrier: a character typed with key events, logged after anything sent before it.
    const b = await run.session.call('ax_type', {
      app: login.pid,
      query: 'User name',
      text: '.',
      delivery_mode: 'foreground',
    });
    expect(b.isError, b.text).toBe(false);
    await login.output!.waitForEvent((e) => e.event === 'changed' && e.widget === 'user', {
      timeoutMs: 15_000,
    });
    expect(log().filter((e) => e.event === 'submitted' || e.event === 'quit')).toEqual([]);
  });
});

describe('a click on a Qt line edit', () => {
  it('in the background: a line edit and a spin box (SetFocus, Increase, Decrease) are focused, not refused', async () => {
    const qt = await run.session.launchFixture('qt_aim.py', [], { timeoutMs: 60_000 });
    const r = await run.session.call('ax_click', { app: qt.pid, query: 'textfield:Search' });
    expect(r.isError, r.text).toBe(false);
    await qt.output!.waitForEvent((e) => e.event === 'focus' && e.widget === 'search', {
      timeoutMs: 15_000,
    });
    expect(r.text).toMatch(/gave it the keyboard focus/);
    // The spin box offers SetFocus, Increase and Decrease: a click focuses it, no step.
    const spin = await run.session.call('ax_click', { app: qt.pid, query: 'Count' });
    expect(spin.isError, spin.text).toBe(false);
    await qt.output!.waitForEvent((e) => e.event === 'focus' && e.widget === 'count', {
      timeoutMs: 15_000,
    });
    expect((qt.output?.events ?? []).filter((e) => e.event === 'value')).toEqual([]);
  });
});
