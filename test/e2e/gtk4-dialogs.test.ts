/**
 * GTK 4.8 dialogs, which GTK never says show: a GtkAboutDialog (gtk4-widget-factory's
 * About) and a GtkDialog (gtk4-demo's Interactive Dialog). Each is placed where its X
 * window is (xwininfo), named as the dialog, its elements drawn where the tree says
 * (the screenshot's pixels), used in the foreground (pyatspi reads what the app took),
 * and its closing reported while the app shows it acted (its main window's entry, its X
 * window gone).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { pollUntil } from '../../src/desktop/procs.js';
import { Session, type CallResult } from '../../src/harness/session.js';
import { readWindow, waitForApp } from './helpers/oracle.js';
import { coloursIn, framebuffer } from './helpers/pixels.js';
import { allPresent, describeNeeding, file } from './helpers/needs.js';
import { windowList, windowTitled } from './helpers/windows.js';

const FACTORY = file('/usr/bin/gtk4-widget-factory', 'gtk-4-examples');
const DEMO = file('/usr/bin/gtk4-demo', 'gtk-4-examples');
const needs = [FACTORY, DEMO];

let session: Session;
let factory: LaunchedApp;
let demo: LaunchedApp;

beforeAll(async () => {
  if (!allPresent(needs)) return;
  session = await Session.start();
  factory = await session.launch('/usr/bin/gtk4-widget-factory', [], { timeoutMs: 60_000 });
  demo = await session.launch('/usr/bin/gtk4-demo', ['--run=dialog'], { timeoutMs: 60_000 });
}, 150_000);

afterAll(async () => {
  await factory?.stop().catch(() => undefined);
  await demo?.stop().catch(() => undefined);
  await session?.close();
});

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Where X has a window of this title and whether it is viewable (xwininfo, not our code). */
function xWindow(title: string): Box & { viewable: boolean } {
  const out = execFileSync('xwininfo', ['-name', title], {
    env: session.desktop.processEnv() as NodeJS.ProcessEnv,
    encoding: 'utf8',
    timeout: 10_000,
  });
  const num = (label: string): number => {
    const m = new RegExp(`${label}:\\s+(-?\\d+)`).exec(out);
    if (!m) throw new Error(`xwininfo gave no ${label}: ${out}`);
    return Number(m[1]);
  };
  return {
    x: num('Absolute upper-left X'),
    y: num('Absolute upper-left Y'),
    w: num('Width'),
    h: num('Height'),
    viewable: /Map State:\s+IsViewable/.test(out),
  };
}

/**
 * The ref and frame (none when offscreen) of the first element of `role` named `name` in a
 * call's tree file; with `within`, the first whose frame lies in that box.
 */
function element(
  r: CallResult,
  role: string,
  name: string,
  within?: Box,
): { ref: string; frame?: Box } {
  for (const line of fs.readFileSync(r.fields.file, 'utf8').split('\n')) {
    const m = /^\s*\[(\w+) \([^)]*\)\] "([^"]*)"(?: desc:"[^"]*")? (e\d+)(.*)$/.exec(line);
    if (!m || m[1] !== role || m[2] !== name) continue;
    const f = / x:(-?\d+) y:(-?\d+) w:(\d+) h:(\d+)/.exec(m[4]);
    const frame =
      f && !/ offscreen/.test(m[4]) ? { x: +f[1], y: +f[2], w: +f[3], h: +f[4] } : undefined;
    if (within && !(frame && inside(frame, within))) continue;
    return { ref: m[3], frame };
  }
  throw new Error(`no ${role} "${name}" in ${r.fields.file}`);
}

/** Waits until X has no window of this title (xwininfo). */
async function xWindowGone(title: string): Promise<void> {
  // A window that goes away while xwininfo lists the tree fails that listing: ask again.
  const listed = (): string | null => {
    try {
      return windowList(session);
    } catch {
      return null;
    }
  };
  await pollUntil(() => listed()?.includes(`"${title}"`) === false || null, {
    timeoutMs: 30_000,
    what: `no window titled "${title}"`,
  });
}

function inside(a: Box, b: Box): boolean {
  return a.x >= b.x && a.y >= b.y && a.x + a.w <= b.x + b.w && a.y + a.h <= b.y + b.h;
}

/** The screen's pixels in `box` now, as the X server holds them (not axpage's capture). */
function screenPixels(box: Box): Buffer {
  const fb = framebuffer(session.desktop.processEnv() as NodeJS.ProcessEnv);
  const out = Buffer.alloc(box.w * box.h * 3);
  for (let y = 0; y < box.h; y++) {
    const from = ((box.y + y) * fb.width + box.x) * 3;
    fb.data.copy(out, y * box.w * 3, from, from + box.w * 3);
  }
  return out;
}

describeNeeding(needs, 'GTK4 dialogs are placed by their X window', () => {
  it('places the About dialog, shows its elements where drawn, clicks and closes it', async () => {
    const title = 'About GTK Widget Factory';
    const opened = await session.call('ax_key_press', { app: factory.pid, key: 'F1' });
    expect(opened.isError, opened.text).toBe(false);
    await windowTitled(session, title);
    const x = xWindow(title);
    expect(x.viewable).toBe(true);

    const listed = await session.call('ax_list_windows', { app: factory.pid });
    expect(listed.isError, listed.text).toBe(false);
    const line =
      listed.text.split('\n').find((l) => /^\s*\d+: /.test(l) && l.includes(`"${title}"`)) ?? '';
    expect(line, listed.text).not.toMatch(/no frame|minimized|not placed/);
    expect(line).toMatch(/ dialog/);
    const m = /\((-?\d+),(-?\d+) (\d+)x(\d+)\)/.exec(line);
    expect(m, line).not.toBeNull();
    const frame = { x: +m![1], y: +m![2], w: +m![3], h: +m![4] };
    // Its widget inside its X window, within the few pixels of its client-side margin.
    expect(inside(frame, x), `${JSON.stringify(frame)} in ${JSON.stringify(x)}`).toBe(true);
    expect(x.w - frame.w).toBeLessThanOrEqual(64);

    const found = await session.call('ax_find', { app: factory.pid, query: 'Credits' });
    expect(found.isError, found.text).toBe(false);
    expect(found.text).toMatch(new RegExp(`dialog: \\w+ "${title}"`));
    expect(found.text).not.toMatch(/not on screen/);
    // The tab's label is drawn where the tree says: text, not a flat area.
    const label = element(found, 'AXStaticText', 'Credits');
    expect(label.frame, 'the Credits label has a frame').toBeDefined();
    expect(inside(label.frame!, x)).toBe(true);
    const screen = framebuffer(session.desktop.processEnv() as NodeJS.ProcessEnv);
    expect(coloursIn(screen, { x: 0, y: 0 }, label.frame!)).toBeGreaterThan(4);

    const tab = element(found, 'AXRadioButton', 'Credits');
    const clicked = await session.call('ax_click', {
      ref: tab.ref,
      delivery_mode: 'foreground',
    });
    expect(clicked.isError, clicked.text).toBe(false);
    await pollUntil(
      async () => {
        const { elements } = await readWindow(session, factory.pid, title);
        const credits = elements.find((e) => e.role === 'page tab' && e.name === 'Credits');
        return credits?.states.includes('selected') || null;
      },
      { timeoutMs: 30_000, what: 'the Credits tab selected (pyatspi)' },
    );

    const close = element(found, 'AXButton', 'Close', x);
    expect(close.frame).toBeDefined();
    const closed = await session.call('ax_click', { ref: close.ref, delivery_mode: 'foreground' });
    expect(closed.isError, closed.text).toBe(false);
    expect(closed.text).toMatch(new RegExp(`Its window "${title}" closed`));
    await pollUntil(
      async () => !(await readWindow(session, factory.pid, title)).windows.includes(title) || null,
      { timeoutMs: 30_000, what: 'the About dialog gone from the app (pyatspi)' },
    );
    await xWindowGone(title);
  }, 120_000);

  it('types into the Interactive Dialog in the foreground and reports its closing', async () => {
    const title = 'Interactive Dialog';
    const typed = 'typed in the dialog';
    const opened = await session.call('ax_click', {
      app: demo.pid,
      query: 'button:Interactive Dialog',
    });
    expect(opened.isError, opened.text).toBe(false);
    await windowTitled(session, title);
    const x = xWindow(title);
    // The summary after the dialog shows names it.
    const seen = await session.call('ax_find', { app: demo.pid, query: 'textfield:Entry 2' });
    expect(seen.isError, seen.text).toBe(false);
    expect(seen.text).toMatch(new RegExp(`dialog: \\w+ "${title}"`));
    const entry = element(seen, 'AXTextField', 'Entry 2');
    expect(entry.frame, 'the dialog entry has a frame').toBeDefined();
    expect(inside(entry.frame!, x)).toBe(true);

    const before = screenPixels(entry.frame!);
    const r = await session.call('ax_type', {
      ref: entry.ref,
      text: typed,
      delivery_mode: 'foreground',
    });
    expect(r.isError, r.text).toBe(false);
    // The app has the text in the dialog's entry (pyatspi).
    await waitForApp(
      session,
      demo.pid,
      (els) => (els.some((e) => e.name === 'Entry 2' && e.text === typed) ? true : undefined),
      `"${typed}" in the dialog's Entry 2`,
    );
    // The text is drawn where the tree puts the entry.
    await pollUntil(
      () => {
        const after = screenPixels(entry.frame!);
        let differing = 0;
        for (let i = 0; i < before.length; i += 3) {
          if (before[i] !== after[i] || before[i + 1] !== after[i + 1]) differing++;
        }
        return differing > 20 || null;
      },
      { timeoutMs: 30_000, what: 'the typed text drawn in the entry frame' },
    );

    const ok = element(r, 'AXButton', '_OK OK', x);
    const closed = await session.call('ax_click', { ref: ok.ref, delivery_mode: 'foreground' });
    expect(closed.isError, closed.text).toBe(false);
    expect(closed.text).toMatch(new RegExp(`Its window "${title}" closed`));
    // OK copies the dialog's entries into the window's (its second entry has no name).
    await waitForApp(
      session,
      demo.pid,
      (els) =>
        els.some((e) => e.role === 'text' && e.name !== 'Entry 2' && e.text === typed)
          ? true
          : undefined,
      `"${typed}" copied into the Dialogs window`,
    );
    await xWindowGone(title);
  }, 120_000);
});
