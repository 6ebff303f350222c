/**
 * A foreground click goes only where the element is drawn, by what the app draws there, not
 * only by the frames in its tree: GTK 4 keeps a hidden stack page's widgets VISIBLE with
 * their old frames (a click there would land on the page shown); a Qt combo box's open list
 * is a popup window of its own, though its rows hang under a scroll pane in the tree; a Qt
 * table's column header is drawn over the row scrolled under it. Oracles: the fixtures' own
 * logs (stack_pages.py, qt_clipped.py).
 */
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { fixtureRun, type FixtureRun } from './helpers/fixture-run.js';
import { describeNeeding, found, pythonModule } from './helpers/needs.js';

function gtk4Python(): boolean {
  try {
    const script = "import gi; gi.require_version('Gtk', '4.0'); from gi.repository import Gtk";
    execFileSync('/usr/bin/python3', ['-c', script], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The fixture's events of kind `event` from index `from` on, after a round trip to it. */
async function eventsSince(run: FixtureRun, from: number, event: string) {
  // The app handles its input in order: a read now comes after anything sent before.
  await run.call('ax_get_tree', {});
  return run
    .events()
    .slice(from)
    .filter((e) => e.event === event);
}

describeNeeding(
  [found('GTK 4 for the system python (PyGObject)', 'gir1.2-gtk-4.0', gtk4Python())],
  "a GTK 4 stack's hidden page",
  () => {
    const run = fixtureRun('stack_pages.py');

    it('takes no foreground click on its element: refused, the page shown gets nothing', async () => {
      await run.waitFor((e) => e.event === 'ready');
      const back = await run.call('ax_click', { query: 'Back page', delivery_mode: 'foreground' });
      expect(back.isError, back.text).toBe(false);
      await run.waitFor((e) => e.event === 'page' && e.name === 'back');
      const from = run.events().length;
      const r = await run.call('ax_click', { query: 'Front check', delivery_mode: 'foreground' });
      expect(r.isError, r.text).toBe(true);
      expect(r.fields.error).toMatch(/is not drawn at \(\d+,\d+\): another element is drawn there/);
      expect(await eventsSince(run, from, 'pressed')).toEqual([]);
      expect(await eventsSince(run, from, 'check')).toEqual([]);

      // Shown again, it is clicked where it is.
      const front = await run.call('ax_click', {
        query: 'Front page',
        delivery_mode: 'foreground',
      });
      expect(front.isError, front.text).toBe(false);
      await run.waitFor((e) => e.event === 'page' && e.name === 'front', from);
      const ok = await run.call('ax_click', { query: 'Front check', delivery_mode: 'foreground' });
      expect(ok.isError, ok.text).toBe(false);
      await run.waitFor((e) => e.event === 'check' && e.active === true, from);
      expect(await eventsSince(run, from, 'pressed')).toEqual([]);
    });
  },
);

describeNeeding(
  [pythonModule('PyQt5.QtWidgets', 'python3-pyqt5')],
  'Qt elements reaching past what holds them in the tree',
  () => {
    const run = fixtureRun('qt_clipped.py');

    it('a table cell half under the column header is clicked below it, not on the header', async () => {
      await run.waitFor((e) => e.event === 'ready');
      const from = run.events().length;
      const r = await run.call('ax_click', { query: 'Task 06', delivery_mode: 'foreground' });
      expect(r.isError, r.text).toBe(false);
      expect(await eventsSince(run, from, 'sorted')).toEqual([]);
      await run.waitFor((e) => e.event === 'cell' && e.value === 'Task 06', from);
    });

    it('the column header of the scrolled table takes its click: the table is sorted', async () => {
      await run.waitFor((e) => e.event === 'ready');
      const from = run.events().length;
      const r = await run.call('ax_click', { query: 'Owner', delivery_mode: 'foreground' });
      expect(r.isError, r.text).toBe(false);
      await run.waitFor((e) => e.event === 'sorted' && e.column === 1, from);
    });

    it("a combo box's open list row below the scroll pane it hangs in is clicked", async () => {
      await run.waitFor((e) => e.event === 'ready');
      const open = await run.call('ax_click', {
        query: 'AXComboBox',
        delivery_mode: 'foreground',
      });
      expect(open.isError, open.text).toBe(false);
      const from = run.events().length;
      const r = await run.call('ax_click', { query: 'South', delivery_mode: 'foreground' });
      expect(r.isError, r.text).toBe(false);
      await run.waitFor((e) => e.event === 'side' && e.value === 'South', from);
    });
  },
);
