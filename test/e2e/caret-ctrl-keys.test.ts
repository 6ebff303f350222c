/**
 * Ctrl+Home and Ctrl+End in a text area move its caret, and the summary says the key
 * landed, never suspected_noop (a repeat of Ctrl+Right would move twice). The oracle is
 * the caret offset pyatspi reads from the aim fixture's text view "Notes"
 * (test/fixtures/apps/aim.py).
 */
import { describe, expect, it } from 'vitest';
import { fixtureRun } from './helpers/fixture-run.js';
import { waitForApp } from './helpers/oracle.js';

const run = fixtureRun('aim.py');

/** The text view's caret offset once pyatspi reads it as `want`. */
function caretAt(want: (text: string) => number): Promise<number> {
  return waitForApp(
    run.session,
    run.app.pid,
    (els) => {
      const view = els.find((e) => e.role === 'text' && e.text?.startsWith('first'));
      return view?.text !== undefined && view.caret === want(view.text) ? view.caret : undefined;
    },
    'the caret of Notes where the key sends it',
  );
}

describe('Ctrl with a caret key in a text area', () => {
  it('Ctrl+Home and Ctrl+End move the caret, and the summary does not call them a no-op', async () => {
    const typed = await run.call('ax_type', { query: 'Notes', text: '\nsecond line' });
    expect(typed.isError, typed.text).toBe(false);
    for (const [key, want] of [
      ['ctrl+Home', () => 0],
      ['ctrl+End', (t: string) => [...t].length],
    ] as const) {
      const r = await run.call('ax_key_press', { key, query: 'Notes' });
      expect(r.isError, r.text).toBe(false);
      await caretAt(want);
      expect(r.text).not.toMatch(/suspected_noop/);
      expect(r.text).toMatch(/effect: confirmed/);
    }
  });
});
