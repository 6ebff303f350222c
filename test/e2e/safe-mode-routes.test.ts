/**
 * Safe mode keeps every route away from a password field: typed text, a set value, keys
 * (letters, shifted letters, BackSpace), pastes (Ctrl+V, Shift+Insert), a workflow of keys,
 * Tab into the field then a key, text or a key after a click, text to whatever has the
 * focus, a drag that drops text on the field, a right click (its menu pastes), and the
 * "Show passphrase" toggle pressed by any tool. The oracle is the login fixture's own log
 * (test/fixtures/apps/login_dialog.py: the password's length on every change, the toggle,
 * the submit) and the password field's role as pyatspi reads it. Keys that only navigate
 * (Tab, Return) still reach the field.
 *
 * Nothing-happened is checked against a barrier: a character typed into the user name
 * field with real key events, after the refused call. The app handles its input in order,
 * so once the barrier's change is logged, anything the refused call had sent would be too.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { CallResult } from '../../src/harness/session.js';
import { fixtureRun, type FixtureEvent } from './helpers/fixture-run.js';
import { readApp } from './helpers/oracle.js';

type Event = FixtureEvent;

const run = fixtureRun('login_dialog.py', { session: { serverEnv: { AXPAGE_MODE: 'safe' } } });
const { events, call } = run;

/** What would show that input reached the password field or its reveal toggle. */
const reached = (from: number): Event[] =>
  events()
    .slice(from)
    .filter(
      (e) =>
        (e.event === 'changed' && e.widget === 'password') ||
        e.event === 'toggled' ||
        e.event === 'submitted',
    );

/** Types one character into the user name with key events and waits until the app logs it. */
async function barrier(): Promise<void> {
  const from = events().length;
  const r = await call('ax_type', {
    query: 'User name',
    text: '.',
    delivery_mode: 'foreground',
  });
  expect(r.isError, r.text).toBe(false);
  await waitFor((e) => e.event === 'changed' && e.widget === 'user', from);
}

/** Focus on the user name, then Tab into the password field (Tab is allowed in safe mode). */
async function focusPassword(): Promise<void> {
  await barrier();
  const from = events().length;
  const r = await call('ax_key_press', { key: 'Tab' });
  expect(r.isError, r.text).toBe(false);
  await waitFor((e) => e.event === 'focus' && e.widget === 'password', from);
}

function waitFor(pred: (e: Event) => boolean, from: number): Promise<Event> {
  return run.app.output!.waitForEvent(pred, { from, timeoutMs: 15_000 });
}

function expectPasswordRefusal(r: CallResult): void {
  expect(r.isError, r.text).toBe(true);
  expect(r.text).toMatch(/is a password field, and this server runs in safe mode/);
}

function expectRevealRefusal(r: CallResult): void {
  expect(r.isError, r.text).toBe(true);
  expect(r.text).toMatch(/would show a password field's text in plain view/);
}

/** After the barrier: nothing reached the field or the toggle, and it is still a password. */
async function expectUntouched(from: number): Promise<void> {
  await barrier();
  expect(reached(from)).toEqual([]);
  const els = await readApp(run.session, run.app.pid);
  expect(els.filter((e) => e.role === 'password text').map((e) => e.name)).toEqual(['Password']);
}

describe('safe mode: no route types into a password field', () => {
  let from = 0;
  beforeEach(() => {
    from = events().length;
  });

  it('ax_type and ax_set_value on the field', async () => {
    expectPasswordRefusal(await call('ax_type', { query: 'Password', text: 'x' }));
    expectPasswordRefusal(
      await call('ax_type', { query: 'Password', text: 'x', delivery_mode: 'foreground' }),
    );
    expectPasswordRefusal(await call('ax_set_value', { query: 'Password', value: 'x' }));
    await expectUntouched(from);
  });

  it('Tab into the field, then a letter, a shifted letter, BackSpace', async () => {
    await focusPassword();
    for (const key of ['a', 'shift+b', 'C', 'BackSpace', 'ctrl+shift+u']) {
      const r = await call('ax_key_press', { key });
      expectPasswordRefusal(r);
      expect(r.text).toContain('was not sent');
    }
    await expectUntouched(from);
  });

  it('ax_clipboard_write, then Ctrl+V or Shift+Insert', async () => {
    const w = await run.session.call('ax_clipboard_write', { text: 'pasted' });
    expect(w.isError, w.text).toBe(false);
    await focusPassword();
    expectPasswordRefusal(await call('ax_key_press', { key: 'ctrl+v' }));
    expectPasswordRefusal(await call('ax_key_press', { key: 'Insert', modifiers: ['shift'] }));
    await expectUntouched(from);
  });

  it('a workflow of key presses stops at the step that would type, naming it', async () => {
    await barrier();
    const r = await run.session.call('ax_workflow', {
      steps: [
        { tool: 'ax_key_press', args: { app: run.app.pid, key: 'Tab' } },
        { tool: 'ax_key_press', args: { app: run.app.pid, key: 'x' } },
        { tool: 'ax_key_press', args: { app: run.app.pid, key: 'y' } },
      ],
    });
    expect(r.isError, r.text).toBe(true);
    expect(r.structured.failed_step).toBe('s2');
    expect(r.structured.steps_passed).toBe(1);
    expect(r.text).toMatch(/s2 \(ax_key_press\): .*password field/);
    await expectUntouched(from);
  });

  it('ax_click with text or a key on the field refuses before it clicks', async () => {
    await barrier();
    const focusFrom = events().length;
    for (const args of [
      { text: 'x' },
      { text: 'x', key: 'Return' },
      { key: 'x' },
      { text: 'x', delivery_mode: 'foreground' },
    ]) {
      const r = await call('ax_click', { query: 'Password', ...args });
      expectPasswordRefusal(r);
      expect(r.text).toContain('nothing was clicked');
    }
    await expectUntouched(from);
    // Not even focused: nothing was clicked.
    expect(
      events()
        .slice(focusFrom)
        .filter((e) => e.event === 'focus' && e.widget === 'password'),
    ).toEqual([]);
  });

  it('text with no field named goes nowhere when the field has the focus', async () => {
    await focusPassword();
    expectPasswordRefusal(await call('ax_type', { text: 'x' }));
    expectPasswordRefusal(await call('ax_type', { text: 'x', delivery_mode: 'foreground' }));
    // A click on a label keeps the focus in the field: the text after it is refused.
    const r = await call('ax_click', {
      query: 'label:Password',
      text: 'x',
      delivery_mode: 'foreground',
    });
    expectPasswordRefusal(r);
    await expectUntouched(from);
  });

  it('a right click on the field (its menu pastes) and a drag of text onto it', async () => {
    expectPasswordRefusal(
      await call('ax_click', {
        query: 'Password',
        click_type: 'right',
        delivery_mode: 'foreground',
      }),
    );
    await barrier();
    // The user name's text selected, then dragged by its first letters onto the password
    // field (a press past the end of the text would not pick the selection up).
    expect((await call('ax_key_press', { key: 'ctrl+a' })).isError).toBe(false);
    const user = (await readApp(run.session, run.app.pid)).find(
      (e) => e.name === 'User name' && e.role === 'text',
    );
    const [x, y, , h] = user!.extents!;
    const r = await call('ax_drag', {
      from_x: x + 12,
      from_y: y + Math.round(h / 2),
      to_query: 'Password',
      duration_ms: 600,
    });
    expectPasswordRefusal(r);
    await expectUntouched(from);
  });

  it('a key to the app while another window is in front, its focus in the field', async () => {
    await focusPassword();
    // Another app takes the front; the key fronts the login window again, whose own focus
    // is still the password field.
    const other = await run.session.launchFixture('secret_window.py', [], {
      env: { AXPAGE_FIXTURE_TITLE: 'In Front', AXPAGE_FIXTURE_X: '60', AXPAGE_FIXTURE_Y: '60' },
    });
    try {
      for (const key of ['a', 'ctrl+v']) {
        const r = await call('ax_key_press', { key });
        expectPasswordRefusal(r);
        // Decided by the focus the app reports once its window is active again.
        expect(r.text).toContain('which has the focus');
      }
      await expectUntouched(from);
    } finally {
      await other.stop();
    }
  });

  it('Tab and Return still reach the field: Return submits what it holds', async () => {
    await focusPassword();
    const r = await call('ax_key_press', { key: 'Return' });
    expect(r.isError, r.text).toBe(false);
    const submitted = await waitFor((e) => e.event === 'submitted', from);
    expect(submitted.password_length).toBe('hunter2-secret'.length);
  });
});

describe('safe mode: the reveal toggle is pressed by no tool', () => {
  let from = 0;
  beforeEach(() => {
    from = events().length;
  });

  it('ax_click (background and foreground), ax_click_at, ax_set_value, a workflow', async () => {
    expectRevealRefusal(await call('ax_click', { query: 'checkbox:Show passphrase' }));
    expectRevealRefusal(
      await call('ax_click', { query: 'checkbox:Show passphrase', delivery_mode: 'foreground' }),
    );
    const box = (await readApp(run.session, run.app.pid)).find((e) => e.name === 'Show passphrase');
    const [x, y, w, h] = box!.extents!;
    for (const delivery_mode of ['background', 'foreground']) {
      expectRevealRefusal(
        await call('ax_click_at', {
          x: x + Math.round(w / 2),
          y: y + Math.round(h / 2),
          delivery_mode,
        }),
      );
    }
    expectRevealRefusal(
      await call('ax_set_value', { query: 'checkbox:Show passphrase', value: 'true' }),
    );
    const wf = await run.session.call('ax_workflow', {
      steps: [{ tool: 'ax_click', args: { app: run.app.pid, query: 'checkbox:Show passphrase' } }],
    });
    expect(wf.isError, wf.text).toBe(true);
    expect(wf.text).toMatch(/s1 \(ax_click\): .*plain view/);
    await expectUntouched(from);
    const value = await call('ax_get_value', { query: 'Password' });
    expect(value.text).not.toContain('hunter2-secret');
  });

  it('Space, Return or its Alt mnemonic while it has the focus', async () => {
    expectRevealRefusal(await call('ax_key_press', { key: 'alt+s' }));
    await focusPassword();
    const tab = events().length;
    expect((await call('ax_key_press', { key: 'Tab' })).isError).toBe(false);
    await waitFor((e) => e.event === 'focus' && e.widget === 'show', tab);
    for (const key of ['space', 'Return']) {
      expectRevealRefusal(await call('ax_key_press', { key }));
    }
    await expectUntouched(from);
  });
});
