/**
 * A foreground click goes only where the element is drawn, by what the app draws there, not
 * only by the frames in its tree: GTK 4 keeps a hidden stack page's widgets VISIBLE with
 * their old frames (a click there would land on the page shown); a Qt combo box's open list
 * is a popup window of its own, though its rows hang under a scroll pane in the tree; a Qt
 * table's column header is drawn over the row scrolled under it. Oracles: the fixtures' own
 * logs (stack_pages.py, qt_clipped.py).
 */
import fs from 'node:fs';
import { expect, it } from 'vitest';
import { fixtureRun, type FixtureRun } from './helpers/fixture-run.js';
import { describeNeeding, program, pythonGtk, pythonModule } from './helpers/needs.js';
import { waitForApp } from './helpers/oracle.js';
import { sessionPerSuite } from './helpers/suite-session.js';

/** The fixture's events of kind `event` from index `from` on, after a round trip to it. */
async function eventsSince(run: FixtureRun, from: number, event: string) {
  // The app handles its input in order: a read now comes after anything sent before.
  await run.call('ax_get_tree', {});
  return run
    .events()
    .slice(from)
    .filter((e) => e.event === event);
}

describeNeeding([pythonGtk('4.0', 'gir1.2-gtk-4.0')], "a GTK 4 stack's hidden page", () => {
  const run = fixtureRun('stack_pages.py');

  it('takes no foreground click on its element: refused, the page shown gets nothing', async () => {
    await run.waitFor((e) => e.event === 'ready');
    const back = await run.call('ax_click', { query: 'Back page', delivery_mode: 'foreground' });
    expect(back.isError, back.text).toBe(false);
    await run.waitFor((e) => e.event === 'page' && e.name === 'back');
    // The tree file lists the page in front only.
    const tree = await run.call('ax_get_tree', {});
    expect(tree.isError, tree.text).toBe(false);
    const lines = fs.readFileSync(tree.fields.file, 'utf8').split('\n');
    expect(lines.find((l) => /"Back button"/.test(l))).toMatch(/\bvisible\b/);
    expect(lines.filter((l) => /"Front check"/.test(l))).toEqual([]);
    const from = run.events().length;
    const r = await run.call('ax_click', { query: 'Front check', delivery_mode: 'foreground' });
    expect(r.isError, r.text).toBe(true);
    expect(r.fields.error).toMatch(/has no position on screen \(it may be hidden/);
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
});

describeNeeding(
  [program('gtk4-widget-factory', 'gtk-4-examples')],
  "gtk4-widget-factory's pages",
  () => {
    const get = sessionPerSuite();

    it('with page 2 in front, the tree file lists none of page 1', async () => {
      const session = get();
      const app = await session.launch('gtk4-widget-factory', [], { timeoutMs: 60_000 });
      const before = await session.call('ax_get_tree', { app: app.pid });
      expect(before.isError, before.text).toBe(false);
      const page1 = /\[AXCheckBox[^\]]*\] "checkbutton"/;
      expect(fs.readFileSync(before.fields.file, 'utf8')).toMatch(page1);
      const r = await session.call('ax_click', {
        app: app.pid,
        query: 'label:"Page 2"',
        delivery_mode: 'foreground',
      });
      expect(r.isError, r.text).toBe(false);
      // The app's own word: its switcher's page 2 tab is the selected one.
      await waitForApp(
        session,
        app.pid,
        (els) =>
          els.find(
            (e) => e.role === 'page tab' && e.name === 'Page _2' && e.states.includes('selected'),
          ),
        'the page 2 tab selected',
      );
      const after = await session.call('ax_get_tree', { app: app.pid });
      expect(after.isError, after.text).toBe(false);
      expect(fs.readFileSync(after.fields.file, 'utf8')).not.toMatch(page1);
      await app.stop();
    }, 120_000);
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
