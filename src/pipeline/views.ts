/**
 * Per-app view state: the last full snapshot with its refs and visibility, whether the
 * app changed since (from the backend's change events), and the identity → ref map that
 * keeps refs stable across snapshots, full or partial.
 */
import type { Snapshot } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import type { Change, Desktop } from '../platform/desktop.js';
import { identityKeys, matchElements } from '../diff/index.js';
import { computeVisibility } from '../viewport/index.js';
import { AxError } from '../errors.js';
import type { RefRegistry } from './refs.js';

interface AppState {
  view?: SnapshotView;
  refByKey: Map<string, string>;
  indexByRef?: Map<string, number>;
  indexById?: Map<string, number>;
  /** Set by change events; cleared when a snapshot starts. */
  dirty: boolean;
  /** Epoch ms of the last change event, for settling. */
  lastEventAt: number;
  eventCount: number;
  /** Change events are flowing: only then can a cached view be trusted as current. */
  watching: boolean;
  /** Resolves to the unsubscribe function, or null when the backend cannot watch. */
  watch?: Promise<(() => Promise<void>) | null>;
  /** Ends the watch once no call has used the app for a while. */
  idle?: NodeJS.Timeout;
  /** Epoch ms of the last use (a walk, a freshness check) while watched. */
  usedAt?: number;
}

/**
 * How long an app is watched after the last call that used it. A busy app (a clock, a
 * progress bar, a log view) sends thousands of change events a second, and each costs
 * this process a decode; an app nobody works with need not be heard. Its next call
 * watches again and walks afresh (nothing cached is trusted without events).
 */
export const WATCH_IDLE_MS = 20_000;

export class ViewCache {
  private readonly apps = new Map<number, AppState>();
  private snapshotCounter = 0;
  /** The matching made by the last present(), so the action's diff need not redo it. */
  private lastMatch?: { before: Snapshot; after: Snapshot; matchOf: Int32Array };

  constructor(
    private readonly refs: RefRegistry,
    private readonly watchIdleMs = WATCH_IDLE_MS,
  ) {}

  private state(pid: number): AppState {
    let s = this.apps.get(pid);
    if (!s) {
      s = { refByKey: new Map(), dirty: true, lastEventAt: 0, eventCount: 0, watching: false };
      this.apps.set(pid, s);
    }
    return s;
  }

  /** Start watching an app's change events (once). Safe to call on every snapshot. */
  watch(desktop: Desktop, pid: number): Promise<(() => Promise<void>) | null> {
    const s = this.state(pid);
    this.keepWatching(s);
    s.watch ??= desktop
      .watchChanges(pid, (change) => {
        if (change.lost) {
          // The watch ended with its connection: nothing is heard now, so nothing cached
          // can be trusted, and the next snapshot watches again.
          s.watch = undefined;
          s.watching = false;
          s.dirty = true;
          return;
        }
        s.lastEventAt = Date.now();
        s.eventCount++;
        if (!s.dirty && !this.alreadyShown(s, change)) s.dirty = true;
      })
      .then((unwatch) => {
        s.watching = true;
        return unwatch;
      })
      .catch(() => null);
    return s.watch;
  }

  /** The app is in use: push back the end of its watch. */
  private keepWatching(s: AppState): void {
    // Called on every walk and every freshness check: note the use, and keep one timer
    // that, when it fires, waits out the rest of the idle time from the last use.
    s.usedAt = Date.now();
    if (s.idle) return;
    const arm = (ms: number): void => {
      s.idle = setTimeout(() => {
        const left = (s.usedAt ?? 0) + this.watchIdleMs - Date.now();
        if (left > 0) arm(left);
        else this.unwatch(s);
      }, ms);
      s.idle.unref();
    };
    arm(this.watchIdleMs);
  }

  /** Stop hearing an idle app; its cached view is not trusted from now on. */
  private unwatch(s: AppState): void {
    const watch = s.watch;
    s.watch = undefined;
    s.watching = false;
    s.dirty = true;
    s.idle = undefined;
    void watch?.then((stop) => stop?.()).catch(() => undefined);
  }

  /** A state change the current view already shows (a walk made the app re-announce it). */
  private alreadyShown(s: AppState, change: Change): boolean {
    if (!s.view || change.flag === undefined) return false;
    s.indexById ??= new Map(s.view.snapshot.elements.map((e, i) => [e.id, i]));
    const i = s.indexById.get(change.elementId);
    if (i === undefined) return false;
    const flags = s.view.snapshot.elements[i].flags;
    // GTK re-announces the check state of hidden popover items whenever they are walked,
    // and a new walk reads them just as before: for hidden elements it changes nothing.
    return flags.includes('offscreen') || flags.includes(change.flag) === change.on;
  }

  /** Events seen for this app so far and when the last one came. */
  activity(pid: number): { count: number; lastAt: number; watching: Promise<unknown> | undefined } {
    const s = this.state(pid);
    return { count: s.eventCount, lastAt: s.lastEventAt, watching: s.watch };
  }

  /** The last full view when nothing changed since it was taken, else undefined. */
  fresh(pid: number): SnapshotView | undefined {
    const s = this.apps.get(pid);
    if (s?.watch) this.keepWatching(s);
    return s && s.watching && !s.dirty ? s.view : undefined;
  }

  last(pid: number): SnapshotView | undefined {
    return this.apps.get(pid)?.view;
  }

  /** Every app's current view (to mask a secret learned after they were walked). */
  views(): SnapshotView[] {
    return [...this.apps.values()].flatMap((s) => (s.view ? [s.view] : []));
  }

  /** Mark the app clean just before walking it: events during the walk make it dirty again. */
  beginSnapshot(pid: number): void {
    this.state(pid).dirty = false;
  }

  markDirty(pid: number): void {
    this.state(pid).dirty = true;
  }

  /**
   * Give a snapshot refs and visibility. A full snapshot becomes the app's current view;
   * a partial one (root or depth limited) borrows refs without replacing it.
   */
  present(
    snapshot: Snapshot,
    screen: { w: number; h: number },
    tool: string,
    partial = false,
  ): SnapshotView {
    const s = this.state(snapshot.pid);
    const snapshotId = `s${(++this.snapshotCounter).toString(36)}`;
    const keys = identityKeys(snapshot);
    const prev = s.view;
    const matchOf = prev && !partial ? matchElements(prev.snapshot, snapshot) : undefined;
    this.lastMatch =
      prev && matchOf ? { before: prev.snapshot, after: snapshot, matchOf } : undefined;
    const refs = keys.map((key, i) => {
      const known = s.refByKey.get(key);
      if (known) return known;
      const m = matchOf ? matchOf[i] : -1;
      if (prev && m >= 0) return prev.refs[m];
      return this.refs.mint({ pid: snapshot.pid, snapshotId, tool });
    });
    const view = this.viewOf(snapshot, snapshotId, refs, screen);
    if (partial) {
      keys.forEach((key, i) => s.refByKey.set(key, refs[i]));
    } else {
      // Rebuilt from the latest full tree, so memory follows the app's size, not its history.
      s.refByKey = new Map(keys.map((key, i) => [key, refs[i]]));
      s.view = view;
      s.indexByRef = undefined;
      s.indexById = undefined;
    }
    return view;
  }

  /**
   * A presented view narrowed to the elements a filter kept (`kept[j]`: the index in
   * `full` of `snapshot`'s element j, see dropHidden): the refs are `full`'s, so nothing is
   * matched or keyed again; visibility is computed on the narrowed tree, as present() would.
   * The app's current view stays `full`.
   */
  narrow(
    full: SnapshotView,
    snapshot: Snapshot,
    kept: ArrayLike<number>,
    screen: { w: number; h: number },
  ): SnapshotView {
    const snapshotId = `s${(++this.snapshotCounter).toString(36)}`;
    const refs = Array.from(kept, (i) => full.refs[i]);
    return this.viewOf(snapshot, snapshotId, refs, screen);
  }

  /** A view of `snapshot` with these refs: its visibility on this screen, the refs seen. */
  private viewOf(
    snapshot: Snapshot,
    snapshotId: string,
    refs: string[],
    screen: { w: number; h: number },
  ): SnapshotView {
    const { viewport, dialog, visible } = computeVisibility(snapshot, {
      x: 0,
      y: 0,
      w: screen.w,
      h: screen.h,
    });
    const view: SnapshotView = { snapshot, snapshotId, refs, visible, viewport, dialog };
    this.refs.noteSeen(view);
    return view;
  }

  /** How `after`'s elements match `before`'s: reused from present() when it matched them. */
  matchOf(before: Snapshot, after: Snapshot): Int32Array {
    const m = this.lastMatch;
    return m && m.before === before && m.after === after ? m.matchOf : matchElements(before, after);
  }

  /** Index of a ref in the app's current view; a clear error when the element is gone. */
  indexOf(view: SnapshotView, ref: string, origin: { snapshotId: string; tool: string }): number {
    const s = this.state(view.snapshot.pid);
    let index: Map<string, number>;
    if (s.view === view) {
      s.indexByRef ??= new Map(view.refs.map((r, i) => [r, i]));
      index = s.indexByRef;
    } else {
      index = new Map(view.refs.map((r, i) => [r, i]));
    }
    const i = index.get(ref);
    if (i === undefined) {
      throw new AxError(
        'stale_ref',
        `ref ${ref} is stale: it came from snapshot ${origin.snapshotId} (${origin.tool}) and that element is no longer in ${view.snapshot.app}'s tree (snapshot ${view.snapshotId})`,
        'The element is gone or was re-created: use the refs of the latest summary or tree file, or a query',
      );
    }
    return i;
  }

  /** Forget an app that exited; stops its watcher. */
  async forget(pid: number): Promise<void> {
    const s = this.apps.get(pid);
    this.apps.delete(pid);
    if (s?.idle) clearTimeout(s.idle);
    const unwatch = await s?.watch;
    await unwatch?.().catch(() => undefined);
  }

  async close(): Promise<void> {
    await Promise.all([...this.apps.keys()].map((pid) => this.forget(pid)));
  }
}
