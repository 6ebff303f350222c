/**
 * The fast walk against the slow one on the same, unchanging app state: the Cache walk over
 * the app's peer-to-peer socket, first and warm (remembered interfaces, action names, roles
 * of cells and child orders from the walk before), must render the same tree file, byte for
 * byte, as a live walk of everything (no Cache, no peer socket) on a fresh bus connection
 * that remembers nothing. Independent of our own summary: the live walk asks the toolkit
 * for every property and child list itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { startDesktop } from '../../src/desktop/headless.js';
import type { HeadlessDesktop } from '../../src/desktop/headless.js';
import type { Snapshot } from '../../src/model/element.js';
import type { SnapshotOptions } from '../../src/platform/desktop.js';
import { AtspiBus } from '../../src/platform/linux/atspi/bus.js';
import * as at from '../../src/platform/linux/atspi/index.js';
import { renderTreeFile } from '../../src/tree/index.js';
import { scrollToCell } from './helpers/scroll-to-cell.js';
import { viewOf } from '../unit/helpers/synthetic.js';

const FULL: SnapshotOptions = { maxElements: 20_000, maxDepth: 200, timeBudgetMs: 60_000 };
const ROWS = 3000;

/** The tree file, without what differs between two walks of the same state by design. */
function rendered(s: Snapshot): string {
  const same: Snapshot = { ...s, elapsedMs: 0, takenAt: 0, method: 'compared' };
  return renderTreeFile({ tool: 'ax_get_tree', view: viewOf(same), screenshot: 'none' });
}

describe('fast walk = slow walk, byte for byte', () => {
  let desktop: HeadlessDesktop;
  const buses: AtspiBus[] = [];
  const apps: LaunchedApp[] = [];

  async function connect(): Promise<AtspiBus> {
    const bus = await AtspiBus.connect(desktop.env.AT_SPI_BUS_ADDRESS);
    buses.push(bus);
    return bus;
  }

  beforeAll(async () => {
    desktop = await startDesktop();
  }, 120_000);

  afterAll(async () => {
    for (const bus of buses) {
      await at.closeWires(bus);
      bus.disconnect();
    }
    for (const app of apps) await app.stop();
    await desktop?.stop();
  });

  /** The live walk of everything (no Cache, no peer socket) on a connection of its own. */
  async function slowWalk(ref: at.AppRef): Promise<Snapshot> {
    return at.snapshotApp(await connect(), ref, FULL, {
      cache: false,
      peerToPeer: false,
      gtk3Shortcuts: false,
    });
  }

  interface Compared {
    slow: Snapshot;
    /** Calls of the fast first walk, by member. */
    firstCalls: Map<string, number>;
    /** Calls of the fast warm walk (after the walks that waited for a stable state). */
    warmCalls: WarmCall[];
  }

  interface WarmCall {
    path: string;
    member: string;
  }

  async function compare(
    cmd: string,
    args: string[] = [],
    prepare?: (bus: AtspiBus, app: at.AppRef, s: Snapshot) => Promise<void>,
  ): Promise<Compared> {
    const app = await desktop.launch(cmd, args);
    apps.push(app);
    const fast = await connect();
    const ref = (await at.appRefForPid(fast, app.pid))!;
    if (prepare) {
      await waitStable(fast, ref);
      await prepare(fast, ref, await at.snapshotApp(fast, ref, FULL));
    }
    await waitStable(fast, ref);
    const firstCalls = new Map<string, number>();
    const first = await at.snapshotApp(await connect(), ref, FULL, {
      onCall: (_p, _i, member) => firstCalls.set(member, (firstCalls.get(member) ?? 0) + 1),
    });
    const warmCalls: WarmCall[] = [];
    const warm = await at.snapshotApp(fast, ref, FULL, {
      onCall: (path, _i, member) => warmCalls.push({ path, member }),
    });
    const slow = await slowWalk(ref);
    expect(first.method).toBe('atspi-cache+live');
    expect(slow.method).toBe('atspi-walk');
    for (const s of [first, warm, slow]) expect(s.truncated).toBeNull();
    const expected = rendered(slow);
    expect(rendered(first)).toBe(expected);
    expect(rendered(warm)).toBe(expected);
    return { slow, firstCalls, warmCalls };
  }

  /** Lets the app finish what it is doing (start-up, a scroll) before states are compared. */
  async function waitStable(bus: AtspiBus, ref: at.AppRef): Promise<void> {
    let before = '';
    for (let i = 0; i < 20; i++) {
      const now = rendered(await at.snapshotApp(bus, ref, FULL));
      if (now === before) return;
      before = now;
      await new Promise((r) => setTimeout(r, 300));
    }
  }

  /** The cells of the rows in view: those with a frame. */
  const placedCells = (s: Snapshot) =>
    s.elements.filter((e) => e.nativeRole === 'table cell' && e.frame).map((e) => e.name);

  it('gtk3-widget-factory', async () => {
    const { slow: s } = await compare('gtk3-widget-factory');
    expect(s.elements.length).toBeGreaterThan(100);
  }, 180_000);

  it('gtk3-demo', async () => {
    const { slow: s, warmCalls } = await compare('gtk3-demo');
    const cells = s.elements.filter((e) => e.nativeRole === 'table cell');
    const pathOf = (id: string) => id.slice(id.indexOf('/'));
    const asked = (member: string) =>
      new Set(warmCalls.filter((c) => c.member === member).map((c) => c.path));
    // Its list of demos is a tree view whose rows are container cells (an icon and a name):
    // the warm walk lists none of them again and asks no frame of a cell in a row out of
    // view (but the two rows just past the view, which check where the view is).
    const containers = cells.filter((e) => e.childCount > 0);
    expect(containers.length).toBeGreaterThan(10);
    const listed = asked('GetChildren');
    expect(containers.filter((e) => listed.has(pathOf(e.id)))).toEqual([]);
    // A renderer of a row in view may have no frame of its own (an icon column left empty).
    const rowOutOfView = (e: (typeof cells)[number]): boolean => {
      const parent = s.elements[e.parent];
      return !e.frame && (parent?.nativeRole !== 'table cell' || rowOutOfView(parent));
    };
    const outOfView = cells.filter(rowOutOfView);
    expect(outOfView.length).toBeGreaterThan(20);
    const framed = asked('GetExtents');
    expect(outOfView.filter((e) => framed.has(pathOf(e.id))).length).toBeLessThanOrEqual(2);
  }, 180_000);

  it(`zenity --list of ${ROWS} rows`, async () => {
    const rows = Array.from({ length: ROWS }, (_, i) => `row ${i + 1}`);
    const { slow: s, firstCalls } = await compare('zenity', ['--list', '--column=A', ...rows]);
    expect(s.elements.filter((e) => e.nativeRole === 'table cell').map((e) => e.name)).toEqual(
      rows,
    );
    // The layout reading was used: frames asked only around the rows in view, and role,
    // interfaces and actions once for the column, not per cell.
    expect(placedCells(s)[0]).toBe('row 1');
    expect(firstCalls.get('GetExtents') ?? 0).toBeLessThan(200);
    expect(firstCalls.get('GetRole') ?? 0).toBeLessThan(200);
    expect(firstCalls.get('GetInterfaces') ?? 0).toBeLessThan(200);
  }, 300_000);

  it(`zenity --list of ${ROWS} rows scrolled to the middle`, async () => {
    const rows = Array.from({ length: ROWS }, (_, i) => `row ${i + 1}`);
    const { slow: s, firstCalls } = await compare(
      'zenity',
      ['--list', '--column=A', ...rows],
      (bus, _app, snap) => scrollToCell(bus, snap, 'row 1500'),
    );
    const placed = placedCells(s);
    expect(placed).toContain('row 1500');
    expect(placed).not.toContain('row 1');
    expect(firstCalls.get('GetExtents') ?? 0).toBeLessThan(200);
  }, 300_000);

  it('a warm walk of a list scrolled since the last walk of this connection', async () => {
    // 60 rows (under 200 children): rows in view are found by the layout reading too. The
    // connection that walked before the scroll remembers where the rows in view were; its
    // next walk must find that they moved, as a fresh connection's walk and the slow walk do.
    const rows = Array.from({ length: 60 }, (_, i) => `row ${i + 1}`);
    const app = await desktop.launch('zenity', ['--list', '--column=A', ...rows]);
    apps.push(app);
    const before = await connect();
    const ref = (await at.appRefForPid(before, app.pid))!;
    await waitStable(before, ref);
    const top = await at.snapshotApp(before, ref, FULL);
    expect(placedCells(top)[0]).toBe('row 1');
    await scrollToCell(before, top, 'row 55');
    await waitStable(await connect(), ref); // not `before`: its memo stays as it was
    const calls: WarmCall[] = [];
    const warm = await at.snapshotApp(before, ref, FULL, {
      onCall: (path, _i, member) => calls.push({ path, member }),
    });
    const slow = await slowWalk(ref);
    expect(placedCells(slow)).toContain('row 55');
    expect(placedCells(slow)).not.toContain('row 1');
    expect(rendered(warm)).toBe(rendered(slow));
    // It searched: more frames than the check of the remembered view's 4 rows.
    expect(calls.some((c) => c.member === 'GetAccessibleAtPoint')).toBe(true);
  }, 180_000);

  it('zenity --list --checklist: three columns (toggle, text, hidden), scrolled', async () => {
    const n = 400;
    const args = ['--list', '--checklist', '--column=Pick', '--column=Name', '--column=Key'];
    args.push('--hide-column=3', '--print-column=2');
    for (let i = 1; i <= n; i++) args.push(i % 3 === 0 ? 'TRUE' : 'FALSE', `name ${i}`, `k${i}`);
    const { slow: s, firstCalls } = await compare('zenity', args, (bus, _app, snap) =>
      scrollToCell(bus, snap, 'name 250'),
    );
    const cells = s.elements.filter((e) => e.nativeRole === 'table cell');
    // Two visible columns: a toggle cell and a text cell per row; the hidden one is no child.
    expect(cells).toHaveLength(2 * n);
    expect(cells.filter((c) => c.flags.includes('checked'))).toHaveLength(Math.floor(n / 3));
    expect(cells.some((c) => c.name === 'k1')).toBe(false);
    expect(placedCells(s)).toContain('name 250');
    expect(firstCalls.get('GetExtents') ?? 0).toBeLessThan(2 * n);
  }, 300_000);
});
