/**
 * A bounded snapshot of one app as the flat `Element[]` of the tree model.
 *
 * The hybrid walk (research §5): one `Cache.GetItems` call gives role, name, description,
 * states, interfaces and child count of every cached accessible; the ATK bridge leaves out
 * the children of MANAGES_DESCENDANTS containers (tables, tree views, menus: cached with
 * childCount -1, gotcha 7) so those subtrees are walked live; frames, text, values, action
 * names and identifiers are then read concurrently for the elements that have the
 * interface. When the cache is missing (Qt answers an empty list; GTK4 has none) or
 * fails, everything is walked live. All calls go through one bounded queue (1,024 in flight)
 * in tree order, so huge trees cannot explode memory and a capped walk keeps the first
 * elements of the tree file.
 *
 * Bounds: `maxElements` (admitted elements, in tree order per window), `maxDepth` (depth 0
 * = top-level windows, or the `rootId` element), `timeBudgetMs` (when it runs out the walk
 * returns what is complete; calls still in flight are abandoned). `truncated` names the
 * first bound that cut something; an app that exits during the walk gives what was read
 * with `truncated` TRUNCATED_APP_EXITED (nothing read at all: AppGoneError), and a read the
 * app does not answer in time says so too, rather than dropping that subtree silently.
 *
 * `rootId` walks one subtree: the root element comes first at depth 0 and parent -1, and
 * `windows` lists only top-levels that are in the walk (none when the root is inside a
 * window).
 *
 * Order: windows first by importance (modal dialogs, other dialogs, the active window, the
 * rest; hidden top-levels last), then depth-first, children in the toolkit's order.
 *
 * Frames are screen coordinates (GetExtents COORD_TYPE_SCREEN). GTK4 on X11 cannot report
 * screen coordinates and answers relative to its window: a GTK4 walk is marked and its
 * frames are moved to the screen by the caller, which knows the X11 windows (gtk4.ts).
 */
import type { Element, Snapshot, WindowInfo } from '../../../model/element.js';
import { TRUNCATED_APP_EXITED } from '../../../model/element.js';
import type { SnapshotOptions } from '../../desktop.js';
import { DIALOG_ROLES, roleName } from '../roles.js';
import type { AppRef } from './apps.js';
import { wakeBridge } from './apps.js';
import type { AtspiBus, ObjectRef } from './bus.js';
import { AtspiCallError, AtspiTimeoutError, CACHE_PATH, NULL_PATH } from './bus.js';
import { noteClickContext } from './click-context.js';
import {
  detectGtk4,
  gtk4States,
  gtk4TopLevelStates,
  markWindowRelative,
  nameRowsByLabel,
  noteUnconfirmedWindows,
  tidyGtk4,
} from './gtk4.js';
import { actionsOneByOne, childrenLiveOnly, settlePage } from './gecko.js';
import { formatId, parseId } from './ids.js';
import { procStat } from '../proc.js';
import { CallQueue, WalkStopped } from './queue.js';
import type { Priority } from './queue.js';
import {
  actionKey,
  askExtents,
  getProp,
  IFACE,
  isTopLevelParent,
  directCall,
  readActionNames,
  readBasics,
  readExtras,
  toElement,
} from './read.js';
import type { Basics, CallFn, Extras, Lasting } from './read.js';
import { isQtToolkitName } from './qt.js';
import {
  childrenByIndex,
  listedChildren,
  rowsNearestView,
  seenOf,
  SHOWN_ROWS_MIN_CHILDREN,
  treeViewLayout,
} from './shown-rows.js';
import type { Children, SeenLayout, TreeViewLayout } from './shown-rows.js';
import { hasState, STATE } from './states.js';
import { toolkitName } from './toolkit.js';
import { fastCall, nameHasOwner } from './wire.js';

/**
 * Calls in flight at once, per walk. A 3,000-row table queues ~10,000 calls at once; with
 * 256 in flight most of them went through the queue's heap, and our CPU per warm walk of it
 * was ~25% higher than with 1,024 (measured alternating on the same app; 4,096 saved little
 * more). The bound still keeps memory small: a call and its reply are a few hundred bytes.
 */
export const MAX_IN_FLIGHT = 1024;

/**
 * Most children an element that lists none is asked for one by one (see expandLive): an
 * embedding socket has one; more is a toolkit that lists lazily, walked as it lists.
 */
const EMBEDDED_CHILDREN_MAX = 4;

/** One `Cache.GetItems` entry: a((so)(so)(so)iiassusau). */
type CacheItem = [
  ObjectRef, // the accessible
  ObjectRef, // its application
  ObjectRef, // its parent
  number, // index in parent (-1 when the toolkit does not know)
  number, // child count (-1: MANAGES_DESCENDANTS, children not cached)
  string[], // interfaces
  string, // name
  number, // role
  string, // description
  number[], // states
];

interface Node {
  ref: ObjectRef;
  /** formatId(ref), made once. */
  id: string;
  key: Priority;
  depth: number;
  parent: Node | null;
  topLevel: boolean;
  basics?: Basics;
  /** Cached children's ids in order, when the cache holds all of them. */
  cachedKids?: string[];
  children: Node[];
  /** Set once every extra read settled (before the walk stopped). */
  extras?: Extras;
  /** A GetExtents asked before the basics came (see fetchAndVisit), until readExtras takes it. */
  extents?: Promise<unknown[]>;
  /** Its frame is known to be unplaced without asking: a row out of view (shown-rows.ts). */
  unplaced?: boolean;
  /** What its column's first cell is, for a cell no walk has seen yet (columnTemplates). */
  template?: Lasting;
  /** Its child list, asked with its basics or remembered (see fetchAndVisit). */
  listing?: Promise<ObjectRef[] | undefined>;
}

interface Cache {
  items: Map<string, CacheItem>;
  kids: Map<string, string[]>;
}

/** Containers whose children are rows (or cells) for maxTableRows, whatever their states. */
const TABLE_ROLES = new Set(['table', 'tree table', 'tree', 'list', 'list box']);

/** Window importance: modal dialogs, other dialogs, the active window, the rest; hidden last. */
export function windowRank(nativeRole: string, states: readonly number[]): number {
  const dialog = DIALOG_ROLES.has(nativeRole);
  const active = hasState(states, STATE.ACTIVE);
  let rank: number;
  if (dialog) rank = hasState(states, STATE.MODAL) ? 0 : active ? 1 : 2;
  else rank = active ? 3 : 4;
  const shown = hasState(states, STATE.SHOWING) && hasState(states, STATE.VISIBLE);
  return shown ? rank : rank + 5;
}

function basicsFromCache(it: CacheItem): Basics {
  return {
    role: it[7],
    name: it[6] ?? '',
    description: it[8] ?? '',
    states: it[9],
    ifaces: new Set(it[5]),
    childCount: it[4],
    parent: it[2],
  };
}

/** The cache as maps: id → item, parent id → child ids in index order. */
function indexCache(items: CacheItem[]): Cache {
  const byId = new Map<string, CacheItem>();
  const kids = new Map<string, Array<{ id: string; idx: number; n: number }>>();
  items.forEach((it, n) => {
    const id = formatId(it[0][0], it[0][1]);
    byId.set(id, it);
    const parent = formatId(it[2][0], it[2][1]);
    if (parent === id) return; // the application root names itself as parent
    let list = kids.get(parent);
    if (!list) kids.set(parent, (list = []));
    list.push({ id, idx: it[3], n });
  });
  const ordered = new Map<string, string[]>();
  for (const [parent, list] of kids) {
    // Unknown indexes (-1: GTK3 scroll bars of a scrolled window) go after the known ones.
    list.sort((a, b) => (a.idx < 0 ? 1e9 : a.idx) - (b.idx < 0 ? 1e9 : b.idx) || a.n - b.n);
    ordered.set(
      parent,
      list.map((k) => k.id),
    );
  }
  return { items: byId, kids: ordered };
}

/**
 * Apps whose last complete walk found no AccessibleId at all (GTK3 sets none of its own:
 * a quarter of a walk's calls asked for empty ids). Their next walks skip the reads; every
 * IDS_RECHECK-th walk reads them again, so ids an app sets later still show up.
 */
const IDS_RECHECK = 10;
const idlessWalks = new WeakMap<AtspiBus, Map<string, number>>();

/** A cached container's children as the toolkit listed them, for the cache order they had. */
interface ChildOrder {
  /** The cached child ids in index order, joined. */
  cached: string;
  listed: string[];
}

/**
 * What walks of one app remember for the next, per element id: at-spi2-atk's object paths
 * are counters never reused within a connection, so an id names one object for its whole
 * life. Kept per app bus name (a restarted app has a new one).
 */
interface Memo {
  /** What cannot change while an object lives (see Lasting). */
  lasting: Map<string, Lasting>;
  /** Cached containers' child order as listed (see Walk.orderChildren). */
  orders: Map<string, ChildOrder>;
  /**
   * The children of GTK 3 container cells (a tree view column of two or more renderers: an
   * icon and a text). GTK 3 makes a container cell's children with it, one per renderer,
   * and never adds or removes one while the cell lives (gtktreeviewaccessible.c:
   * create_cell_accessible), so a cell seen before is not listed again (gtk3-demo: 49
   * GetChildren per walk). A cell whose child count differs from the list is listed anew.
   */
  cellKids: Map<string, ObjectRef[]>;
  /** Where each GTK 3 tree view's rows in view were (checked first: see treeViewLayout). */
  layouts: Map<string, SeenLayout>;
}

const newMemo = (): Memo => ({
  lasting: new Map(),
  orders: new Map(),
  cellKids: new Map(),
  layouts: new Map(),
});

/**
 * A complete walk keeps only the ids it saw, so a memo holds at most one app tree; partial
 * walks add to it up to MEMO_CAP entries per part; at most MEMO_APPS apps are remembered.
 */
const MEMO_CAP = 50_000;
const MEMO_APPS = 32;
const memos = new WeakMap<AtspiBus, Map<string, Memo>>();

function memoFor(bus: AtspiBus, appBus: string): Memo {
  let apps = memos.get(bus);
  if (!apps) memos.set(bus, (apps = new Map()));
  const memo = apps.get(appBus) ?? newMemo();
  apps.delete(appBus); // re-inserted last: the map's order is least recently walked first
  apps.set(appBus, memo);
  for (const old of apps.keys()) {
    if (apps.size <= MEMO_APPS) break;
    apps.delete(old);
  }
  return memo;
}

function keepMemo(bus: AtspiBus, appBus: string, seen: Memo, full: boolean): void {
  const apps = memos.get(bus);
  const memo = apps?.get(appBus);
  if (!apps || !memo) return;
  const parts = [
    [memo.lasting, seen.lasting],
    [memo.orders, seen.orders],
    [memo.cellKids, seen.cellKids],
    [memo.layouts, seen.layouts],
  ] as Array<[Map<string, unknown>, Map<string, unknown>]>;
  if (full || parts.some(([was, now]) => was.size + now.size > MEMO_CAP)) {
    apps.set(appBus, seen);
    return;
  }
  for (const [was, now] of parts) for (const [id, v] of now) was.set(id, v);
}

/** Stable: children the listing does not know (changed meanwhile) keep their place at the end. */
function sortByListing(n: Node, listed: readonly string[]): void {
  const pos = new Map<string, number>();
  listed.forEach((id, i) => pos.set(id, i));
  const at = (c: Node): number => pos.get(c.id) ?? listed.length;
  n.children = n.children
    .map((c, i) => ({ c, i }))
    .sort((a, b) => at(a.c) - at(b.c) || a.i - b.i)
    .map(({ c }) => c);
}

class Walk {
  readonly q: CallQueue;
  truncated: string | null = null;
  cache: Cache | null = null;
  /** Skip AccessibleId reads (see idlessWalks). */
  skipIds = false;
  /** A GTK4 app: states, names, actions and frames need its corrections (see gtk4.ts). */
  gtk4 = false;
  /** GTK4 top-levels read as shown though GTK does not say so (see gtk4TopLevelStates). */
  readonly unconfirmedTops = new Set<string>();
  /** Read action names one call per string (Gecko, see gecko.ts). */
  oneByOne = false;
  /** The app's memo from earlier walks (read only), and what this walk learned (see Memo). */
  memo: Memo = newMemo();
  readonly learned: Memo = newMemo();
  private admitted = 0;
  private readonly seen = new Set<string>();
  private pending = 0;
  private onIdle: (() => void) | null = null;

  constructor(
    readonly bus: AtspiBus,
    readonly app: AppRef,
    readonly opts: SnapshotOptions,
    maxInFlight = MAX_IN_FLIGHT,
    bulkHoldMs?: number,
  ) {
    this.q = new CallQueue(maxInFlight, bulkHoldMs);
  }

  /** How calls travel: the lean wire connection when available (see wire.ts). */
  send: CallFn = (d, p, i, m, s, b) => this.bus.call(d, p, i, m, s, b);

  /** The app runs Qt's bridge (see qt.ts); undefined until the setup asked. */
  qt: boolean | undefined;
  /**
   * The app runs GTK 3 (not 4), read by what GTK 3 is known to do (see
   * WalkTuning.gtk3Shortcuts; false when the tuning turns that off).
   */
  gtk3 = false;

  /** Calls in tree order through the queue; `urgent` ones go out first in their tick. */
  callAt(key: Priority, urgent = false): CallFn {
    return (dest, path, iface, member, signature, body) =>
      this.q.run(key, () => this.send(dest, path, iface, member, signature, body, urgent), urgent);
  }

  /** Reads an element's basics; their answers decide what else to ask, so they go first. */
  basicsOf(ref: ObjectRef, key: Priority, known = this.known(ref)): Promise<Basics> {
    return readBasics(this.callAt(key, true), ref, { known, qt: this.qt });
  }

  truncate(reason: string): void {
    this.truncated ??= reason;
  }

  /** A read failed because the app left the bus (not because one element went away). */
  appLeft = false;

  /** Counts a pending job; the walk is done when none is left. */
  track(p: Promise<unknown>): void {
    this.pending++;
    p.then(this.jobDone, this.jobFailed);
  }

  private readonly jobDone = (): void => {
    if (--this.pending === 0) this.onIdle?.();
  };

  private readonly jobFailed = (err: unknown): void => {
    if (appLeft(err)) {
      // Nothing more can be read: stop issuing calls that can only fail.
      this.appLeft = true;
      this.q.stop(TRUNCATED_APP_EXITED);
    } else if (err instanceof AtspiTimeoutError) {
      this.truncate(`the app did not answer a read within ${err.ms} ms`);
    } else if (!(err instanceof WalkStopped) && !gone(err)) {
      // Neither the object nor the app went away, yet a read failed: what hung on it (an
      // element, a container's children) is missing, and the walk must not look complete.
      const why = err instanceof Error ? err.message : String(err);
      this.truncate(`a read failed: ${why.length > 160 ? `${why.slice(0, 157)}...` : why}`);
    }
    this.jobDone();
  };

  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => (this.onIdle = resolve));
  }

  /** Claims a place in the element list; false (and truncated) once the cap is reached. */
  admit(id: string): boolean {
    if (this.seen.has(id)) return false; // a cycle or a duplicate report: keep the first
    if (this.admitted >= this.opts.maxElements) {
      this.truncate(`max elements ${this.opts.maxElements}`);
      return false;
    }
    this.seen.add(id);
    this.admitted++;
    return true;
  }

  node(
    ref: ObjectRef,
    parent: Node | null,
    key: Priority,
    depth: number,
    topLevel: boolean,
    id = formatId(ref[0], ref[1]),
  ): Node {
    const n: Node = { ref, id, key, depth, parent, topLevel, children: [] };
    const it = this.cache?.items.get(id);
    if (it) {
      n.basics = basicsFromCache(it);
      const kids = this.cache!.kids.get(id) ?? [];
      if (childrenLiveOnly(it[7])) n.basics.childCount = -1;
      else if (it[4] >= 0 && kids.length === it[4]) n.cachedKids = kids;
    }
    return n;
  }

  /**
   * Reads a live node's basics, then visits it. An object known (from an earlier walk
   * or its column's template) to have a Component gets its frame asked with the basics (one
   * round trip less per live cell); used only if the states say SHOWING, as in any walk.
   */
  fetchAndVisit(n: Node): void {
    const known = this.memo.lasting.get(n.id) ?? n.template;
    if (known?.ifaces.has(IFACE.Component) && !n.unplaced && !n.extents) {
      // In the structure lane: it goes out with the basics, not after them.
      n.extents = askExtents(this.callAt(n.key, true), n.ref);
    }
    // A live element that had children (a GTK 3 container cell: its renderers) has its
    // child list asked with its basics too, instead of one round trip later. Not a table:
    // one that will be cut is never listed whole (see expandLive).
    if (known?.parent && !TABLE_ROLES.has(roleName(known.role))) {
      const remembered = this.gtk3 ? this.memo.cellKids.get(n.id) : undefined;
      n.listing = remembered ? Promise.resolve(remembered) : this.childrenOf(n);
      n.listing.catch(() => undefined); // unused when the basics say not to expand
    }
    this.track(
      this.basicsOf(n.ref, n.key, known).then((b) => {
        if (this.q.stopped) return;
        n.basics = b;
        this.visit(n);
      }),
    );
  }

  /**
   * What to remember of an element for the next walk: what was known, when nothing new was
   * learned (a big table's cells, walk after walk: no object per cell per walk).
   */
  private lasting(
    known: Lasting | undefined,
    b: Basics,
    key: string,
    actions: string[] | undefined,
  ): Lasting {
    const parent = b.childCount > 0;
    if (
      known &&
      known.role === b.role &&
      known.ifaces === b.ifaces &&
      (known.parent === true) === parent &&
      (actions === undefined || (known.actionKey === key && known.actions === actions))
    ) {
      return known;
    }
    const learned: Lasting = { role: b.role, ifaces: b.ifaces };
    if (actions) Object.assign(learned, { actionKey: key, actions });
    if (parent) learned.parent = true;
    return learned;
  }

  /** fetchAndVisit once the queue has room for its calls (see CallQueue.defer). */
  fetchWhenRoom(n: Node): void {
    this.pending++;
    this.q.defer(
      n.key,
      () => {
        this.fetchAndVisit(n);
        this.jobDone();
      },
      this.jobDone,
    );
  }

  known(ref: ObjectRef): Lasting | undefined {
    return this.memo.lasting.get(formatId(ref[0], ref[1]));
  }

  /** A node with basics: schedule its extras, then its children (within maxDepth). */
  visit(n: Node): void {
    const b = n.basics!;
    if (this.gtk4) {
      const parentShowing = n.parent
        ? hasState(n.parent.basics!.states, STATE.SHOWING)
        : !n.topLevel;
      b.states = gtk4States(b.states, parentShowing);
    }
    const native = roleName(b.role);
    // The cache has no AccessibleId; live reads got it free with GetAll.
    const readId = b.accessibleId === undefined && !this.skipIds;
    const id = n.id;
    const known = this.memo.lasting.get(id) ?? n.template;
    const key = actionKey(b.role, b.states);
    const knownActions =
      known?.role === b.role && known.actionKey === key ? known.actions : undefined;
    const extents = n.extents;
    n.extents = undefined;
    this.track(
      readExtras(this.callAt(n.key), n.ref, native, b, {
        readId,
        knownActions,
        actionsOneByOne: this.oneByOne,
        extents,
        unplaced: n.unplaced,
        textClamps: this.gtk3,
      }).then((x) => {
        if (this.q.stopped) return;
        n.extras = x;
        this.learned.lasting.set(
          id,
          this.lasting(known, b, key, x.actionsRead ? x.actions : knownActions),
        );
      }),
    );
    if (b.childCount === 0) return;
    if (n.depth >= this.opts.maxDepth) {
      this.truncate(`max depth ${this.opts.maxDepth}`);
      // A cached managed container says -1: ask, so the cut element tells what it holds.
      if (b.childCount < 0) {
        this.track(
          getProp(this.callAt(n.key), n.ref, IFACE.Accessible, 'ChildCount').then((c) => {
            b.childCount = c as number;
          }),
        );
      }
      return;
    }
    if (n.cachedKids) {
      n.cachedKids.forEach((id, i) => {
        if (!this.admit(id)) return;
        const child = this.node(parseId(id), n, [...n.key, i], n.depth + 1, false, id);
        n.children.push(child);
        this.visit(child);
      });
      if (n.children.length > 1) this.orderChildren(n, id, n.cachedKids);
      return;
    }
    this.track(this.expandLive(n));
  }

  /** The node's children as the toolkit lists them; undefined once the walk has stopped. */
  private async childrenOf(n: Node): Promise<ObjectRef[] | undefined> {
    const [refs] = (await this.callAt(n.key, true)(
      n.ref[0],
      n.ref[1],
      IFACE.Accessible,
      'GetChildren',
    )) as [ObjectRef[]];
    return this.q.stopped ? undefined : refs;
  }

  /**
   * Puts cached children in the toolkit's child order. The cache's index-in-parent is not
   * always that order (GTK3's header bar numbers its packed children differently from the
   * order it lists them in), and pyatspi, the live walk and the user see the listed order.
   * The listing is asked once per container and remembered with the cache's order it was
   * asked for: while the cache shows the same children in the same index order, the toolkit
   * lists them as before (both orders come from the same child list, so a change to it
   * changes the cache's order too), and no GetChildren is sent.
   */
  orderChildren(n: Node, id: string, cachedKids: readonly string[]): void {
    const cached = cachedKids.join('\n');
    const prior = this.memo.orders.get(id);
    if (prior?.cached === cached) {
      this.learned.orders.set(id, prior);
      sortByListing(n, prior.listed);
      return;
    }
    this.track(
      this.childrenOf(n).then((refs) => {
        if (!refs) return;
        const listed = refs.map((r) => formatId(r[0], r[1]));
        this.learned.orders.set(id, { cached, listed });
        sortByListing(n, listed);
      }),
    );
  }

  /**
   * What the first-row cell of each column of a GTK3 tree view is, for its other cells: GTK3
   * makes every cell of a column from the column's renderers (gtktreeviewaccessible.c), so
   * they share role, interfaces and, in the same states, action names. A walk that has not
   * seen the table's cells yet then asks those three once per column instead of once per
   * cell (9,000 calls in a 3,000-row list). Undefined for a column whose cell could not be
   * read (its cells are read in full).
   */
  private async columnTemplates(
    n: Node,
    kids: Children,
    columns: number,
  ): Promise<Array<Lasting | undefined>> {
    const call = this.callAt(n.key, true);
    return Promise.all(
      Array.from({ length: columns }, async (_, c): Promise<Lasting | undefined> => {
        try {
          const ref = await kids.at(columns + c);
          const remembered = this.known(ref);
          if (remembered || !ref || ref[1] === NULL_PATH) return remembered;
          const b = await readBasics(call, ref, { qt: this.qt });
          const template: Lasting = { role: b.role, ifaces: b.ifaces };
          if (b.childCount > 0) template.parent = true; // a container cell: so is the column's
          if (b.ifaces.has(IFACE.Action) && !this.oneByOne) {
            template.actionKey = actionKey(b.role, b.states);
            template.actions = await readActionNames(call, ref);
          }
          return template;
        } catch {
          return undefined;
        }
      }),
    );
  }

  /** A big GTK3 tree view in view: worth finding its rows in view first (shown-rows.ts). */
  private isBigTreeView(n: Node, children: number): boolean {
    const cut = this.opts.maxTableRows !== undefined && children > this.opts.maxTableRows;
    if ((children < SHOWN_ROWS_MIN_CHILDREN && !cut) || !this.gtk3) return false;
    const b = n.basics!;
    const native = roleName(b.role);
    return (
      (native === 'table' || native === 'tree table') &&
      b.ifaces.has(IFACE.Table) &&
      b.ifaces.has(IFACE.Component) &&
      hasState(b.states, STATE.SHOWING)
    );
  }

  /**
   * Which children of a table, list or tree to read when not all may be (maxTableRows, or
   * the element cap on a GTK 3 tree view whose rows in view are known): the rows in view
   * and those nearest them where known, else the first rows; the cut is reported.
   * Undefined: read every child.
   */
  private tableCut(
    n: Node,
    children: number,
    layout: TreeViewLayout | undefined,
  ): ((childIndex: number) => boolean) | undefined {
    const b = n.basics!;
    if (
      !layout &&
      !hasState(b.states, STATE.MANAGES_DESCENDANTS) &&
      !TABLE_ROLES.has(roleName(b.role))
    ) {
      return undefined;
    }
    const columns = layout?.columns ?? 1;
    const headers = layout ? columns : 0;
    const rows = Math.floor((children - headers) / columns);
    const byRows = this.opts.maxTableRows ?? Infinity;
    // The element cap cuts any container in tree order; here it keeps the rows in view.
    const room = layout
      ? Math.max(0, Math.floor((this.opts.maxElements - this.admitted - headers) / columns))
      : Infinity;
    const cap = Math.min(byRows, room);
    if (cap >= rows) return undefined;
    const which = layout ? 'the rows in view and those nearest them' : `the first ${cap}`;
    const limit =
      byRows <= room ? `max table rows ${byRows}` : `max elements ${this.opts.maxElements}`;
    this.truncate(`${limit} (${cap} of ${rows} rows of a ${roleName(b.role)} read: ${which})`);
    const keep = layout
      ? rowsNearestView(rows, cap, layout.inView)
      : new Set(Array.from({ length: cap }, (_, r) => r));
    return (i) => i < headers || keep.has(Math.floor((i - headers) / columns));
  }

  /** GetChildren, then each child from the cache when it is there, else read live. */
  async expandLive(n: Node): Promise<void> {
    // A table to be read in part is not listed whole: GTK 3 would make an accessible for
    // each of its cells (most of a first walk of 3,000 rows); its rows are asked by index.
    let byIndex = await this.childrenToAskByIndex(n);
    let refs = byIndex ? undefined : await (n.listing ?? this.childrenOf(n));
    if (refs && refs === this.memo.cellKids.get(n.id) && refs.length !== n.basics!.childCount) {
      refs = await this.childrenOf(n); // remembered, but not the cell it was: list it
    }
    const count = n.basics!.childCount;
    if (refs?.length === 0 && count > 0 && count <= EMBEDDED_CHILDREN_MAX) {
      // A socket holding another process's plug (XEmbed: GTK 3's GtkSocket) lists no
      // children but answers its child by index: the plug's root, on the other app's bus.
      // Walked on from there, what the plug shows (a password field) is in this app's tree,
      // as it is on its screen.
      byIndex = childrenByIndex(this.callAt(n.key, true), n.ref, count);
      refs = undefined;
    }
    if (!byIndex && !refs) return;
    if (refs && this.gtk3 && roleName(n.basics!.role) === 'table cell') {
      this.learned.cellKids.set(n.id, refs);
    }
    const kids = byIndex ?? listedChildren(refs!);
    if (n.basics!.childCount < 0) n.basics!.childCount = kids.count;
    const layout = this.isBigTreeView(n, kids.count)
      ? await treeViewLayout(this.callAt(n.key, true), n.ref, kids, this.memo.layouts.get(n.id))
      : undefined;
    if (layout) this.learned.layouts.set(n.id, seenOf(layout));
    const templates = layout ? await this.columnTemplates(n, kids, layout.columns) : undefined;
    if (this.q.stopped) return;
    const kept = this.tableCut(n, kids.count, layout);
    const add = (ref: ObjectRef, i: number): void => {
      if (ref[1] === NULL_PATH) return; // a toolkit's placeholder for a child it lost
      const id = formatId(ref[0], ref[1]);
      if (!this.admit(id)) return;
      const child = this.node(ref, n, [...n.key, i], n.depth + 1, false, id);
      // A GTK 3 container cell's renderers lie in its row: out of view with it.
      if (layout?.outOfView(i) || n.unplaced) child.unplaced = true;
      else child.extents = layout?.probed.get(i); // the search asked it already
      if (templates && layout && i >= layout.columns) {
        child.template = templates[i % layout.columns];
      }
      n.children.push(child);
      if (child.basics) this.visit(child);
      else this.fetchWhenRoom(child);
    };
    if (refs) {
      const enters = await this.enterable(refs);
      if (this.q.stopped) return;
      refs.forEach((ref, i) => {
        if ((!kept || kept(i)) && enters(ref)) add(ref, i);
      });
      return;
    }
    const wanted = Array.from({ length: kids.count }, (_, i) => i).filter((i) => !kept || kept(i));
    const asked = await Promise.all(wanted.map((i) => kids.at(i)));
    const enters = await this.enterable(asked);
    if (this.q.stopped) return;
    asked.forEach((ref, j) => {
      if (enters(ref)) add(ref, wanted[j]);
    });
  }

  private readonly entering = new Map<string, Promise<boolean>>();
  /** The pids of the other apps whose trees the walk went into (see Snapshot.enteredApps). */
  readonly enteredApps = new Set<number>();

  /**
   * Which of these children the walk goes into: all of this app's; another app's (a plug's
   * tree below a socket) as SnapshotOptions.enterApp says, each app asked once per walk.
   */
  private async enterable(refs: readonly ObjectRef[]): Promise<(ref: ObjectRef) => boolean> {
    const foreign = [...new Set(refs.map((r) => r[0]).filter((b) => b !== this.app.bus))];
    if (foreign.length === 0) return () => true;
    const enterApp = this.opts.enterApp ?? (() => true);
    const allowed = new Set<string>();
    await Promise.all(
      foreign.map(async (name) => {
        let ok = this.entering.get(name);
        if (!ok) {
          // An app whose pid cannot be told is not gone into: nothing says it may be.
          ok = this.bus.pidOf(name).then(
            async (pid) => {
              const enter = await enterApp(pid);
              if (enter) this.enteredApps.add(pid);
              return enter;
            },
            () => false,
          );
          this.entering.set(name, ok);
        }
        if (await ok) allowed.add(name);
      }),
    );
    return (ref) => ref[0] === this.app.bus || allowed.has(ref[0]);
  }

  /**
   * The children of a GTK 3 table that maxTableRows will cut, asked one by one (see
   * expandLive), or undefined to list them all. Only where the layout can be known: a
   * table elsewhere is listed whole and cut at its first rows.
   */
  private async childrenToAskByIndex(n: Node): Promise<Children | undefined> {
    const cap = this.opts.maxTableRows;
    const b = n.basics!;
    if (cap === undefined || !this.gtk3 || !this.isBigTreeView(n, Infinity)) return undefined;
    const call = this.callAt(n.key, true);
    const count =
      b.childCount >= 0
        ? b.childCount
        : ((await getProp(call, n.ref, IFACE.Accessible, 'ChildCount').catch(() => -1)) as number);
    if (typeof count !== 'number' || count <= cap) return undefined;
    return childrenByIndex(call, n.ref, count);
  }

  private topLevels?: Promise<unknown[]>;

  /** Always listed live (one call): the cache's order of top-levels is not the toolkit's. */
  listTopLevels(): Promise<unknown[]> {
    if (!this.topLevels) {
      this.topLevels = this.send(
        this.app.bus,
        this.app.path,
        IFACE.Accessible,
        'GetChildren',
        undefined,
        undefined,
        true,
      );
      this.topLevels.catch(() => undefined); // awaited by roots(); a failed setup never gets there
    }
    return this.topLevels;
  }

  /**
   * A GTK4 top-level that GTK does not say shows, while visible (a dialog), is read as shown
   * for the window system to confirm (gtk4.ts): before its rank, so a modal one comes first.
   */
  private confirmLater(n: Node): void {
    if (!this.gtk4 || !n.basics) return;
    const { states, unconfirmed } = gtk4TopLevelStates(n.basics.states);
    if (!unconfirmed) return;
    n.basics.states = states;
    this.unconfirmedTops.add(n.id);
  }

  /** Top-level windows (or the rootId element) with their basics, ordered by importance. */
  async roots(): Promise<Node[]> {
    const rootId = this.opts.rootId;
    if (rootId && rootId !== formatId(this.app.bus, this.app.path)) {
      const ref = parseId(rootId);
      if (ref[0] !== this.app.bus) {
        throw new AtspiCallError(
          `element ${rootId} does not belong to ${this.app.name} (${this.app.bus})`,
        );
      }
      const n = this.node(ref, null, [0], 0, false);
      if (!n.basics) {
        n.basics = await this.basicsOf(ref, []).catch((err: Error) => {
          throw new AtspiCallError(`element ${rootId} cannot be read (gone?): ${err.message}`);
        });
      }
      n.topLevel = isTopLevelParent(n.basics.parent);
      if (n.topLevel) this.confirmLater(n);
      return [n];
    }
    const [children] = await this.listTopLevels();
    const refs = (children as ObjectRef[]).filter((r) => r[1] !== NULL_PATH);
    const tops = await Promise.all(
      refs.map(async (ref) => {
        const n = this.node(ref, null, [], 0, true);
        if (!n.basics) {
          n.basics = await this.basicsOf(ref, []).catch(() => undefined);
        }
        this.confirmLater(n);
        return n;
      }),
    );
    const live = tops
      .map((n, i) => ({ n, i }))
      .filter(({ n }) => n.basics !== undefined)
      .map(({ n, i }) => ({ n, i, rank: windowRank(roleName(n.basics!.role), n.basics!.states) }));
    live.sort((a, b) => a.rank - b.rank || a.i - b.i);
    return live.map(({ n }, pos) => {
      n.key = [pos];
      return n;
    });
  }

  /**
   * The element list in tree order. Elements whose reads did not all come back are left
   * out (with their subtrees), unless `unread` says to keep them as far as they were read:
   * an app that died mid-walk answers nothing more, and what its cache told still stands.
   */
  assemble(roots: Node[], unread = false): { elements: Element[]; windows: WindowInfo[] } {
    const elements: Element[] = [];
    const windows: WindowInfo[] = [];
    const emit = (n: Node, parent: number): void => {
      if (!n.basics || (!n.extras && !unread)) return; // cut by the time budget
      const index = elements.length;
      const parentRole = n.parent?.basics ? roleName(n.parent.basics.role) : undefined;
      const el = toElement(
        {
          bus: n.ref[0],
          path: n.ref[1],
          basics: n.basics,
          extras: n.extras ?? { actions: [] },
          topLevel: n.topLevel,
          parentRole,
        },
        parent,
        n.depth,
      );
      elements.push(el);
      if (n.topLevel) {
        const win: WindowInfo = {
          index,
          title: el.name,
          role: el.role,
          modal: hasState(n.basics.states, STATE.MODAL),
          dialog: DIALOG_ROLES.has(el.nativeRole),
          active: hasState(n.basics.states, STATE.ACTIVE),
        };
        if (el.frame) win.frame = el.frame;
        windows.push(win);
      }
      for (const c of n.children) emit(c, index);
    };
    for (const r of roots) emit(r, -1);
    return { elements, windows };
  }
}

/** The app left the bus: it exited, crashed, or closed its accessibility connection. */
export class AppGoneError extends AtspiCallError {
  constructor(readonly app: AppRef) {
    super(
      `${app.name || 'the app'} (pid ${app.pid}) is no longer on the accessibility bus: it has exited or closed its connection`,
      'org.freedesktop.DBus.Error.ServiceUnknown',
    );
    this.name = 'AppGoneError';
  }
}

/** The app's bus name or its socket is gone: the whole app, not one of its objects. */
const APP_LEFT = /ServiceUnknown|NameHasNoOwner|was not provided by any|Disconnected/;

function says(err: unknown, what: RegExp): boolean {
  if (!(err instanceof AtspiCallError)) return false;
  return what.test(err.dbusName ?? '') || what.test(err.message);
}

function appLeft(err: unknown): boolean {
  return says(err, APP_LEFT);
}

/** The object is gone, or the whole app with it. */
function gone(err: unknown): boolean {
  return appLeft(err) || says(err, /UnknownObject/);
}

/**
 * Whether the app is still alive and on the bus after its connection failed a read. A
 * dying process keeps its bus name for a moment after its connection broke, so a process
 * that is gone (or a zombie) settles it first, and the bus is asked again shortly.
 */
async function stillThere(bus: AtspiBus, app: AppRef): Promise<boolean> {
  for (let i = 0; i < 3; i++) {
    const st = app.pid > 0 ? procStat(app.pid) : undefined;
    if (st === null || st?.state === 'Z' || st?.state === 'X') return false;
    // The bus cannot tell: take it as gone.
    if (!(await nameHasOwner(bus, app.bus))) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** Remaining ms before the deadline, never negative. */
const remaining = (deadline: number): number => Math.max(0, deadline - performance.now());

/** Resolves to `value` when `p` settles in time, or to `timedOut` at the deadline. */
async function beforeDeadline<T, U>(p: Promise<T>, deadline: number, timedOut: U): Promise<T | U> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<U>((resolve) => {
    timer = setTimeout(() => resolve(timedOut), remaining(deadline));
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

const TIMED_OUT = Symbol('timed out');

/** Switches for tests and benchmarks; production leaves both on. */
export interface WalkTuning {
  /** Use `Cache.GetItems` when the app has it (default true); false walks everything live. */
  cache?: boolean;
  /** Talk to the app over its peer-to-peer socket when it has one (default true). */
  peerToPeer?: boolean;
  /** Told of every D-Bus call the walk sends (the bench counts calls per element with it). */
  onCall?: (path: string, iface: string, member: string) => void;
  /** Calls in flight at once (default MAX_IN_FLIGHT); the bench compares settings with it. */
  maxInFlight?: number;
  /**
   * Read GTK 3 apps by what GTK 3 is known to do (default true): big tree views by their
   * layout (no frame asked for cells of rows out of view, role, interfaces and actions of
   * new cells from their column's first cell: shown-rows.ts, Walk.columnTemplates) and
   * texts in one GetText (read.ts TextReading). False reads a GTK 3 app as any other.
   */
  gtk3Shortcuts?: boolean;
  /** Longest a frame or text read waits for structure reads (default BULK_HOLD_MS; 0: none). */
  bulkHoldMs?: number;
}

/**
 * Walks one app within the limits. Element ids are `<bus name><object path>` (see ids.ts).
 * Throws only when the app cannot be read at all (gone, or answering errors); a walk that
 * runs out of time returns what it has with `truncated` set.
 */
export async function snapshotApp(
  bus: AtspiBus,
  app: AppRef,
  options: SnapshotOptions,
  tuning: WalkTuning = {},
): Promise<Snapshot> {
  const t0 = performance.now();
  const snap = await walkOnce(bus, app, options, tuning);
  // A browser shows its page some time after its window: wait (bounded) for it.
  if (options.rootId || !(await actionsOneByOne(bus, app.bus))) return snap;
  return settlePage(snap, t0, options.timeBudgetMs, () => walkOnce(bus, app, options, tuning));
}

async function walkOnce(
  bus: AtspiBus,
  app: AppRef,
  options: SnapshotOptions,
  tuning: WalkTuning,
): Promise<Snapshot> {
  const takenAt = Date.now();
  const t0 = performance.now();
  const deadline = t0 + Math.max(0, options.timeBudgetMs);
  const budget = `time budget ${options.timeBudgetMs} ms`;
  const walk = new Walk(bus, app, options, tuning.maxInFlight, tuning.bulkHoldMs);
  let idless = idlessWalks.get(bus);
  if (!idless) idlessWalks.set(bus, (idless = new Map()));
  const idlessSoFar = idless.get(app.bus) ?? 0;
  walk.skipIds = idlessSoFar > 0 && idlessSoFar % IDS_RECHECK !== 0;
  walk.memo = memoFor(bus, app.bus);

  const done = (method: string, roots: Node[], unread = false): Snapshot => {
    const { elements, windows } = walk.assemble(roots, unread);
    const gtk4 = walk.gtk4;
    // Only a complete walk of the whole app can say that it has no ids.
    if (!walk.truncated && !options.rootId) {
      const anyId = elements.some((e) => e.identifier);
      idless?.set(app.bus, anyId ? 0 : idlessSoFar + 1);
    }
    const full = !walk.truncated && !options.rootId;
    keepMemo(bus, app.bus, walk.learned, full);
    const snap: Snapshot = {
      pid: app.pid,
      app: app.name,
      elements,
      windows,
      truncated: walk.truncated,
      elapsedMs: Math.round((performance.now() - t0) * 10) / 10,
      takenAt,
      method,
      ...(walk.enteredApps.size > 0 ? { enteredApps: [...walk.enteredApps] } : {}),
    };
    if (gtk4) {
      tidyGtk4(snap);
      markWindowRelative(snap);
      noteUnconfirmedWindows(
        snap,
        windows.flatMap((w) => (walk.unconfirmedTops.has(elements[w.index].id) ? [w.index] : [])),
      );
    } else {
      // GTK 3's list box rows have no name either: a person reads the text in them.
      nameRowsByLabel(snap.elements);
    }
    noteClickContext(snap, { qt: walk.qt, gtk4, gecko: walk.oneByOne });
    return snap;
  };
  const outOfTime = (method: string, roots: Node[] = []): Snapshot => {
    walk.truncate(budget);
    walk.q.stop(budget);
    return done(method, roots);
  };

  const setup = (async () => {
    const [address, oneByOne, toolkit] = await Promise.all([
      wakeBridge(bus, app),
      actionsOneByOne(bus, app.bus),
      toolkitName(directCall(bus), app.bus),
    ]);
    walk.oneByOne = oneByOne;
    // An app that did not say is asked again per element, as a read-back does.
    if (toolkit) walk.qt = isQtToolkitName(toolkit);
    const send = await fastCall(
      bus,
      tuning.peerToPeer === false ? undefined : { bus: app.bus, address },
    );
    const onCall = tuning.onCall;
    walk.send = onCall
      ? (d, p, i, m, sig, b, urgent) => {
          onCall(p, i, m);
          return send(d, p, i, m, sig, b, urgent);
        }
      : send;
    walk.gtk4 = await detectGtk4(walk.send, app);
    walk.gtk3 = /^gtk$/i.test(toolkit.trim()) && !walk.gtk4 && tuning.gtk3Shortcuts !== false;
    if (tuning.cache === false) return walk.roots();
    // The top-levels are listed live anyway: ask while the app builds its cache.
    if (!options.rootId) walk.listTopLevels();
    try {
      const [items] = (await walk.send(app.bus, CACHE_PATH, IFACE.Cache, 'GetItems')) as [
        CacheItem[],
      ];
      const cache = indexCache(items);
      // An empty list (Qt) or one without the app root is no cache at all.
      if (cache.items.has(formatId(app.bus, app.path))) walk.cache = cache;
    } catch {
      walk.cache = null; // no Cache interface: walk live
    }
    return walk.roots();
  })();
  // The setup keeps running after a timeout; its late failure must not go unhandled.
  setup.catch(() => undefined);
  const roots = await beforeDeadline(setup, deadline, TIMED_OUT).catch((err: unknown) => {
    throw gone(err) ? new AppGoneError(app) : err;
  });
  const method = walk.cache ? 'atspi-cache+live' : 'atspi-walk';
  if (roots === TIMED_OUT) return outOfTime(method);

  for (const r of roots) {
    if (!walk.admit(formatId(r.ref[0], r.ref[1]))) continue;
    walk.visit(r);
  }
  const finished = await beforeDeadline(walk.idle(), deadline, TIMED_OUT);
  if (walk.appLeft) {
    if (await stillThere(bus, app)) {
      // Its connection closed but the app is still registered: short, and not an exit.
      walk.truncate('the app closed its connection during the walk');
      return done(method, roots);
    }
    // The app died during the walk: what was read is all there is, and it says so.
    walk.truncated = TRUNCATED_APP_EXITED;
    // Elements whose frames or texts were still on the way are kept as read: the app will
    // not answer them now (structure reads go first, so they are often the last to go).
    const cut = done(method, roots, true);
    if (cut.elements.length === 0) throw new AppGoneError(app);
    return cut;
  }
  if (finished === TIMED_OUT) return outOfTime(method, roots);
  return done(method, roots);
}
