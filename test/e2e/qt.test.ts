/**
 * Qt apps on a real headless desktop, through the MCP SDK client: FeatherPad (Qt 5, Debian
 * featherpad) and qt6ct (Qt 6, Debian qt6ct). Oracles outside our own summary: /proc (the
 * app still runs after every walk: Qt's bridge used to die on Properties.GetAll), the X
 * server's window list (xwininfo, another client: positions and dialogs), and the file
 * FeatherPad itself writes to disk when it saves (typing and set_value).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Session } from '../../src/harness/session.js';
import { allPresent, describeNeeding, program } from './helpers/needs.js';
import { readApp } from './helpers/oracle.js';

let session: Session;
let home: string;
/** Every app pid the tests started, stopped by pid at the end whatever happened. */
const started = new Set<number>();

const FEATHERPAD = program('featherpad', 'featherpad');
const QT6CT = program('qt6ct', 'qt6ct');

beforeAll(async () => {
  if (!allPresent([FEATHERPAD])) return;
  // A fresh home: no FeatherPad settings or session of the user's.
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-qt-home-'));
  session = await Session.start({
    serverEnv: {
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_DATA_HOME: path.join(home, '.local', 'share'),
    },
  });
}, 60_000);

afterAll(async () => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  await session?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

/** Running, per /proc (a crashed app is gone or a zombie). */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]);
  } catch {
    return false;
  }
}

/** Top-level X windows with a name: name → geometry, from xwininfo (not our code). */
function xWindows(): Map<string, { x: number; y: number; w: number; h: number }> {
  const out = execFileSync('xwininfo', ['-root', '-tree'], {
    env: session.desktop.processEnv() as NodeJS.ProcessEnv,
    encoding: 'utf8',
  });
  const map = new Map<string, { x: number; y: number; w: number; h: number }>();
  // e.g.:  0x1000007 "About FeatherPad": ("featherpad" "FeatherPad")  400x312+0+0  +439+231
  for (const m of out.matchAll(
    /0x[0-9a-f]+ "([^"]+)": \([^)]*\)\s+(\d+)x(\d+)[+-]\d+[+-]\d+\s+\+(-?\d+)\+(-?\d+)/g,
  )) {
    map.set(m[1], { w: Number(m[2]), h: Number(m[3]), x: Number(m[4]), y: Number(m[5]) });
  }
  return map;
}

async function waitUntil(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function textFile(name: string, text: string): string {
  const file = path.join(home, name);
  fs.writeFileSync(file, text);
  return file;
}

/** Launches through ax_launch_app and returns the app's pid. */
async function launch(command: string[]): Promise<number> {
  const r = await session.call('ax_launch_app', { command });
  expect(r.isError, r.text).toBe(false);
  const launched = r.structured.launched as { app_pid: number; pid: number };
  started.add(launched.app_pid);
  started.add(launched.pid);
  return launched.app_pid;
}

/** The tree file of an ax_get_tree call. */
function treeOf(text: string): string {
  const file = /^file: (\S+)/m.exec(text)?.[1];
  expect(file, text).toBeTruthy();
  return fs.readFileSync(file as string, 'utf8');
}

describeNeeding([FEATHERPAD], 'Qt 5: FeatherPad', () => {
  it('registers three instances started one after another, and each survives its walks', async () => {
    const pids: number[] = [];
    for (let i = 0; i < 3; i++) {
      // -s: a standalone process; without it FeatherPad hands off to the running one.
      pids.push(await launch(['featherpad', '-s', textFile(`three-${i}.txt`, `instance ${i}\n`)]));
    }
    expect(new Set(pids).size).toBe(3);
    for (const [i, pid] of pids.entries()) {
      for (let walk = 0; walk < 2; walk++) {
        const r = await session.call('ax_get_tree', { app: pid });
        expect(r.isError, r.text).toBe(false);
        const tree = treeOf(r.text);
        expect(tree).toContain(`instance ${i}`);
        expect(tree).toMatch(/\[AXMenuBar/);
      }
    }
    for (const pid of pids) expect(alive(pid), `pid ${pid} still runs`).toBe(true);
    const listed = await session.call('ax_list_apps', {});
    for (const pid of pids) expect(treeOf(listed.text)).toContain(String(pid));
  }, 110_000);

  it('hands a second plain launch off to the running instance', async () => {
    const first = await launch(['featherpad', textFile('handoff.txt', 'first\n')]);
    const r = await session.call('ax_launch_app', { command: ['featherpad'] });
    expect(r.isError, r.text).toBe(false);
    const launched = r.structured.launched as {
      app_pid: number;
      pid: number;
      handed_off: boolean;
    };
    started.add(launched.pid);
    expect(launched.handed_off).toBe(true);
    expect(launched.app_pid).toBe(first);
    await waitUntil('the handing-off process exits', () => !alive(launched.pid));
    expect(alive(first)).toBe(true);
  }, 60_000);

  it('walks with positions the X server agrees with', async () => {
    const file = textFile('positions.txt', 'where am I\n');
    const pid = await launch(['featherpad', '-s', file]);
    const r = await session.call('ax_get_tree', { app: pid });
    const tree = treeOf(r.text);
    const win = /\[AXWindow \(frame\)\] "([^"]+)" e\d+ x:(\d+) y:(\d+) w:(\d+) h:(\d+)/.exec(tree);
    expect(win, tree).toBeTruthy();
    const [, title, x, y, w, h] = win as RegExpExecArray;
    const x11 = xWindows().get(title);
    expect(x11, `X window "${title}"`).toBeDefined();
    expect({ x: Number(x), y: Number(y), w: Number(w), h: Number(h) }).toEqual(x11);
    // The editor lies inside its window, with a size.
    const editor =
      /\[AXTextArea \(text\)\] "where am I\\n" e\d+ x:(\d+) y:(\d+) w:(\d+) h:(\d+)/.exec(tree);
    expect(editor, tree).toBeTruthy();
    const [ex, ey, ew, eh] = (editor as RegExpExecArray).slice(1).map(Number);
    expect(ew).toBeGreaterThan(0);
    expect(eh).toBeGreaterThan(0);
    expect(ex).toBeGreaterThanOrEqual(Number(x));
    expect(ey).toBeGreaterThanOrEqual(Number(y));
    expect(ex + ew).toBeLessThanOrEqual(Number(x) + Number(w));
    expect(ey + eh).toBeLessThanOrEqual(Number(y) + Number(h));
    expect(r.text).not.toMatch(/no position/);
    // Qt's rich-text tool tips read as plain text (the word-count button, the tab's path).
    expect(tree).not.toMatch(/<p style/);
    expect(tree).toMatch(/"Calculate number of words/);
  }, 60_000);

  it('types into the editor and set_value replaces its text: FeatherPad saves both to disk', async () => {
    const file = textFile('typed.txt', 'first line\n');
    const pid = await launch(['featherpad', '-s', file]);
    const typed = await session.call('ax_type', {
      app: pid,
      query: 'role:textarea',
      text: 'typed by axpage ',
    });
    expect(typed.isError, typed.text).toBe(false);
    const save = await session.call('ax_key_press', { app: pid, key: 'ctrl+s' });
    expect(save.isError, save.text).toBe(false);
    await waitUntil('the typed text on disk', () =>
      fs.readFileSync(file, 'utf8').includes('typed by axpage'),
    );
    expect(fs.readFileSync(file, 'utf8')).toContain('first line');

    const set = await session.call('ax_set_value', {
      app: pid,
      query: 'role:textarea',
      value: 'all new text\n',
    });
    expect(set.isError, set.text).toBe(false);
    await session.call('ax_key_press', { app: pid, key: 'ctrl+s' });
    await waitUntil('the new text on disk', () =>
      fs.readFileSync(file, 'utf8').startsWith('all new text'),
    );
    expect(fs.readFileSync(file, 'utf8')).not.toContain('first line');
    expect(alive(pid)).toBe(true);
  }, 60_000);

  it('scrolls the editor in the background (its scroll bar as pyatspi reads it)', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => `line ${i}`).join('\n');
    const pid = await launch(['featherpad', '-s', textFile('scroll.txt', lines)]);
    const shownBar = async () =>
      (await readApp(session, pid)).find(
        (e) =>
          e.role === 'scroll bar' && !!e.extents && e.extents[2] > 0 && e.extents[3] > e.extents[2],
      );
    const before = await shownBar();
    expect(before?.value).toBe(0);
    const r = await session.call('ax_scroll', {
      app: pid,
      query: 'role:textarea',
      direction: 'down',
      amount: 40,
    });
    expect(r.isError, r.text).toBe(false);
    expect((await shownBar())?.value).toBe(40);
    // Qt's text-edit scroll bar counts lines: the summary says steps, not pixels.
    expect(r.text).toMatch(/down by 40 steps \(scroll bar 0 -> 40 of/);
    expect(alive(pid)).toBe(true);
  }, 60_000);

  it('opens a menu and the About dialog in the background, then closes the dialog', async () => {
    const pid = await launch(['featherpad', '-s', textFile('about.txt', 'about\n')]);
    const menu = await session.call('ax_click', { app: pid, query: 'menuitem:Help' });
    expect(menu.isError, menu.text).toBe(false);
    expect(xWindows().has('About FeatherPad')).toBe(false);
    const about = await session.call('ax_click', { app: pid, query: 'menuitem:About' });
    expect(about.isError, about.text).toBe(false);
    await waitUntil('the About window on the X server', () => xWindows().has('About FeatherPad'));
    expect(about.text).toMatch(/dialog: AXWindow "About FeatherPad"/);
    const close = await session.call('ax_click', { app: pid, query: 'button:Close' });
    expect(close.isError, close.text).toBe(false);
    await waitUntil('the About window gone', () => !xWindows().has('About FeatherPad'));
    expect(alive(pid)).toBe(true);
  }, 60_000);
});

describeNeeding([FEATHERPAD, QT6CT], 'Qt 6: qt6ct', () => {
  it('registers, is walked with positions, and takes clicks and set_value in the background', async () => {
    const pid = await launch(['qt6ct']);
    const r = await session.call('ax_get_tree', { app: pid });
    expect(r.isError, r.text).toBe(false);
    const tree = treeOf(r.text);
    expect(tree).toMatch(/\[AXTabGroup[^\n]*x:\d+ y:\d+ w:[1-9]/);
    expect(tree).toMatch(/"Appearance"/);
    expect(alive(pid)).toBe(true);

    // Background click (a tab, a check box, a button) and set_value (a spin box): qt6ct
    // writes what it was set to into its own config file on Apply.
    const conf = path.join(home, '.config', 'qt6ct', 'qt6ct.conf');
    fs.rmSync(conf, { force: true });
    for (const [tool, args] of [
      ['ax_click', { query: 'Interface' }],
      ['ax_set_value', { query: '400 ms', value: '600' }],
      ['ax_click', { query: 'checkbox:Show shortcut underlines' }],
      ['ax_click', { query: 'button:Apply' }],
    ] as const) {
      const step = await session.call(tool, { app: pid, ...args });
      expect(step.isError, step.text).toBe(false);
    }
    await waitUntil('qt6ct.conf written', () => fs.existsSync(conf));
    const written = fs.readFileSync(conf, 'utf8');
    expect(written).toMatch(/^double_click_interval=600$/m);
    // It was checked (qt6ct's default): the click unchecked it.
    expect(written).toMatch(/^underline_shortcut=0$/m);
  }, 60_000);
});
