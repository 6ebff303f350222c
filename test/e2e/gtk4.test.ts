/**
 * GTK4 (4.8) end to end on gnome-calculator, through `axpage serve` and the MCP SDK client:
 * elements have screen positions that land on their pixels in the screenshot, clean names
 * and action lists, background clicks compute a result, and typing / set_value land in the
 * display. Effects are checked by pyatspi (the app's own accessible text) and the PNG.
 */
import fs from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session, type CallResult } from '../../src/harness/session.js';
import { readApp, waitForApp } from './helpers/oracle.js';

let session: Session;
let calc: LaunchedApp;

beforeAll(async () => {
  session = await Session.start();
  calc = await session.launch('gnome-calculator');
}, 60_000);

afterAll(async () => {
  await session?.close();
});

interface Line {
  line: string;
  role: string;
  name: string;
  ref: string;
  frame?: { x: number; y: number; w: number; h: number };
}

function treeLines(r: CallResult): Line[] {
  const text = fs.readFileSync(r.fields.file, 'utf8');
  const out: Line[] = [];
  for (const line of text.split('\n')) {
    const m =
      /^\s*[~+-]?\s*\[(\S+?)[\] ][^\]]*\] "((?:[^"\\]|\\.)*)"(?: desc:"(?:[^"\\]|\\.)*")? (e\d+)(.*)$/.exec(
        line,
      );
    if (!m) continue;
    const f = / x:(-?\d+) y:(-?\d+) w:(\d+) h:(\d+)/.exec(m[4]);
    const frame = f ? { x: +f[1], y: +f[2], w: +f[3], h: +f[4] } : undefined;
    out.push({ line, role: m[1], name: m[2], ref: m[3], frame });
  }
  return out;
}

function button(lines: Line[], name: string): Line {
  const b = lines.find((l) => l.role === 'AXButton' && l.name === name);
  if (!b) throw new Error(`no button "${name}" in: ${lines.map((l) => l.name).join(' | ')}`);
  return b;
}

const viewportOf = (file: string) => {
  const m = /^# viewport: (-?\d+),(-?\d+) (\d+)x(\d+)/m.exec(fs.readFileSync(file, 'utf8'));
  if (!m) throw new Error(`no viewport line in ${file}`);
  return { x: +m[1], y: +m[2] };
};

async function pixel(png: string, vp: { x: number; y: number }, x: number, y: number) {
  const { data } = await sharp(png)
    .extract({ left: Math.round(x - vp.x), top: Math.round(y - vp.y), width: 1, height: 1 })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return [data[0], data[1], data[2]];
}

/** gnome-calculator's "=" is the only orange thing on screen. */
const orange = ([r, g, b]: number[]) => r > 200 && g > 80 && g < 180 && b < 80;

/** The calculator's display: its one editable text, as pyatspi reads it. */
async function display(): Promise<string> {
  const els = await readApp(session, calc.pid);
  const d = els.find((e) => e.role === 'text' && e.states.includes('editable'));
  if (!d) throw new Error('no editable display in the calculator');
  return d.text ?? '';
}

const waitDisplay = (pred: (t: string) => boolean, what: string) =>
  waitForApp(
    session,
    calc.pid,
    (els) => {
      const d = els.find((e) => e.role === 'text' && e.states.includes('editable'));
      return d && pred(d.text ?? '') ? (d.text ?? '') : undefined;
    },
    what,
    8000,
  );

describe('GTK4: gnome-calculator', () => {
  it('walks with screen positions that land on the buttons in the screenshot', async () => {
    const r = await session.call('ax_get_tree', { app: calc.pid });
    expect(r.isError, r.text).toBe(false);
    const lines = treeLines(r);
    const eq = button(lines, '=');
    const seven = button(lines, '7');
    expect(eq.frame, eq.line).toBeDefined();
    expect(seven.frame, seven.line).toBeDefined();
    expect(seven.line).not.toMatch(/offscreen/);
    const png = r.fields.screenshot;
    const vp = viewportOf(r.fields.file);
    const f = eq.frame!;
    // Inside the computed box: the orange "=" key; beside it, left of the box: not orange.
    expect(orange(await pixel(png, vp, f.x + f.w / 2, f.y + 4))).toBe(true);
    expect(orange(await pixel(png, vp, f.x + 2, f.y + f.h - 3))).toBe(true);
    expect(orange(await pixel(png, vp, f.x - 10, f.y + f.h / 2))).toBe(false);
    // The "7" key lies left of and above "=" as drawn.
    expect(seven.frame!.x).toBeLessThan(f.x);
    expect(seven.frame!.y).toBeLessThan(f.y);
  });

  it('names are clean: no doubled labels, type names or GAction lists', async () => {
    const r = await session.call('ax_get_tree', { app: calc.pid });
    const text = fs.readFileSync(r.fields.file, 'utf8');
    expect(text).not.toMatch(/"7 7"|"mod mod"/);
    expect(text).not.toMatch(/"(Gtk|Adw)[A-Za-z]+"/);
    expect(text).not.toMatch(/clipboard\.copy|menu\.popup|win\.close/);
    // The π key had only its type name: it is named by its label.
    button(treeLines(r), 'π');
  });

  it('clicks keys in the background and the display shows the result', async () => {
    const lines = treeLines(await session.call('ax_get_tree', { app: calc.pid }));
    for (const key of ['7', '+', '2', '=']) {
      const r = await session.call('ax_click', { app: calc.pid, ref: button(lines, key).ref });
      expect(r.text).toMatch(/route: ax delivery: background effect: confirmed/);
      expect(r.isError, r.text).toBe(false);
    }
    expect(await waitDisplay((t) => t.trim() === '9', 'the display showing 9')).toBe('9');
    // A one-element read-back is placed on the screen like the walk.
    const eq = button(treeLines(await session.call('ax_get_tree', { app: calc.pid })), '=');
    const at = await session.call('ax_get_attributes', { app: calc.pid, ref: eq.ref });
    const f = eq.frame!;
    expect(at.text).toContain(`frame: (${f.x},${f.y} ${f.w}x${f.h}) visible`);
  });

  it('types into the display, and set_value replaces it, both read back by pyatspi', async () => {
    const lines = treeLines(await session.call('ax_get_tree', { app: calc.pid }));
    const field = lines.find((l) => /AXText/.test(l.role) && !/readonly/.test(l.line));
    expect(field, lines.map((l) => l.line).join('\n')).toBeDefined();
    const t = await session.call('ax_type', {
      app: calc.pid,
      ref: field!.ref,
      text: '12',
      clear_first: true,
    });
    expect(t.isError, t.text).toBe(false);
    expect(t.text).toMatch(/route: ax delivery: background effect: confirmed/);
    await waitDisplay((s) => s.trim() === '12', 'the typed 12');
    const v = await session.call('ax_set_value', { app: calc.pid, ref: field!.ref, value: '345' });
    expect(v.isError, v.text).toBe(false);
    await waitDisplay((s) => s.trim() === '345', 'the set 345');
    expect((await display()).trim()).toBe('345');
  });

  it('places a popover menu (an X11 window of its own) on its pixels', async () => {
    const lines = treeLines(await session.call('ax_get_tree', { app: calc.pid }));
    const menu = lines.find((l) => l.name === 'Primary menu' && /focusable/.test(l.line));
    const r = await session.call('ax_click', { app: calc.pid, ref: menu!.ref });
    expect(r.isError, r.text).toBe(false);
    await waitForApp(
      session,
      calc.pid,
      (els) => els.find((e) => e.name === 'Automatic' && e.states.includes('visible')),
      'the menu open',
    );
    const t = await session.call('ax_get_tree', { app: calc.pid });
    const item = treeLines(t).find((l) => l.role === 'AXMenuItem' && l.name === 'Automatic');
    expect(item?.frame, item?.line).toBeDefined();
    const f = item!.frame!;
    // The checked radio's dot is drawn at the left of the item: dark pixels there.
    const { data, info } = await sharp(t.fields.screenshot)
      .extract({
        left: f.x - viewportOf(t.fields.file).x,
        top: f.y + 6 - viewportOf(t.fields.file).y,
        width: 18,
        height: f.h - 12,
      })
      .raw()
      .toBuffer({ resolveWithObject: true });
    let darkest = 255;
    for (let i = 0; i < data.length; i += info.channels) {
      darkest = Math.min(darkest, (data[i] + data[i + 1] + data[i + 2]) / 3);
    }
    expect(darkest).toBeLessThan(100);
    await session.call('ax_key_press', { app: calc.pid, key: 'Escape' });
  });

  it('opens the About dialog from the menu: a window of its own, placed and named', async () => {
    const lines = treeLines(await session.call('ax_get_tree', { app: calc.pid }));
    const menu = lines.find((l) => l.name === 'Primary menu' && /focusable/.test(l.line));
    await session.call('ax_click', { app: calc.pid, ref: menu!.ref });
    await waitForApp(
      session,
      calc.pid,
      (els) => els.find((e) => e.name === 'About Calculator' && e.states.includes('visible')),
      'the menu open',
    );
    const open = treeLines(await session.call('ax_get_tree', { app: calc.pid }));
    const about = open.find((l) => l.role === 'AXMenuItem' && l.name === 'About Calculator');
    const r = await session.call('ax_click', { app: calc.pid, ref: about!.ref });
    expect(r.isError, r.text).toBe(false);
    await waitForApp(
      session,
      calc.pid,
      (els) => els.find((e) => e.role === 'dialog' || (/About/.test(e.name) && e.role === 'frame')),
      'the About window',
    );
    const t = await session.call('ax_get_tree', { app: calc.pid });
    const wins = treeLines(t).filter((l) => /^\[AX(Window|Dialog|Sheet)/.test(l.line));
    expect(wins.length, wins.map((w) => w.line).join('\n')).toBeGreaterThanOrEqual(2);
    // Every window is placed on the screen (1280x800), none keeps a window-relative 0,0.
    for (const w of wins.filter((l) => / visible/.test(l.line))) {
      expect(w.frame, w.line).toBeDefined();
      expect(w.frame!.x + w.frame!.w).toBeLessThanOrEqual(1280);
      expect(w.frame!.x === 0 && w.frame!.y === 0, w.line).toBe(false);
    }
    await session.call('ax_key_press', { app: calc.pid, key: 'Escape' });
  });
});

/**
 * Scrolling a GTK4 list (gtk4-demo's list of demos): GTK 4.8's scroll bars have no Value
 * interface, so there is nothing to set in the background; ax_scroll says so and points to
 * the wheel instead of failing on the bar. pyatspi (another client) reads a row's place
 * before and after: the refused scroll moved nothing.
 */
describe('GTK4: scrolling gtk4-demo', () => {
  let demo: LaunchedApp;
  beforeAll(async () => {
    demo = await session.launch('/usr/bin/gtk4-demo', [], { timeoutMs: 60_000 });
  }, 90_000);
  afterAll(async () => {
    await demo?.stop().catch(() => undefined);
  });

  /** The window-relative top of the label named `name`, as pyatspi reads it. */
  const rowTop = async (name: string): Promise<number | undefined> =>
    (await readApp(session, demo.pid)).find(
      (e) => e.role === 'label' && e.name === name && e.extents,
    )?.extents?.[1];

  it('a background scroll of the list is refused with the foreground hint', async () => {
    const tree = await session.call('ax_get_tree', { app: demo.pid });
    expect(tree.isError, tree.text).toBe(false);
    const lines = treeLines(tree);
    const list = lines.find((l) => /\(scroll pane\)/.test(l.line));
    expect(list, 'a scroll area in the walk').toBeDefined();
    // A scroll bar is in the walk: the refusal is about its missing value, not its absence.
    expect(lines.slice(lines.indexOf(list!)).some((l) => l.role === 'AXScrollBar')).toBe(true);
    const row = lines.slice(lines.indexOf(list!)).filter((l) => l.role === 'AXStaticText')[3];
    expect(row, 'a row label in the list').toBeDefined();
    const before = await rowTop(row.name);
    const bg = await session.call('ax_scroll', { ref: list!.ref, direction: 'down', amount: 200 });
    expect(bg.isError, bg.text).toBe(true);
    expect(bg.text).toMatch(/no scroll bar with a value/);
    expect(bg.text).toMatch(/delivery_mode: "foreground"/);
    // The area was named: the advice is not to name it.
    expect(bg.text).not.toMatch(/Name the scroll area/);
    expect(await rowTop(row.name)).toBe(before);
  }, 120_000);
});
