/**
 * Issue 7, "Effects that tell the truth": every bullet checked by what the fixture app
 * itself prints (its JSON lines) or what an independent pyatspi read shows, never only by
 * the summary. The summary is held to what the issue states: an error is `isError`, a
 * disabled target is named disabled, a walk cut short says `truncated: app exited`.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../../src/desktop/apps.js';
import { Session, type CallResult } from '../../../src/harness/session.js';
import { eventsOf, mark, readApp, settled, waitForApp } from '../helpers/oracle.js';

let session: Session;
let states: LaunchedApp;
let save: LaunchedApp;

beforeAll(async () => {
  session = await Session.start();
  await session.client.listTools();
  states = await session.launchFixture('states.py');
  save = await session.launchFixture('save.py');
});

afterAll(async () => {
  await session?.close();
});

/** The summary must not call a refused action a no-op, nor advise escalating it. */
function expectNoNoopAdvice(r: CallResult): void {
  expect(r.text).not.toMatch(/suspected_noop/);
  expect(r.structured.effect).not.toBe('suspected_noop');
  expect(r.fields.escalation).toBeUndefined();
}

/** Which events a fixture printed for `widget` since `from`. */
function eventsFor(app: LaunchedApp, from: number, widget: string): Array<Record<string, unknown>> {
  return eventsOf(app, from).filter((e) => e.widget === widget);
}

async function textOf(app: LaunchedApp, name: string): Promise<string | undefined> {
  const els = await readApp(session, app.pid);
  return els.find((e) => e.name === name && e.text !== undefined)?.text;
}

async function valueOf(app: LaunchedApp, name: string): Promise<number | undefined> {
  const els = await readApp(session, app.pid);
  return els.find((e) => e.name === name && e.value !== undefined)?.value;
}

describe('a disabled target is an error for every action, named disabled', () => {
  it('ax_click on a disabled button', async () => {
    const from = mark(states);
    const r = await session.call('ax_click', { app: states.pid, query: 'button:Disabled Button' });
    expect(r.isError, r.text).toBe(true);
    expect(r.text).toMatch(/disabled/i);
    expectNoNoopAdvice(r);
    await settled(session, states);
    expect(eventsFor(states, from, 'disabled-button')).toEqual([]);
  });

  it('ax_type into a disabled entry', async () => {
    const from = mark(states);
    const r = await session.call('ax_type', {
      app: states.pid,
      query: 'Disabled Entry',
      text: 'thaw',
    });
    expect(r.isError, r.text).toBe(true);
    expect(r.text).toMatch(/disabled/i);
    expectNoNoopAdvice(r);
    await settled(session, states);
    expect(eventsFor(states, from, 'disabled-entry')).toEqual([]);
    expect(await textOf(states, 'Disabled Entry')).toBe('frozen');
  });

  it('ax_set_value on a disabled check box and a disabled slider', async () => {
    const from = mark(states);
    const check = await session.call('ax_set_value', {
      app: states.pid,
      query: 'Disabled Check',
      value: 'true',
    });
    expect(check.isError, check.text).toBe(true);
    expect(check.text).toMatch(/disabled/i);
    expectNoNoopAdvice(check);
    const slider = await session.call('ax_set_value', {
      app: states.pid,
      query: 'Disabled Slider',
      value: '70',
    });
    expect(slider.isError, slider.text).toBe(true);
    expect(slider.text).toMatch(/disabled/i);
    expectNoNoopAdvice(slider);
    await settled(session, states);
    expect(eventsFor(states, from, 'disabled-check')).toEqual([]);
    expect(eventsFor(states, from, 'disabled-slider')).toEqual([]);
    expect(await valueOf(states, 'Disabled Slider')).toBe(30);
  });

  it('ax_drag from a disabled slider', async () => {
    const els = await readApp(session, states.pid);
    const slider = els.find((e) => e.name === 'Disabled Slider' && e.extents);
    expect(slider, 'pyatspi sees the disabled slider').toBeDefined();
    const [x, y, w, h] = slider?.extents ?? [0, 0, 0, 0];
    const from = mark(states);
    const r = await session.call('ax_drag', {
      app: states.pid,
      from_query: 'Disabled Slider',
      to_x: x + w - 4,
      to_y: y + h / 2,
    });
    expect(r.isError, r.text).toBe(true);
    expect(r.text).toMatch(/disabled/i);
    expectNoNoopAdvice(r);
    await settled(session, states);
    expect(eventsFor(states, from, 'disabled-slider')).toEqual([]);
  });

  it("the summary's element lines show disabled before the agent acts", async () => {
    const r = await session.call('ax_get_tree', { app: states.pid });
    expect(r.isError, r.text).toBe(false);
    const lines = r.lists.visible_elements ?? [];
    const disabledButton = lines.find((l) => l.includes('"Disabled Button"'));
    const apply = lines.find((l) => l.includes('"Apply"'));
    expect(disabledButton, r.text).toBeDefined();
    expect(disabledButton).toMatch(/\bdisabled\b/);
    expect(apply, r.text).toBeDefined();
    expect(apply).not.toMatch(/\bdisabled\b/);
  });
});

describe('a spin button validates its value as a slider does', () => {
  it('rejects a non-numeric value and leaves the spin as it was', async () => {
    const from = mark(states);
    const r = await session.call('ax_set_value', { app: states.pid, query: 'Count', value: 'abc' });
    expect(r.isError, r.text).toBe(true);
    await settled(session, states);
    expect(eventsFor(states, from, 'count')).toEqual([]);
    expect(await valueOf(states, 'Count')).toBe(5);
  });

  it('rejects an out-of-range value (0..10) and leaves the spin as it was', async () => {
    const from = mark(states);
    const r = await session.call('ax_set_value', { app: states.pid, query: 'Count', value: '42' });
    expect(r.isError, r.text).toBe(true);
    await settled(session, states);
    expect(eventsFor(states, from, 'count')).toEqual([]);
    expect(await valueOf(states, 'Count')).toBe(5);
  });

  it('sets an in-range value, and the app reports it', async () => {
    const from = mark(states);
    const r = await session.call('ax_set_value', { app: states.pid, query: 'Count', value: '7' });
    expect(r.isError, r.text).toBe(false);
    const e = await states.output?.waitForEvent((ev) => ev.widget === 'count', { from });
    expect(e?.value).toBe(7);
  });
});

describe('suspected_noop only when nothing changed', () => {
  it('a password typed in the background lands and is not reported as a no-op', async () => {
    const secret = 'pin-73914';
    const from = mark(states);
    const r = await session.call('ax_type', { app: states.pid, query: 'PIN', text: secret });
    expect(r.isError, r.text).toBe(false);
    const e = await states.output?.waitForEvent((ev) => ev.widget === 'pin', { from });
    expect(e?.length).toBe(secret.length);
    // Typing again on the advice would have typed the password twice.
    expectNoNoopAdvice(r);
    expect(r.text).not.toContain(secret);
    await settled(session, states);
    expect(eventsFor(states, from, 'pin').at(-1)?.length).toBe(secret.length);
  });
});

describe('suspected_noop only after a read-back that waited a little', () => {
  it('an effect that shows 250 ms after the click is not called a no-op', async () => {
    const from = mark(states);
    const r = await session.call('ax_click', { app: states.pid, query: 'button:Slow' });
    expect(r.isError, r.text).toBe(false);
    await states.output?.waitForEvent((e) => e.widget === 'slow-status', { from });
    expectNoNoopAdvice(r);
  });
});

describe('everything is validated before the first side effect', () => {
  it('ax_click with a bad key name clicks nothing', async () => {
    const from = mark(states);
    const r = await session.call('ax_click', {
      app: states.pid,
      query: 'button:Apply',
      key: 'NoSuchKeyName',
    });
    expect(r.isError, r.text).toBe(true);
    await settled(session, states);
    expect(eventsFor(states, from, 'apply')).toEqual([]);
  });

  it('ax_click with a lone surrogate as its key clicks nothing', async () => {
    const from = mark(states);
    const r = await session.call('ax_click', {
      app: states.pid,
      query: 'button:Apply',
      key: '\ud800',
    });
    expect(r.isError, r.text).toBe(true);
    await settled(session, states);
    expect(eventsFor(states, from, 'apply')).toEqual([]);
  });

  it('ax_key_press with a key named "\\ud800" is an error and types nothing', async () => {
    const from = mark(states);
    const r = await session.call('ax_key_press', { app: states.pid, key: '\ud800' });
    expect(r.isError, r.text).toBe(true);
    await settled(session, states);
    expect(eventsOf(states, from)).toEqual([]);
  });

  it('ax_type with clear_first and invalid text does not empty the field', async () => {
    const from = mark(states);
    const r = await session.call('ax_type', {
      app: states.pid,
      query: 'Note',
      text: 'x\ud800y',
      clear_first: true,
    });
    expect(r.isError, r.text).toBe(true);
    await settled(session, states);
    expect(eventsFor(states, from, 'note')).toEqual([]);
    expect(await textOf(states, 'Note')).toBe('keep me');
  });

  it('ax_type with valid text and a bad key name types nothing', async () => {
    const from = mark(states);
    const r = await session.call('ax_type', {
      app: states.pid,
      query: 'Note',
      text: ' and more',
      key: 'NoSuchKeyName',
    });
    expect(r.isError, r.text).toBe(true);
    await settled(session, states);
    expect(eventsFor(states, from, 'note')).toEqual([]);
    expect(await textOf(states, 'Note')).toBe('keep me');
  });

  it('off-screen coordinates are an error naming the screen size, and nothing is clicked', async () => {
    const from = mark(states);
    for (const [tool, args] of [
      ['ax_click_at', { app: states.pid, x: 99999, y: 100 }],
      ['ax_click_at', { app: states.pid, x: 100, y: -5000, delivery_mode: 'foreground' }],
      ['ax_click', { app: states.pid, x: 99999, y: 100 }],
    ] as const) {
      const r = await session.call(tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)}: ${r.text}`).toBe(true);
      // The desktop's screen is 1280x800 (Xvfb's default in Session.start).
      expect(r.text).toMatch(/1280\s*[x×]\s*800/);
    }
    await settled(session, states);
    expect(eventsOf(states, from)).toEqual([]);
  });
});

describe('chained steps wait for the app to process the previous one', () => {
  it('text then Return: Save has become sensitive, and the app saves the typed name', async () => {
    const from = mark(save);
    const r = await session.call('ax_type', {
      app: save.pid,
      query: 'File name',
      text: 'notes.txt',
      key: 'Return',
    });
    expect(r.isError, r.text).toBe(false);
    const saved = await save.output?.waitForEvent((e) => e.event === 'saved', {
      from,
      timeoutMs: 3000,
    });
    expect(saved?.name).toBe('notes.txt');
    // Return never reached the entry while Save was still insensitive.
    const early = eventsOf(save, from).filter((e) => e.event === 'activate' && !e.save_sensitive);
    expect(early).toEqual([]);
  });

  it('click then text: the text lands in the field the click enabled and focused', async () => {
    const from = mark(save);
    const r = await session.call('ax_click', {
      app: save.pid,
      query: 'button:Rename',
      text: 'report',
    });
    expect(r.isError, r.text).toBe(false);
    const e = await save.output?.waitForEvent(
      (ev) => ev.event === 'changed' && ev.widget === 'newname',
      { from, timeoutMs: 3000 },
    );
    expect(e?.value).toBe('report');
    // Nothing of it went into the file name field, which held the keyboard focus before.
    expect(eventsFor(save, from, 'filename')).toEqual([]);
  });
});

describe('settle waits for effects that arrive late', () => {
  it('a dialog that closes 300 ms after its button is clicked is not in the summary', async () => {
    // 300 ms: some 100-200 ms after a settle that stops at the first quiet moment captures.
    const late = await session.launchFixture('late_close.py', ['--close-delay-ms', '300']);
    const opened = mark(late);
    const open = await session.call('ax_click', { app: late.pid, query: 'button:Open Settings' });
    expect(open.isError, open.text).toBe(false);
    await late.output?.waitForEvent((e) => e.event === 'dialog' && e.state === 'opened', {
      from: opened,
    });
    await waitForApp(
      session,
      late.pid,
      (els) => els.find((e) => e.name === 'Done' && e.states.includes('showing')),
      'the Done button',
    );
    const from = mark(late);
    const r = await session.call('ax_click', { app: late.pid, query: 'button:Done' });
    expect(r.isError, r.text).toBe(false);
    await late.output?.waitForEvent((e) => e.event === 'dialog' && e.state === 'closed', { from });
    // What the summary shows as on screen after the click has no trace of the dialog.
    const shown = [
      ...(r.lists.visible_elements ?? []),
      ...(r.lists.app_switch_visible_elements ?? []),
    ];
    expect(shown.filter((l) => l.includes('"Done"'))).toEqual([]);
    expect(r.fields.dialog ?? '').not.toContain('Settings');
    const file = fs.readFileSync(r.fields.file, 'utf8');
    const tree = file.slice(file.indexOf('\n# tree'));
    expect(tree).not.toMatch(/"Done"/);
    // The dialog closing is the click's effect: not a no-op.
    expectNoNoopAdvice(r);
    await late.stop();
  });
});

describe('a walk cut short by the app dying says so', () => {
  it('reports truncated: app exited, never truncated: no', async () => {
    const exits = await session.launchFixture('exits.py');
    process.kill(exits.pid, 'SIGUSR1');
    await exits.output?.waitForEvent((e) => e.event === 'armed');
    const r = await session.call('ax_get_tree', { app: exits.pid });
    // The app itself says the walk reached its cells and it died there.
    await exits.output?.waitForEvent((e) => e.event === 'exiting');
    expect(await exits.exited).toBe(3);
    expect(r.text).toMatch(/truncated: app exited/);
    expect(r.text).not.toMatch(/truncated: no\b/);
  });
});
