/**
 * Qt's checkable buttons offer accessibility only Toggle, which sets their state without a
 * click: an app that acts on the click (kcalc's angle-mode radio group) does not react,
 * though the button reads checked. A background click uses it and says so; the foreground
 * click is offered. The oracle is the fixture's own log (test/fixtures/apps/qt5_matrix.py).
 */
import { describe, expect, it } from 'vitest';
import { fixtureRun } from './helpers/fixture-run.js';

describe('a Qt radio button clicked in the background', () => {
  const run = fixtureRun('qt5_matrix.py');

  it("is toggled, and the summary says Qt's Toggle sends no click", async () => {
    const from = run.events().length;
    const r = await run.call('ax_click', { query: 'Large' });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toMatch(/action 'Toggle', which sets its state and sends no click/);
    expect(r.text).toMatch(/delivery_mode "foreground" clicks it/);
    await run.waitFor(
      (e) => e.event === 'state' && e.widget === 'radio' && e.value === 'Large',
      from,
    );
  });

  it('a push button is pressed, with no such caveat', async () => {
    const r = await run.call('ax_click', { query: 'Press' });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).not.toMatch(/sends no click/);
  });
});
