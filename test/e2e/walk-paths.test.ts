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

  async function compare(cmd: string, args: string[] = []): Promise<Snapshot> {
    const app = await desktop.launch(cmd, args);
    apps.push(app);
    const fast = await connect();
    const ref = (await at.appRefForPid(fast, app.pid))!;
    // Let the app finish its start-up (late children, focus) before the states are compared.
    let before = '';
    for (let i = 0; i < 20; i++) {
      const now = rendered(await at.snapshotApp(fast, ref, FULL));
      if (now === before) break;
      before = now;
      await new Promise((r) => setTimeout(r, 300));
    }
    const first = await at.snapshotApp(await connect(), ref, FULL);
    const warm = await at.snapshotApp(fast, ref, FULL);
    const slow = await at.snapshotApp(await connect(), ref, FULL, {
      cache: false,
      peerToPeer: false,
    });
    expect(first.method).toBe('atspi-cache+live');
    expect(slow.method).toBe('atspi-walk');
    for (const s of [first, warm, slow]) expect(s.truncated).toBeNull();
    const expected = rendered(slow);
    expect(rendered(first)).toBe(expected);
    expect(rendered(warm)).toBe(expected);
    return slow;
  }

  it('gtk3-widget-factory', async () => {
    const s = await compare('gtk3-widget-factory');
    expect(s.elements.length).toBeGreaterThan(100);
  }, 180_000);

  it('gtk3-demo', async () => {
    const s = await compare('gtk3-demo');
    expect(s.elements.some((e) => e.nativeRole === 'table cell')).toBe(true);
  }, 180_000);

  it(`zenity --list of ${ROWS} rows`, async () => {
    const rows = Array.from({ length: ROWS }, (_, i) => `row ${i + 1}`);
    const s = await compare('zenity', ['--list', '--column=A', ...rows]);
    expect(s.elements.filter((e) => e.nativeRole === 'table cell').map((e) => e.name)).toEqual(
      rows,
    );
  }, 300_000);
});
