/**
 * ax_clipboard_read / ax_clipboard_write on a real X server, checked by other processes:
 * what the tool writes, a separate `xclip -o` reads; what `xclip -i` puts there from
 * outside, the tool reads; a ctrl+c in mousepad's text area lands in it. What the clipboard
 * holds after a copy from a password field (our form fixture), and text equal to what was
 * typed into one, comes back masked, and never reaches the session log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';
import { XclipClipboard } from '../../src/platform/linux/clipboard.js';
import { readClipboard, waitForApp } from './helpers/oracle.js';

let session: Session;
let form: LaunchedApp;
let pad: LaunchedApp;
const outsiders: ChildProcess[] = [];

/** The fixture's password (it never prints it); see test/fixtures/apps/form.py. */
const FORM_SECRET = 'hunter2-secret';

beforeAll(async () => {
  session = await Session.start({ serverEnv: { AXPAGE_FIXTURE_SECRET: FORM_SECRET } });
  form = await session.launchFixture('form.py', [], {
    env: { AXPAGE_FIXTURE_SECRET: FORM_SECRET },
  });
  const home = path.join(session.artifactDir, 'home');
  pad = await session.launch('mousepad', ['--disable-server'], {
    name: 'mousepad-clipboard',
    env: {
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, 'config'),
      XDG_DATA_HOME: path.join(home, 'data'),
    },
  });
});

afterAll(async () => {
  for (const p of outsiders) if (p.exitCode === null) p.kill();
  await session?.close();
});

/** Another X client owns the clipboard with `text` (stopped by pid at the end). */
async function putFromOutside(text: string): Promise<void> {
  const child = spawn('xclip', ['-selection', 'clipboard', '-i', '-quiet'], {
    env: session.desktop.processEnv() as Record<string, string>,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  outsiders.push(child);
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
      if (err.includes('Waiting for selection request')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`xclip exited ${code}: ${err}`)));
    child.stdin.end(text);
  });
}

async function clipboardBecomes(want: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  let got = await readClipboard(session);
  while (got !== want && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    got = await readClipboard(session);
  }
  return got;
}

function sessionLogText(): string {
  return fs
    .readdirSync(session.artifactDir)
    .filter((f) => /^session-.*\.jsonl$/.test(f) || f === 'audit.jsonl')
    .map((f) => fs.readFileSync(path.join(session.artifactDir, f), 'utf8'))
    .join('\n');
}

describe('ax_clipboard', () => {
  it('writes text that another process reads with xclip -o', async () => {
    const text = 'written by axpage\nsecond line ünïcode';
    const r = await session.call('ax_clipboard_write', { text });
    expect(r.isError, r.text).toBe(false);
    expect(r.structured.length).toBe([...text].length);
    expect(await clipboardBecomes(text)).toBe(text);
    expect(r.text).not.toContain('written by axpage');
    expect(sessionLogText()).not.toContain('written by axpage');
  });

  it('reads text another process put there', async () => {
    await putFromOutside('put there by xclip');
    const r = await session.call('ax_clipboard_read', {});
    expect(r.isError, r.text).toBe(false);
    expect(r.structured).toMatchObject({ text: 'put there by xclip', length: 18 });
    expect(r.text).toContain("'put there by xclip'");
  });

  it("reads what ctrl+c copied from mousepad's text area", async () => {
    const text = 'copied from mousepad 123';
    const typed = await session.call('ax_type', { app: pad.pid, text });
    expect(typed.isError, typed.text).toBe(false);
    await waitForApp(
      session,
      pad.pid,
      (els) => els.find((e) => e.role === 'text' && e.text === text),
      'the typed text in mousepad',
    );
    const selectAll = await session.call('ax_key_press', { app: pad.pid, key: 'ctrl+a' });
    expect(selectAll.isError, selectAll.text).toBe(false);
    const copy = await session.call('ax_key_press', { app: pad.pid, key: 'ctrl+c' });
    expect(copy.isError, copy.text).toBe(false);
    // Another X client sees the copy: it really is on the clipboard.
    expect(await clipboardBecomes(text)).toBe(text);
    // The app shows nothing new: the clipboard's new text is the copy's effect.
    expect(copy.text).toMatch(/the clipboard took a new text/);
    expect(copy.text).toMatch(/effect: confirmed/);
    const r = await session.call('ax_clipboard_read', {});
    expect(r.structured).toMatchObject({ text, length: text.length });
  });

  it('masks what the clipboard holds after a copy from a password field', async () => {
    const before = 'held before the copy';
    await putFromOutside(before);
    expect(await clipboardBecomes(before)).toBe(before);
    const focus = await session.call('ax_click', {
      app: form.pid,
      query: 'Password',
      delivery_mode: 'foreground',
    });
    expect(focus.isError, focus.text).toBe(false);
    for (const key of ['ctrl+a', 'ctrl+c']) {
      const r = await session.call('ax_key_press', { app: form.pid, key });
      expect(r.isError, r.text).toBe(false);
    }
    // GTK refuses to copy out of a hidden entry (the clipboard keeps what it held); a
    // toolkit that copies would put the password there. Either way it is masked.
    const held = await readClipboard(session);
    expect([before, FORM_SECRET]).toContain(held);
    const r = await session.call('ax_clipboard_read', {});
    expect(r.isError, r.text).toBe(false);
    expect(r.structured.masked).toBe('copied from a password field');
    expect(r.structured.length).toBe([...held].length);
    expect(r.structured.text).toBeUndefined();
    expect(r.text).toMatch(/masked: copied from a password field/);
    for (const secret of [FORM_SECRET, held]) {
      expect(r.text).not.toContain(secret);
      expect(JSON.stringify(r.structured)).not.toContain(secret);
    }
    expect(sessionLogText()).not.toContain(FORM_SECRET);
  });

  it('masks text equal to what was typed into a password field, shows other text', async () => {
    const secret = 'typed-secret-4711';
    const typed = await session.call('ax_type', {
      app: form.pid,
      query: 'Password',
      text: secret,
      clear_first: true,
    });
    expect(typed.isError, typed.text).toBe(false);
    await putFromOutside(secret);
    const masked = await session.call('ax_clipboard_read', {});
    expect(masked.structured).toMatchObject({
      masked: 'typed into a password field',
      length: secret.length,
    });
    expect(masked.text).not.toContain(secret);
    await putFromOutside('nothing secret');
    const plain = await session.call('ax_clipboard_read', {});
    expect(plain.structured).toMatchObject({ text: 'nothing secret' });
    const log = sessionLogText();
    expect(log).not.toContain(secret);
    // The typed call's line says it went to a password field, without even a length.
    const line = log
      .split('\n')
      .map((l) => (l.trim() ? (JSON.parse(l) as Record<string, unknown>) : {}))
      .find((l) => l.tool === 'ax_type' && l.secret === true);
    expect(line?.args).toMatchObject({ text: { masked: 'secret' } });
  });

  it('stops the xclip that owns the clipboard for it on close, by its pid', async () => {
    const clip = new XclipClipboard(session.desktop.processEnv());
    await clip.write('owned by a child of ours');
    const pid = clip.ownerPid;
    expect(pid).toBeDefined();
    expect(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toContain('xclip');
    expect(await clipboardBecomes('owned by a child of ours')).toBe('owned by a child of ours');
    await clip.close();
    const deadline = Date.now() + 5000;
    while (fs.existsSync(`/proc/${pid}`) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(fs.existsSync(`/proc/${pid}`)).toBe(false);
    // With its owner gone the clipboard offers nothing (no clipboard manager here).
    expect(await clip.read()).toBe('');
  });
});
