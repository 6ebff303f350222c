/**
 * GTK4 (4.8, Debian 12) implements AT-SPI itself, without the ATK bridge, and differs from
 * GTK3 in ways the walk has to correct:
 *
 * - Only top-level windows carry SHOWING; their descendants say VISIBLE alone. Read as is,
 *   every element would be "offscreen" and never asked for its extents.
 * - GetExtents answers relative to the window's widget whatever coordinate type is asked
 *   (GTK4 on X11 does not know where its window is). The frames are moved to the screen
 *   afterwards from the X11 window's position (see placeGtk4Windows). A popover (a drop-
 *   down's list, a menu) is a popup window of its own, but its subtree is reported as if
 *   the popover sat on its parent's origin (moved by its own margin within its window):
 *   it is placed by that popup window.
 * - Names: a button labelled by its child label gets the label twice ("7 7"), and an
 *   element with no name gets its class name ("GtkButton", "AdwGizmo", "HistoryView").
 * - A list view (GtkListView) stops allocating the rows that scroll out of it but keeps
 *   some of their widgets, which go on reporting their last extents: after a scroll they
 *   sit in the list over the rows really shown there (see dropStaleRows).
 * - Action: every widget exposes its GAction groups ("clipboard.copy", "menu.popup",
 *   "win.close"...) beside the real activation ("click"). Those are not what a user means
 *   by the element's actions; DoAction still reads the full list, so nothing is lost. The
 *   tree expander's own ("listitem.toggle-expand", "listitem.expand", "listitem.collapse")
 *   stay: they are its only activation (its arrow runs the first one).
 * - Rows: list box, list view and column view rows have no name and no action; a click
 *   on one selects it through its list's Selection interface (see click-routes.ts). A row
 *   without a name takes the text of the labels in it (see nameRowsByLabel).
 */
import type { Element, Flag, Rect, Snapshot } from '../../../model/element.js';
import type { AppRef } from './apps.js';
import type { CallFn } from './read.js';
import { toolkitName, toolkitVersion } from './toolkit.js';
import { STATE } from './states.js';
import type { StateBits } from './states.js';
import type { SessionWindow } from '../session.js';

/** The app bus names found to be GTK4, for synchronous checks. */
const gtk4Buses = new Set<string>();

export function isGtk4Toolkit(name: unknown, version: unknown): boolean {
  return name === 'GTK' && typeof version === 'string' && /^4\./.test(version);
}

export async function detectGtk4(call: CallFn, app: AppRef): Promise<boolean> {
  const name = await toolkitName(call, app.bus);
  const yes = name === 'GTK' && isGtk4Toolkit(name, await toolkitVersion(call, app.bus));
  if (yes) gtk4Buses.add(app.bus);
  return yes;
}

/** Whether the app on this bus name was found to be GTK4 (by detectGtk4). */
export function isGtk4Bus(bus: string): boolean {
  return gtk4Buses.has(bus);
}

/**
 * GTK4 states with SHOWING where GTK3 would set it: a VISIBLE element whose parent shows.
 * A window keeps what GTK4 says of it.
 */
export function gtk4States(states: StateBits, parentShowing: boolean): StateBits {
  const bit = (s: number) => ((states[s >> 5] ?? 0) >>> (s & 31)) & 1;
  if (!parentShowing || bit(STATE.SHOWING) || !bit(STATE.VISIBLE)) return states;
  const out = [...states];
  while (out.length <= STATE.SHOWING >> 5) out.push(0);
  out[STATE.SHOWING >> 5] = (out[STATE.SHOWING >> 5] | (1 << (STATE.SHOWING & 31))) >>> 0;
  return out;
}

/**
 * A GTK4 top-level's states with SHOWING added when it is VISIBLE without it, and whether
 * that was done. GTK 4.8 gives SHOWING only to a plain window (GtkWindow, AT-SPI "frame"):
 * a GtkDialog ("dialog") or GtkAboutDialog ("filler") never has it, shown or not, nor
 * ACTIVE. Read as is, such a window and all it holds would be "offscreen" and unplaced.
 * A hidden GTK4 window is not VISIBLE; whether a visible one is on screen is for the
 * window system to say: the walk reads it as shown (its elements get their extents) and
 * placeGtk4Windows takes the window's map state, frame and activity from its X window.
 */
export function gtk4TopLevelStates(states: StateBits): { states: StateBits; unconfirmed: boolean } {
  const bit = (s: number) => ((states[s >> 5] ?? 0) >>> (s & 31)) & 1;
  if (bit(STATE.SHOWING) || !bit(STATE.VISIBLE)) return { states, unconfirmed: false };
  return { states: gtk4States(states, true), unconfirmed: true };
}

/** Per snapshot, the top-level windows whose showing only the window system can tell. */
const unconfirmedOf = new WeakMap<Snapshot, Set<number>>();

/** Notes the windows (element indexes) of `s` that gtk4TopLevelStates read as shown. */
export function noteUnconfirmedWindows(s: Snapshot, indexes: Iterable<number>): void {
  const set = new Set(indexes);
  if (set.size > 0) unconfirmedOf.set(s, set);
}

/** GTK4's fallback name for an unnamed element is its GObject type name. */
const TYPE_PREFIX = /^(Gtk|Adw|Gdk|Gsk|Vte|Hdy)[A-Z]\w*$/;
/** An app's own widget class ("HistoryView", "MathDisplay"): one CamelCase word. */
const CAMEL_CASE = /^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+$/;
/** Roles whose name is their visible text: a CamelCase word there is content. */
const TEXT_ROLES = new Set([
  'label',
  'static',
  'heading',
  'paragraph',
  'link',
  'list item',
  'table cell',
  'tree item',
  'menu item',
  'check menu item',
  'radio menu item',
  'page tab',
]);

export function isTypeName(name: string, nativeRole: string): boolean {
  if (TYPE_PREFIX.test(name)) return true;
  return CAMEL_CASE.test(name) && !TEXT_ROLES.has(nativeRole);
}

/** GAction entries that are an element's own activation: the tree expander's. */
const OWN_GACTIONS = new Set(['listitem.toggle-expand', 'listitem.expand', 'listitem.collapse']);

/** Action names less the GAction group entries ("clipboard.copy"), which are not activations. */
export function gtk4Actions(names: readonly string[]): string[] {
  return names.filter((n) => !n.includes('.') || OWN_GACTIONS.has(n));
}

/** The names of the labels below element `i` (within three levels), in tree order. */
function labelsBelow(elements: readonly Element[], i: number): string[] {
  const out: string[] = [];
  const depth = elements[i].depth;
  for (let j = i + 1; j < elements.length && elements[j].depth > depth; j++) {
    const e = elements[j];
    if (e.depth - depth > 3) continue;
    const text = e.value || e.name;
    if (e.nativeRole === 'label' && text) out.push(text);
  }
  return out;
}

/**
 * Clean names and action lists of a GTK4 snapshot in place: "7 7" becomes "7" when a label
 * below says "7"; a type name is dropped, and an unnamed control takes the text of its only
 * label; GAction group entries leave the action list.
 */
export function tidyGtk4(s: Snapshot): void {
  notePopovers(s);
  s.elements.forEach((e, i) => {
    const labels = labelsBelow(s.elements, i);
    let name = e.name;
    const half = (name.length - 1) / 2;
    if (Number.isInteger(half) && half > 0 && name[half] === ' ') {
      const a = name.slice(0, half);
      if (a === name.slice(half + 1) && labels.includes(a)) name = a;
    }
    if (isTypeName(name, e.nativeRole)) {
      name = '';
      const control = e.actions.length > 0 || e.nativeRole.includes('button');
      if (control && labels.length === 1) name = labels[0];
    }
    if (name !== e.name) e.name = name;
    e.actions = gtk4Actions(e.actions);
  });
  nameTabsByLabel(s.elements);
  nameRowsByLabel(s.elements);
  dropStaleRows(s.elements);
  hideStackPages(s.elements);
  for (const w of s.windows) w.title = s.elements[w.index].name || w.title;
}

/**
 * GTK 4 (4.8) reports every page of a stack VISIBLE, none SHOWING, and keeps a page once
 * shown at its last allocation, under the page shown now: its widgets pass for drawn. A
 * stack page (a frameless panel named by its title) whose stack switcher's tab of that
 * name is not the selected one, beside the page of the selected tab, is not drawn: it and
 * everything below it are marked not showing, and lose frames that are no longer theirs.
 */
export function hideStackPages(elements: Element[]): void {
  const tabsOf = new Map<number, Element[]>();
  for (const e of elements) {
    if (e.nativeRole !== 'page tab' || e.name === '') continue;
    const list = tabsOf.get(e.parent) ?? [];
    list.push(e);
    tabsOf.set(e.parent, list);
  }
  const hidden = new Set<string>();
  const shown = new Set<string>();
  for (const tabs of tabsOf.values()) {
    const selected = tabs.filter((t) => t.flags.includes('selected'));
    if (tabs.length < 2 || selected.length !== 1) continue;
    shown.add(selected[0].name);
    for (const t of tabs) if (t !== selected[0]) hidden.add(t.name);
  }
  if (hidden.size === 0) return;
  const isPage = (e: Element): boolean =>
    e.nativeRole === 'panel' && (e.frame === undefined || !(e.frame.w > 0 && e.frame.h > 0));
  elements.forEach((e, i) => {
    if (!isPage(e) || !hidden.has(e.name)) return;
    const front = elements.some(
      (o) => o !== e && o.parent === e.parent && isPage(o) && shown.has(o.name),
    );
    if (!front) return;
    for (let k = i; k < elements.length && (k === i || elements[k].depth > e.depth); k++) {
      const el = elements[k];
      if (!el.flags.includes('offscreen')) el.flags = [...el.flags, 'offscreen'];
      delete el.frame;
    }
  });
}

/**
 * GTK4's notebook gives every page tab one name of its own ("Tab", translated), so tabs
 * are told apart only by position; what a person reads is each tab's label. That name is
 * known by being shared: by every tab of a list of two or more. The tabs of a list that
 * all carry such a name (a lone tab too) take their only label's text. A tab list whose
 * tabs carry names of their own is left as it is.
 */
export function nameTabsByLabel(elements: Element[]): void {
  const tabsOf = new Map<number, number[]>();
  elements.forEach((e, i) => {
    if (e.nativeRole !== 'page tab') return;
    const tabs = tabsOf.get(e.parent) ?? [];
    tabs.push(i);
    tabsOf.set(e.parent, tabs);
  });
  const sharedName = (tabs: number[]): string | undefined => {
    const name = elements[tabs[0]].name;
    return tabs.every((i) => elements[i].name === name) ? name : undefined;
  };
  const generic = new Set<string>();
  for (const tabs of tabsOf.values()) {
    const shared = sharedName(tabs);
    if (tabs.length >= 2 && shared !== undefined) generic.add(shared);
  }
  for (const tabs of tabsOf.values()) {
    const shared = sharedName(tabs);
    if (shared === undefined || !generic.has(shared)) continue;
    const labels = tabs.map((i) => labelsBelow(elements, i));
    if (labels.some((l) => l.length !== 1)) continue;
    tabs.forEach((i, k) => (elements[i].name = labels[k][0]));
  }
}

/** Roles of GTK4's list rows: list box and list view rows, column view rows. */
const ROW_ROLES = new Set(['list item', 'table row']);
/** Longest name a row takes from its labels; more labels than fit are left out. */
const ROW_NAME_MAX = 120;

/**
 * GTK4's list rows have no name (a column view's row has its type name, dropped), nor have
 * GTK 3's list box rows: what a person reads of one is the text in it. A row without a name takes its labels' text, in
 * order, joined by spaces ("Mars 2" for a table row of cells "Mars" and "2").
 */
export function nameRowsByLabel(elements: Element[]): void {
  elements.forEach((e, i) => {
    if (!ROW_ROLES.has(e.nativeRole) || e.name) return;
    let name = '';
    for (const text of labelsBelow(elements, i)) {
      const next = name ? `${name} ${text}` : text;
      if (next.length > ROW_NAME_MAX) break;
      name = next;
    }
    if (name) e.name = name;
  });
}

/** Containers whose children are rows stacked top to bottom in model order. */
const ROW_LISTS = new Set(['list', 'list box', 'tree', 'tree table', 'table']);

/**
 * Marks offscreen, without a frame, the rows of a GTK4 list that GTK no longer allocates.
 * A list's children are its rows in model order and the rows it shows are a contiguous
 * range of them, stacked without overlap. A row scrolled out keeps the box it last had,
 * so it overlaps, out of order, the rows shown now. The shown range is the longest run of
 * children that follow each other down the list; when two runs are as long, neither can
 * be told stale, and both lose their frames (a wrong position is worse than none).
 */
export function dropStaleRows(elements: Element[]): void {
  elements.forEach((list, li) => {
    if (!ROW_LISTS.has(list.nativeRole)) return;
    const rows: number[] = [];
    for (let j = li + 1; j < elements.length && elements[j].depth > list.depth; j++) {
      const f = elements[j].frame;
      if (elements[j].parent === li && f && f.w > 0 && f.h > 0) rows.push(j);
    }
    const runs = rowRuns(rows.map((j) => elements[j].frame as Rect));
    if (runs === undefined || runs.length < 2) return;
    const longest = Math.max(...runs.map((r) => r.length));
    const shown = runs.filter((r) => r.length === longest);
    const keep = new Set(shown.length === 1 ? shown[0] : []);
    rows.forEach((row, k) => {
      if (!keep.has(k)) hideSubtree(elements, row);
    });
  });
}

/**
 * Runs of boxes (indexes into `boxes`) that follow each other top to bottom without
 * overlapping; undefined when the boxes are not one column (a grid, a horizontal list).
 */
export function rowRuns(boxes: readonly Rect[]): number[][] | undefined {
  if (boxes.length < 2) return undefined;
  const runs: number[][] = [[0]];
  for (let k = 1; k < boxes.length; k++) {
    const prev = boxes[k - 1];
    const cur = boxes[k];
    // Side by side: not a column of rows, nothing here can be judged by order.
    if (cur.y === prev.y && cur.x !== prev.x) return undefined;
    // One pixel of slack: GTK rounds row boxes.
    if (cur.y >= prev.y + prev.h - 1) runs[runs.length - 1].push(k);
    else runs.push([k]);
  }
  return runs;
}

function hideSubtree(elements: Element[], root: number): void {
  for (
    let j = root;
    j === root || (j < elements.length && elements[j].depth > elements[root].depth);
    j++
  ) {
    const e = elements[j];
    delete e.frame;
    if (!e.flags.includes('offscreen')) e.flags.push('offscreen');
  }
}

/**
 * GTK4's natives with a default widget, windows and popovers alike, list the GAction
 * "default.activate" (gtk/gtkwindow.c, gtk/gtkpopover.c); an element below a window that
 * lists it is a popover (a drop-down's list, a popover menu). Noted per snapshot before
 * tidyGtk4 drops the GAction entries, for placeGtk4Windows.
 */
const POPOVER_GACTION = 'default.activate';
const popoversOf = new WeakMap<Snapshot, Set<number>>();

function notePopovers(s: Snapshot): void {
  const found = new Set<number>();
  s.elements.forEach((e, i) => {
    if (e.parent >= 0 && e.actions.includes(POPOVER_GACTION)) found.add(i);
  });
  if (found.size > 0) popoversOf.set(s, found);
}

/** Snapshots whose frames are still relative to their windows (GTK4 walks). */
const windowRelative = new WeakSet<Snapshot>();

export function markWindowRelative(s: Snapshot): void {
  windowRelative.add(s);
}

/** Whether placeGtk4Windows has work to do on `s` (it needs the X window list then). */
export function isWindowRelative(s: Snapshot): boolean {
  return windowRelative.has(s);
}

/**
 * Per pid, and per app bus name, the origin of the app's only window at its last placed
 * walk: subtree walks and one-element reads have no window to place themselves by.
 */
const lastOrigin = new Map<number, { x: number; y: number }>();
const lastOriginByBus = new Map<string, { x: number; y: number }>();
/**
 * The offset of the elements placed by a window of their own (a popover's popup window, a
 * dialog's X window), at their last walk: read-backs and subtree walks of them.
 */
const ownOffsetById = new Map<string, { x: number; y: number }>();
const MAX_OWN_OFFSETS = 4096;

const busOf = (elementId: string): string => elementId.slice(0, elementId.indexOf('/'));

/**
 * A GTK4 element read on its own (a read-back) with its frame moved to the screen where its
 * app's window was last placed; its frame is dropped when that is not known. Other
 * toolkits' elements are returned as they are, unless `everyToolkit` (Wayland, where all
 * report frames relative to their window): then they are placed the same way.
 */
export function placeGtk4Element(el: Element, everyToolkit = false): Element {
  const bus = busOf(el.id);
  const gtk4 = gtk4Buses.has(bus);
  if (!gtk4 && !everyToolkit) return el;
  const out = gtk4 ? { ...el, actions: gtk4Actions(el.actions) } : { ...el };
  if (!el.frame) return out;
  const o = ownOffsetById.get(el.id) ?? lastOriginByBus.get(bus);
  if (o) out.frame = { ...el.frame, x: el.frame.x + o.x, y: el.frame.y + o.y };
  else delete out.frame;
  return out;
}

/** The window facts placement needs: the display session's windows (linux/session.ts). */
export type NativeWindowBox = Pick<
  SessionWindow,
  'pid' | 'title' | 'x' | 'y' | 'w' | 'h' | 'mapped'
> &
  Partial<Pick<SessionWindow, 'window' | 'active' | 'transientFor' | 'type'>>;

/**
 * How a window-relative frame sits in its window's box on screen. `centred` (GTK4 on X11):
 * the X11 window is larger than the widget by the client-side decoration's shadow and
 * resize margin, drawn evenly, so the widget is centred in it; a box smaller than the
 * widget is not its window. `content` (every toolkit on Wayland, where the box is the
 * compositor's content area): the frame starts at the box's top-left, and a frame larger
 * than the box is clipped there (a tile narrower than the app's minimum size); a frame
 * smaller than the box is not placed, since a popup's (a menu's) would look the same.
 */
export type PlacementMode = 'centred' | 'content';

/** Pixels of rounding a frame and its window's box may differ by and still be one size. */
const SIZE_SLACK = 2;

/**
 * Where a window's widget (frame relative to itself, `frame`) sits on screen, given the
 * windows of its process as the display session lists them. A window is matched by title,
 * else by being the only candidate of a size that fits (see PlacementMode).
 */
export function windowOrigin(
  win: { title: string; frame: Rect },
  natives: readonly NativeWindowBox[],
  mode: PlacementMode = 'centred',
): { x: number; y: number } | undefined {
  const fits = natives.filter((n) =>
    mode === 'centred'
      ? n.mapped && n.w >= win.frame.w && n.h >= win.frame.h
      : n.mapped && win.frame.w >= n.w - SIZE_SLACK && win.frame.h >= n.h - SIZE_SLACK,
  );
  const byTitle = fits.filter((n) => win.title && n.title === win.title);
  const pick = byTitle.length === 1 ? byTitle[0] : fits.length === 1 ? fits[0] : undefined;
  if (!pick) return undefined;
  return {
    x: pick.x + Math.max(0, Math.floor((pick.w - win.frame.w) / 2)),
    y: pick.y + Math.max(0, Math.floor((pick.h - win.frame.h) / 2)),
  };
}

/** Which window of the window system an accessible window is, or why none can be said to be. */
export type WindowMatch = { box: NativeWindowBox } | { unmatched: string };

/**
 * The X window of a GTK4 window whose showing GTK does not tell (see gtk4TopLevelStates),
 * among its process's windows (`natives`): the one with its title, large enough to hold
 * its widget. When several are (a dialog opened again while an earlier one is still
 * mapped or not yet destroyed) and the app has one such window of that title
 * (`sameTitle`), the shown one, then one transient for another, then the newest (X hands
 * out a client's window ids in increasing order). With several accessible windows of the
 * title as well, which is which cannot be told: unmatched, never guessed.
 */
export function matchWindow(
  win: { title: string; frame: Rect },
  natives: readonly NativeWindowBox[],
  sameTitle: number,
): WindowMatch {
  if (!win.title) return { unmatched: 'it has no title to find its window by' };
  const named = natives.filter(
    (n) => n.title === win.title && n.w >= win.frame.w && n.h >= win.frame.h,
  );
  if (named.length === 0) {
    return { unmatched: `no window of its process titled "${win.title}" holds it` };
  }
  if (named.length === 1) return { box: named[0] };
  if (sameTitle > 1) {
    return {
      unmatched: `${sameTitle} of its windows and ${named.length} of the window system's are titled "${win.title}"`,
    };
  }
  const key = (n: NativeWindowBox): number[] => [
    n.mapped ? 0 : 1,
    n.transientFor ? 0 : 1,
    -(n.window ?? 0),
  ];
  const order = (a: NativeWindowBox, b: NativeWindowBox): number => {
    const ka = key(a);
    const kb = key(b);
    return ka[0] - kb[0] || ka[1] - kb[1] || ka[2] - kb[2];
  };
  return { box: [...named].sort(order)[0] };
}

/** The screen origin of a GTK4 window's widget (`frame`) centred in its X window `n`. */
function centredIn(n: NativeWindowBox, frame: Rect): { x: number; y: number } {
  return { x: n.x + Math.floor((n.w - frame.w) / 2), y: n.y + Math.floor((n.h - frame.h) / 2) };
}

/**
 * A window whose showing came from its X window: its 'active' flag from the window
 * system's active window, where the session says.
 */
function takeActivity(s: Snapshot, w: Snapshot['windows'][number], n: NativeWindowBox): void {
  if (n.active === undefined) return;
  w.active = n.active;
  const el = s.elements[w.index];
  const flags: Flag[] = el.flags.filter((f) => f !== 'active');
  if (n.active) flags.push('active');
  el.flags = flags;
}

/**
 * Moves a GTK4 snapshot's frames to screen coordinates, window by window; the elements of a
 * window that cannot be placed lose their frames (a wrong position is worse than none).
 * A window whose showing GTK does not tell (a dialog) is placed by its own X window, and
 * shows only while that window is mapped; one that matches no X window is offscreen and
 * says why (WindowInfo.unplaced). Does nothing to other snapshots.
 */
export function placeGtk4Windows(
  s: Snapshot,
  natives: () => NativeWindowBox[],
  popupWindows: () => NativeWindowBox[] = () => [],
  mode: PlacementMode = 'centred',
): void {
  if (!windowRelative.delete(s)) return;
  let list: NativeWindowBox[];
  let listed = true;
  try {
    list = natives().filter((n) => n.pid === s.pid);
  } catch {
    list = [];
    listed = false;
  }
  const origins = new Map<number, { x: number; y: number } | undefined>();
  const unconfirmed = unconfirmedOf.get(s);
  /** Windows the window system does not show (or that match none of its windows). */
  const hidden: number[] = [];
  /** Windows placed by their own X window: their elements' offsets are kept for read-backs. */
  const ownPlaced = new Set<number>();
  for (const w of s.windows) {
    const el = s.elements[w.index];
    if (unconfirmed?.has(w.index)) {
      origins.set(w.index, undefined);
      const sameTitle = s.windows.filter(
        (o) => unconfirmed.has(o.index) && o.title === w.title,
      ).length;
      const m: WindowMatch = !listed
        ? { unmatched: 'the window system could not be asked for its windows' }
        : el.frame
          ? matchWindow({ title: w.title, frame: el.frame }, list, sameTitle)
          : { unmatched: 'it reports no size' };
      if ('unmatched' in m) {
        w.unplaced = m.unmatched;
        hidden.push(w.index);
        continue;
      }
      const n = m.box;
      if (!n.mapped) {
        hidden.push(w.index);
        continue;
      }
      origins.set(w.index, mode === 'content' ? { x: n.x, y: n.y } : centredIn(n, el.frame!));
      takeActivity(s, w, n);
      // A window the window system types a dialog is one (GtkAboutDialog is a "filler").
      if (n.type === 'dialog') w.dialog = true;
      ownPlaced.add(w.index);
      continue;
    }
    const o = el.frame ? windowOrigin({ title: w.title, frame: el.frame }, list, mode) : undefined;
    origins.set(w.index, o);
    if (o && s.windows.length === 1) {
      if (lastOrigin.size > 256) lastOrigin.clear();
      if (lastOriginByBus.size > 256) lastOriginByBus.clear();
      lastOrigin.set(s.pid, o);
      lastOriginByBus.set(busOf(el.id), o);
    }
  }
  // A subtree walk has no window of its own: use where its root was last placed (a
  // dialog's element), else where the app's only window was last seen.
  if (s.windows.length === 0 && s.elements.length > 0) {
    const known = s.elements[0].id ? ownOffsetById.get(s.elements[0].id) : undefined;
    origins.set(0, known ?? (list.length === 1 ? lastOrigin.get(s.pid) : undefined));
  }
  // Popovers and menus are X11 windows of their own (override-redirect: not in the client
  // list), and their subtree is relative to the popup's widget, the popup window's size.
  // GTK4 reports the popup at its parent's origin, outside the parent's box: only then
  // are the popup windows looked up.
  let popups: NativeWindowBox[] | undefined;
  const popupWindowsNow = (): NativeWindowBox[] => {
    try {
      popups ??= popupWindows().filter((n) => n.mapped && (n.pid === null || n.pid === s.pid));
    } catch {
      popups = [];
    }
    return popups;
  };
  const popovers = popoversOf.get(s);
  const popupFor = (
    i: number,
    f: Rect,
    parent: Rect | undefined,
    parentOffset: { x: number; y: number } | undefined,
  ): NativeWindowBox | undefined => {
    if (!parent || (f.w <= parent.w && f.h <= parent.h)) return undefined;
    const list = popupWindowsNow();
    const k = popovers?.has(i)
      ? popoverWindow(f, parent, parentOffset, list)
      : f.x === parent.x && f.y === parent.y
        ? list.findIndex((n) => n.w === f.w && n.h === f.h)
        : -1;
    return k < 0 ? undefined : list.splice(k, 1)[0];
  };
  // Each element's offset: its window's origin, or its popup's (tree order, parents first).
  const off: Array<{ x: number; y: number } | undefined> = [];
  const rel: Array<Rect | undefined> = [];
  const byOwnWindow: boolean[] = [];
  s.elements.forEach((e, i) => {
    off[i] = e.parent < 0 ? origins.get(i) : off[e.parent];
    rel[i] = e.frame;
    byOwnWindow[i] = e.parent >= 0 ? byOwnWindow[e.parent] : ownPlaced.has(i);
    if (!e.frame) return;
    const f = e.frame;
    const parent = e.parent >= 0 ? rel[e.parent] : undefined;
    const popup = e.parent >= 0 ? popupFor(i, f, parent, off[e.parent]) : undefined;
    // The popover sits in its window at its offset from its parent's origin (its margin).
    if (popup && parent) {
      off[i] = { x: popup.x - parent.x, y: popup.y - parent.y };
      byOwnWindow[i] = true;
    } else if (
      mode === 'content' &&
      (popovers?.has(i) || s.elements[e.parent]?.nativeRole === 'menu')
    ) {
      // A popover, or the items of a menu (GTK 3 keeps a menu bar's and a combo box's menus
      // in the window's tree, drawn on popup surfaces of their own), that the session
      // cannot place: a Wayland compositor tells no client where a popup is. GTK 3 reports
      // where it asked for them, but a click sent there before the popup took its grab
      // only highlights the item: unplaced, never guessed.
      off[i] = undefined;
    }
    const o = off[i];
    if (o) e.frame = { ...f, x: f.x + o.x, y: f.y + o.y };
    else delete e.frame;
    if (o && byOwnWindow[i] && e.id) {
      if (ownOffsetById.size >= MAX_OWN_OFFSETS) ownOffsetById.clear();
      ownOffsetById.set(e.id, o);
    }
  });
  for (const i of hidden) hideSubtree(s.elements, i);
  for (const w of s.windows) {
    const f = s.elements[w.index].frame;
    if (f) w.frame = f;
    else delete w.frame;
  }
}

/** Widest margin a popover keeps around itself in its popup window (its shadow, its arrow). */
const POPOVER_MARGIN = 32;
/** Farthest a popover's window may be from its parent on screen: it points at its parent. */
const POPOVER_REACH = 48;

/**
 * Which of the popup windows (index in `windows`) holds a popover GTK4 reports at `f`: its
 * parent's origin moved by its margin within its window (`f` less `parent`), so the window
 * is at least that much larger than the popover, and at most by its margins. Of those, the
 * one nearest its parent on screen; -1 when none fits.
 */
export function popoverWindow(
  f: Rect,
  parent: Rect,
  parentOffset: { x: number; y: number } | undefined,
  windows: readonly NativeWindowBox[],
): number {
  const dx = f.x - parent.x;
  const dy = f.y - parent.y;
  if (dx < 0 || dy < 0 || dx > POPOVER_MARGIN || dy > POPOVER_MARGIN) return -1;
  const p = parentOffset && {
    ...parent,
    x: parent.x + parentOffset.x,
    y: parent.y + parentOffset.y,
  };
  let best = -1;
  let bestGap = Infinity;
  windows.forEach((n, k) => {
    const extraW = n.w - f.w;
    const extraH = n.h - f.h;
    if (
      extraW < dx ||
      extraH < dy ||
      extraW > dx + POPOVER_MARGIN ||
      extraH > dy + POPOVER_MARGIN
    ) {
      return;
    }
    const gap = p ? gapBetween(p, n) : 0;
    if (gap <= POPOVER_REACH && gap < bestGap) {
      best = k;
      bestGap = gap;
    }
  });
  return best;
}

/** Distance between two boxes (0 when they touch or overlap). */
function gapBetween(a: Rect, b: Rect): number {
  const x = Math.max(0, a.x - (b.x + b.w), b.x - (a.x + a.w));
  const y = Math.max(0, a.y - (b.y + b.h), b.y - (a.y + a.h));
  return Math.max(x, y);
}
