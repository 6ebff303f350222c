/**
 * Safe mode presses no control that may reveal a password field's text, whatever its kind,
 * name or language: a push button, a check box in German, an icon-only toggle, a toggle
 * named "Plain text", a checked "Hide password" box (unchecking reveals), a radio button
 * "Clear". The oracle is the fixture's own log (test/fixtures/apps/reveal_controls.py: each
 * entry's masking as it changes) behind a barrier: the "Ping" button, clicked after the
 * refused calls; the app handles its input in order, so once its ping is logged anything a
 * refused call had sent would be too. Full mode still presses every control.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixtureRun, type FixtureRun } from './helpers/fixture-run.js';
import { readApp } from './helpers/oracle.js';

/**
 * Clicks the fixture's Ping and waits for it (the app handles its input in order: anything
 * a refused call had sent is handled by then); no entry changed its masking since `from`.
 */
async function nothingRevealed(run: FixtureRun, from: number): Promise<void> {
  const ping = await run.call('ax_click', { query: 'Ping' });
  expect(ping.isError, ping.text).toBe(false);
  await run.waitFor((e) => e.event === 'ping', from);
  expect(
    run
      .events()
      .slice(from)
      .filter((e) => e.event === 'visibility'),
  ).toEqual([]);
}

/** Each reveal control's name, and the entry it reveals. */
const CONTROLS: Array<[string, string]> = [
  ['Show password', 'pw1'],
  ['Passwort anzeigen', 'pw2'],
  ['Peek', 'pw3'],
  ['Display characters', 'pw4'],
  ['Plain text', 'pw5'],
  ['Hide password', 'pw6'],
  ['Clear', 'pw7'],
];

describe('safe mode: no reveal control is pressed', () => {
  const run = fixtureRun('reveal_controls.py', {
    session: { serverEnv: { AXPAGE_MODE: 'safe' } },
  });

  it.each(CONTROLS)(
    '%s: ax_click and ax_click_at refused, the entry stays masked',
    async (name) => {
      const from = run.events().length;
      const byName = (await readApp(run.session, run.app.pid)).find((e) => e.name === name);
      const [x, y, w, h] = byName!.extents!;
      for (const r of [
        await run.call('ax_click', { query: name }),
        await run.call('ax_click', { query: name, delivery_mode: 'foreground' }),
        await run.call('ax_click_at', { x: x + Math.round(w / 2), y: y + Math.round(h / 2) }),
      ]) {
        expect(r.isError, r.text).toBe(true);
        expect(r.text).toMatch(/would show a password field's text in plain view/);
      }
      await nothingRevealed(run, from);
    },
  );
});

describe('full mode: every reveal control still works', () => {
  const run = fixtureRun('reveal_controls.py', {
    session: { serverEnv: { AXPAGE_MODE: 'full' } },
  });

  it.each(CONTROLS)('%s reveals its entry', async (name, entry) => {
    const from = run.events().length;
    const r = await run.call('ax_click', { query: name });
    expect(r.isError, r.text).toBe(false);
    const shown = await run.waitFor((e) => e.event === 'visibility' && e.widget === entry, from);
    expect(shown.visible).toBe(true);
  });
});

/**
 * Reveals that are not a toggle beside the field: an icon inside the field (its tooltip
 * says nothing of showing), a check menu item and a plain menu item
 * (test/fixtures/apps/reveal_menus.py, which logs every entry's masking as it changes).
 */
describe('safe mode: icons inside a password field and reveal menu items', () => {
  const run = fixtureRun('reveal_menus.py', { session: { serverEnv: { AXPAGE_MODE: 'safe' } } });

  it('a press on the icon inside the field, by pointer or action, is refused', async () => {
    const from = run.events().length;
    const field = (await readApp(run.session, run.app.pid)).find((e) => e.name === 'Password 1');
    const [x, y, w, h] = field!.extents!;
    // The icon sits at the field's right end.
    const icon = { x: x + w - 14, y: y + Math.round(h / 2) };
    for (const r of [
      await run.call('ax_click_at', icon),
      await run.call('ax_click', icon),
      await run.call('ax_click', { query: 'Password 1', delivery_mode: 'foreground' }),
      // The icon is an element of its own (GTK 3), pressed through accessibility.
      await run.call('ax_click', { query: 'dialog-information' }),
    ]) {
      expect(r.isError, r.text).toBe(true);
      expect(r.text).toMatch(
        /(a part of a password field|is a password field, and this server runs in safe mode)/,
      );
      expect(r.text).toMatch(/nothing was pressed/);
    }
    // A point given with another app lands on this app's window all the same.
    const other = await run.session.launchFixture('secret_window.py', [], {
      env: { AXPAGE_FIXTURE_TITLE: 'Elsewhere', AXPAGE_FIXTURE_X: '600', AXPAGE_FIXTURE_Y: '400' },
    });
    try {
      for (const tool of ['ax_click_at', 'ax_click']) {
        const r = await run.session.call(tool, {
          app: other.pid,
          ...icon,
          delivery_mode: 'foreground',
        });
        expect(r.isError, r.text).toBe(true);
        expect(r.text).toMatch(
          /is on a password field of pid \d+, and this server runs in safe mode/,
        );
      }
      const drag = await run.session.call('ax_drag', {
        app: other.pid,
        from_x: icon.x,
        from_y: icon.y,
        to_x: icon.x - 40,
        to_y: icon.y,
      });
      expect(drag.isError, drag.text).toBe(true);
    } finally {
      await other.stop();
    }
    // The field still takes the focus, without a pointer.
    const focus = await run.call('ax_click', { query: 'Password 1' });
    expect(focus.isError, focus.text).toBe(false);
    await nothingRevealed(run, from);
  });

  it.each(['Show Password', 'Toggle Characters'])(
    'the menu item %s is refused, in the background and the foreground',
    async (item) => {
      const from = run.events().length;
      const open = await run.call('ax_click', { query: 'View', delivery_mode: 'foreground' });
      expect(open.isError, open.text).toBe(false);
      for (const r of [
        await run.call('ax_click', { query: item }),
        await run.call('ax_click', { query: item, delivery_mode: 'foreground' }),
      ]) {
        expect(r.isError, r.text).toBe(true);
        expect(r.text).toMatch(/would show a password field's text in plain view/);
      }
      expect((await run.call('ax_key_press', { key: 'Escape' })).isError).toBe(false);
      await nothingRevealed(run, from);
    },
  );
});

describe('full mode: the icon and the menu items reveal', () => {
  const run = fixtureRun('reveal_menus.py', { session: { serverEnv: { AXPAGE_MODE: 'full' } } });

  it('the icon inside the field', async () => {
    const from = run.events().length;
    const field = (await readApp(run.session, run.app.pid)).find((e) => e.name === 'Password 1');
    const [x, y, w, h] = field!.extents!;
    const r = await run.call('ax_click_at', { x: x + w - 14, y: y + Math.round(h / 2) });
    expect(r.isError, r.text).toBe(false);
    await run.waitFor((e) => e.event === 'visibility' && e.widget === 'pw1', from);
  });

  it.each([
    ['Show Password', 'pw2'],
    ['Toggle Characters', 'pw3'],
  ])('the menu item %s', async (item, entry) => {
    const from = run.events().length;
    expect(
      (await run.call('ax_click', { query: 'View', delivery_mode: 'foreground' })).isError,
    ).toBe(false);
    const r = await run.call('ax_click', { query: item });
    expect(r.isError, r.text).toBe(false);
    await run.waitFor((e) => e.event === 'visibility' && e.widget === entry, from);
  });
});

/**
 * Reveals by controls that are neither toggles nor named for it: a button "View" (and its
 * mnemonic Alt+V), a link "Eye", an icon that reacts to the pointer and offers no action
 * (test/fixtures/apps/reveal_others.py, which logs the entry's masking as it changes).
 */
describe('safe mode: buttons, links, icons and mnemonics that reveal', () => {
  const run = fixtureRun('reveal_others.py', { session: { serverEnv: { AXPAGE_MODE: 'safe' } } });

  it('each is refused, and the entry stays masked', async () => {
    const from = run.events().length;
    const els = await readApp(run.session, run.app.pid);
    const image = els.find((e) => e.role === 'icon' || e.role === 'image');
    const [x, y, w, h] = image!.extents!;
    for (const [tool, args] of [
      ['ax_click', { query: 'button:View' }],
      ['ax_click', { query: 'button:View', delivery_mode: 'foreground' }],
      ['ax_key_press', { key: 'alt+v' }],
      ['ax_click', { query: 'Eye' }],
      [
        'ax_click_at',
        { x: x + Math.round(w / 2), y: y + Math.round(h / 2), delivery_mode: 'foreground' },
      ],
    ] as const) {
      const r = await run.call(tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)}: ${r.text}`).toBe(true);
      expect(r.text).toMatch(/would show a password field's text in plain view/);
    }
    await nothingRevealed(run, from);
  });
});

describe('full mode: the button View reveals', () => {
  const run = fixtureRun('reveal_others.py', { session: { serverEnv: { AXPAGE_MODE: 'full' } } });

  it('ax_click on it shows the text', async () => {
    const r = await run.call('ax_click', { query: 'button:View' });
    expect(r.isError, r.text).toBe(false);
    await run.waitFor((e) => e.event === 'visibility' && e.visible === true);
  });
});

/**
 * A reveal toggle that does not stand beside its field: in another window of the app, or
 * above a field nested past the walk's depth limit (test/fixtures/apps/reveal_apart.py,
 * which logs the toggle). In safe mode neither is pressed; in full mode with screenshots
 * off, the deep field revealed later is still kept secret (the cut walk had it located).
 */
describe('reveal toggles apart from their field', () => {
  const SECRET = 'apart-Sekret-77x';
  const apart = (layout: string, env: Record<string, string>) =>
    fixtureRun('reveal_apart.py', {
      session: { serverEnv: env },
      appEnv: { AXPAGE_FIXTURE_LAYOUT: layout, AXPAGE_FIXTURE_SECRET: SECRET },
    });

  describe('in another window, safe mode', () => {
    const run = apart('split', { AXPAGE_MODE: 'safe' });
    it('is refused', async () => {
      expect((await run.call('ax_get_tree', {})).isError).toBe(false);
      const r = await run.call('ax_click', { query: 'Show password' });
      expect(r.isError, r.text).toBe(true);
      expect(r.text).toMatch(/would show a password field's text in plain view/);
      expect(run.events().filter((e) => e.event === 'toggled')).toEqual([]);
    });
  });

  describe('above a field past the depth limit, safe mode', () => {
    const run = apart('deep', { AXPAGE_MODE: 'safe' });
    it('is refused though the cut walk shows no password field', async () => {
      const t = await run.call('ax_get_tree', {});
      expect(t.isError, t.text).toBe(false);
      const r = await run.call('ax_click', { query: 'Show password' });
      expect(r.isError, r.text).toBe(true);
      expect(r.text).toMatch(/would show a password field's text in plain view/);
      expect(run.events().filter((e) => e.event === 'toggled')).toEqual([]);
    });
  });

  describe('above a field past the depth limit, full mode, no screenshots', () => {
    const run = apart('deep', { AXPAGE_MODE: 'full', AXPAGE_SCREENSHOTS: 'off' });
    it('the field revealed stays secret to a deeper walk and a read', async () => {
      expect((await run.call('ax_get_tree', {})).isError).toBe(false);
      const r = await run.call('ax_click', { query: 'Show password' });
      expect(r.isError, r.text).toBe(false);
      await run.waitFor((e) => e.event === 'toggled' && e.active === true);
      const deep = await run.call('ax_get_tree', { max_depth: 200 });
      expect(deep.isError, deep.text).toBe(false);
      expect(fs.readFileSync(deep.fields.file, 'utf8')).not.toContain(SECRET);
      // The deeper walk just made is the view a read resolves its query in.
      const value = await run.call('ax_get_value', { query: 'Password' });
      expect(value.isError, value.text).toBe(false);
      expect(value.text).not.toContain(SECRET);
      expect(value.text).toMatch(/is a password field: its value is never read/);
    });
  });
});
