/**
 * Acting end to end: real fixture apps that print their own state changes (the external
 * oracle), driven through `axpage serve` over stdio by the MCP SDK's client.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session, type CallResult } from '../../src/harness/session.js';
import { eventsOf } from './helpers/oracle.js';

let session: Session;
let form: LaunchedApp;

beforeAll(async () => {
  session = await Session.start();
  await session.client.listTools();
  form = await session.launchFixture('form.py');
});

afterAll(async () => {
  await session?.close();
});

function refIn(r: CallResult, pattern: RegExp): string {
  const text = fs.readFileSync(r.fields.file, 'utf8');
  const line = text.split('\n').find((l) => pattern.test(l) && / e[0-9]+ /.test(l));
  if (!line) throw new Error(`no line matches ${pattern} in ${r.fields.file}`);
  return / (e[0-9]+) /.exec(line)?.[1] ?? '';
}

function events(app: LaunchedApp): Array<Record<string, unknown>> {
  return eventsOf(app);
}

describe('clicking', () => {
  it('clicks a button by ref and the app itself reports the click', async () => {
    const tree = await session.call('ax_get_tree', { app: form.pid });
    const ref = refIn(tree, /\[AXButton \(push button\)\] "Submit"/);
    const from = events(form).length;
    const r = await session.call('ax_click', { ref });
    expect(r.isError, r.text).toBe(false);
    await form.output?.waitForEvent((e) => e.event === 'clicked' && e.widget === 'submit', {
      from,
    });
    expect(r.fields.route).toMatch(/route: ax|^ax/);
    expect(r.text).toMatch(/route: ax delivery: background effect: confirmed/);
    expect(r.fields.summary).toMatch(/Clicked \[AXButton\] "Submit"/);
    // The status label changed, and the diff says so as an old -> new text change.
    expect(r.text).toMatch(/text_changes:\n {2}\[AXStaticText\][^\n]*-> 'Submitted'/);
    // A label's text is its name and its value: reported once.
    expect(r.text.match(/-> 'Submitted'/g)).toHaveLength(1);
  });

  it('does not report a handoff to an app that was already in front', async () => {
    const other = await session.launchFixture('dialog.py'); // opens in front of the form
    const r = await session.call('ax_click', { app: form.pid, query: 'button:Submit' });
    expect(r.isError, r.text).toBe(false);
    expect(r.fields.app_switch).toBeUndefined();
    expect(r.fields.pid).toBe(String(form.pid));
    await other.stop();
  });

  it('clicks by query', async () => {
    const from = events(form).length;
    const r = await session.call('ax_click', { app: form.pid, query: 'button:Submit' });
    expect(r.isError, r.text).toBe(false);
    await form.output?.waitForEvent((e) => e.event === 'clicked' && e.widget === 'submit', {
      from,
    });
  });

  it('checks a box and reports the state change in the diff', async () => {
    const from = events(form).length;
    const r = await session.call('ax_click', { app: form.pid, query: 'checkbox:Subscribe' });
    expect(r.isError, r.text).toBe(false);
    const e = await form.output?.waitForEvent((ev) => ev.event === 'toggled', { from });
    expect(e?.active).toBe(true);
    expect(r.fields.summary).toMatch(/1 modified/);
    const file = fs.readFileSync(r.fields.file, 'utf8');
    expect(file).toMatch(
      /^~ \[AXCheckBox \(check box\)\] "Subscribe" e[0-9]+ \| flags: .*checked/m,
    );
  });

  it('keeps refs across an action: the ref from before still names the element after', async () => {
    const tree = await session.call('ax_get_tree', { app: form.pid });
    const ref = refIn(tree, /\[AXCheckBox \(check box\)\] "Subscribe"/);
    const r = await session.call('ax_click', { ref });
    const after = fs.readFileSync(r.fields.file, 'utf8');
    expect(after).toMatch(new RegExp(`\\[AXCheckBox \\(check box\\)\\] "Subscribe" ${ref} `));
  });
});

describe('coordinates and values', () => {
  it('ax_click_at presses what is under a point, in the background and with a real click', async () => {
    const found = await session.call('ax_find', { app: form.pid, query: 'button:Submit' });
    const [x, y] = (found.structured as { position: number[] }).position;
    const [w, h] = (found.structured as { size: number[] }).size;
    for (const mode of ['background', 'foreground']) {
      const from = events(form).length;
      const r = await session.call('ax_click_at', {
        app: form.pid,
        x: x + w / 2,
        y: y + h / 2,
        delivery_mode: mode,
      });
      expect(r.isError, r.text).toBe(false);
      expect(r.text).toContain(`delivery: ${mode}`);
      await form.output?.waitForEvent((e) => e.event === 'clicked' && e.widget === 'submit', {
        from,
      });
    }
  });

  it('ax_set_value sets a check box state and reads it back', async () => {
    const want = !(
      await session.call('ax_get_value', { app: form.pid, query: 'checkbox:Subscribe' })
    ).structured.value
      ?.toString()
      .includes('true');
    const from = events(form).length;
    const r = await session.call('ax_set_value', {
      app: form.pid,
      query: 'checkbox:Subscribe',
      value: String(want),
    });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toMatch(/effect: confirmed/);
    const e = await form.output?.waitForEvent((ev) => ev.event === 'toggled', { from });
    expect(e?.active).toBe(want);
  });
});

describe('typing', () => {
  it('types into an entry and shows old -> new in text_changes', async () => {
    const from = events(form).length;
    await session.call('ax_type', { app: form.pid, query: 'Name', text: 'Ada', clear_first: true });
    const r = await session.call('ax_type', {
      app: form.pid,
      query: 'textfield:Name',
      text: ' Lovelace',
    });
    expect(r.isError, r.text).toBe(false);
    await form.output?.waitForEvent((e) => e.event === 'changed' && e.value === 'Ada Lovelace', {
      from,
    });
    expect(r.text).toMatch(/\[AXTextField\] "Name" e[0-9]+: 'Ada' -> 'Ada Lovelace'/);
    expect(r.text).toMatch(/effect: confirmed/);
    // Typed text is not echoed in the summary line.
    expect(r.fields.summary).not.toContain('Lovelace');
  });

  it('sets a secure field without the value reaching disk or the summary', async () => {
    const secret = 'typed-Secret-991';
    const r = await session.call('ax_type', {
      app: form.pid,
      query: 'Password',
      text: secret,
      clear_first: true,
    });
    expect(r.isError, r.text).toBe(false);
    const e = await form.output?.waitForEvent(
      (ev) => ev.event === 'changed' && ev.widget === 'password',
    );
    expect(e?.length).toBeGreaterThan(0);
    // A password cannot be read back: unverifiable, never a no-op to type again.
    expect(r.text).toMatch(/effect: unverifiable/);
    expect(r.fields.escalation).toBeUndefined();
    expect(r.text).not.toContain(secret);
    for (const f of fs.readdirSync(session.artifactDir)) {
      expect(fs.readFileSync(`${session.artifactDir}/${f}`).includes(Buffer.from(secret))).toBe(
        false,
      );
    }
  });

  it('types with real key events in foreground mode', async () => {
    const from = events(form).length;
    const r = await session.call('ax_type', {
      app: form.pid,
      query: 'Email',
      text: 'A@b.C',
      clear_first: true,
      delivery_mode: 'foreground',
    });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toMatch(/delivery: foreground/);
    await form.output?.waitForEvent(
      (e) => e.event === 'changed' && e.widget === 'email' && e.value === 'A@b.C',
      { from },
    );
    // Fronting the window lets GTK put its own focus back: the text must still land in
    // the named field (here Name, while Email has the focus), and read back as typed.
    const before = String(
      (await session.call('ax_get_value', { app: form.pid, query: 'textfield:Name' })).structured
        .value,
    );
    const next = events(form).length;
    const r2 = await session.call('ax_type', {
      app: form.pid,
      query: 'textfield:Name',
      text: '-fg',
      delivery_mode: 'foreground',
    });
    expect(r2.isError, r2.text).toBe(false);
    expect(r2.text).toMatch(/effect: confirmed/);
    await form.output?.waitForEvent(
      (e) => e.event === 'changed' && e.widget === 'name' && e.value === `${before}-fg`,
      { from: next },
    );
  });
});

describe('keys', () => {
  it('presses a key (Tab moves focus) and an unknown key name is a clear error', async () => {
    const ok = await session.call('ax_key_press', { app: form.pid, key: 'Tab' });
    expect(ok.isError, ok.text).toBe(false);
    const bad = await session.call('ax_key_press', { app: form.pid, key: 'NoSuchKeyName' });
    expect(bad.isError).toBe(true);
    expect(bad.fields.error).toMatch(/NoSuchKeyName/);
    const still = await session.call('ax_get_tree', { app: form.pid });
    expect(still.isError).toBe(false);
  });
});

describe('validation before the click', () => {
  it('a click with a bad key name or untypeable text clicks nothing', async () => {
    const from = events(form).length;
    const badKey = await session.call('ax_click', {
      app: form.pid,
      query: 'button:Submit',
      key: 'NoSuchKeyName',
    });
    expect(badKey.isError).toBe(true);
    expect(badKey.fields.error).toMatch(/'NoSuchKeyName' is not a key name/);
    const badText = await session.call('ax_click', {
      app: form.pid,
      query: 'button:Submit',
      text: 'a\u0007',
    });
    expect(badText.isError).toBe(true);
    expect(badText.fields.error).toMatch(/U\+0007/);
    // A marker action: its event comes after anything the refused calls could have caused.
    const marker = await session.call('ax_click', { app: form.pid, query: 'checkbox:Subscribe' });
    expect(marker.isError, marker.text).toBe(false);
    const toggled = await form.output?.waitForEvent((e) => e.event === 'toggled', { from });
    const all = events(form);
    const between = all.slice(from, all.indexOf(toggled as Record<string, unknown>));
    expect(between.filter((e) => e.widget === 'submit')).toEqual([]);
  });
});

describe('scrolling', () => {
  it('scrolls a long list and reports moved rows, not floods of added/removed', async () => {
    const list = await session.launchFixture('long_list.py');
    const before = await session.call('ax_get_tree', { app: list.pid });
    expect(before.isError, before.text).toBe(false);
    const r = await session.call('ax_scroll', { app: list.pid, direction: 'down', amount: 300 });
    expect(r.isError, r.text).toBe(false);
    const file = fs.readFileSync(r.fields.file, 'utf8');
    const added = (file.match(/^\+ /gm) ?? []).length;
    const removed = (file.match(/^- /gm) ?? []).length;
    const moved = (file.match(/^~ moved /gm) ?? []).length;
    expect(moved).toBeGreaterThan(5);
    expect(added).toBe(0);
    expect(removed).toBe(0);
    await list.stop();
  });
});

describe('dialogs and handoff', () => {
  it('a modal dialog scopes the viewport; pressing its button closes it', async () => {
    const app = await session.launchFixture('dialog.py');
    const r = await session.call('ax_click', { app: app.pid, query: 'button:Open Dialog' });
    expect(r.isError, r.text).toBe(false);
    expect(r.fields.dialog).toMatch(/"Confirm"/);
    const visible = r.lists.visible_elements ?? [];
    expect(visible.some((l) => l.includes('"Behind"'))).toBe(false);
    expect(visible.some((l) => /"OK"/.test(l))).toBe(true);
    const ok = await session.call('ax_click', { app: app.pid, query: 'button:OK' });
    expect(ok.isError, ok.text).toBe(false);
    expect(ok.fields.dialog).toBeUndefined();
    await app.output?.waitForEvent((e) => e.event === 'response' && e.response === 'ok');
    await app.stop();
  });

  it('a dialog opened by a key press is seen by the same call (settle, not sleep)', async () => {
    const app = await session.launchFixture('dialog.py');
    // Focus the button without pressing it, then press it with the keyboard.
    const tree = await session.call('ax_get_tree', { app: app.pid });
    expect(tree.isError, tree.text).toBe(false);
    const r0 = await session.call('ax_click', {
      app: app.pid,
      query: 'button:Open Dialog',
      delivery_mode: 'foreground',
    });
    expect(r0.fields.dialog).toMatch(/"Confirm"/);
    await session.call('ax_key_press', { app: app.pid, key: 'Escape' });
    const r = await session.call('ax_key_press', { app: app.pid, key: 'space' });
    expect(r.isError, r.text).toBe(false);
    expect(r.fields.dialog).toMatch(/"Confirm"/);
    expect(r.fields.summary).toMatch(/added/);
    await app.stop();
  });

  it('a button that launches another process hands off to it (app_switch)', async () => {
    const app = await session.launchFixture('launcher.py');
    const r = await session.call('ax_click', { app: app.pid, query: 'button:Launch Child' });
    expect(r.isError, r.text).toBe(false);
    const launched = await app.output?.waitForEvent((e) => e.event === 'launched');
    expect(r.fields.app_switch).toMatch(new RegExp(`\\(PID: ${String(launched?.pid)}\\)`));
    expect(r.fields.app_switch_elements).toMatch(/\d+ total, \d+ visible/);
    expect(fs.readFileSync(r.fields.file, 'utf8')).toMatch(/^# app_switch: zenity/m);
    // Its OK button ends the zenity process: that is the click's effect, not an error.
    const okRef = (r.lists.app_switch_visible_elements ?? [])
      .find((l) => /\[AXButton\] "OK"/.test(l))
      ?.match(/e[0-9]+/)?.[0];
    expect(okRef, r.text).toBeDefined();
    const closed = await session.call('ax_click', { ref: okRef });
    expect(closed.isError, closed.text).toBe(false);
    expect(closed.fields.summary).toMatch(/^The app exited \(zenity, pid [0-9]+\)\. Clicked /);
    expect(closed.text).toMatch(/effect: confirmed/);
    await app.output?.waitForEvent((e) => e.event === 'child-exited');
    await app.stop();
  });
});

describe('errors', () => {
  it('a stale ref is a clear error naming its snapshot; the server stays up', async () => {
    const app = await session.launchFixture('dialog.py');
    const opened = await session.call('ax_click', { app: app.pid, query: 'button:Open Dialog' });
    const okRef = (opened.lists.visible_elements ?? [])
      .find((l) => /"OK"/.test(l))
      ?.match(/e[0-9]+/)?.[0];
    expect(okRef).toBeDefined();
    await session.call('ax_click', { ref: okRef });
    const stale = await session.call('ax_click', { ref: okRef });
    expect(stale.isError).toBe(true);
    expect(stale.fields.error).toMatch(/stale/);
    expect(stale.fields.error).toMatch(/snapshot s[0-9a-z]+/);
    await app.stop();
  });

  it('a ref the server never issued, and a query that matches nothing, say what to do', async () => {
    const unknown = await session.call('ax_click', { ref: 'e999999' });
    expect(unknown.isError).toBe(true);
    expect(unknown.fields.error).toMatch(/never issued/);
    const noBackground = await session.call('ax_click', {
      app: form.pid,
      query: 'button:Submit',
      click_type: 'double',
    });
    expect(noBackground.isError).toBe(true);
    expect(noBackground.fields.escalation).toMatch(/^foreground \(/);
    const none = await session.call('ax_click', {
      app: form.pid,
      query: 'button:Nonexistent Thing',
    });
    expect(none.isError).toBe(true);
    expect(none.fields.error).toMatch(/tried/);
  });

  it('a target that vanished mid-action (the app exited) is a clear error', async () => {
    const app = await session.launchFixture('dialog.py');
    const tree = await session.call('ax_get_tree', { app: app.pid });
    const ref = refIn(tree, /\[AXButton \(push button\)\] "Behind"/);
    await app.stop();
    const r = await session.call('ax_click', { ref });
    expect(r.isError).toBe(true);
    expect(r.fields.error.length).toBeGreaterThan(10);
    const alive = await session.call('ax_list_apps');
    expect(alive.isError).toBe(false);
  });
});
