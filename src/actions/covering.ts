/**
 * What is on top at a point, for input aimed at an app: a pointer event lands on the
 * topmost window there, whatever element the call meant, and an element's action in the
 * background should be the one a person sees there. The app's windows in the walk are
 * matched to the window system's by their frames: a walked window lies inside the window
 * system's (client-side decorations and shadows only add around it).
 */
import type { Element, Rect } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import { AxError } from '../errors.js';
import { vocabulary } from '../model/vocabulary.js';
import type { Desktop } from '../platform/desktop.js';
import { contains, hasArea, intersect } from '../viewport/geometry.js';
import { reachableFrame } from '../viewport/reachable.js';
import { holds, windowAt, windowStack, type StackedWindow } from './window-stack.js';

/** The topmost window at the point, and whose it is; undefined: no window is there. */
export async function windowOnTop(
  desktop: Desktop,
  p: { x: number; y: number },
): Promise<StackedWindow | undefined> {
  return windowAt(await windowStack(desktop), p);
}

/** How far a walked window may stick out of the window system's one it is (rounding). */
const SLACK = 2;

/**
 * The indices of the view's elements in the walked windows that lie inside `area` (one
 * window of the window system); undefined when none does (the walk cannot tell which it is).
 */
export function elementsInWindow(
  view: SnapshotView,
  area: Rect,
  undecorated = false,
): Set<number> | undefined {
  const { elements, windows } = view.snapshot;
  const roots = windows.filter((w) => {
    const f = elements[w.index]?.frame;
    return (
      f !== undefined &&
      f.w > 0 &&
      f.h > 0 &&
      contains(area, f, SLACK) &&
      // A popup has no decorations: its walked window is all of it.
      (!undecorated || contains(f, area, SLACK))
    );
  });
  if (roots.length === 0) return undefined;
  const out = new Set<number>();
  for (const w of roots) {
    const depth = elements[w.index].depth;
    out.add(w.index);
    for (let i = w.index + 1; i < elements.length && elements[i].depth > depth; i++) out.add(i);
  }
  return out;
}

/**
 * Throws when a pointer event at `p` aimed at `element` would land elsewhere: on a window of
 * another app, on another window of this app (a dialog over it, a menu left open), or on
 * no window at all (the element is not drawn where it says: the rows of a closed list).
 */
export async function assertUncovered(
  desktop: Desktop,
  view: SnapshotView,
  element: Element,
  label: string,
  p: { x: number; y: number },
): Promise<void> {
  const notDrawn = (
    why: string,
    hint = 'Open what shows it first (its combo box, menu or expander), then find it again',
  ) =>
    new AxError(
      'action_failed',
      `${label} is not drawn at (${p.x},${p.y}): ${why}, so nothing was clicked`,
      hint,
    );
  // A closed combo box keeps its list's rows, where they were when it was open.
  if (inClosedList(view, element)) throw notDrawn('its list takes no room (a closed list)');
  const stack = await windowStack(desktop);
  const top = windowAt(stack, p);
  if (!top) {
    // A window system that lists no window at all cannot tell.
    if (stack.length === 0) return;
    throw notDrawn('no window is there (the rows of a closed list, a hidden popup)');
  }
  const owner = top.hostPid ?? top.pid;
  if (owner === view.snapshot.pid && ownWindowHolds(view, top, element)) {
    await assertNoMenuAway(desktop, view, label, p, stack);
    const reach = reachableFrame(view.snapshot, view.snapshot.elements.indexOf(element));
    if (reach && (reach.w < MIN_REACH || reach.h < MIN_REACH)) {
      throw notDrawn(
        `only ${reach.w}x${reach.h} px of it show, at the edge of what holds it (a row scrolled almost out)`,
        'Scroll it into view first (ax_scroll its list), then find it again',
      );
    }
    // In its own window (not a popup of the app over it), what the window draws on top.
    const over = top.kind === 'listed' ? drawnOver(view, element, p) : undefined;
    if (!over) {
      const other =
        top.kind === 'listed' ? await drawnInstead(desktop, view, element, p) : undefined;
      if (other) {
        throw notDrawn(
          `another element is drawn there (${other}), as the app itself says`,
          'It is on a page, tab or pane not shown now: show that first (its tab or page switcher), then find it again',
        );
      }
      return;
    }
    throw new AxError(
      'action_failed',
      `${label} is covered at (${p.x},${p.y}) by a popover of this app drawn over it in its window ([${over.role}]${over.name ? ` "${over.name}"` : ''}): a click there would land on it, so nothing was clicked`,
      'Close the popover first (key Escape, or the button that opened it), or click it in the background (delivery_mode "background")',
    );
  }
  const whose =
    owner !== view.snapshot.pid
      ? // Not its pid: the app may be one the deny list hides, whose pid no error tells.
        'a window of another app'
      : top.kind === 'listed'
        ? 'another window of this app'
        : 'a menu or popup of this app';
  throw new AxError(
    'action_failed',
    `${label} is covered at (${p.x},${p.y}) by ${whose}: a click there would land on it, so nothing was clicked`,
    top.kind === 'listed' || owner !== view.snapshot.pid
      ? 'Close or move the window in front first (ax_list_windows shows them), or click it in the background (delivery_mode "background")'
      : 'Close the menu or popup first (key Escape), or click it in the background (delivery_mode "background")',
  );
}

/**
 * Whether a window of the element's own app on top at the point is the element's. A listed
 * window matched to the walk: the walk says; one the walk gives no frame: the element is in
 * it when it lies inside it. A popup (a menu, a combo box's list, a toast): a walked window
 * that is all of it says, as for a listed one; else its items hang in the walk from where
 * it opened, so an item of a menu or list that lies mostly inside it is its.
 */
function ownWindowHolds(view: SnapshotView, top: StackedWindow, element: Element): boolean {
  const index = view.snapshot.elements.indexOf(element);
  if (index < 0) return true;
  if (top.kind === 'listed') {
    const mine = elementsInWindow(view, top.area);
    if (mine) return mine.has(index);
    return element.frame !== undefined && contains(top.area, element.frame, SLACK);
  }
  if (elementsInWindow(view, top.area, true)?.has(index)) return true;
  // The part its list leaves: a row may be reported wider than the popup that shows it.
  return inMenuOrList(view, index) && mostlyInside(reachableFrame(view.snapshot, index), top.area);
}

/** Roles whose items a popup shows: a menu's, a list's, a combo box's. */
const POPUP_CONTENT: ReadonlySet<string> = new Set([
  'AXMenu',
  'AXMenuItem',
  'AXList',
  'AXOutline',
  'AXComboBox',
  'AXPopover',
]);

/** Whether the element is, or hangs from, a menu or a list. */
function inMenuOrList(view: SnapshotView, index: number): boolean {
  const { elements } = view.snapshot;
  for (let i = index, depth = 0; i >= 0 && i < elements.length && depth < 64; depth++) {
    if (POPUP_CONTENT.has(elements[i].role)) return true;
    i = elements[i].parent;
  }
  return false;
}

/** Whether most of `frame` lies inside `area` (a row drawn wider than its popup still is). */
function mostlyInside(frame: Rect | undefined, area: Rect): boolean {
  if (!hasArea(frame)) return false;
  const shared = intersect(frame, area);
  return shared !== null && shared.w * shared.h * 2 >= frame.w * frame.h;
}

/** A row whose list has no area: the list is not drawn, so neither is the row. */
function inClosedList(view: SnapshotView, element: Element): boolean {
  if (element.role !== 'AXRow' || !hasArea(element.frame)) return false;
  const parent = view.snapshot.elements[element.parent];
  return parent !== undefined && parent.role === 'AXList' && !hasArea(parent.frame);
}

/**
 * What the app draws over the element inside its own window (a GTK 3 popover is no window
 * of its own): another child of the element's window, not one it is in, that holds the
 * point. Side by side, a window's children do not overlap; one that does is drawn above.
 */
function drawnOver(view: SnapshotView, element: Element, p: { x: number; y: number }) {
  const { elements, windows } = view.snapshot;
  const roots = new Set(windows.map((w) => w.index));
  const chain = new Set<number>();
  let root = -1;
  for (let i = elements.indexOf(element), depth = 0; i >= 0 && depth < 256; depth++) {
    chain.add(i);
    if (roots.has(i)) {
      root = i;
      break;
    }
    i = elements[i].parent;
  }
  if (root < 0) return undefined;
  // Drawn later is drawn above: only the window's children after the one the element is in.
  const under = [...chain].filter((i) => elements[i]?.parent === root);
  if (under.length === 0) return undefined;
  const mine = Math.max(...under);
  return elements.find(
    (e, i) =>
      e.parent === root &&
      i > mine &&
      !chain.has(i) &&
      !e.flags.includes('offscreen') &&
      hasArea(e.frame) &&
      holds(e.frame, p),
  );
}

/**
 * What the app draws at `p` instead of the element, by its own hit test asked of the
 * element's window: an element of the walk that is neither the element, nor in it (a
 * button's label), nor holding it (a composite widget, or a toolkit that stops above the
 * element), unless what holds it says the point is on none of its children. The tree keeps elements the app does not draw where their frames
 * say: a hidden stack page's keep their last allocation, under the page shown. Undefined
 * when the app cannot say, or answers what the walk does not have: no refusal without it.
 */
async function drawnInstead(
  desktop: Desktop,
  view: SnapshotView,
  element: Element,
  p: { x: number; y: number },
): Promise<string | undefined> {
  if (!desktop.elementAt) return undefined;
  // A table's header is drawn over the rows scrolled under it, yet Qt's table answers the
  // row under the point (it looks through its header): the header's own word is not had.
  if (vocabulary().headerRoles?.has(element.nativeRole)) return undefined;
  const { elements, windows } = view.snapshot;
  const index = elements.indexOf(element);
  if (index < 0) return undefined;
  const roots = new Set(windows.map((w) => w.index));
  const chain = new Set<number>();
  let root = -1;
  for (let i = index, depth = 0; i >= 0 && i < elements.length && depth < 256; depth++) {
    chain.add(i);
    if (roots.has(i)) {
      root = i;
      break;
    }
    i = elements[i].parent;
  }
  if (root < 0 || !hasArea(elements[root].frame)) return undefined;
  const answer = await desktop.elementAt(elements[root], p).catch(() => undefined);
  if (!answer) return undefined;
  const hit = elements.findIndex((e) => e.id === answer.id);
  if (hit < 0 || hit === index) return undefined;
  if (chain.has(hit)) {
    // What holds the element, said to be hit on itself and on none of its children: the
    // point is on something it draws over them (a block of a web page that is no element).
    return answer.onItself
      ? `${describe(view, hit)}, which holds it, on nothing inside it`
      : undefined;
  }
  for (let i = hit, depth = 0; i >= 0 && i < elements.length && depth < 256; depth++) {
    if (i === index) return undefined;
    i = elements[i].parent;
  }
  return describe(view, hit);
}

/** `[AXButton] "Name" e12`, as an error names an element. */
function describe(view: SnapshotView, i: number): string {
  const e = view.snapshot.elements[i];
  const ref = view.refs[i];
  const text = e.name || e.description || '';
  const name = text.length > 60 ? `${text.slice(0, 59)}…` : text;
  return `[${e.role}]${name ? ` "${name}"` : ''}${ref ? ` ${ref}` : ''}`;
}

/** Less than this many pixels of an element showing is no place to click it. */
const MIN_REACH = 3;

/**
 * Throws when a menu or popover of the app is open away from `p` and takes the input: a
 * click at `p` would only close it (a GTK 3 or Qt menu holds the pointer; a GTK 3 popover
 * that takes the input is no window of its own, so its element in the walk says).
 */
export async function assertNoMenuAway(
  desktop: Desktop,
  view: SnapshotView,
  label: string,
  p: { x: number; y: number },
  stack?: readonly StackedWindow[],
): Promise<void> {
  const pid = view.snapshot.pid;
  const windows = stack ?? (await windowStack(desktop));
  const popups = windows.filter((w) => w.kind === 'popup' && w.pid === pid);
  const closes = (where: Rect) =>
    new AxError(
      'action_failed',
      `a menu or popover of this app is open at (${where.x},${where.y}) and takes the input: a click on ${label} would only close it, so nothing was clicked`,
      'Close it first (key Escape), or click it in the background (delivery_mode "background")',
    );
  if (popups.length > 0 && !popups.some((w) => holds(w.area, p))) {
    if ((await desktop.anyGrab?.().catch(() => undefined)) !== undefined)
      throw closes(popups[0].area);
  }
  const popover = view.snapshot.elements.find(
    (e) => e.role === 'AXPopover' && !e.flags.includes('offscreen') && hasArea(e.frame),
  );
  if (popover?.frame && !holds(popover.frame, p)) throw closes(popover.frame);
}
