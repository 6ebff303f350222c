/**
 * A secret copied out of a revealed password field is a secret where it is pasted: full
 * mode, typed text kept for replay (the setting that keeps the most). The login fixture's
 * "Show passphrase" turns its password field into a plain entry; its text is then copied
 * (or dragged) into "User name" by each route a tool sends: Ctrl+V, Shift+Insert, the
 * entries' context menus (Copy, then Paste), a workflow that copies and pastes in one call,
 * a drag of the selected text. The oracle is the fixture's own log: the user name it holds after the
 * paste is the secret (the paste landed). Meanwhile no reply, no file of the artifact dir
 * (tree files, session log, audit log) holds it, ax_get_value answers that "User name" is
 * a password field now, and the screenshot fills it. Text copied from an ordinary field
 * pastes as itself: the taint lasts while the clipboard holds the secret.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session, type CallResult } from '../../src/harness/session.js';
import { readApp, waitForApp } from './helpers/oracle.js';
import { coloursIn, decodePng } from './helpers/pixels.js';

const SECRET = 'Pz7-copied-Secret-unique';

let session: Session;
let app: LaunchedApp;
let results: CallResult[] = [];

beforeAll(async () => {
  session = await Session.start({
    serverEnv: { AXPAGE_MODE: 'full', AXPAGE_RECORD_TEXT: '1' },
  });
}, 120_000);

afterAll(async () => {
  await session?.close();
});

async function call(tool: string, args: Record<string, unknown>): Promise<CallResult> {
  // The workflow's steps and the clipboard tools name no app.
  const own = tool === 'ax_workflow' || tool.startsWith('ax_clipboard');
  const r = await session.call(tool, own ? args : { app: app.pid, ...args });
  results.push(r);
  expect(r.isError, `${tool} ${JSON.stringify(args)}: ${r.text}`).toBe(false);
  return r;
}

/** A fresh login fixture with its password shown in plain text (by the app's own toggle). */
async function revealed(): Promise<void> {
  results = [];
  app = await session.launchFixture('login_dialog.py', [], {
    env: { AXPAGE_FIXTURE_SECRET: SECRET },
  });
  const from = app.output!.events.length;
  await call('ax_click', { query: 'checkbox:Show passphrase' });
  await app.output!.waitForEvent((e) => e.event === 'toggled' && e.active === true, { from });
}

/** The password's text selected and copied with real keys (no tool ever sees it). */
const copySteps = () => [
  { tool: 'ax_click', args: { app: app.pid, query: 'Password', delivery_mode: 'foreground' } },
  { tool: 'ax_key_press', args: { app: app.pid, key: 'ctrl+a' } },
  { tool: 'ax_key_press', args: { app: app.pid, key: 'ctrl+c' } },
];

/** "User name" focused and its text selected, so that a paste replaces it. */
const userSelected = () => [
  { tool: 'ax_click', args: { app: app.pid, query: 'User name', delivery_mode: 'foreground' } },
  { tool: 'ax_key_press', args: { app: app.pid, key: 'ctrl+a' } },
];

/** The app logs the user name it now holds: the secret, so the paste really landed. */
async function userGotSecret(from: number): Promise<void> {
  const got = await app.output!.waitForEvent(
    (e) => e.event === 'changed' && e.widget === 'user' && e.value === SECRET,
    { from, timeoutMs: 15_000 },
  );
  expect(got.value).toBe(SECRET);
}

/** Reads after the paste: the field answers as a password field, its pixels are filled. */
async function readsAfterPaste(): Promise<void> {
  const value = await call('ax_get_value', { query: 'textfield:User name' });
  expect(value.structured.secure).toBe(true);
  expect(value.text).toMatch(/is a password field: its value is never read/);
  const tree = await call('ax_get_tree', { detail: 'full' });
  expect(fs.readFileSync(tree.fields.file, 'utf8')).toMatch(/"User name".* secure/);
  const user = (await readApp(session, app.pid)).find(
    (e) => e.name === 'User name' && e.role === 'text',
  );
  const [x, y, w, h] = user!.extents!;
  const inside = { x: x + 3, y: y + 3, w: w - 6, h: h - 6 };
  const shot = await call('ax_screenshot', { full_screen: true });
  expect(coloursIn(await decodePng(shot.fields.screenshot), { x: 0, y: 0 }, inside)).toBe(1);
}

/** Nothing the server answered or wrote holds the secret, not even its first half. */
function expectNowhere(): void {
  const texts: Array<[string, string]> = results.map((r, i) => [
    `reply ${i}`,
    `${r.text}\n${JSON.stringify(r.structured)}`,
  ]);
  for (const f of fs.readdirSync(session.artifactDir)) {
    const file = path.join(session.artifactDir, f);
    if (fs.statSync(file).isFile()) texts.push([f, fs.readFileSync(file).toString('latin1')]);
  }
  for (const [where, text] of texts) {
    expect(text.includes(SECRET.slice(0, 12)), `${where} holds the secret`).toBe(false);
  }
}

describe('a secret pasted into an ordinary field', () => {
  it('by Ctrl+V, after the copy in a workflow of its own', async () => {
    await revealed();
    await call('ax_workflow', { steps: copySteps() });
    const clip = await call('ax_clipboard_read', {});
    expect(clip.structured.masked).toBe('copied from a password field');
    await call('ax_workflow', { steps: userSelected() });
    const from = app.output!.events.length;
    const paste = await call('ax_key_press', { key: 'ctrl+v' });
    await userGotSecret(from);
    expect(paste.text).toMatch(/Pressed ctrl\+v in \[AXTextField\] "User name"/);
    await readsAfterPaste();
    expectNowhere();
    await app.stop();
  });

  it('by Shift+Insert, copied and pasted in one workflow', async () => {
    await revealed();
    const from = app.output!.events.length;
    await call('ax_workflow', {
      steps: [
        ...copySteps(),
        ...userSelected(),
        { tool: 'ax_key_press', args: { app: app.pid, key: 'shift+Insert' } },
      ],
    });
    await userGotSecret(from);
    await readsAfterPaste();
    expectNowhere();
    await app.stop();
  });

  it("copied and pasted with the entries' context menus", async () => {
    await revealed();
    // Selected with a key, copied with the password entry's own menu item.
    await call('ax_workflow', { steps: copySteps().slice(0, 2) });
    await call('ax_click', {
      query: 'textfield:Password',
      click_type: 'right',
      delivery_mode: 'foreground',
    });
    await call('ax_click', { query: 'menuitem:Copy' });
    const clip = await call('ax_clipboard_read', {});
    expect(clip.structured.masked).toBe('copied from a password field');
    await call('ax_workflow', { steps: userSelected() });
    await call('ax_click', {
      query: 'textfield:User name',
      click_type: 'right',
      delivery_mode: 'foreground',
    });
    const from = app.output!.events.length;
    await call('ax_click', { query: 'menuitem:Paste' });
    await userGotSecret(from);
    await readsAfterPaste();
    expectNowhere();
    await app.stop();
  });

  it("by a drag of the password field's selected text", async () => {
    await revealed();
    await call('ax_workflow', { steps: copySteps().slice(0, 2) });
    // An ordinary text on the clipboard: the drag alone carries the secret.
    await call('ax_clipboard_write', { text: 'nothing secret here' });
    const password = await waitForApp(
      session,
      app.pid,
      (els) => els.find((e) => e.name === 'Password' && e.role === 'text'),
      'the revealed password entry',
    );
    const [x, y, , h] = password.extents!;
    const from = app.output!.events.length;
    await call('ax_drag', {
      from_x: x + 12,
      from_y: y + Math.round(h / 2),
      to_query: 'textfield:User name',
      duration_ms: 600,
    });
    const got = await app.output!.waitForEvent(
      (e) => e.event === 'changed' && e.widget === 'user' && String(e.value).includes(SECRET),
      { from, timeoutMs: 15_000 },
    );
    expect(String(got.value)).toContain(SECRET);
    await readsAfterPaste();
    expectNowhere();
    await app.stop();
  });

  it('text copied from an ordinary field afterwards pastes as itself', async () => {
    await revealed();
    await call('ax_workflow', { steps: copySteps() });
    // "User name" copied over the secret, then pasted back into it: plain text again.
    await call('ax_workflow', {
      steps: [...userSelected(), { tool: 'ax_key_press', args: { app: app.pid, key: 'ctrl+c' } }],
    });
    const clip = await call('ax_clipboard_read', {});
    expect(clip.structured.text, JSON.stringify(clip.structured)).toBe('alice');
    const from = app.output!.events.length;
    await call('ax_type', { query: 'User name', text: 'x', delivery_mode: 'foreground' });
    await app.output!.waitForEvent((e) => e.event === 'changed' && e.widget === 'user', { from });
    await call('ax_key_press', { key: 'ctrl+a' });
    const pasted = await call('ax_key_press', { key: 'ctrl+v' });
    expect(pasted.text).toContain("'alice'");
    const value = await call('ax_get_value', { query: 'textfield:User name' });
    expect(value.structured.value).toBe('alice');
    expectNowhere();
    await app.stop();
  });
});
