/**
 * Effects that tell the truth, end to end on test/fixtures/apps/actions_widgets.py: what
 * actions refuse (disabled targets, bad values, untypeable text, off-screen points) is
 * refused before anything reaches the app, and what they do is checked by the app's own
 * JSON output. "Nothing happened" is shown by order, never by waiting: a later action's
 * event arrives and nothing from the refused one came before it.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';
import { eventsOf } from './helpers/oracle.js';

let session: Session;
let app: LaunchedApp;

beforeAll(async () => {
  session = await Session.start();
  app = await session.launchFixture('actions_widgets.py');
  await app.output?.waitForEvent((e) => e.event === 'focus');
});

afterAll(async () => {
  await session?.close();
});

function events(of: LaunchedApp = app): Array<Record<string, unknown>> {
  return eventsOf(of);
}

/** Events the app printed from index `from` up to (not including) the first matching `until`. */
async function eventsBefore(
  from: number,
  until: (e: Record<string, unknown>) => boolean,
): Promise<Array<Record<string, unknown>>> {
  const marker = await app.output?.waitForEvent(until, { from });
  const all = events();
  return all.slice(from, all.indexOf(marker as Record<string, unknown>));
}

/** Sets Count through the app (a marker whose event proves the app got that far). */
async function markCount(value: number): Promise<void> {
  const r = await session.call('ax_set_value', {
    app: app.pid,
    query: 'Count',
    value: String(value),
  });
  expect(r.isError, r.text).toBe(false);
}

describe('typing with no target', () => {
  it('with several editable fields and no focus, is an error listing them; nothing typed', async () => {
    const from = events().length;
    const r = await session.call('ax_type', { app: app.pid, text: 'stray' });
    expect(r.isError).toBe(true);
    expect(r.fields.error).toMatch(/editable fields are showing/);
    expect(r.fields.error).toMatch(/"File name" e[0-9]+ at \([0-9]+,[0-9]+\)/);
    expect(r.fields.error).toMatch(/"Note" e[0-9]+/);
    // Disabled fields cannot be typed into: not candidates.
    expect(r.fields.error).not.toMatch(/"Frozen"/);
    await markCount(4);
    const before = await eventsBefore(from, (e) => e.event === 'value' && e.value === 4);
    expect(before.filter((e) => e.event === 'changed')).toEqual([]);
  });

  it('with one editable field and no focus, types into it and says so', async () => {
    const one = await session.launchFixture('actions_widgets.py', ['--one-field']);
    await one.output?.waitForEvent((e) => e.event === 'focus');
    const r = await session.call('ax_type', { app: one.pid, text: 'hello' });
    expect(r.isError, r.text).toBe(false);
    expect(r.fields.summary).toMatch(
      /^Typed 5 chars into \[AXTextField\] "Only" e[0-9]+ \(the only editable field\)/,
    );
    await one.output?.waitForEvent(
      (e) => e.event === 'changed' && e.widget === 'only' && e.value === 'hello',
    );
    await one.stop();
  });
});

describe('disabled targets', () => {
  it('clicking a disabled button is an error naming it disabled, with no escalation', async () => {
    const from = events().length;
    for (const mode of ['background', 'foreground']) {
      const r = await session.call('ax_click', {
        app: app.pid,
        query: 'button:Locked',
        delivery_mode: mode,
      });
      expect(r.isError).toBe(true);
      expect(r.fields.error).toMatch(/^\[AXButton\] "Locked" e[0-9]+ is disabled/);
      expect(r.fields.escalation).toBeUndefined();
      expect(r.text).not.toMatch(/suspected_noop/);
    }
    await markCount(5);
    const before = await eventsBefore(from, (e) => e.event === 'value' && e.value === 5);
    expect(before.filter((e) => e.widget === 'locked')).toEqual([]);
  });

  it('typing into or setting a disabled field is an error; its text stays', async () => {
    const typed = await session.call('ax_type', {
      app: app.pid,
      query: 'Frozen',
      text: 'warm',
      clear_first: true,
    });
    expect(typed.isError).toBe(true);
    expect(typed.fields.error).toMatch(/"Frozen" e[0-9]+ is disabled/);
    const set = await session.call('ax_set_value', { app: app.pid, query: 'Frozen', value: 'x' });
    expect(set.isError).toBe(true);
    expect(set.fields.error).toMatch(/is disabled/);
    const value = await session.call('ax_get_value', { app: app.pid, query: 'Frozen' });
    expect(value.structured.value).toBe('cold');
  });
});

describe('validation before the first side effect', () => {
  it('clear_first with an untypeable character leaves the field as it was', async () => {
    const from = events().length;
    for (const mode of ['background', 'foreground']) {
      const r = await session.call('ax_type', {
        app: app.pid,
        query: 'Note',
        text: 'new\u0001text',
        clear_first: true,
        delivery_mode: mode,
      });
      expect(r.isError).toBe(true);
      expect(r.fields.error).toMatch(/U\+0001 at index 3/);
    }
    // Appending shows what the field holds, by the app's own output.
    const r = await session.call('ax_type', { app: app.pid, query: 'Note', text: '!' });
    expect(r.isError, r.text).toBe(false);
    const before = await eventsBefore(
      from,
      (e) => e.event === 'changed' && e.widget === 'note' && e.value === 'keep me!',
    );
    expect(before.filter((e) => e.widget === 'note')).toEqual([]);
  });

  it('a spin button refuses a non-number and an out-of-range value as a slider does', async () => {
    const from = events().length;
    const word = await session.call('ax_set_value', { app: app.pid, query: 'Count', value: 'abc' });
    expect(word.isError).toBe(true);
    expect(word.fields.error).toMatch(
      /'abc' is not a number: .*"Count".* takes a number in 0\.\.10/,
    );
    const high = await session.call('ax_set_value', { app: app.pid, query: 'Count', value: '11' });
    expect(high.isError).toBe(true);
    expect(high.fields.error).toMatch(/11 is outside .*range 0\.\.10/);
    const ok = await session.call('ax_set_value', { app: app.pid, query: 'Count', value: '7' });
    expect(ok.isError, ok.text).toBe(false);
    expect(ok.text).toMatch(/effect: confirmed/);
    const before = await eventsBefore(from, (e) => e.event === 'value' && e.value === 7);
    expect(before.filter((e) => e.widget === 'count')).toEqual([]);
  });

  it('off-screen points and rectangles are errors naming the screen size', async () => {
    const atPoint = await session.call('ax_click_at', {
      app: app.pid,
      x: 99999,
      y: 10,
      delivery_mode: 'foreground',
    });
    expect(atPoint.isError).toBe(true);
    expect(atPoint.fields.error).toMatch(/^\(99999,10\) is off the screen \([0-9]+x[0-9]+\)/);
    const rect = await session.call('ax_click', { app: app.pid, x: -50, y: 10, w: 20, h: 20 });
    expect(rect.isError).toBe(true);
    expect(rect.fields.error).toMatch(/reaches off the screen \([0-9]+x[0-9]+\)/);
    const drag = await session.call('ax_drag', {
      app: app.pid,
      from_query: 'Note',
      to_x: 10,
      to_y: 123456,
    });
    expect(drag.isError).toBe(true);
    expect(drag.fields.error).toMatch(/^\(10,123456\) is off the screen/);
  });

  it('a lone surrogate is not a key: refused, nothing typed', async () => {
    const from = events().length;
    const r = await session.call('ax_type', {
      app: app.pid,
      query: 'Note',
      text: '?',
      key: '\ud800',
    });
    expect(r.isError).toBe(true);
    expect(r.fields.error).toMatch(/U\+D800/);
    await markCount(2);
    const before = await eventsBefore(from, (e) => e.event === 'value' && e.value === 2);
    expect(before.filter((e) => e.widget === 'note')).toEqual([]);
  });
});

describe('steps that wait for the app', () => {
  it('typing a name then Return waits for Save to enable: the app saves that name', async () => {
    const from = events().length;
    const r = await session.call('ax_type', {
      app: app.pid,
      query: 'File name',
      text: 'report.txt',
      clear_first: true,
      key: 'Return',
    });
    expect(r.isError, r.text).toBe(false);
    expect(r.fields.summary).toMatch(
      /^Typed 10 chars into \[AXTextField\] "File name" e[0-9]+ \(replaced\) \(confirmed\), then pressed Return/,
    );
    const saved = await app.output?.waitForEvent((e) => e.event === 'saved', { from });
    expect(saved?.name).toBe('report.txt');
  });

  it('a dialog that closes a moment after the click is not in the summary', async () => {
    const opened = await session.call('ax_click', { app: app.pid, query: 'button:Open Later' });
    expect(opened.isError, opened.text).toBe(false);
    await app.output?.waitForEvent((e) => e.event === 'dialog' && e.state === 'opened');
    const r = await session.call('ax_click', { app: app.pid, query: 'button:Close Soon' });
    expect(r.isError, r.text).toBe(false);
    await app.output?.waitForEvent((e) => e.event === 'dialog' && e.state === 'closed');
    // The app says the dialog is gone; the result of the click says so too.
    expect(r.fields.dialog, r.text).toBeUndefined();
    const [diff, tree] = fs.readFileSync(r.fields.file, 'utf8').split(/^# tree$/m);
    expect(diff).toMatch(/^- \[AXWindow \(dialog\)\] "Later"/m);
    expect(tree).not.toMatch(/"Close Soon"/);
    expect(r.text).toMatch(/effect: confirmed/);
  });

  it('a key combo is named once in the summary', async () => {
    const r = await session.call('ax_key_press', { app: app.pid, key: 'ctrl+c' });
    expect(r.isError, r.text).toBe(false);
    expect(r.fields.summary).toMatch(/^Pressed ctrl\+c\b/);
  });
});
