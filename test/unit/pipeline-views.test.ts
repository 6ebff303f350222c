import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Snapshot } from '../../src/model/element.js';
import type { Change, Desktop } from '../../src/platform/desktop.js';
import { RefRegistry } from '../../src/pipeline/refs.js';
import { ViewCache } from '../../src/pipeline/views.js';
import { axError } from './helpers/pipeline-fixtures.js';
import { buildSnapshot, rng, type Spec } from './helpers/synthetic.js';

const SCREEN = { w: 1280, h: 800 };

interface Item {
  id: string;
  name: string;
  role?: string;
  value?: string;
  y?: number;
}

/** One window with a list of items, each with a platform id. */
function appSnapshot(items: Item[], opts: { pid?: number; ids?: boolean } = {}): Snapshot {
  const ids = opts.ids ?? true;
  const children: Spec[] = items.map((it, k) => ({
    role: it.role ?? 'AXButton',
    name: it.name,
    value: it.value,
    id: ids ? it.id : '',
    frame: [10, it.y ?? 40 + k * 30, 120, 24],
  }));
  return buildSnapshot(
    [
      {
        role: 'AXWindow',
        name: 'Main',
        id: ids ? ':1.7/win' : '',
        frame: [0, 0, 800, 600],
        window: { active: true },
        children,
      },
    ],
    { pid: opts.pid ?? 500, app: 'notes' },
  );
}

const ITEMS: Item[] = [
  { id: ':1.7/a', name: 'Open' },
  { id: ':1.7/b', name: 'Save' },
  { id: ':1.7/c', name: 'Title', role: 'AXTextField', value: 'Draft' },
];

/** The ref of the element with this name in a view. */
function refOf(view: { snapshot: Snapshot; refs: string[] }, name: string): string {
  const i = view.snapshot.elements.findIndex((e) => e.name === name);
  if (i < 0) throw new Error(`no ${name}`);
  return view.refs[i];
}

function setup(): { registry: RefRegistry; cache: ViewCache } {
  const registry = new RefRegistry();
  return { registry, cache: new ViewCache(registry) };
}

/**
 * Start watching pid on a desktop made of data whose change events the test sends
 * itself; a cached view counts as fresh only while events flow.
 */
async function watched(cache: ViewCache, pid = 500): Promise<(change: Change) => void> {
  let send: (change: Change) => void = () => undefined;
  const desktop = {
    watchChanges: async (_pid: number, onChange: (change: Change) => void) => {
      send = onChange;
      return async () => undefined;
    },
  } as unknown as Desktop;
  await cache.watch(desktop, pid);
  return (change) => send(change);
}

describe('ViewCache.present', () => {
  it('gives every element a ref, minted with its origin, and computes visibility', () => {
    const { registry, cache } = setup();
    const snap = appSnapshot([...ITEMS, { id: ':1.7/far', name: 'Far', y: 5000 }]);
    const view = cache.present(snap, SCREEN, 'ax_get_tree');
    expect(view.snapshot).toBe(snap);
    expect(view.refs).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    expect(view.snapshotId).toMatch(/^s[0-9a-z]+$/);
    for (const ref of view.refs) {
      expect(registry.originOf(ref)).toEqual({
        pid: 500,
        snapshotId: view.snapshotId,
        tool: 'ax_get_tree',
      });
    }
    expect(view.visible).toEqual([true, true, true, true, false]);
    expect(view.viewport).toEqual({ x: 0, y: 0, w: 800, h: 600 });
    expect(view.dialog).toBeNull();
  });

  it('keeps refs stable across two snapshots of the same elements', () => {
    const { cache } = setup();
    const first = cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    const second = cache.present(appSnapshot(ITEMS), SCREEN, 'ax_click');
    expect(second.refs).toEqual(first.refs);
    expect(second.snapshotId).not.toBe(first.snapshotId);
  });

  it('keeps refs across a reorder and a scroll (same ids, new positions)', () => {
    const { cache } = setup();
    const first = cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    const moved = [ITEMS[2], ITEMS[0], ITEMS[1]].map((it, k) => ({ ...it, y: 300 + k * 30 }));
    const second = cache.present(appSnapshot(moved), SCREEN, 'ax_scroll');
    for (const it of ITEMS) expect(refOf(second, it.name)).toBe(refOf(first, it.name));
  });

  it('gives new elements new refs, never one in use', () => {
    const { registry, cache } = setup();
    const first = cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    const more = [ITEMS[0], { id: ':1.7/new', name: 'Export' }, ...ITEMS.slice(1)];
    const second = cache.present(appSnapshot(more), SCREEN, 'ax_click');
    const fresh = refOf(second, 'Export');
    expect(first.refs).not.toContain(fresh);
    expect(registry.originOf(fresh)).toEqual({
      pid: 500,
      snapshotId: second.snapshotId,
      tool: 'ax_click',
    });
    for (const it of ITEMS) expect(refOf(second, it.name)).toBe(refOf(first, it.name));
    expect(new Set(second.refs).size).toBe(second.refs.length);
  });

  it('does not bring back the ref of a removed element for a different one', () => {
    const { cache } = setup();
    const first = cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    const second = cache.present(
      appSnapshot([ITEMS[0], { id: ':1.7/d', name: 'Print' }, ITEMS[2]]),
      SCREEN,
      'ax_click',
    );
    expect(refOf(second, 'Print')).not.toBe(refOf(first, 'Save'));
    expect(first.refs).not.toContain(refOf(second, 'Print'));
  });

  it('keeps the ref of an element re-created with a new id but the same content', () => {
    const { cache } = setup();
    const first = cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    const recreated = ITEMS.map((it) => (it.name === 'Save' ? { ...it, id: ':1.7/b2' } : it));
    const second = cache.present(appSnapshot(recreated), SCREEN, 'ax_click');
    expect(refOf(second, 'Save')).toBe(refOf(first, 'Save'));
    // A re-created element whose content changed too is a new element.
    const changed = ITEMS.map((it) =>
      it.name === 'Save' ? { ...it, id: ':1.7/b3', name: 'Save as' } : it,
    );
    const third = cache.present(appSnapshot(changed), SCREEN, 'ax_click');
    expect(second.refs).not.toContain(refOf(third, 'Save as'));
  });

  it('keeps refs for elements without platform ids (path signatures)', () => {
    const { cache } = setup();
    const first = cache.present(appSnapshot(ITEMS, { ids: false }), SCREEN, 'ax_get_tree');
    const inserted = [{ id: '', name: 'Help', role: 'AXLink' }, ...ITEMS];
    const second = cache.present(appSnapshot(inserted, { ids: false }), SCREEN, 'ax_click');
    for (const it of ITEMS) expect(refOf(second, it.name)).toBe(refOf(first, it.name));
    expect(first.refs).not.toContain(refOf(second, 'Help'));
  });

  it('keeps apps apart: the same ids in two pids get different refs', () => {
    const { registry, cache } = setup();
    const a = cache.present(appSnapshot(ITEMS, { pid: 1 }), SCREEN, 'ax_get_tree');
    const b = cache.present(appSnapshot(ITEMS, { pid: 2 }), SCREEN, 'ax_get_tree');
    expect(b.refs.filter((r) => a.refs.includes(r))).toEqual([]);
    expect(registry.originOf(b.refs[0]).pid).toBe(2);
    expect(cache.last(1)).toBe(a);
    expect(cache.last(2)).toBe(b);
  });
});

describe('ViewCache.present: partial snapshots', () => {
  /** A walk below one element: the Save button and a child the full walk had cut off. */
  function partialOf(extra: Item[]): Snapshot {
    return buildSnapshot(
      [
        {
          role: 'AXButton',
          name: 'Save',
          id: ':1.7/b',
          frame: [10, 70, 120, 24],
          children: extra.map((it) => ({ role: 'AXMenuItem', name: it.name, id: it.id })),
        },
      ],
      { pid: 500, app: 'notes' },
    );
  }

  it('borrows refs of known elements and mints new ones, without replacing the view', async () => {
    const { cache } = setup();
    await watched(cache);
    cache.beginSnapshot(500);
    const full = cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    const partial = cache.present(
      partialOf([{ id: ':1.7/menu', name: 'Save copy' }]),
      SCREEN,
      'ax_get_tree',
      true,
    );
    expect(partial.refs[0]).toBe(refOf(full, 'Save'));
    expect(full.refs).not.toContain(partial.refs[1]);
    expect(cache.last(500)).toBe(full);
    expect(cache.fresh(500)).toBe(full);
    // The partial view still resolves its own refs.
    expect(cache.indexOf(partial, partial.refs[1], { snapshotId: 'x', tool: 't' })).toBe(1);
  });

  it('hands the ref a partial snapshot minted to the next full snapshot', () => {
    const { cache } = setup();
    cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    const partial = cache.present(
      partialOf([{ id: ':1.7/menu', name: 'Save copy' }]),
      SCREEN,
      'ax_find',
      true,
    );
    const grown = [...ITEMS, { id: ':1.7/menu', name: 'Save copy', role: 'AXMenuItem' }];
    const full = cache.present(appSnapshot(grown), SCREEN, 'ax_get_tree');
    expect(refOf(full, 'Save copy')).toBe(partial.refs[1]);
    expect(new Set(full.refs).size).toBe(full.refs.length);
  });

  it('gives a re-created element first seen by a partial walk a new ref, kept from then on', () => {
    // Partial walks do not match by content (their paths start at another root), so the
    // element looks new; the latest ref handed out stays valid, the older one goes stale.
    const { registry, cache } = setup();
    const first = cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    const partial = cache.present(
      buildSnapshot([{ role: 'AXButton', name: 'Save', id: ':1.7/b2', frame: [10, 70, 120, 24] }], {
        pid: 500,
        app: 'notes',
      }),
      SCREEN,
      'ax_find',
      true,
    );
    expect(partial.refs[0]).not.toBe(refOf(first, 'Save'));
    const recreated = ITEMS.map((it) => (it.name === 'Save' ? { ...it, id: ':1.7/b2' } : it));
    const full = cache.present(appSnapshot(recreated), SCREEN, 'ax_get_tree');
    expect(refOf(full, 'Save')).toBe(partial.refs[0]);
    const old = refOf(first, 'Save');
    axError(() => cache.indexOf(full, old, registry.originOf(old)), 'stale_ref');
  });
});

describe('ViewCache.indexOf', () => {
  it('finds a ref in the current view', () => {
    const { cache } = setup();
    const view = cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    view.refs.forEach((ref, i) => {
      expect(cache.indexOf(view, ref, { snapshotId: view.snapshotId, tool: 'ax_get_tree' })).toBe(
        i,
      );
    });
  });

  it('reports a removed element as stale, naming both snapshots', () => {
    const { registry, cache } = setup();
    const first = cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    const saveRef = refOf(first, 'Save');
    const second = cache.present(appSnapshot([ITEMS[0], ITEMS[2]]), SCREEN, 'ax_click');
    const origin = registry.originOf(saveRef);
    const err = axError(() => cache.indexOf(second, saveRef, origin), 'stale_ref');
    expect(err.message).toBe(
      `ref ${saveRef} is stale: it came from snapshot ${first.snapshotId} (ax_get_tree) and that element is no longer in notes's tree (snapshot ${second.snapshotId})`,
    );
    expect(err.hint).toMatch(/latest summary/);
    // Still there: found at its new index.
    expect(cache.indexOf(second, refOf(first, 'Title'), origin)).toBe(2);
  });

  it('looks up a view that is no longer current by its own refs', () => {
    const { cache } = setup();
    const first = cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    const second = cache.present(appSnapshot([ITEMS[2]]), SCREEN, 'ax_click');
    const origin = { snapshotId: first.snapshotId, tool: 'ax_get_tree' };
    expect(cache.indexOf(first, refOf(first, 'Save'), origin)).toBe(2);
    axError(() => cache.indexOf(second, refOf(first, 'Save'), origin), 'stale_ref');
  });

  it('follows the view after a new full snapshot (no stale index cache)', () => {
    const { cache } = setup();
    const first = cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    const origin = { snapshotId: first.snapshotId, tool: 'ax_get_tree' };
    const titleRef = refOf(first, 'Title');
    expect(cache.indexOf(first, titleRef, origin)).toBe(3);
    const second = cache.present(appSnapshot([ITEMS[2], ITEMS[0]]), SCREEN, 'ax_click');
    expect(cache.indexOf(second, titleRef, origin)).toBe(1);
  });
});

describe('ViewCache.fresh', () => {
  it('returns the view until the app is marked dirty', async () => {
    const { cache } = setup();
    await watched(cache);
    expect(cache.fresh(500)).toBeUndefined();
    cache.beginSnapshot(500);
    const view = cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    expect(cache.fresh(500)).toBe(view);
    expect(cache.fresh(500)).toBe(view);
    cache.markDirty(500);
    expect(cache.fresh(500)).toBeUndefined();
    // The last view is still there for diffs.
    expect(cache.last(500)).toBe(view);
  });

  it('is not fresh when presented without beginSnapshot (a new app starts dirty)', () => {
    const { cache } = setup();
    cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    expect(cache.fresh(500)).toBeUndefined();
  });

  it('stays dirty when a change comes in during the walk', async () => {
    const { cache } = setup();
    await watched(cache);
    cache.beginSnapshot(500);
    cache.markDirty(500);
    cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    expect(cache.fresh(500)).toBeUndefined();
    cache.beginSnapshot(500);
    const next = cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    expect(cache.fresh(500)).toBe(next);
    expect(cache.fresh(501)).toBeUndefined();
  });
});

describe('ViewCache watches', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A desktop that counts watches and their ends, and hands the test each watch's sender. */
  function countingDesktop(): {
    desktop: Desktop;
    started: () => number;
    stopped: () => number;
    send: (change: Change) => void;
  } {
    let started = 0;
    let stopped = 0;
    let send: (change: Change) => void = () => undefined;
    const desktop = {
      watchChanges: async (_pid: number, onChange: (change: Change) => void) => {
        started++;
        send = onChange;
        return async () => {
          stopped++;
        };
      },
    } as unknown as Desktop;
    return { desktop, started: () => started, stopped: () => stopped, send: (c) => send(c) };
  }

  it('stops watching an app no call used for the idle time, and watches again on the next', async () => {
    vi.useFakeTimers();
    const cache = new ViewCache(new RefRegistry(), 1000);
    const d = countingDesktop();
    await cache.watch(d.desktop, 500);
    cache.beginSnapshot(500);
    const view = cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    await vi.advanceTimersByTimeAsync(800);
    // A read within the idle time keeps the watch (and the cached view) alive.
    expect(cache.fresh(500)).toBe(view);
    await vi.advanceTimersByTimeAsync(800);
    expect(d.stopped()).toBe(0);
    await vi.advanceTimersByTimeAsync(300);
    expect(d.stopped()).toBe(1);
    // Unheard, the cached view is no longer trusted.
    expect(cache.fresh(500)).toBeUndefined();
    await cache.watch(d.desktop, 500);
    expect(d.started()).toBe(2);
  });

  it('forgets a watch that was lost with its connection, and distrusts the view', async () => {
    const cache = new ViewCache(new RefRegistry(), 60_000);
    const d = countingDesktop();
    await cache.watch(d.desktop, 500);
    cache.beginSnapshot(500);
    const view = cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    expect(cache.fresh(500)).toBe(view);
    d.send({ elementId: '', lost: true });
    expect(cache.fresh(500)).toBeUndefined();
    await cache.watch(d.desktop, 500);
    expect(d.started()).toBe(2);
    await cache.close();
  });
});

describe('ViewCache: random histories', () => {
  it('never repeats a ref within a view and keeps refs of kept and re-created elements', () => {
    const next = rng(7);
    const { cache } = setup();
    let items: Item[] = ITEMS.map((it) => ({ ...it }));
    let serial = 0;
    let prev = cache.present(appSnapshot(items), SCREEN, 'ax_get_tree');
    for (let step = 0; step < 200; step++) {
      const prevRefByName = new Map(items.map((it) => [it.name, refOf(prev, it.name)]));
      const kept: Item[] = [];
      const recreated = new Set<string>();
      for (const it of items) {
        const r = next();
        if (r < 0.1) continue; // removed
        if (r < 0.2) {
          kept.push({ ...it, id: `${it.id}'` }); // re-created, same content
          recreated.add(it.name);
        } else kept.push(it);
      }
      const added = Math.floor(next() * 3);
      for (let k = 0; k < added; k++) {
        serial++;
        kept.splice(Math.floor(next() * (kept.length + 1)), 0, {
          id: `:1.7/n${serial}`,
          name: `Item ${serial}`,
        });
      }
      items = kept;
      if (next() < 0.2 && items.length > 0) {
        // A partial walk of one element in between.
        const it = items[Math.floor(next() * items.length)];
        const part = buildSnapshot([{ role: it.role ?? 'AXButton', name: it.name, id: it.id }], {
          pid: 500,
          app: 'notes',
        });
        const pv = cache.present(part, SCREEN, 'ax_find', true);
        if (recreated.has(it.name)) {
          // A partial walk does not match by content: it sees a new element and mints a
          // ref, which the next full snapshot then keeps (the latest ref handed out).
          expect([...prevRefByName.values()]).not.toContain(pv.refs[0]);
          prevRefByName.set(it.name, pv.refs[0]);
        } else if (prevRefByName.has(it.name)) {
          expect(pv.refs[0]).toBe(prevRefByName.get(it.name));
        } else {
          prevRefByName.set(it.name, pv.refs[0]);
        }
      }
      const view = cache.present(appSnapshot(items), SCREEN, 'ax_click');
      expect(new Set(view.refs).size).toBe(view.refs.length);
      for (const it of items) {
        const before = prevRefByName.get(it.name);
        if (before !== undefined)
          expect(refOf(view, it.name), `step ${step} ${it.name}`).toBe(before);
        else expect([...prevRefByName.values()]).not.toContain(refOf(view, it.name));
      }
      prev = view;
    }
  });

  it('is never fresh without change events to go by', () => {
    const { cache } = setup();
    cache.beginSnapshot(500);
    cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    expect(cache.fresh(500)).toBeUndefined();
  });

  it('stays fresh when an event re-announces a state the view already shows', async () => {
    const { cache } = setup();
    const send = await watched(cache);
    cache.beginSnapshot(500);
    const view = cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    send({ elementId: ':1.7/a', flag: 'checked', on: false });
    expect(cache.fresh(500)).toBe(view);
    expect(cache.activity(500).count).toBe(1);
    send({ elementId: ':1.7/a', flag: 'checked', on: true });
    expect(cache.fresh(500)).toBeUndefined();
  });

  it('goes dirty on any event it cannot compare with the view', async () => {
    const { cache } = setup();
    const send = await watched(cache);
    cache.beginSnapshot(500);
    cache.present(appSnapshot(ITEMS), SCREEN, 'ax_get_tree');
    send({ elementId: ':1.7/b' });
    expect(cache.fresh(500)).toBeUndefined();
  });
});
