/**
 * Input lands on what a person sees where it is aimed: a dialog of the app over its main
 * window hides the main window's button from a click at that point (in the background too:
 * the dialog's element is acted on, never the button under it), a foreground click on the
 * hidden button is refused rather than sent into the dialog, and a key aimed at a GTK 4
 * text view acts at its caret, not where the click that gave it the focus landed. A GTK 3
 * icon view's item clicked in the background is selected, not opened (gtk3-demo, Debian).
 * Oracles: the fixtures' logs (covered.py, caret_gtk4.py) and pyatspi.
 */
import { describe, expect, it } from 'vitest';
import type { Rect } from '../../src/model/element.js';
import { fixtureRun } from './helpers/fixture-run.js';
import { describeNeeding, program } from './helpers/needs.js';
import { readApp, waitForApp } from './helpers/oracle.js';
import { sessionPerSuite } from './helpers/suite-session.js';

const rectOf = (f: unknown): Rect => {
  const [x, y, w, h] = f as number[];
  return { x, y, w, h };
};
const centre = (r: Rect) => ({ x: Math.round(r.x + r.w / 2), y: Math.round(r.y + r.h / 2) });

describe('a dialog of the app over its main window', () => {
  const run = fixtureRun('covered.py');
  const shown = async () => {
    const e = await run.waitFor((ev) => ev.event === 'shown');
    return { under: rectOf(e.under), text: rectOf(e.text), over: rectOf(e.over_button) };
  };
  const clicks = (from: number) =>
    run
      .events()
      .slice(from)
      .filter((e) => e.event === 'clicked')
      .map((e) => e.widget);

  it('a background click at a point acts on what the dialog has there, never the button under it', async () => {
    const { text, over } = await shown();
    await run.call('ax_get_tree', {});
    const from = run.events().length;
    // The dialog's label: no action of its own; the button under it is not pressed.
    const onLabel = await run.call('ax_click_at', centre(text));
    expect(onLabel.text).not.toMatch(/"Under"/);
    const onButton = await run.call('ax_click_at', centre(over));
    expect(onButton.isError, onButton.text).toBe(false);
    await run.waitFor((e) => e.event === 'clicked' && e.widget === 'over_button', from);
    expect(clicks(from)).toEqual(['over_button']);
  });

  it('a foreground click on the hidden button is refused; in the background its action runs', async () => {
    const { under, over } = await shown();
    const from = run.events().length;
    // The middle of "Under" is under the dialog.
    expect(
      centre(under).x >= over.x - 20 && centre(under).y >= over.y - 100,
      'the dialog covers the middle of the button',
    ).toBe(true);
    const r = await run.call('ax_click', { query: 'Under', delivery_mode: 'foreground' });
    expect(r.isError, r.text).toBe(true);
    expect(r.fields.error).toMatch(/is covered at \(\d+,\d+\) by another window of this app/);
    const bg = await run.call('ax_click', { query: 'Under' });
    expect(bg.isError, bg.text).toBe(false);
    await run.waitFor((e) => e.event === 'clicked' && e.widget === 'under', from);
    expect(clicks(from)).toEqual(['under']);
  });
});

describe('a drag from a button a dialog of its app covers', () => {
  const run = fixtureRun('covered.py');

  it('is refused: the press would land on the dialog', async () => {
    await run.waitFor((e) => e.event === 'shown');
    const from = run.events().length;
    const r = await run.call('ax_drag', { from_query: 'Under', to_x: 30, to_y: 30 });
    expect(r.isError, r.text).toBe(true);
    expect(r.fields.error).toMatch(/is covered at \(\d+,\d+\) by another window of this app/);
    // The app handles its input in order: a read now comes after anything sent before.
    await run.call('ax_get_tree', {});
    expect(
      run
        .events()
        .slice(from)
        .filter((e) => e.event === 'clicked'),
    ).toEqual([]);
  });
});

describe('a popup of the app left over its entry (a menu or toast that stays)', () => {
  const run = fixtureRun('toast_app.py', { appEnv: { AXPAGE_FIXTURE_TOAST_OVER: '1' } });

  it('takes no foreground click aimed at the entry: it is refused', async () => {
    await run.waitFor((e) => e.event === 'toast');
    const r = await run.call('ax_click', { query: 'Target entry', delivery_mode: 'foreground' });
    expect(r.isError, r.text).toBe(true);
    expect(r.fields.error).toMatch(/is covered at \(\d+,\d+\) by a menu or popup of this app/);
    expect(r.text).toMatch(/Escape/);
  });
});

describe('a menu of the app left open elsewhere, holding the input', () => {
  const run = fixtureRun('gtk3_matrix.py');

  it('a foreground click beside it is refused: it would only close the menu', async () => {
    const open = await run.call('ax_click', { query: 'File', delivery_mode: 'foreground' });
    expect(open.isError, open.text).toBe(false);
    const from = run.events().length;
    const r = await run.call('ax_click', { query: 'Press', delivery_mode: 'foreground' });
    expect(r.isError, r.text).toBe(true);
    expect(r.fields.error).toMatch(/a menu or popover of this app is open .* takes the input/);
    // At a point too: the menu takes the click wherever it is.
    const press = await run.call('ax_find', { query: 'Press' });
    const [x, y, w, h] = String(press.text.match(/\((\d+,\d+ \d+x\d+)\)/)?.[1])
      .split(/[ ,x]/)
      .map(Number);
    const at = await run.call('ax_click_at', {
      x: x + Math.floor(w / 2),
      y: y + Math.floor(h / 2),
      delivery_mode: 'foreground',
    });
    expect(at.isError, at.text).toBe(true);
    expect(at.fields.error).toMatch(/a menu or popover of this app is open .* takes the input/);
    // A key aimed at a field behind it too: the open menu would take it.
    const key = await run.call('ax_key_press', { query: 'Name', key: 'x' });
    expect(key.isError, key.text).toBe(true);
    expect(key.fields.error).toMatch(/a menu or popover of this app is open .* takes the input/);
    const close = await run.call('ax_key_press', { key: 'Escape' });
    expect(close.isError, close.text).toBe(false);
    const again = await run.call('ax_click', { query: 'Press', delivery_mode: 'foreground' });
    expect(again.isError, again.text).toBe(false);
    await run.waitFor((e) => e.event === 'state' && e.widget === 'button', from);
    expect(
      run
        .events()
        .slice(from)
        .filter((e) => e.event === 'state' && e.widget === 'button'),
    ).toHaveLength(1);
    expect(
      run
        .events()
        .slice(from)
        .filter((e) => e.event === 'state' && e.widget === 'entry'),
    ).toEqual([]);
  });
});

describe('a key aimed at a GTK 4 text view without the focus', () => {
  const run = fixtureRun('caret_gtk4.py');

  it('acts at its caret, where the click that focused it did not leave it', async () => {
    const tree = await run.call('ax_get_tree', {});
    expect(tree.isError, tree.text).toBe(false);
    const r = await run.call('ax_key_press', { query: 'Notes', key: 'BackSpace' });
    expect(r.isError, r.text).toBe(false);
    const changed = await run.waitFor((e) => e.event === 'changed');
    expect(changed.text).toBe('alpha one\nbravo tw');
  });
});

describe('text and a key aimed at a GTK 4 text view that has the focus', () => {
  const run = fixtureRun('caret_gtk4.py');

  it('sends the key after the text typed, wherever its caret was', async () => {
    const home = await run.call('ax_key_press', {
      query: 'Notes',
      key: 'Home',
      modifiers: ['ctrl'],
    });
    expect(home.isError, home.text).toBe(false);
    const from = run.events().length;
    const r = await run.call('ax_type', { query: 'Notes', text: 'END', key: 'Return' });
    expect(r.isError, r.text).toBe(false);
    const last = await run.waitFor(
      (e) => e.event === 'changed' && /\n$/.test(String(e.text)),
      from,
    );
    expect(last.text).toBe('alpha one\nbravo twoEND\n');
  });
});

describe('a key aimed at a GTK 4 text view with a selection, without the focus', () => {
  const run = fixtureRun('caret_gtk4.py', { appEnv: { AXPAGE_FIXTURE_SELECT: '6,9' } });

  it('acts on the selection it had', async () => {
    const r = await run.call('ax_key_press', { query: 'Notes', key: 'Delete' });
    expect(r.isError, r.text).toBe(false);
    const changed = await run.waitFor((e) => e.event === 'changed');
    expect(changed.text).toBe('alpha \nbravo two');
  });
});

describe('a key aimed at a GTK 3 entry without the focus', () => {
  const run = fixtureRun('caret_gtk3.py');

  it('acts at its caret, not on the whole text its focus selected', async () => {
    const r = await run.call('ax_key_press', { query: 'Word', key: 'BackSpace' });
    expect(r.isError, r.text).toBe(false);
    const changed = await run.waitFor((e) => e.event === 'changed');
    expect(changed.text).toBe('mete');
  });
});

describeNeeding([program('gtk3-demo', 'gtk-3-examples')], "gtk3-demo's icon view", () => {
  const get = sessionPerSuite();

  it('selects an item clicked in the background, as a single click does; it does not open it', async () => {
    const session = get();
    const app = await session.launch('gtk3-demo', ['--run=iconview'], { name: 'iconview' });
    const icons = (els: Awaited<ReturnType<typeof readApp>>) =>
      els.filter((e) => e.role === 'icon');
    // Its icons name themselves by their text: the folder's entries, "/" first.
    await waitForApp(
      session,
      app.pid,
      (els) => icons(els).find((e) => e.text === 'etc'),
      'the icon of /etc',
    );
    const before = icons(await readApp(session, app.pid)).map((e) => e.text);
    const r = await session.call('ax_click', { app: app.pid, query: 'etc' });
    expect(r.isError, r.text).toBe(false);
    const picked = await waitForApp(
      session,
      app.pid,
      (els) => icons(els).find((e) => e.text === 'etc' && e.states.includes('selected')),
      'the icon selected',
    );
    expect(picked.states).toContain('selected');
    // Still the same folder: the icon was not opened.
    expect(icons(await readApp(session, app.pid)).map((e) => e.text)).toEqual(before);
    await app.stop();
  });
});

describeNeeding(
  [program('gtk3-demo', 'gtk-3-examples')],
  "gtk3-demo's popover over its entry",
  () => {
    const get = sessionPerSuite();

    it('a foreground click on the entry it covers is refused; it is drawn in the same window', async () => {
      const session = get();
      const app = await session.launch('gtk3-demo', ['--run=popover'], { name: 'popover' });
      await waitForApp(
        session,
        app.pid,
        (els) => els.find((e) => e.role === 'toggle button' && e.name === 'Button'),
        'the popover toggle',
      );
      const open = await session.call('ax_click', { app: app.pid, query: 'Button' });
      expect(open.isError, open.text).toBe(false);
      await waitForApp(
        session,
        app.pid,
        (els) => els.find((e) => e.name === 'This popover does not grab input'),
        'the popover',
      );
      const r = await session.call('ax_click', {
        app: app.pid,
        query: 'AXTextField nth:1',
        delivery_mode: 'foreground',
      });
      expect(r.isError, r.text).toBe(true);
      expect(r.fields.error).toMatch(/covered at \(\d+,\d+\) by a popover of this app/);
      await app.stop();
    });
  },
);

describeNeeding([program('gtk3-demo', 'gtk-3-examples')], "gtk3-demo's editable cells", () => {
  const get = sessionPerSuite();

  it('foreground text into a cell not being edited is refused; its list would search for it', async () => {
    const session = get();
    const app = await session.launch('gtk3-demo', ['--run=editable_cells'], {
      name: 'editable_cells',
    });
    // pyatspi's cache leaves the tree view's rows out: the server's own walk finds the cell.
    const deadline = Date.now() + 30_000;
    while (
      (await session.call('ax_find', { app: app.pid, query: 'packages of noodles' })).isError
    ) {
      expect(Date.now() < deadline, 'the noodles cell shows').toBe(true);
    }
    const r = await session.call('ax_type', {
      app: app.pid,
      query: 'packages of noodles',
      text: 'jars of jam',
      clear_first: true,
      delivery_mode: 'foreground',
    });
    expect(r.isError, r.text).toBe(true);
    expect(r.fields.error).toMatch(/is not being edited: keys typed now would go to its list/);
    // No key went anywhere: no search entry holds the text.
    const named = await readApp(session, app.pid);
    expect(named.some((e) => e.text === 'jars of jam')).toBe(false);
    await app.stop();
  });
});

describeNeeding(
  [program('gtk3-widget-factory', 'gtk-3-examples')],
  "gtk3-widget-factory's modal popover",
  () => {
    const get = sessionPerSuite();

    it('a foreground click beside it is refused: it would only close the popover', async () => {
      const session = get();
      const app = await session.launch('gtk3-widget-factory', [], { name: 'widget-factory' });
      await waitForApp(
        session,
        app.pid,
        (els) => els.find((e) => e.name === 'Page 2'),
        'the Page 2 tab',
      );
      const page = await session.call('ax_click', { app: app.pid, query: 'Page 2' });
      expect(page.isError, page.text).toBe(false);
      // The page's own "Menu" toggle (the header bar has one too).
      const menu = await session.call('ax_click', {
        app: app.pid,
        query: 'Menu nth:2',
        delivery_mode: 'foreground',
      });
      expect(menu.isError, menu.text).toBe(false);
      await waitForApp(
        session,
        app.pid,
        (els) => els.find((e) => e.role === 'panel' && e.states.includes('modal')),
        'the modal popover',
      );
      const r = await session.call('ax_click', {
        app: app.pid,
        query: 'Logo',
        delivery_mode: 'foreground',
      });
      expect(r.isError, r.text).toBe(true);
      expect(r.fields.error).toMatch(/a menu or popover of this app is open .* takes the input/);
      // pyatspi reads News and Logo unnamed (their names are tooltips), in that order.
      const [news, logo] = (await readApp(session, app.pid)).filter(
        (e) => e.role === 'radio button' && e.name === '' && e.states.includes('has tooltip'),
      );
      expect(news?.states).toContain('checked');
      expect(logo?.states).not.toContain('checked');
      await app.stop();
    });
  },
);
