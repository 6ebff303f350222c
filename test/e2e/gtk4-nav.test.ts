/**
 * Navigating GTK4 (4.8) by clicks: list rows (GtkListBox, GtkListView, GtkColumnView), tree
 * expanders (GtkTreeExpander) and tabs (GtkNotebook, GtkStackSwitcher), through `axpage
 * serve` and the MCP client. GTK4 offers no action on a row or a notebook tab: a background
 * click selects it through its list's Selection interface; the expander runs its own
 * action, its arrow the expander's; a list that selects nothing refuses with the foreground
 * advice, and the foreground click lands on the row. The oracles: our fixture gtk4_nav.py
 * prints its own state, and pyatspi (another client) reads Debian's gtk4-widget-factory and
 * gtk4-demo. GTK3's notebook and list box, which offer the same, take the same route.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session, type CallResult } from '../../src/harness/session.js';
import { describeNeeding, file, pythonGtk } from './helpers/needs.js';
import { readApp, settled, waitForApp, type AtspiElement } from './helpers/oracle.js';

const GTK4_PYTHON = pythonGtk('4.0', 'gir1.2-gtk-4.0');
const WIDGET_FACTORY = file('/usr/bin/gtk4-widget-factory', 'gtk-4-examples');
const GTK4_DEMO = file('/usr/bin/gtk4-demo', 'gtk-4-examples');

let session: Session;

beforeAll(async () => {
  session = await Session.start();
});

afterAll(async () => {
  await session?.close();
});

function ok(r: CallResult): CallResult {
  expect(r.isError, r.text).toBe(false);
  return r;
}

/** The ref of the first line of the call's tree file matching `re`. */
function refOf(r: CallResult, re: RegExp): string {
  const lines = fs.readFileSync(r.fields.file, 'utf8').split('\n');
  const line = lines.find((l) => re.test(l));
  const ref = line && / (e\d+)\b/.exec(line)?.[1];
  if (!ref) throw new Error(`no line matching ${re} in ${r.fields.file}`);
  return ref;
}

/** The lines of the call's tree file matching `re`. */
function linesOf(r: CallResult, re: RegExp): string[] {
  return fs
    .readFileSync(r.fields.file, 'utf8')
    .split('\n')
    .filter((l) => re.test(l));
}

/**
 * The row or tab that holds the label `text`, as pyatspi reads it: GTK4 gives rows and tabs
 * no name of their own, so they are found by the label that follows them in tree order.
 */
function holderOf(els: AtspiElement[], text: string, roles: string[]): AtspiElement | undefined {
  const at = els.findIndex((e) => e.role === 'label' && e.name === text);
  for (let i = at - 1; at > 0 && i >= 0 && i >= at - 4; i--) {
    if (roles.includes(els[i].role)) return els[i];
  }
  return undefined;
}

const ROWS = ['list item', 'table row'];
/** Bound on one test on a Debian app: each pyatspi read of one takes seconds on a loaded machine. */
const APP_TEST_MS = 180_000;
const TABS = ['page tab'];
const has = (e: AtspiElement | undefined, state: string) => e?.states.includes(state) === true;

describeNeeding([GTK4_PYTHON], 'GTK4 navigation on the gtk4_nav fixture', () => {
  let app: LaunchedApp;
  const events = () => app.output!.events;
  const from = () => events().length;
  const waitFor = (pred: (e: Record<string, unknown>) => boolean, start: number) =>
    app.output!.waitForEvent(pred, { from: start, timeoutMs: 15_000 });
  const call = (tool: string, args: Record<string, unknown>) =>
    session.call(tool, { app: app.pid, ...args });
  /** Waits until pyatspi sees the holder of label `text` in `state` (or not). */
  const pyatspiSees = (text: string, roles: string[], state: string, want = true) =>
    waitForApp(
      session,
      app.pid,
      (els) => {
        const h = holderOf(els, text, roles);
        return h && has(h, state) === want ? h : undefined;
      },
      `the ${roles[0]} of "${text}" ${want ? '' : 'not '}${state}`,
      30_000,
      // The column view is a tree table: its rows are read only when asked for.
      { cells: true },
    );

  beforeAll(async () => {
    app = await session.launchFixture('gtk4_nav.py');
  });
  afterAll(async () => {
    await app?.stop().catch(() => undefined);
  });

  it('names rows by the text they show, and tabs by their labels', async () => {
    const t = ok(await call('ax_get_tree', {}));
    expect(linesOf(t, /\[AXRow \(list item\)\] "Banana" e\d+/)).toHaveLength(1);
    expect(linesOf(t, /\[AXRow \(list item\)\] "Vegetables" e\d+/)).toHaveLength(1);
    expect(linesOf(t, /\[AXRow \(table row\)\] "Mars 2" e\d+/)).toHaveLength(1);
    const tabs = linesOf(t, /\(page tab\)\] "/).map((l) => /\] "([^"]*)"/.exec(l)?.[1]);
    expect(tabs).toEqual(['Alpha tab', 'Beta tab', 'Gamma tab', 'One', 'Two', 'Three']);
  });

  it('selects a list box row in the background, without activating it', async () => {
    const start = from();
    const r = ok(await call('ax_click', { query: 'row:Banana' }));
    expect(r.text).toMatch(/Clicked \[AXRow\] "Banana" e\d+: selected it through its list's/);
    expect(r.text).toMatch(/route: ax-select delivery: background effect: confirmed/);
    await waitFor((e) => e.event === 'row' && e.row === 'Banana', start);
    await pyatspiSees('Banana', ROWS, 'selected');
    await settled(session, app);
    expect(events().filter((e) => e.event === 'activated')).toEqual([]);
  });

  it("selects a list view's row and a column view's row in the background", async () => {
    let start = from();
    const tree = ok(await call('ax_click', { query: 'row:Vegetables' }));
    expect(tree.text).toMatch(/"Vegetables" e\d+: selected it through its list's selection/);
    await waitFor((e) => e.event === 'tree' && e.selected === 'Vegetables', start);
    await pyatspiSees('Vegetables', ROWS, 'selected');

    start = from();
    const table = ok(await call('ax_click', { query: 'row:Mars 2' }));
    expect(table.text).toMatch(/"Mars 2" e\d+: selected it through its list's selection/);
    expect(table.text).toMatch(/effect: confirmed/);
    await waitFor((e) => e.event === 'table' && e.selected === 'Mars', start);
    await pyatspiSees('Mars', ROWS, 'selected');
  });

  it('in a list with multiple selection, the clicked row alone ends up selected, as a click leaves it', async () => {
    const start = from();
    const r = ok(await call('ax_click', { query: 'row:Blue' }));
    expect(r.text).toMatch(/"Blue" e\d+: selected it through its list's selection/);
    expect(r.text).toMatch(/effect: confirmed/);
    await waitFor((e) => e.event === 'colours' && JSON.stringify(e.selected) === '["Blue"]', start);
    await pyatspiSees('Blue', ROWS, 'selected');
    await pyatspiSees('Red', ROWS, 'selected', false);
    await pyatspiSees('Green', ROWS, 'selected', false);
    // The others were let go one by one after Blue was added: never an empty selection.
    const seen = events()
      .slice(start)
      .filter((e) => e.event === 'colours')
      .map((e) => JSON.stringify(e.selected));
    expect(seen).toEqual(['["Red","Green","Blue"]', '["Green","Blue"]', '["Blue"]']);
  });

  it('expands a tree row with its expander, and collapses it with its arrow', async () => {
    const t = ok(await call('ax_get_tree', {}));
    let start = from();
    const expand = ok(await call('ax_click', { ref: refOf(t, /\(panel\)\] "Fruit" e\d+/) }));
    expect(expand.text).toMatch(/\(action 'listitem\.toggle-expand'\)/);
    expect(expand.text).toMatch(/\[AXGroup\] "Fruit" e\d+: collapsed -> expanded/);
    await waitFor((e) => e.event === 'tree' && JSON.stringify(e.expanded) === '["Fruit"]', start);
    const seen = await waitForApp(
      session,
      app.pid,
      (els) => els.find((e) => e.role === 'panel' && e.name === 'Fruit' && has(e, 'expanded')),
      'the Fruit expander expanded',
    );
    expect(has(seen, 'expandable')).toBe(true);

    // The arrow: a button with no action of its own, the first child of the expander.
    const after = ok(await call('ax_get_tree', {}));
    const fruit = linesOf(after, /./).findIndex((l) => /\(panel\)\] "Fruit" e\d+/.test(l));
    const arrow = linesOf(after, /./)[fruit + 1];
    expect(arrow).toMatch(/\[AXButton \(push button\)\] "Expand" e\d+/);
    start = from();
    const collapse = ok(await call('ax_click', { ref: / (e\d+)/.exec(arrow)![1] }));
    expect(collapse.text).toMatch(/its \[AXGroup\] "Fruit"'s action 'listitem\.toggle-expand'/);
    expect(collapse.text).toMatch(/effect: confirmed/);
    await waitFor((e) => e.event === 'tree' && JSON.stringify(e.expanded) === '[]', start);
    await waitForApp(
      session,
      app.pid,
      (els) => els.find((e) => e.role === 'panel' && e.name === 'Fruit' && !has(e, 'expanded')),
      'the Fruit expander collapsed',
    );
  });

  it("a leaf's expander has no route: refused, naming its row", async () => {
    const t = ok(await call('ax_get_tree', {}));
    const r = await call('ax_click', { ref: refOf(t, /\(panel\)\] "Nuts" e\d+/) });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/Click the \[AXRow\] "Nuts" e\d+ it is in/);
  });

  it('selects a notebook tab in the background; a stack switcher button is pressed', async () => {
    let start = from();
    const tab = ok(await call('ax_click', { query: 'tab:Gamma tab' }));
    expect(tab.text).toMatch(/"Gamma tab" e\d+: selected it through its tab list's selection/);
    expect(tab.text).toMatch(/effect: confirmed/);
    await waitFor((e) => e.event === 'page' && e.index === 2, start);
    await pyatspiSees('Gamma tab', TABS, 'selected');
    expect(has(holderOf(await readApp(session, app.pid), 'Alpha tab', TABS), 'selected')).toBe(
      false,
    );

    start = from();
    const page = ok(await call('ax_click', { query: 'tab:Three' }));
    expect(page.text).toMatch(/Clicked \[AXRadioButton\] "Three" e\d+ \(action 'Click'\)/);
    expect(page.text).toMatch(/route: ax delivery: background effect: confirmed/);
    await waitFor((e) => e.event === 'stack' && e.page === 'three', start);
    await pyatspiSees('Three', TABS, 'selected');
  });

  it('a list that selects nothing: refused with the foreground advice, and the foreground click activates the row', async () => {
    const start = from();
    const bg = await call('ax_click', { query: 'row:Bluetooth' });
    expect(bg.isError).toBe(true);
    expect(bg.text).toMatch(
      /cannot click in the background: \[AXRow\] "Bluetooth" e\d+ offers no action of its own, and its container did not select it/,
    );
    expect(bg.text).toMatch(/delivery_mode: "foreground"/);
    expect(bg.text).toMatch(/escalation: foreground/);
    await settled(session, app);
    expect(
      events()
        .slice(start)
        .filter((e) => e.event === 'setting'),
    ).toEqual([]);

    const fg = ok(await call('ax_click', { query: 'row:Bluetooth', delivery_mode: 'foreground' }));
    expect(fg.text).toMatch(/Clicked \[AXRow\] "Bluetooth" e\d+ at \(\d+,\d+\)/);
    await waitFor((e) => e.event === 'setting' && e.row === 'Bluetooth', start);
  });

  it('foreground clicks land on the row, the tab, and the expander’s arrow', async () => {
    let start = from();
    ok(await call('ax_click', { query: 'row:Damson', delivery_mode: 'foreground' }));
    await waitFor((e) => e.event === 'row' && e.row === 'Damson', start);

    start = from();
    ok(await call('ax_click', { query: 'tab:Alpha tab', delivery_mode: 'foreground' }));
    await waitFor((e) => e.event === 'page' && e.index === 0, start);

    start = from();
    const t = ok(await call('ax_get_tree', {}));
    const r = ok(
      await call('ax_click', {
        ref: refOf(t, /\(panel\)\] "Vegetables" e\d+/),
        delivery_mode: 'foreground',
      }),
    );
    expect(r.text).toMatch(/"Vegetables" e\d+ at \(\d+,\d+\) on its \[AXButton\] "Expand" e\d+/);
    await waitFor(
      (e) => e.event === 'tree' && Array.isArray(e.expanded) && e.expanded.includes('Vegetables'),
      start,
    );
  });
});

describeNeeding([WIDGET_FACTORY], 'GTK4 navigation on gtk4-widget-factory', () => {
  let app: LaunchedApp;

  beforeAll(async () => {
    // It animates a spinner all the time: it registers only because the desktop renders
    // GTK4 with cairo (see headless.ts), whatever the load.
    app = await session.launch('/usr/bin/gtk4-widget-factory', [], { timeoutMs: 60_000 });
  }, 90_000);
  afterAll(async () => {
    await app?.stop().catch(() => undefined);
  });

  it(
    'names the notebook tabs by their labels, not all "Tab"',
    async () => {
      const t = ok(await session.call('ax_get_tree', { app: app.pid, include_invisible: true }));
      const tabs = linesOf(t, /\[AXRadioButton \(page tab\)\]/);
      for (const name of ['Sunset', 'NYC', 'Beach', 'Page 4']) {
        expect(
          tabs.filter((l) => l.includes(`] "${name}" e`)),
          name,
        ).toHaveLength(1);
      }
      // Every notebook's, on the pages not shown too, a lone tab included.
      expect(tabs.filter((l) => /\] "Tab" e/.test(l))).toEqual([]);
    },
    APP_TEST_MS,
  );

  it(
    'selects a notebook tab in the background, as pyatspi reads it',
    async () => {
      const r = ok(await session.call('ax_click', { app: app.pid, query: 'tab:NYC' }));
      expect(r.text).toMatch(/"NYC" e\d+: selected it through its tab list's selection/);
      expect(r.text).toMatch(/effect: confirmed/);
      await waitForApp(
        session,
        app.pid,
        (els) => {
          const nyc = holderOf(els, 'NYC', TABS);
          return has(nyc, 'selected') && !has(holderOf(els, 'Sunset', TABS), 'selected')
            ? nyc
            : undefined;
        },
        'the NYC tab selected and the Sunset tab not',
      );
    },
    APP_TEST_MS,
  );

  /** Shows one page of the window's own stack switcher (buttons with a click action). */
  const showPage = async (title: string) => {
    const t = ok(await session.call('ax_get_tree', { app: app.pid }));
    const line = linesOf(t, /\(page tab\)\] "/).find((l) => l.includes(`] "${title}" e`));
    expect(line, `the ${title} button`).toBeDefined();
    const page = ok(await session.call('ax_click', { ref: / (e\d+)/.exec(line!)![1] }));
    expect(page.text).toMatch(/\(action 'Click'\)/);
    await waitForApp(
      session,
      app.pid,
      (els) => els.find((e) => e.role === 'page tab' && e.name === title && has(e, 'selected')),
      `the page ${title} shown`,
    );
  };

  it(
    'a list box that selects nothing: refused in the background, the foreground click lands on the row',
    async () => {
      await showPage('Page _2');
      const bg = await session.call('ax_click', { app: app.pid, query: 'row:Row 3' });
      expect(bg.isError).toBe(true);
      expect(bg.text).toMatch(
        /"Row 3" e\d+ offers no action of its own, and its container did not/,
      );
      expect(bg.text).toMatch(/escalation: foreground/);
      expect(has(holderOf(await readApp(session, app.pid), 'Row 3', ROWS), 'focused')).toBe(false);

      const fg = ok(
        await session.call('ax_click', {
          app: app.pid,
          query: 'row:Row 3',
          delivery_mode: 'foreground',
        }),
      );
      expect(fg.text).toMatch(/Clicked \[AXRow\] "Row 3" e\d+ at \(\d+,\d+\)/);
      // The click gave the row the keyboard focus (GTK's list box does on a click).
      await waitForApp(
        session,
        app.pid,
        (els) => {
          const row = holderOf(els, 'Row 3', ROWS);
          return has(row, 'focused') ? row : undefined;
        },
        'the Row 3 row focused',
      );
    },
    APP_TEST_MS,
  );

  it(
    'selects the right tab of a notebook whose tab list starts with an arrow button',
    async () => {
      await showPage('Page _3');
      // The tab list: "Previous tab", the tabs Page 1..5, "Next tab".
      const lines = linesOf(ok(await session.call('ax_get_tree', { app: app.pid })), /./);
      const prev = lines.findIndex((l) => /\(push button\)\] "Previous tab"/.test(l));
      const tab = lines.slice(prev).find((l) => /\(page tab\)\] "Page 4" e\d+/.test(l));
      expect(tab, 'the Page 4 tab after the Previous tab button').toBeDefined();
      const r = ok(await session.call('ax_click', { ref: / (e\d+)/.exec(tab!)![1] }));
      expect(r.text).toMatch(/"Page 4" e\d+: selected it through its tab list's selection/);
      await waitForApp(
        session,
        app.pid,
        (all) => {
          // This notebook's tabs: the ones after its "Previous tab" button.
          const els = all.slice(all.findIndex((e) => e.name === 'Previous tab'));
          const four = holderOf(els, 'Page 4', TABS);
          return has(four, 'selected') && !has(holderOf(els, 'Page 1', TABS), 'selected')
            ? four
            : undefined;
        },
        'the Page 4 tab selected, not Page 1',
      );
    },
    APP_TEST_MS,
  );
});

describeNeeding([GTK4_DEMO], 'GTK4 navigation on gtk4-demo', () => {
  let app: LaunchedApp;

  beforeAll(async () => {
    app = await session.launch('/usr/bin/gtk4-demo', [], { timeoutMs: 60_000 });
  }, 90_000);
  afterAll(async () => {
    await app?.stop().catch(() => undefined);
  });

  it(
    'selects a demo in its tree list in the background',
    async () => {
      const r = ok(await session.call('ax_click', { app: app.pid, query: 'row:Assistant' }));
      expect(r.text).toMatch(/"Assistant" e\d+: selected it through its list's selection/);
      expect(r.text).toMatch(/effect: confirmed/);
      await waitForApp(
        session,
        app.pid,
        (els) => {
          const row = holderOf(els, 'Assistant', ROWS);
          return has(row, 'selected') ? row : undefined;
        },
        'the Assistant row selected',
      );
    },
    APP_TEST_MS,
  );

  it(
    'collapses and expands a group of demos with its expander',
    async () => {
      const t = ok(await session.call('ax_get_tree', { app: app.pid }));
      const expander = refOf(t, /\(panel\)\] "Benchmark" e\d+ .*expanded/);
      const collapse = ok(await session.call('ax_click', { app: app.pid, ref: expander }));
      expect(collapse.text).toMatch(/\[AXGroup\] "Benchmark" e\d+: expanded -> collapsed/);
      await waitForApp(
        session,
        app.pid,
        (els) => {
          const group = els.find((e) => e.role === 'panel' && e.name === 'Benchmark');
          const gone = !els.some((e) => e.role === 'label' && e.name === 'Fishbowl');
          return group && !has(group, 'expanded') && gone ? group : undefined;
        },
        'Benchmark collapsed, its Fishbowl demo gone from the list',
      );
      const expand = ok(await session.call('ax_click', { app: app.pid, ref: expander }));
      expect(expand.text).toMatch(/\[AXGroup\] "Benchmark" e\d+: collapsed -> expanded/);
      await waitForApp(
        session,
        app.pid,
        (els) => els.find((e) => e.role === 'label' && e.name === 'Fishbowl'),
        'the Fishbowl demo back in the list',
      );
    },
    APP_TEST_MS,
  );
});

describe('the same selection route on GTK3', () => {
  it(
    "selects a GTK3 notebook's tab and a list box's row in the background",
    async () => {
      const notebook = await session.launchFixture('notebook.py');
      try {
        const from = notebook.output!.events.length;
        const r = ok(
          await session.call('ax_click', { app: notebook.pid, query: 'tab:Gamma page' }),
        );
        expect(r.text).toMatch(/"Gamma page" e\d+: selected it through its tab list's selection/);
        expect(r.text).toMatch(/effect: confirmed/);
        await notebook.output!.waitForEvent((e) => e.event === 'page' && e.index === 2, {
          from,
          timeoutMs: 15_000,
        });
      } finally {
        await notebook.stop();
      }
      const list = await session.launchFixture('long_list.py');
      try {
        const from = list.output!.events.length;
        const r = ok(await session.call('ax_click', { app: list.pid, query: 'row:Row 3' }));
        expect(r.text).toMatch(/"Row 3" e\d+: selected it through its list's selection/);
        await list.output!.waitForEvent((e) => e.event === 'selected' && e.row === 'Row 3', {
          from,
          timeoutMs: 15_000,
        });
        await settled(session, list);
        expect(list.output!.events.filter((e) => e.event === 'activated')).toEqual([]);
      } finally {
        await list.stop();
      }
    },
    APP_TEST_MS,
  );
});
