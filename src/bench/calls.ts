/**
 * Section 1d (issue 13): D-Bus calls per element by kind, counted on the walk's own call
 * function (WalkTuning.onCall), for a first walk (nothing remembered from earlier walks)
 * and a warm one. A call is charged to the element whose object path it names; calls on
 * other paths (the app root's child list, the cache) are "per walk".
 */
import type { Element } from '../model/element.js';
import { AtspiBus, resolveA11yAddress } from '../platform/linux/atspi/bus.js';
import * as at from '../platform/linux/atspi/index.js';
import { DEFAULT_CONFIG } from '../config.js';
import type { BenchContext } from './context.js';
import { launchBigList } from './big-list.js';
import { fmt, out, table } from './report.js';
import { waitQuiet } from './quiet.js';

type Kind = 'plain widget' | 'live table cell' | 'live table cell, row out of view' | 'table row';

function kindOf(e: Element): Kind {
  if (e.nativeRole === 'table row') return 'table row';
  if (e.nativeRole === 'table cell' || e.nativeRole === 'tree item') {
    return e.frame ? 'live table cell' : 'live table cell, row out of view';
  }
  return 'plain widget';
}

interface Count {
  elements: number;
  calls: number;
  members: Map<string, number>;
}

async function countWalk(
  bus: AtspiBus,
  pid: number,
): Promise<{
  byKind: Map<string, Count>;
  total: number;
  elements: number;
  truncated: string | null;
}> {
  const ref = await at.appRefForPid(bus, pid);
  if (!ref) throw new Error(`pid ${pid} is not on the accessibility bus`);
  const perPath = new Map<string, string[]>();
  // A generous budget: the counts must be of a whole walk even on a loaded machine.
  const limits = { ...DEFAULT_CONFIG.limits, timeBudgetMs: 60_000 };
  const snap = await at.snapshotApp(bus, ref, limits, {
    onCall: (path, iface, member) => {
      const what = iface.endsWith('.Properties') ? member : `${iface.split('.').pop()}.${member}`;
      const list = perPath.get(path) ?? [];
      list.push(what);
      perPath.set(path, list);
    },
  });
  const byKind = new Map<string, Count>();
  const charge = (kind: string, calls: string[], element: boolean): void => {
    const c = byKind.get(kind) ?? { elements: 0, calls: 0, members: new Map() };
    if (element) c.elements++;
    c.calls += calls.length;
    for (const m of calls) c.members.set(m, (c.members.get(m) ?? 0) + 1);
    byKind.set(kind, c);
  };
  for (const e of snap.elements) {
    const path = at.parseId(e.id)[1];
    charge(kindOf(e), perPath.get(path) ?? [], true);
    perPath.delete(path);
  }
  charge('per walk', [...perPath.values()].flat(), false);
  let total = 0;
  for (const c of byKind.values()) total += c.calls;
  return { byKind, total, elements: snap.elements.length, truncated: snap.truncated };
}

/** Why each kind stands where it does (the floor), printed under the table. */
const FLOORS = [
  '- plain widget (in the Cache): role, name, description, states, interfaces and child count ' +
    'come for the whole app in one Cache.GetItems. What is left is one call per read the cache ' +
    'does not carry: GetExtents (SHOWING elements with Component), text or value, action names ' +
    '(first walk only: remembered per object while role and states match), AccessibleId (first ' +
    'walk only for an app that sets none). The listed child order of containers whose cached ' +
    'index order differs is asked once and remembered while the cached order stays the same. ' +
    'Floor, warm: 1 (the frame) for a visible widget, +1 for its text or value, 0 for a hidden one.',
  '- live table cell (children of MANAGES_DESCENDANTS containers are left out of the Cache): ' +
    'first walk GetRole, GetState, GetInterfaces, Properties.GetAll(Accessible) (name, ' +
    'description, child count, parent, id in one call), GetExtents (SHOWING cells) and ' +
    'GetActions: 6. In a GTK 3 tree view of 20+ children, role, interfaces and action names of ' +
    "a cell come from its column's first cell (GTK 3 makes a column's cells from its renderers), " +
    'leaving GetState, GetAll and GetExtents. Warm: role, interfaces and action names are ' +
    'remembered per object id: GetState, GetAll, GetExtents: 3, the floor for a cell in view. ' +
    "The bridge has no call that returns another object's state set or frame, and " +
    'Collection.GetTree (properties of a subtree) stops at MANAGES_DESCENDANTS and carries ' +
    'D-Bus properties only (no role, states or frame).',
  '- live table cell, row out of view: GTK 3 says SHOWING for every cell of a tree view and ' +
    'answers INT_MIN for the frame of a cell whose row is out of view. In a GTK 3 tree view of ' +
    '20+ children the walk finds the rows in view first (a search of 16 frames per round from ' +
    'a row in view: 2 to 4 rounds; warm: one round of at most 4 frames checks the rows in view ' +
    'it remembers) and asks no frame for the cells of the other rows or their renderers: ' +
    'GetState and GetAll, 2, the floor (states and name are per cell). A GTK 3 container ' +
    "cell's children (one per renderer) are listed once per cell: they never change while it " +
    'lives. Other toolkits: as a cell in view.',
  '- table row (Qt, Gecko): read like a live cell.',
];

export async function callsSection(ctx: BenchContext): Promise<void> {
  const address = await resolveA11yAddress(ctx.session.desktop.processEnv());
  const bus = await AtspiBus.connect(address);
  const list = await launchBigList(ctx);
  try {
    await waitQuiet(ctx.backend, list.pid);
    const rows: string[][] = [];
    for (const [name, pid] of [
      ['gtk3-widget-factory', ctx.factory.pid],
      ['gtk3-demo', ctx.demo.pid],
      ['zenity --list, 3,000 rows', list.pid],
    ] as const) {
      for (const pass of ['first walk', 'warm walk']) {
        const r = await countWalk(bus, pid);
        for (const [kind, c] of r.byKind) {
          if (c.calls === 0 && c.elements === 0) continue;
          const top = [...c.members]
            .sort((a, b) => b[1] - a[1])
            .map(([m, n]) => `${m} ${c.elements ? fmt(n / c.elements, 2) : n}`)
            .join(', ');
          rows.push([
            name,
            pass,
            kind,
            String(c.elements || ''),
            String(c.calls),
            c.elements ? fmt(c.calls / c.elements, 2) : '–',
            top,
          ]);
        }
        rows.push([
          name,
          pass,
          r.truncated ? `all (truncated: ${r.truncated})` : 'all',
          String(r.elements),
          String(r.total),
          fmt(r.total / r.elements, 2),
          '',
        ]);
      }
    }
    table(
      [
        'app',
        'pass',
        'kind',
        'elements',
        'calls',
        'calls/element',
        'calls by member (per element)',
      ],
      rows,
    );
    for (const f of FLOORS) out(f);
    out();
  } finally {
    await list.stop();
    await at.closeWires(bus);
    bus.disconnect();
  }
}
