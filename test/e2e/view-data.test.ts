/**
 * The viewer's data on a real run: a session on the dialog fixture (look, click "Open
 * Dialog", click its OK) through `axpage serve`, then the run listed from its session
 * log and each call's pair parsed. The clicked button's box is the frame ax_get_tree
 * returned and the one AT-SPI itself reports (pyatspi, another process); each pair's
 * diff kinds add up to the counts its summary gave; the capture rect is the PNG's size.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session, type CallResult } from '../../src/harness/session.js';
import { Run, type ViewPair } from '../../src/view/index.js';
import { mark, readApp } from './helpers/oracle.js';

let session: Session;
let app: LaunchedApp;
const calls: CallResult[] = [];

interface Item {
  role: string;
  text: string;
  ref: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

function itemsOf(r: CallResult): Item[] {
  return (r.structured.visible_elements as Item[] | undefined) ?? [];
}

beforeAll(async () => {
  session = await Session.start();
  app = await session.launchFixture('dialog.py');
  calls.push(await session.call('ax_get_tree', { app: app.pid, detail: 'full' }));
  const open = itemsOf(calls[0]).find((i) => i.role === 'AXButton' && i.text === 'Open Dialog');
  if (!open) throw new Error(`no Open Dialog button in:\n${calls[0].text}`);
  const from = mark(app);
  calls.push(await session.call('ax_click', { ref: open.ref }));
  await app.output?.waitForEvent((e) => e.event === 'dialog' && e.state === 'opened', { from });
  calls.push(await session.call('ax_click', { app: app.pid, query: 'button:"OK"' }));
  await app.output?.waitForEvent((e) => e.event === 'response' && e.response === 'ok', { from });
}, 120_000);

afterAll(async () => {
  await session?.close();
});

function pngSize(file: string): { w: number; h: number } {
  const head = fs.readFileSync(file).subarray(0, 24);
  expect(head.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { w: head.readUInt32BE(16), h: head.readUInt32BE(20) };
}

describe('the viewer data of a real session', () => {
  let run: Run;
  let pairs: ViewPair[];

  beforeAll(async () => {
    for (const c of calls) expect(c.isError, c.text).toBe(false);
    run = await Run.open(session.artifactDir);
    pairs = [];
    for (let i = 0; i < calls.length; i++) {
      const pair = await run.pairOf(i);
      if (!pair) throw new Error(`call ${i} has no readable pair`);
      pairs.push(pair);
    }
  });

  it('lists the calls from the session log in order, with the pairs and summaries they returned', async () => {
    expect(run.source.log).toMatch(/session-\d+-\d+\.jsonl$/);
    const page = await run.page(0, 10);
    expect(page.total).toBe(calls.length);
    expect(page.calls.map((c) => c.tool)).toEqual(['ax_get_tree', 'ax_click', 'ax_click']);
    for (const [i, c] of page.calls.entries()) {
      expect(c.outcome).toBe('success');
      expect(c.tree).toBe(path.basename(calls[i].fields.file));
      expect(c.png).toBe(path.basename(calls[i].fields.screenshot));
      expect(c.summary).toBe(calls[i].text);
      expect(c.summary_bytes).toBe(Buffer.byteLength(calls[i].text));
    }
    expect(page.calls[1].target?.text).toBe('Open Dialog');
  });

  it('gives the clicked button the box ax_get_tree returned and AT-SPI reports', async () => {
    const open = itemsOf(calls[0]).find((i) => i.text === 'Open Dialog')!;
    const el = pairs[1].elements.find((e) => e.ref === open.ref);
    expect(el, `ref ${open.ref} in ${pairs[1].tree}`).toBeDefined();
    expect(el!.role).toBe('AXButton');
    expect(el!.text).toBe('Open Dialog');
    expect(el!.box).toEqual({ x: open.x, y: open.y, w: open.w, h: open.h });
    const atspi = (await readApp(session, app.pid)).find(
      (e) => e.role === 'push button' && e.name === 'Open Dialog',
    );
    expect(atspi?.extents).toEqual([el!.box!.x, el!.box!.y, el!.box!.w, el!.box!.h]);
  });

  it('has diff entries whose kinds add up to the counts each summary gave', () => {
    for (const [i, c] of calls.entries()) {
      const changes = c.structured.changes as
        { added: number; removed: number; modified: number; moved: number } | undefined;
      const count = (kind: string) => pairs[i].diff.filter((d) => d.kind === kind).length;
      if (!changes) {
        expect(pairs[i].diff).toEqual([]);
        continue;
      }
      expect({
        added: count('added'),
        removed: count('removed'),
        modified: count('modified') + count('moved'),
        moved: count('moved'),
      }).toEqual(changes);
      const marked = pairs[i].elements.filter((e) => e.diff !== undefined).length;
      expect(marked).toBeLessThanOrEqual(changes.added + changes.modified);
    }
    // Opening the dialog added its elements; OK took them away.
    expect((calls[1].structured.changes as { added: number }).added).toBeGreaterThan(0);
    expect((calls[2].structured.changes as { removed: number }).removed).toBeGreaterThan(0);
    const dialogAdded = pairs[1].elements.filter((e) => e.diff === 'added');
    expect(dialogAdded.map((e) => e.text)).toContain('Proceed?');
  });

  it('states the capture rect of every PNG: its size, and where boxes land on it', () => {
    for (const [i, pair] of pairs.entries()) {
      expect(pair.capture, pair.tree).toBeDefined();
      expect(pair.capture_guessed).toBeUndefined();
      const size = pngSize(calls[i].fields.screenshot);
      expect({ w: pair.capture!.w, h: pair.capture!.h }).toEqual(size);
    }
    // The click that opened the dialog shows the dialog: its OK button lies inside.
    const ok = pairs[1].elements.find((e) => e.role === 'AXButton' && e.text === 'OK');
    const cap = pairs[1].capture!;
    expect(ok?.box).toBeDefined();
    expect(ok!.box!.x).toBeGreaterThanOrEqual(cap.x);
    expect(ok!.box!.y).toBeGreaterThanOrEqual(cap.y);
    expect(ok!.box!.x + ok!.box!.w).toBeLessThanOrEqual(cap.x + cap.w);
    expect(ok!.box!.y + ok!.box!.h).toBeLessThanOrEqual(cap.y + cap.h);
  });
});
