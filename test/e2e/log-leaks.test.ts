/**
 * What the logs keep of keys, the clipboard and assertions on a password field, through a
 * real server with typed text kept for replay (AXPAGE_RECORD_TEXT=1, the setting that
 * keeps the most) and the login fixture: a key name the call did not know (a password
 * typed as one) with the password field focused, the clipboard written and read back,
 * and assertions of the password's value. None of them is in any file of the artifact
 * dir or in the viewer's calls, not even as a length for the assertions.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Session } from '../../src/harness/session.js';
import { callsOfLog } from '../../src/view/calls.js';
import { unreplayable, parseLog } from '../../src/cli/replay.js';

const KEY_NAME = 'hunter2pw';
const CLIP = 'Kc4CLIPSECRETq';
const ASSERTED = 'Ax9ASSERTm2';

const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-leaks-')), 'out');
let session: Session;
let pid: number;

beforeAll(async () => {
  session = await Session.start({
    artifactDir: out,
    serverEnv: { AXPAGE_MODE: 'full', AXPAGE_RECORD_TEXT: '1' },
  });
  pid = (await session.launchFixture('login_dialog.py', [], { env: { AXPAGE_FIXTURE_SECRET: '' } }))
    .pid;
}, 120_000);

afterAll(async () => {
  await session?.close();
  fs.rmSync(path.dirname(out), { recursive: true, force: true });
});

function sessionLogText(): string {
  const log = fs.readdirSync(out).find((f) => /^session-.*\.jsonl$/.test(f))!;
  return fs.readFileSync(path.join(out, log), 'utf8');
}

/** Every file of the dir, and the viewer's calls, as one string each. */
function everywhere(): Array<[string, string]> {
  const files = fs
    .readdirSync(out)
    .map((f) => [f, fs.readFileSync(path.join(out, f)).toString('latin1')] as [string, string]);
  return [...files, ['viewer', JSON.stringify(callsOfLog(sessionLogText()))]];
}

it('a key name the call did not know, pressed in a password field, is kept nowhere', async () => {
  const typed = await session.call('ax_click', {
    app: pid,
    query: 'Password',
    delivery_mode: 'foreground',
  });
  expect(typed.isError, typed.text).toBe(false);
  const r = await session.call('ax_key_press', { app: pid, key: KEY_NAME });
  expect(r.isError, r.text).toBe(true);
  for (const [where, text] of everywhere()) expect(text, where).not.toContain(KEY_NAME);
});

it('clipboard text written and read back is kept nowhere, and replay says it cannot put it back', async () => {
  const w = await session.call('ax_clipboard_write', { text: CLIP });
  expect(w.isError, w.text).toBe(false);
  const r = await session.call('ax_clipboard_read', {});
  expect(r.structured.text).toBe(CLIP);
  for (const [where, text] of everywhere()) expect(text, where).not.toContain(CLIP);
  const write = parseLog(sessionLogText()).find((rec) => rec.tool === 'ax_clipboard_write')!;
  expect(unreplayable(write)).toMatch(/clipboard text is never recorded/);
});

it("assertions on the password field's value keep nothing of it, not even its length", async () => {
  for (const assertions of [{ value: ASSERTED }, { contains_text: ASSERTED }]) {
    const r = await session.call('ax_assert', { app: pid, query: 'Password', assertions });
    expect(r.text).toMatch(/checks on/);
  }
  for (const [where, text] of everywhere()) expect(text, where).not.toContain(ASSERTED);
  const asserts = parseLog(sessionLogText()).filter((rec) => rec.tool === 'ax_assert');
  expect(asserts).toHaveLength(2);
  for (const rec of asserts) {
    expect(rec.secret).toBe(true);
    expect(JSON.stringify(rec.args)).not.toMatch(/"length"/);
  }
});
