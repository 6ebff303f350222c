/**
 * Scrolling a GTK4 (4.8) list view, checked by what the app shows: gtk4-demo's sidebar is
 * scrolled with the wheel (GTK 4.8 scroll bars have no Value interface, so the background
 * is refused), the screenshot's pixels over the list change, a row pyatspi saw unallocated
 * gets a box inside the list, and axpage's tree no longer shows the rows scrolled out at
 * the boxes GTK leaves them with.
 */
import fs from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session, type CallResult } from '../../src/harness/session.js';
import { readApp, viewportOf, waitForApp, steady, type AtspiElement } from './helpers/oracle.js';
import { allPresent, describeNeeding, file } from './helpers/needs.js';

const GTK4_DEMO = file('/usr/bin/gtk4-demo', 'gtk-4-examples');
const haveGtk4Demo = allPresent([GTK4_DEMO]);

let session: Session;
let app: LaunchedApp;

beforeAll(async () => {
  if (!haveGtk4Demo) return;
  session = await Session.start();
  app = await session.launch('/usr/bin/gtk4-demo', [], { timeoutMs: 60_000 });
}, 90_000);

afterAll(async () => {
  await app?.stop().catch(() => undefined);
  await session?.close();
});

interface Row {
  name: string;
  ref: string;
  offscreen: boolean;
  frame?: { x: number; y: number; w: number; h: number };
}

/** The list's row labels as axpage's tree file prints them. */
function labels(r: CallResult): Row[] {
  const out: Row[] = [];
  for (const line of fs.readFileSync(r.fields.file, 'utf8').split('\n')) {
    const m = /^\s*\[AXStaticText \(label\)\] "([^"]*)" (e\d+)(.*)$/.exec(line);
    if (!m) continue;
    const f = / x:(-?\d+) y:(-?\d+) w:(\d+) h:(\d+)/.exec(m[3]);
    out.push({
      name: m[1],
      ref: m[2],
      offscreen: / offscreen/.test(m[3]),
      frame: f ? { x: +f[1], y: +f[2], w: +f[3], h: +f[4] } : undefined,
    });
  }
  return out;
}

function listFrame(r: CallResult): { x: number; y: number; w: number; h: number } {
  const m = /\[AXList \(list\)\] "Demo list" e\d+ x:(-?\d+) y:(-?\d+) w:(\d+) h:(\d+)/.exec(
    fs.readFileSync(r.fields.file, 'utf8'),
  );
  if (!m) throw new Error('no "Demo list" with a frame in the tree');
  return { x: +m[1], y: +m[2], w: +m[3], h: +m[4] };
}

/** The raw RGB pixels of a screen rectangle in a call's screenshot. */
async function pixelsOf(r: CallResult, rect: { x: number; y: number; w: number; h: number }) {
  const vp = viewportOf(r.fields.file);
  return sharp(r.fields.screenshot)
    .extract({ left: rect.x - vp.x, top: rect.y - vp.y, width: rect.w, height: rect.h })
    .removeAlpha()
    .raw()
    .toBuffer();
}

const sized = (e: AtspiElement | undefined): boolean =>
  !!e?.extents && e.extents[2] > 0 && e.extents[3] > 0;

const labelNamed = (els: AtspiElement[], name: string) =>
  els.find((e) => e.role === 'label' && e.name === name);

/** Shown rows must not overlap: GTK's stale boxes of scrolled-out rows would. */
function overlapping(rows: Row[]): string[] {
  const shown = rows.filter((r) => r.frame && !r.offscreen);
  const out: string[] = [];
  for (const a of shown)
    for (const b of shown) {
      if (a === b || !a.frame || !b.frame || a.frame.x !== b.frame.x) continue;
      if (a.frame.y < b.frame.y + b.frame.h - 1 && b.frame.y < a.frame.y + a.frame.h - 1)
        out.push(`${a.name}/${b.name}`);
    }
  return out;
}

describeNeeding([GTK4_DEMO], 'GTK4 scroll on gtk4-demo', () => {
  it('refuses the background with the reason and offers the foreground', async () => {
    const r = await session.call('ax_scroll', {
      app: app.pid,
      query: 'Demo list',
      direction: 'down',
      amount: 200,
    });
    expect(r.isError, r.text).toBe(true);
    expect(r.text).toMatch(/delivery_mode: "foreground"/);
  });

  it('scrolls the list down and up with the wheel, as its pixels and rows show', async () => {
    const before = await session.call('ax_get_tree', { app: app.pid });
    expect(before.isError, before.text).toBe(false);
    const list = listFrame(before);
    const benchmark = labels(before).find((l) => l.name === 'Benchmark');
    expect(benchmark?.frame, 'Benchmark is shown before').toBeDefined();
    // A row below the list's end: GTK has no widget or an unallocated one for it.
    const hiddenRow = 'Cursors';
    const start = await readApp(session, app.pid);
    expect(sized(labelNamed(start, hiddenRow))).toBe(false);

    const down = await session.call('ax_scroll', {
      app: app.pid,
      query: 'Demo list',
      direction: 'down',
      amount: 300,
      delivery_mode: 'foreground',
    });
    expect(down.isError, down.text).toBe(false);
    expect(down.fields.route).toMatch(/delivery: foreground effect: confirmed/);

    // The app's own pixels over the list changed.
    const a = await pixelsOf(before, list);
    const b = await pixelsOf(down, list);
    let differing = 0;
    for (let i = 0; i < a.length; i += 3)
      if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) differing++;
    expect(differing).toBeGreaterThan(a.length / 3 / 20);

    // The app gave the row that was below the end a box (pyatspi, window-relative).
    await waitForApp(
      session,
      app.pid,
      (els) => (sized(labelNamed(els, hiddenRow)) ? true : undefined),
      `"${hiddenRow}" with a size`,
    );

    // Benchmark scrolled out: axpage no longer shows it at the box GTK left it with.
    const after = labels(down);
    const bench = after.find((l) => l.ref === benchmark?.ref);
    expect(bench?.frame, JSON.stringify(bench)).toBeUndefined();
    expect(overlapping(after)).toEqual([]);
    const cursors = after.find((l) => l.name === hiddenRow);
    expect(cursors?.frame, JSON.stringify(cursors)).toBeDefined();

    const up = await session.call('ax_scroll', {
      app: app.pid,
      query: 'Demo list',
      direction: 'up',
      amount: 1000,
      delivery_mode: 'foreground',
    });
    expect(up.isError, up.text).toBe(false);
    const back = labels(up);
    expect(back.find((l) => l.name === 'Benchmark')?.frame).toEqual(benchmark?.frame);
    expect(overlapping(back)).toEqual([]);
    const c = await pixelsOf(up, list);
    let changedBack = 0;
    for (let i = 0; i < b.length; i += 3)
      if (b[i] !== c[i] || b[i + 1] !== c[i + 1] || b[i + 2] !== c[i + 2]) changedBack++;
    expect(changedBack).toBeGreaterThan(b.length / 3 / 20);

    // At the top already: the wheel moves nothing, and the summary does not say it did.
    // Read back through pyatspi, not our summary: no label's box moves. (The rows' pixels
    // are no proof either way here: the pointer the wheel used leaves a hover highlight on
    // a row, 13% of the rows' pixels on a loaded machine, while every box stayed put.)
    const boxes = (els: AtspiElement[]) =>
      els
        .filter((e) => e.role === 'label' && sized(e))
        .map((e) => `${e.name}@${e.extents!.join(',')}`)
        .sort();
    const boxesBefore = await steady('the list', async () =>
      boxes(await readApp(session, app.pid)),
    );
    expect(boxesBefore.some((b) => b.startsWith('Benchmark@'))).toBe(true);
    const again = await session.call('ax_scroll', {
      app: app.pid,
      query: 'Demo list',
      direction: 'up',
      amount: 300,
      delivery_mode: 'foreground',
    });
    expect(again.isError, again.text).toBe(false);
    expect(await steady('the list', async () => boxes(await readApp(session, app.pid)))).toEqual(
      boxesBefore,
    );
    expect(again.fields.route).not.toMatch(/effect: confirmed/);
    expect(again.text).not.toMatch(/Scrolled/);
  }, 120_000);
});
