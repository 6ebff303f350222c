/**
 * A Qt push button with a menu stays pressed while its menu is open: that press is no
 * state to wait out, and the summary says the menu opened. The oracle is the fixture's
 * own log of its menu showing (test/fixtures/apps/qt_menu_button.py).
 */
import { describe, expect, it } from 'vitest';
import { fixtureRun } from './helpers/fixture-run.js';

describe('a Qt button that opens a menu', () => {
  const run = fixtureRun('qt_menu_button.py');

  it('clicked: the menu opens, and the summary says so', async () => {
    const r = await run.call('ax_click', { query: 'Predefined', delivery_mode: 'foreground' });
    expect(r.isError, r.text).toBe(false);
    await run.waitFor((e) => e.event === 'menu' && e.state === 'shown');
    expect(r.text).toMatch(/a popup of the app opened/);
    const closed = await run.call('ax_key_press', { key: 'Escape' });
    expect(closed.isError, closed.text).toBe(false);
    await run.waitFor((e) => e.event === 'menu' && e.state === 'hidden');
  });
});
