/**
 * A spin button whose app reads its text its own way (a time "13:45", a month "May"):
 * typed text is not refused for not being a number. It is typed, committed the toolkit's
 * way, and the summary says the value and the text the app then shows. Oracles: the
 * fixture's own log of its value changes (test/fixtures/apps/spin_time.py, GTK 3 and
 * GTK 4), and pyatspi's reading of gtk4-demo's spin buttons.
 */
import { expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { describeNeeding, program, pythonGtk } from './helpers/needs.js';
import { sessionPerSuite } from './helpers/suite-session.js';
import { waitForApp } from './helpers/oracle.js';

type Event = Record<string, unknown>;

for (const gtk of ['3', '4'] as const) {
  const gtkNeed = pythonGtk(`${gtk}.0`, `gir1.2-gtk-${gtk}.0`);
  describeNeeding([gtkNeed], `a GTK ${gtk} spin button showing its value as a time`, () => {
    const get = sessionPerSuite();
    let app: LaunchedApp;

    const values = (from: number): Event[] =>
      (app.output?.events ?? []).slice(from).filter((e) => e.event === 'value');
    const valueLogged = (value: number, from: number): Promise<Event> =>
      app.output!.waitForEvent((e) => e.event === 'value' && e.value === value, {
        from,
        timeoutMs: 15_000,
      });

    it('foreground: "13:45" is typed and committed; the app reads 825 and shows 13:45', async () => {
      app = await get().launchFixture('spin_time.py', gtk === '4' ? ['4'] : []);
      const from = app.output!.events.length;
      const r = await get().call('ax_type', {
        app: app.pid,
        query: 'Time',
        text: '13:45',
        clear_first: true,
        delivery_mode: 'foreground',
      });
      expect(r.isError, r.text).toBe(false);
      expect(await valueLogged(825, from)).toMatchObject({ text: '13:45' });
      expect(r.text).toMatch(/value 480 → 825; its text reads '13:45'/);
      expect(r.text).toMatch(/effect: confirmed/);
    });

    it('foreground: text the app cannot read leaves its value, and the summary says so', async () => {
      const from = app.output!.events.length;
      const r = await get().call('ax_type', {
        app: app.pid,
        query: 'Time',
        text: 'noon',
        clear_first: true,
        delivery_mode: 'foreground',
      });
      expect(r.isError, r.text).toBe(false);
      expect(r.text).toMatch(/value 825 → 825; its text reads '13:45', not 'noon'/);
      // A later value the app logs comes after any the text would have made.
      const next = await get().call('ax_type', {
        app: app.pid,
        query: 'Time',
        text: '07:15',
        clear_first: true,
        delivery_mode: 'foreground',
      });
      expect(next.isError, next.text).toBe(false);
      await valueLogged(435, from);
      expect(values(from).map((e) => e.value)).toEqual([435]);
    });

    it('background: committed through accessibility where the toolkit can, else refused before typing', async () => {
      const from = app.output!.events.length;
      const r = await get().call('ax_type', {
        app: app.pid,
        query: 'Time',
        text: '09:30',
        clear_first: true,
      });
      if (gtk === '3') {
        expect(r.isError, r.text).toBe(false);
        expect(await valueLogged(570, from)).toMatchObject({ text: '09:30' });
        expect(r.text).toMatch(/value 435 → 570; its text reads '09:30'/);
      } else {
        expect(r.isError, r.text).toBe(true);
        expect(r.text).toMatch(/delivery_mode "foreground"/);
        const shown = await get().call('ax_get_value', { app: app.pid, query: 'Time' });
        expect(shown.text).toMatch(/07:15/);
        expect(values(from)).toEqual([]);
      }
      await app.stop();
    });
  });
}

describeNeeding([program('gtk4-demo', 'gtk-4-examples')], "gtk4-demo's spin buttons", () => {
  const get = sessionPerSuite();

  it('foreground: the time "13:45" and the month "May" are taken as the app reads them', async () => {
    const session = get();
    const app = await session.launch('gtk4-demo', ['--run=spinbutton'], { name: 'spinbutton' });
    await waitForApp(
      session,
      app.pid,
      (els) => els.find((e) => e.role === 'spin button' && e.text === 'January'),
      'the month spin button',
    );
    for (const [query, text, value] of [
      ['Time', '13:45', 825],
      ['Month', 'May', 5],
    ] as const) {
      const r = await session.call('ax_type', {
        app: app.pid,
        query: `spinbutton:${query}`,
        text,
        clear_first: true,
        delivery_mode: 'foreground',
      });
      expect(r.isError, r.text).toBe(false);
      const read = await waitForApp(
        session,
        app.pid,
        (els) => els.find((e) => e.role === 'spin button' && e.value === value),
        `the ${query} spin button at ${value}`,
      );
      expect(read.text).toBe(text);
      expect(r.text).toMatch(new RegExp(`→ ${value}; its text reads '${text}'`));
    }
    await app.stop();
  });
});
