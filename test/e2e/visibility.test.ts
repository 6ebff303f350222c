/**
 * Visible means on screen, with the screenshot as the referee: what the tree file and the
 * summary list as visible is drawn in the PNG of the same moment, and what the app hides
 * (a notebook's other pages) is not listed. Popups are captured with their window around
 * them. A walk cut short by the app's death says so.
 *
 * Apps: mousepad (a Debian package; its text area sits below a page tab that does not
 * report "showing"), gtk3-widget-factory (a combo box whose list is a top-level popup),
 * and our fixtures notebook.py and big_table.py, which print their own state.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session, type CallResult } from '../../src/harness/session.js';

let session: Session;
let tmp: string;

beforeAll(async () => {
  session = await Session.start();
  await session.client.listTools();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-visibility-'));
});

afterAll(async () => {
  await session?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

interface Line {
  text: string;
  ref: string;
  frame?: Rect;
  visible: boolean;
}

/** The element lines of a tree file (after the header and any diff). */
function treeLines(file: string): Line[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => /^\s*\[AX/.test(l))
    .map((text) => {
      const m = / x:(-?[0-9.]+) y:(-?[0-9.]+) w:([0-9.]+) h:([0-9.]+)/.exec(text);
      return {
        text,
        ref: / (e[0-9]+) /.exec(text)?.[1] ?? '',
        frame: m ? { x: +m[1], y: +m[2], w: +m[3], h: +m[4] } : undefined,
        visible: / visible( |$)/.test(text),
      };
    });
}

function lineFor(lines: Line[], pattern: RegExp): Line {
  const hit = lines.find((l) => pattern.test(l.text));
  if (!hit) throw new Error(`no tree line matches ${pattern}`);
  return hit;
}

/** `# viewport: x,y wxh` of a tree file: where the PNG's top-left is on screen. */
function viewportOf(file: string): Rect {
  const m = /^# viewport: (-?\d+),(-?\d+) (\d+)x(\d+)/m.exec(fs.readFileSync(file, 'utf8'));
  if (!m) throw new Error(`no viewport line in ${file}`);
  return { x: +m[1], y: +m[2], w: +m[3], h: +m[4] };
}

interface Png {
  width: number;
  height: number;
  channels: number;
  data: Buffer;
}

async function readPng(file: string): Promise<Png> {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels, data };
}

/** How many distinct colours the PNG has inside a screen rect (the PNG's top-left at `origin`). */
function coloursIn(png: Png, origin: { x: number; y: number }, r: Rect): number {
  const seen = new Set<number>();
  const x0 = Math.max(0, Math.round(r.x - origin.x));
  const y0 = Math.max(0, Math.round(r.y - origin.y));
  const x1 = Math.min(png.width, Math.round(r.x + r.w - origin.x));
  const y1 = Math.min(png.height, Math.round(r.y + r.h - origin.y));
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * png.width + x) * png.channels;
      seen.add((png.data[i] << 16) | (png.data[i + 1] << 8) | png.data[i + 2]);
    }
  }
  return seen.size;
}

function expectOk(r: CallResult): void {
  expect(r.isError, r.text).toBe(false);
}

describe('geometry decides what is visible', () => {
  it("lists mousepad's text area below its hidden page tab as visible, and the PNG shows its text", async () => {
    const file = path.join(tmp, 'note.txt');
    fs.writeFileSync(
      file,
      Array.from({ length: 12 }, (_, i) => `AXPAGE LINE ${i} MMMMWWWW`).join('\n'),
    );
    const app = await session.launch('mousepad', [file]);
    try {
      const r = await session.call('ax_get_tree', { app: app.pid });
      expectOk(r);
      const lines = treeLines(r.fields.file);
      const text = lineFor(lines, /\(text\)\].*AXPAGE LINE 0/);
      expect(text.visible, text.text).toBe(true);
      expect(text.frame && text.frame.w * text.frame.h).toBeGreaterThan(10_000);
      // The page tab that does not report "showing" stays as the text area's parent.
      expect(lineFor(lines, /\(page tab\)\]/).text).toMatch(/offscreen/);
      // The summary names it among the visible elements.
      expect(r.text).toMatch(new RegExp(`\\[AXTextArea\\][^\\n]* ${text.ref}\\b`));

      const png = await readPng(r.fields.screenshot);
      const origin = viewportOf(r.fields.file);
      expect([png.width, png.height]).toEqual([origin.w, origin.h]);
      // Text drawn: many colours (glyphs, antialiasing) inside the listed frame.
      expect(coloursIn(png, origin, text.frame as Rect)).toBeGreaterThan(8);
    } finally {
      await app.stop();
    }
  });

  it('lists the items of a menu opened from the menu bar as visible, and the PNG shows them', async () => {
    const file = path.join(tmp, 'menu.txt');
    fs.writeFileSync(file, 'menu test\n');
    const app = await session.launch('mousepad', [file]);
    try {
      const tree = await session.call('ax_get_tree', { app: app.pid });
      expectOk(tree);
      const before = treeLines(tree.fields.file);
      const menu = lineFor(before, /\(menu\)\] "File"/);
      // Closed: its items are not on screen, and not listed.
      expect(before.some((l) => /\(menu item\)\] "Quit/.test(l.text))).toBe(false);
      const r = await session.call('ax_click', { ref: menu.ref });
      expectOk(r);
      try {
        const lines = treeLines(r.fields.file);
        const items = lines.filter((l) => /\(menu item\)\] "(New|Open\.\.\.|Quit) *"/.test(l.text));
        expect(items.length).toBeGreaterThanOrEqual(3);
        for (const item of items) expect(item.visible, item.text).toBe(true);
        expect(r.text).toMatch(/\[AXMenuItem\] "(New|Open|Save|Quit)/);
        const png = await readPng(r.fields.screenshot);
        const origin = viewportOf(r.fields.file);
        for (const item of items) {
          expect(coloursIn(png, origin, item.frame as Rect), item.text).toBeGreaterThan(4);
        }
      } finally {
        await session.call('ax_key_press', { app: app.pid, key: 'Escape' });
      }
    } finally {
      await app.stop();
    }
  });

  it('lists the shown notebook page and not the pages stacked behind it', async () => {
    const app = await session.launchFixture('notebook.py', ['1']);
    try {
      // The app's own word for which page it shows.
      const ready = await app.output!.waitForEvent((e) => e.event === 'ready');
      expect(ready.page).toBe(1);
      const r = await session.call('ax_get_tree', { app: app.pid });
      expectOk(r);
      const lines = treeLines(r.fields.file);
      const beta = lineFor(lines, /"Beta button"/);
      expect(beta.visible).toBe(true);
      expect(lines.some((l) => /"(Alpha|Gamma) (button|text)"/.test(l.text))).toBe(false);
      expect(r.text).not.toMatch(/Alpha button|Gamma button/);
      // The tabs of the hidden pages are on screen: they stay.
      expect(lineFor(lines, /"Alpha page"/).visible).toBe(true);

      const png = await readPng(r.fields.screenshot);
      const origin = viewportOf(r.fields.file);
      expect(coloursIn(png, origin, beta.frame as Rect)).toBeGreaterThan(8);
      // The referee can say no: below the page's label nothing is drawn.
      const label = lineFor(lines, /"Beta text"/).frame as Rect;
      const below = { x: label.x, y: label.y + label.h + 20, w: label.w, h: 60 };
      expect(coloursIn(png, origin, below)).toBeLessThanOrEqual(2);

      // Kept on request, and then marked as not visible.
      const all = await session.call('ax_get_tree', { app: app.pid, include_invisible: true });
      expectOk(all);
      const alpha = lineFor(treeLines(all.fields.file), /"Alpha button"/);
      expect(alpha.visible).toBe(false);
    } finally {
      await app.stop();
    }
  });
});

describe('popups in context', () => {
  let factory: LaunchedApp;

  beforeAll(async () => {
    factory = await session.launch('gtk3-widget-factory');
  });

  afterAll(async () => {
    await factory?.stop();
  });

  it('captures an open combo box list with the window around it, not the list alone', async () => {
    const tree = await session.call('ax_get_tree', { app: factory.pid });
    expectOk(tree);
    const combo = lineFor(treeLines(tree.fields.file), /\(combo box\)\] "Middle"/);
    const window = viewportOf(tree.fields.file);
    const r = await session.call('ax_click', { ref: combo.ref });
    expectOk(r);
    try {
      const lines = treeLines(r.fields.file);
      // The list is open: a top-level popup window whose items are visible.
      const popup = lineFor(lines, /^\[AXWindow \(window\)\]/);
      expect(popup.visible).toBe(true);
      const item = lines.find((l) => /\(menu item\)\] "Middle"/.test(l.text) && l.visible);
      expect(item, 'a visible "Middle" item in the open list').toBeDefined();
      // The viewport is the app window, and the PNG holds the window and the popup.
      expect(viewportOf(r.fields.file)).toEqual(window);
      const png = await readPng(r.fields.screenshot);
      const p = popup.frame as Rect;
      const right = Math.min(1280, Math.max(window.x + window.w, p.x + p.w));
      const bottom = Math.min(800, Math.max(window.y + window.h, p.y + p.h));
      expect(png.width).toBe(right - Math.min(window.x, p.x));
      expect(png.height).toBe(bottom - Math.min(window.y, p.y));
      expect(coloursIn(png, window, item!.frame as Rect)).toBeGreaterThan(4);
    } finally {
      await session.call('ax_key_press', { app: factory.pid, key: 'Escape' });
    }
  });
});

describe('a walk cut short by the app', () => {
  it('says truncated: app exited when the app dies during the walk', async () => {
    const rows = 400;
    const first = await session.launchFixture('big_table.py', [String(rows)]);
    let full: number;
    let fullMs: number;
    try {
      await first.output!.waitForEvent((e) => e.event === 'ready');
      const r = await session.call('ax_get_tree', { app: first.pid });
      expectOk(r);
      const header = fs.readFileSync(r.fields.file, 'utf8').slice(0, 2000);
      const m = /^# elements: (\d+) .*elapsed: ([\d.]+) ms.*truncated: no/m.exec(header);
      expect(m, `a complete walk first:\n${header}`).not.toBeNull();
      full = Number(m![1]);
      fullMs = Number(m![2]);
    } finally {
      await first.stop();
    }
    // Kill a fresh instance part-way through a walk. When the kill lands too early (the
    // app is gone before anything is read) or too late (the walk is complete), try again
    // at another point; every answer must be honest either way.
    let delay = fullMs / 2;
    let cutShort: string | undefined;
    for (let attempt = 0; attempt < 5 && !cutShort; attempt++) {
      const app = await session.launchFixture('big_table.py', [String(rows)]);
      await app.output!.waitForEvent((e) => e.event === 'ready');
      const call = session.call('ax_get_tree', { app: app.pid });
      await new Promise((resolve) => setTimeout(resolve, delay));
      process.kill(app.pid, 'SIGKILL');
      const r = await call;
      await app.stop();
      if (r.isError) {
        expect(r.fields.error).toMatch(/no longer|not \(or no longer\)|exited/);
        delay *= 1.5;
        continue;
      }
      const header = fs.readFileSync(r.fields.file, 'utf8');
      const count = Number(/^# elements: (\d+)/m.exec(header)?.[1]);
      if (/truncated: no/.test(header)) {
        // Finished before the kill: then it is the whole table.
        expect(count).toBe(full);
        delay /= 2;
        continue;
      }
      expect(header).toMatch(/truncated: app exited/);
      expect(count).toBeLessThan(full);
      expect(r.text).toMatch(/truncated: app exited/);
      cutShort = r.fields.file;
    }
    expect(cutShort, 'one kill landed during a walk').toBeDefined();
  });
});
