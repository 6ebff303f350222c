/**
 * Reading part of a big table: with a cap on its rows (maxTableRows), or an element cap
 * smaller than the table, a GTK 3 tree view keeps the rows in view and those nearest them,
 * not the first rows, and the walk says what it cut. The list is scrolled by focusing a
 * cell (helpers/scroll-to-cell.ts); which rows are in view is read back from
 * the toolkit itself (a walk with no cap: the cells that have a frame).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { startDesktop } from '../../src/desktop/headless.js';
import type { HeadlessDesktop } from '../../src/desktop/headless.js';
import { Session } from '../../src/harness/session.js';
import type { Snapshot, SnapshotLimits } from '../../src/model/element.js';
import { AtspiBus } from '../../src/platform/linux/atspi/bus.js';
import * as at from '../../src/platform/linux/atspi/index.js';
import { scrollToCell } from './helpers/scroll-to-cell.js';

const ROWS = 3000;
const FULL: SnapshotLimits = { maxElements: 20_000, maxDepth: 200, timeBudgetMs: 60_000 };
const cellNames = (s: Snapshot) =>
  s.elements.filter((e) => e.nativeRole === 'table cell').map((e) => e.name);
const rowNumber = (name: string) => Number(name.replace('row ', ''));

describe('a big table read in part keeps the rows in view', () => {
  let desktop: HeadlessDesktop;
  let app: LaunchedApp;
  let bus: AtspiBus;
  let ref: at.AppRef;
  let inView: number[];

  beforeAll(async () => {
    desktop = await startDesktop();
    const rows = Array.from({ length: ROWS }, (_, i) => `row ${i + 1}`);
    app = await desktop.launch('zenity', ['--list', '--column=A', ...rows]);
    bus = await AtspiBus.connect(desktop.env.AT_SPI_BUS_ADDRESS);
    ref = (await at.appRefForPid(bus, app.pid))!;
    await scrollToCell(bus, await at.snapshotApp(bus, ref, FULL), 'row 2000');
    // Until the scroll is over: row 2000 has a frame, and two reads in a row agree (a walk
    // during the scroll saw some rows where they were and some where they went).
    let before = '';
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const s = await at.snapshotApp(bus, ref, FULL, { gtk3Shortcuts: false });
      inView = s.elements
        .filter((e) => e.nativeRole === 'table cell' && e.frame)
        .map((e) => rowNumber(e.name));
      if (inView.includes(2000) && inView.join() === before) break;
      before = inView.join();
      await new Promise((r) => setTimeout(r, 150));
    }
    // One run of consecutive rows.
    expect(inView).toEqual(Array.from({ length: inView.length }, (_, i) => inView[0] + i));
    expect(inView).toContain(2000);
  }, 180_000);

  afterAll(async () => {
    if (bus) {
      await at.closeWires(bus);
      bus.disconnect();
    }
    await app?.stop();
    await desktop?.stop();
  });

  it('maxTableRows: that many rows, those in view and the nearest, in order', async () => {
    const calls = new Map<string, number>();
    const s = await at.snapshotApp(
      bus,
      ref,
      { ...FULL, maxTableRows: 100 },
      { onCall: (_p, _i, member) => calls.set(member, (calls.get(member) ?? 0) + 1) },
    );
    // The table was not listed whole (GTK would make all 3,000 cells): rows asked by index.
    expect(calls.get('GetChildAtIndex') ?? 0).toBeGreaterThanOrEqual(100);
    expect(calls.get('GetChildAtIndex') ?? 0).toBeLessThan(400);
    const kept = cellNames(s).map(rowNumber);
    expect(kept).toHaveLength(100);
    for (const r of inView) expect(kept).toContain(r);
    // One run of consecutive rows around the view, in the toolkit's order.
    expect(kept).toEqual(Array.from({ length: 100 }, (_, i) => kept[0] + i));
    expect(kept[0]).toBeGreaterThan(1);
    expect(s.truncated).toMatch(/^max table rows 100 \(100 of 3000 rows of a table read/);
    const table = s.elements.find((e) => e.nativeRole === 'table')!;
    expect(table.childCount).toBe(ROWS + 1); // what the table holds, not what was read
  }, 120_000);

  it('the element cap on a big tree view keeps the rows in view too', async () => {
    const s = await at.snapshotApp(bus, ref, { ...FULL, maxElements: 300 });
    const kept = cellNames(s).map(rowNumber);
    expect(kept.length).toBeGreaterThan(100);
    expect(kept.length).toBeLessThan(300);
    for (const r of inView) expect(kept).toContain(r);
    expect(s.truncated).toMatch(/^max elements 300 \(/);
  }, 120_000);
});

describe('AXPAGE_MAX_TABLE_ROWS through the server', () => {
  let session: Session;

  beforeAll(async () => {
    session = await Session.start({ serverEnv: { AXPAGE_MAX_TABLE_ROWS: '40' } });
  }, 120_000);

  afterAll(async () => {
    await session?.close();
  });

  it('cuts the list at 40 rows and says so in the summary and the file', async () => {
    const rows = Array.from({ length: 500 }, (_, i) => `item ${i + 1}`);
    const app = await session.launch('zenity', ['--list', '--column=A', ...rows]);
    const r = await session.call('ax_get_tree', { app: app.pid, include_invisible: true });
    expect(r.isError, r.text).toBe(false);
    expect(r.fields.file_size).toMatch(/truncated: max table rows 40/);
    const text = fs.readFileSync(r.fields.file, 'utf8');
    expect(text.split('\n').slice(0, 4).join('\n')).toMatch(/truncated: max table rows 40/);
    const items = text.match(/"item \d+"/g) ?? [];
    expect(new Set(items).size).toBe(40);
    expect(items).toContain('"item 1"'); // a fresh list shows its first rows
  }, 120_000);
});
