/**
 * Firefox ESR (Gecko's ATK bridge) end to end: repeated walks keep the browser alive, the
 * page is in the first walk, and clicks and typing in the background reach the page.
 *
 * The oracle is the page itself (test/fixtures/web/form.html): every change it sees is
 * written into document.title, which Firefox puts in its X11 window title, read here with
 * xprop (not through AT-SPI, not through our summary).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { allPresent, describeNeeding, file } from './helpers/needs.js';

import type { LaunchedApp } from '../../src/desktop/apps.js';
import { pollUntil, procStat } from '../../src/desktop/procs.js';
import { FIREFOX, launchFirefox, type LaunchedBrowser } from '../../src/harness/browser.js';
import { packageRoot, Session, type CallResult } from '../../src/harness/session.js';

const PAGE = path.join(packageRoot(), 'test', 'fixtures', 'web', 'form.html');
const FIREFOX_NEED = file(FIREFOX, 'firefox-esr');
const haveFirefox = allPresent([FIREFOX_NEED]);

let session: Session;
let browser: LaunchedBrowser;
let firefox: LaunchedApp;

const alive = (pid: number): boolean => {
  const st = procStat(pid);
  return st !== null && st.state !== 'Z' && st.state !== 'X';
};

function x(args: string[]): string {
  return execFileSync('xprop', args, {
    env: { ...process.env, ...session.desktop.env },
    encoding: 'utf8',
    timeout: 10_000,
  });
}

/** Titles of the X11 windows of `pid`, as the window manager lists them. */
function windowTitles(pid: number): string[] {
  const list = x(['-root', '_NET_CLIENT_LIST']).match(/0x[0-9a-f]+/gi) ?? [];
  const titles: string[] = [];
  for (const id of list) {
    const props = x(['-id', id, '_NET_WM_PID', '_NET_WM_NAME']);
    if (!new RegExp(`_NET_WM_PID\\(CARDINAL\\) = ${pid}\\b`).test(props)) continue;
    const name = /_NET_WM_NAME\(UTF8_STRING\) = "(.*)"/.exec(props)?.[1];
    if (name !== undefined) titles.push(name);
  }
  return titles;
}

/** Waits until one of Firefox's windows is titled `title` (the page's own report). */
async function pageSays(title: string): Promise<void> {
  await pollUntil(() => windowTitles(firefox.pid).some((t) => t.startsWith(title)) || null, {
    timeoutMs: 10_000,
    what: `a Firefox window titled "${title}" (titles: ${windowTitles(firefox.pid).join(' | ')})`,
  });
}

function lineOf(r: CallResult, pattern: RegExp): string {
  const text = fs.readFileSync(r.fields.file, 'utf8');
  const line = text.split('\n').find((l) => pattern.test(l));
  if (!line) throw new Error(`no line matches ${pattern} in ${r.fields.file}:\n${text}`);
  return line;
}

beforeAll(async () => {
  if (!haveFirefox) return;
  session = await Session.start();
  browser = await launchFirefox(session, `file://${PAGE}?items=60`);
  firefox = browser.app;
}, 120_000);

afterAll(async () => {
  await browser?.stop();
  await session?.close();
});

describeNeeding([FIREFOX_NEED], 'Firefox ESR', () => {
  it('has the page in the first walk, with positions and action names', async () => {
    const r = await session.call('ax_get_tree', { app: firefox.pid });
    expect(r.isError, r.text).toBe(false);
    expect(alive(firefox.pid)).toBe(true);
    const button = lineOf(r, /\[AXButton \(push button\)\] "Press me"/);
    expect(button).toMatch(/ x:\d+ y:\d+ w:[1-9]\d* h:[1-9]\d* /);
    lineOf(r, /\(link\)\] "Go to anchor"/);
    const details = await session.call('ax_get_attributes', {
      app: firefox.pid,
      query: 'link:Go to anchor',
    });
    expect(details.isError, details.text).toBe(false);
    expect((details.structured.attributes as { actions?: string[] }).actions).toEqual(['jump']);
    lineOf(r, /\(entry\)\] "Name"/);
    // Gecko's GetActions reply carried its key binding (";;") as every action's name.
    const file = fs.readFileSync(r.fields.file, 'utf8');
    expect(file).not.toMatch(/actions:";;"/);
    // Text as shown: no padding after emoji, no placeholders for child elements.
    expect(lineOf(r, /"Emoji and surrogates/)).toMatch(/😀🎉👍🏽 𝔘𝔫𝔦𝔠𝔬𝔡𝔢/);
    expect(file).not.toMatch(/\\ufeff|\uFFFC/);
  });

  it('resolves the browser by the names users type (firefox, firefox-esr)', async () => {
    for (const name of ['firefox', 'firefox-esr']) {
      const r = await session.call('ax_get_tree', { app: name, max_depth: 1 });
      expect(r.isError, r.text).toBe(false);
      expect(r.fields.pid).toBe(String(firefox.pid));
    }
  });

  it('walks the browser repeatedly and Firefox stays alive', async () => {
    for (let i = 0; i < 10; i++) {
      const r = await session.call('ax_get_tree', { app: firefox.pid, include_invisible: true });
      expect(r.isError, r.text).toBe(false);
      expect(alive(firefox.pid), `Firefox died during walk ${i + 1}`).toBe(true);
      // The select's options (collapsed: not showing), with their emoji.
      lineOf(r, /\[AXMenuItem \(menu item\)\] "Banana 🍌"/);
      // A read of the long, emoji-laden paragraph and of the details (actions with keys).
      const details = await session.call('ax_get_attributes', {
        app: firefox.pid,
        query: 'button:Press me',
      });
      expect(details.isError, details.text).toBe(false);
      expect(alive(firefox.pid), `Firefox died after the details read ${i + 1}`).toBe(true);
    }
  }, 240_000);

  it('clicks a button in the background through the action Gecko offers', async () => {
    const r = await session.call('ax_click', { app: firefox.pid, query: 'button:Press me' });
    expect(r.isError, r.text).toBe(false);
    await pageSays('pressed');
  });

  it('checks a checkbox and follows a link', async () => {
    const c = await session.call('ax_click', { app: firefox.pid, query: 'checkbox:I agree' });
    expect(c.isError, c.text).toBe(false);
    await pageSays('agree=true');
    const l = await session.call('ax_click', { app: firefox.pid, query: 'link:Go to anchor' });
    expect(l.isError, l.text).toBe(false);
    await pageSays('hash=#clicked-link');
  });

  it('picks a select option in the background', async () => {
    const r = await session.call('ax_click', { app: firefox.pid, query: 'menuitem:Cherry' });
    expect(r.isError, r.text).toBe(false);
    await pageSays('fruit=Cherry');
  });

  it('refuses background typing and set_value in a web page instead of reporting success', async () => {
    const t = await session.call('ax_type', {
      app: firefox.pid,
      query: 'textfield:Name',
      text: 'lost',
    });
    expect(t.isError, t.text).toBe(true);
    expect(t.text).toMatch(/ignores text edits/);
    const v = await session.call('ax_set_value', {
      app: firefox.pid,
      query: 'textfield:Name',
      value: 'lost',
    });
    expect(v.isError, v.text).toBe(true);
    expect(v.text).toMatch(/ignores text edits/);
    expect(windowTitles(firefox.pid).some((w) => w.includes('lost'))).toBe(false);
  });

  it('types into a web text field with key events, and the page sees the text', async () => {
    const r = await session.call('ax_type', {
      app: firefox.pid,
      query: 'textfield:Name',
      text: 'Ada Lovelace',
      delivery_mode: 'foreground',
    });
    expect(r.isError, r.text).toBe(false);
    await pageSays('name=Ada Lovelace');
  });

  it('scrolls the page with the wheel; in the background it says why it cannot', async () => {
    const args = { app: firefox.pid, query: 'AXWebArea nth:1', direction: 'down' };
    // Gecko's scroll panes expose no scroll bars with values: nothing to set in the background.
    const bg = await session.call('ax_scroll', { ...args, amount: 300 });
    expect(bg.isError, bg.text).toBe(true);
    expect(bg.text).toMatch(/delivery_mode: "foreground"/);
    const r = await session.call('ax_scroll', {
      ...args,
      amount: 300,
      delivery_mode: 'foreground',
    });
    expect(r.isError, r.text).toBe(false);
    await pageSays('scrolled=true');
  });
});
