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
import type { Desktop } from '../platform/desktop.js';
import { contains } from '../viewport/geometry.js';
import { windowAt, windowStack, type StackedWindow } from './window-stack.js';

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
export function elementsInWindow(view: SnapshotView, area: Rect): Set<number> | undefined {
  const { elements, windows } = view.snapshot;
  const roots = windows.filter((w) => {
    const f = elements[w.index]?.frame;
    return f !== undefined && f.w > 0 && f.h > 0 && contains(area, f, SLACK);
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
 * Throws when a pointer event at `p` aimed at `element` would land on another window: one
 * of another app, or another window of this app (a dialog over it). Nothing is said when
 * the window there cannot be matched to the walk (the event goes as asked).
 */
export async function assertUncovered(
  desktop: Desktop,
  view: SnapshotView,
  element: Element,
  label: string,
  p: { x: number; y: number },
): Promise<void> {
  const top = await windowOnTop(desktop, p);
  if (!top) return;
  const owner = top.hostPid ?? top.pid;
  const index = view.snapshot.elements.indexOf(element);
  if (owner === view.snapshot.pid) {
    // The app's own menus and tooltips come and go with the pointer: only its other
    // windows (a dialog over the main one) are taken to cover.
    if (top.kind !== 'listed') return;
    const mine = elementsInWindow(view, top.area);
    if (!mine || index < 0 || mine.has(index)) return;
  }
  const whose =
    owner === view.snapshot.pid ? 'another window of this app' : 'a window of another app';
  throw new AxError(
    'action_failed',
    `${label} is covered at (${p.x},${p.y}) by ${whose}${owner !== null && owner !== view.snapshot.pid ? ` (pid ${owner})` : ''}: a click there would land on it, so nothing was clicked`,
    'Close or move the window in front first (ax_list_windows shows them), or click it in the background (delivery_mode "background")',
  );
}
