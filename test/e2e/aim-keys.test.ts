/**
 * Keys land on the element they are aimed at, not on whatever had the keyboard focus: a
 * key after text typed in the background goes to the field typed into, ax_key_press takes
 * a target, and every key's summary names the element that had the focus when it landed.
 * The oracle is the aim fixture's own log (test/fixtures/apps/aim.py), whose spin button
 * holds the focus at start, as the widget a user last worked in would.
 */
import { describe, expect, it } from 'vitest';
import { fixtureRun, type FixtureEvent } from './helpers/fixture-run.js';

type Event = FixtureEvent;

const run = fixtureRun('aim.py', { perTest: true });
const { events, call, waitFor } = run;

/**
 * A character typed into the entry with key events, logged by the app: the app handles
 * its input in order, so anything an earlier call sent has been logged by then.
 */
async function barrier(): Promise<void> {
  const from = events().length;
  const r = await call('ax_type', { query: 'Name', text: '.', delivery_mode: 'foreground' });
  expect(r.isError, r.text).toBe(false);
  await waitFor((e) => e.event === 'changed' && e.widget === 'name', from);
}

const notesText = (): string | undefined =>
  events()
    .filter((e) => e.event === 'changed' && e.widget === 'notes')
    .map((e) => e.value as string)
    .pop();

describe('keys land where they are aimed', () => {
  it('ax_type in the background, then Return: the newline goes into the text view typed into', async () => {
    const r = await call('ax_type', { query: 'Notes', text: 'ZZ', key: 'Return' });
    expect(r.isError, r.text).toBe(false);
    await waitFor((e) => e.event === 'changed' && e.widget === 'notes' && e.value === 'firstZZ\n');
    await barrier();
    expect(events().filter((e) => e.event === 'activated')).toEqual([]);
    expect(r.text).toMatch(/Return .*\[AXTextArea\] "Notes"/);
    expect(r.text).toMatch(/effect: confirmed/);
  });

  it('ax_key_press with a target moves the focus there first and says where the key landed', async () => {
    const from = events().length;
    const r = await call('ax_key_press', { query: 'Notes', key: 'Return' });
    expect(r.isError, r.text).toBe(false);
    await waitFor((e) => e.event === 'focus' && e.widget === 'notes', from);
    await waitFor((e) => e.event === 'changed' && e.widget === 'notes', from);
    await barrier();
    expect(notesText()).toBe('first\n');
    expect(events().filter((e) => e.event === 'activated')).toEqual([]);
    expect(r.text).toMatch(/Pressed Return in \[AXTextArea\] "Notes"/);
    expect(r.text).toMatch(/effect: confirmed/);
  });

  it('ax_key_press without a target names the element that had the focus', async () => {
    const from = events().length;
    const r = await call('ax_key_press', { key: 'Up' });
    expect(r.isError, r.text).toBe(false);
    await waitFor((e) => e.event === 'value' && e.value === 71, from);
    expect(r.text).toMatch(/Pressed Up in \[AXIncrementor\] "Amount"/);
    expect(r.text).toMatch(/effect: confirmed/);
  });

  it('a key aimed at an element that cannot take the focus is refused, and nothing is sent', async () => {
    const from = events().length;
    const r = await call('ax_key_press', { query: 'Fixture Aim', key: 'Up' });
    expect(r.isError, r.text).toBe(true);
    expect(r.text).toMatch(/did not take the keyboard focus, so Up was not sent/);
    await barrier();
    expect(
      events()
        .slice(from)
        .filter((e) => e.event === 'value'),
    ).toEqual([]);
  });
});

describe('keys land where they are aimed in Qt', () => {
  it('ax_type in the background, then Return: the search field gets it, not the focused combo box', async () => {
    const qt = await run.session.launchFixture('qt_aim.py', [], { timeoutMs: 60_000 });
    const log = (): Event[] => qt.output?.events ?? [];
    const r = await run.session.call('ax_type', {
      app: qt.pid,
      query: 'Search',
      text: 'ab',
      key: 'Return',
    });
    expect(r.isError, r.text).toBe(false);
    await qt.output!.waitForEvent((e) => e.event === 'returned' && e.value === 'ab', {
      timeoutMs: 15_000,
    });
    // Barrier: a key to the spin box, logged once everything sent before it was handled.
    const b = await run.session.call('ax_key_press', { app: qt.pid, query: 'Count', key: 'Up' });
    expect(b.isError, b.text).toBe(false);
    await qt.output!.waitForEvent((e) => e.event === 'value' && e.value === 8, {
      timeoutMs: 15_000,
    });
    expect(log().filter((e) => e.event === 'kind')).toEqual([]);
    expect(b.text).toMatch(/Pressed Up in \[AXIncrementor\] "Count"/);
    expect(r.text).toMatch(/then pressed Return in \[AXTextField\] "Search"/);
  });
});
