/**
 * Chromium's web content end to end: Debian's chromium on a local page
 * (test/fixtures/web/chromium-form.html) that reports its own state in its title. The
 * oracle is the window title the window manager holds (_NET_WM_NAME, read with xprop),
 * which Chromium sets from the page's document.title: not axpage's own read-back.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type LaunchedBrowser } from '../../src/harness/browser.js';
import { packageRoot, Session } from '../../src/harness/session.js';
import { procStat } from '../../src/desktop/procs.js';

const PAGE = pathToFileURL(
  path.join(packageRoot(), 'test', 'fixtures', 'web', 'chromium-form.html'),
).href;

let session: Session;
let chromium: LaunchedBrowser;
let pid: number;

/** The page's own report, as the title of Chromium's window (read with xprop by pid). */
function pageReport(): string {
  const env = session.desktop.processEnv() as Record<string, string>;
  const xprop = (args: string[]): string => execFileSync('xprop', args, { env, encoding: 'utf8' });
  const ids = xprop(['-root', '_NET_CLIENT_LIST']).match(/0x[0-9a-f]+/g) ?? [];
  for (const id of ids) {
    const props = xprop(['-id', id, '_NET_WM_PID', '_NET_WM_NAME']);
    if (!new RegExp(`_NET_WM_PID\\(CARDINAL\\) = ${pid}\\b`).test(props)) continue;
    const title = /_NET_WM_NAME\(UTF8_STRING\) = "(.*)"/.exec(props)?.[1];
    if (title?.startsWith('clicks=')) return title.replace(/ - Chromium$/, '');
  }
  throw new Error(`no Chromium window of pid ${pid} shows the page's report`);
}

/** Waits (bounded) until the page's report matches `re`: the page reacts asynchronously. */
async function reportMatches(re: RegExp, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last: string;
  for (;;) {
    try {
      last = pageReport();
      if (re.test(last)) return last;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > deadline) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Walks until the page's form is in the tree (the renderer's tree arrives after the window). */
async function walkWithPage(extra: Record<string, unknown> = {}): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await session.call('ax_get_tree', { app: pid, ...extra });
    expect(r.isError, r.text).toBe(false);
    const text = fs.readFileSync(r.fields.file, 'utf8');
    if (text.includes('"Add one"') || Date.now() > deadline) return text;
    await new Promise((res) => setTimeout(res, 500));
  }
}

beforeAll(async () => {
  session = await Session.start();
  await session.client.listTools();
  chromium = await launchChromium(session, PAGE);
  pid = chromium.app.pid;
  await reportMatches(/^clicks=0/, 30_000);
}, 120_000);

afterAll(async () => {
  await chromium?.stop();
  await session?.close();
});

const frameRe = (role: string, name: string): RegExp =>
  new RegExp(
    `^\\s*\\[${role} \\([^)]*\\)\\] "${name}"[^\\n]* x:(\\d+) y:(\\d+) w:(\\d+) h:(\\d+)`,
    'm',
  );

describe('Chromium web content', () => {
  it('walks the page with positions: heading, link, text field, select and its options', async () => {
    const text = await walkWithPage({ include_invisible: true });
    const vp = /# viewport: (-?\d+),(-?\d+) (\d+)x(\d+)/.exec(text);
    expect(vp, text.slice(0, 400)).not.toBeNull();
    const [vx, vy, vw, vh] = (vp ?? []).slice(1).map(Number);
    for (const [role, name] of [
      ['AXHeading', 'Chromium form'],
      ['AXLink', 'Second section'],
      ['AXTextField', 'Your name'],
      ['AXComboBox', 'Color'],
      ['AXCheckBox', 'I agree'],
      ['AXButton', 'Add one'],
    ] as const) {
      const m = frameRe(role, name).exec(text);
      expect(m, `${role} "${name}" with a frame`).not.toBeNull();
      const [x, y, w, h] = (m ?? []).slice(1).map(Number);
      // Inside the window, below its toolbar: page content, placed on screen.
      expect(w).toBeGreaterThan(0);
      expect(h).toBeGreaterThan(0);
      expect(x).toBeGreaterThanOrEqual(vx);
      expect(y).toBeGreaterThan(vy + 40);
      expect(x + w).toBeLessThanOrEqual(vx + vw);
      expect(y + h).toBeLessThanOrEqual(vy + vh);
    }
    // All three options of the select are in the tree, the chosen one selected.
    for (const option of ['Red', 'Green', 'Blue']) {
      expect(text).toMatch(new RegExp(`\\[AXMenuItem \\(menu item\\)\\] "${option}"`));
    }
    expect(text).toMatch(/\[AXMenuItem \(menu item\)\] "Red"[^\n]* selected/);
    // Containers' texts of embedded-object characters only are not shown as names or values.
    expect(text).not.toMatch(/"\uFFFC+"/);
    // Chromium's action names are read (GetActions alone gives empty ones).
    const attrs = await session.call('ax_get_attributes', { app: pid, query: 'Add one' });
    expect(attrs.text).toMatch(/^\s*actions: [^\n]*\bpress\b/m);
  });

  it('clicks a button in the background through its press action', async () => {
    const before = pageReport();
    expect(before).toMatch(/clicks=0/);
    const r = await session.call('ax_click', { app: pid, query: 'Add one' });
    expect(r.isError, r.text).toBe(false);
    expect(r.fields.route).toMatch(/ax delivery: background/);
    expect(await reportMatches(/clicks=1/)).toMatch(/clicks=1/);
  });

  it('checks a check box and follows a link in the background', async () => {
    const a = await session.call('ax_click', { app: pid, query: 'I agree' });
    expect(a.isError, a.text).toBe(false);
    expect(await reportMatches(/agree=true/)).toMatch(/agree=true/);
    const b = await session.call('ax_set_value', { app: pid, query: 'I agree', value: 'false' });
    expect(b.isError, b.text).toBe(false);
    expect(await reportMatches(/agree=false/)).toMatch(/agree=false/);
    const c = await session.call('ax_click', { app: pid, query: 'Second section' });
    expect(c.isError, c.text).toBe(false);
    expect(await reportMatches(/hash=second/)).toMatch(/hash=second/);
  });

  it("scrolls the page in the background through the document's scroll actions", async () => {
    // The link above jumped down to its section: the page is scrolled.
    expect(await reportMatches(/scrolled=true/)).toMatch(/scrolled=true/);
    const up = await session.call('ax_scroll', { app: pid, direction: 'up', amount: 2000 });
    expect(up.isError, up.text).toBe(false);
    expect(up.fields.route).toMatch(/ax delivery: background/);
    expect(await reportMatches(/scrolled=false/)).toMatch(/scrolled=false/);
    const down = await session.call('ax_scroll', { app: pid, direction: 'down' });
    expect(down.isError, down.text).toBe(false);
    expect(await reportMatches(/scrolled=true/)).toMatch(/scrolled=true/);
    await session.call('ax_scroll', { app: pid, direction: 'up' });
    expect(await reportMatches(/scrolled=false/)).toMatch(/scrolled=false/);
  });

  it("selects an option of a select through the option's select action", async () => {
    const r = await session.call('ax_click', { app: pid, query: 'Blue' });
    expect(r.isError, r.text).toBe(false);
    expect(await reportMatches(/color=blue/)).toMatch(/color=blue/);
  });

  it('types into a text field with key events and confirms it by read-back', async () => {
    const r = await session.call('ax_type', {
      app: pid,
      query: 'Your name',
      text: 'Ada',
      delivery_mode: 'foreground',
    });
    expect(r.isError, r.text).toBe(false);
    expect(r.fields.route).toMatch(/effect: confirmed/);
    expect(await reportMatches(/name=Ada /)).toMatch(/name=Ada /);
    const v = await session.call('ax_get_value', { app: pid, query: 'Your name' });
    expect(v.text).toContain("'Ada'");
  });

  it('says background typing cannot reach a web field and types nothing', async () => {
    const before = pageReport();
    const r = await session.call('ax_type', { app: pid, query: 'Your name', text: 'XYZ' });
    expect(r.isError, r.text).toBe(true);
    expect(r.text).toMatch(/cannot type in the background/);
    expect(r.text).toMatch(/delivery_mode: "foreground"/);
    // A walk of the page after the refusal: the browser has handled anything sent before.
    await walkWithPage();
    expect(pageReport()).toBe(before);
    const set = await session.call('ax_set_value', { app: pid, query: 'Your name', value: 'Q' });
    expect(set.isError, set.text).toBe(true);
    expect(set.text).toMatch(/cannot set the text in the background/);
    expect(pageReport()).toBe(before);
  });

  it('resolves the app as users type its name', async () => {
    for (const name of ['chromium', 'Chromium']) {
      const r = await session.call('ax_get_tree', { app: name });
      expect(r.isError, r.text).toBe(false);
      expect(r.fields.pid).toBe(String(pid));
    }
  });

  it('walks the browser repeatedly without harming it', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await session.call('ax_get_tree', { app: pid, include_invisible: i % 2 === 0 });
      expect(r.isError, r.text).toBe(false);
    }
    const st = procStat(pid);
    expect(st && st.state !== 'Z').toBe(true);
    expect(pageReport()).toMatch(/^clicks=1 /);
  });
});
