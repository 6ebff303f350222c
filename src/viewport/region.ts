/**
 * Which part of the screen a tool call's screenshot shows: the view's dialog or window
 * with whatever pops up from it (an open menu, a combo box's list) in context, never the
 * popup cropped alone; and which frames must be redacted in it.
 */
import type { Element, Rect, Snapshot } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import { vocabulary } from '../model/vocabulary.js';
import { isPopupWindow } from './dialog.js';
import { hasArea, intersect } from './geometry.js';

export interface CaptureRequest {
  view: SnapshotView;
  /** The app that came to the front because of the action: its view is what is shown. */
  appSwitch?: SnapshotView;
  /** An explicit region, or a window (an index into `view.snapshot.windows`). */
  capture?: { rect?: Rect; windowIndex?: number };
}

const MENU_ROLES: ReadonlySet<string> = new Set(['AXMenu']);

const isMenu = (el: Element): boolean =>
  MENU_ROLES.has(el.role) || vocabulary().menuRoles.has(el.nativeRole);

/**
 * Frames of what is popped up in a view: visible popup top-levels (a GTK3 combo list or
 * menu is a window of its own), and visible elements inside a menu (a menu bar's menu is
 * drawn below the window it hangs from and may reach past its bottom edge).
 */
export function popupFrames(view: SnapshotView): Rect[] {
  const { snapshot, visible } = view;
  const frames: Rect[] = [];
  for (const w of snapshot.windows) {
    if (!visible[w.index] || !isPopupWindow(snapshot, w)) continue;
    const frame = w.frame ?? snapshot.elements[w.index]?.frame;
    if (hasArea(frame)) frames.push(frame);
  }
  const inMenu = menuDescendants(snapshot);
  snapshot.elements.forEach((el, i) => {
    if (inMenu[i] && visible[i] && hasArea(el.frame)) frames.push(el.frame);
  });
  return frames;
}

/** Elements strictly below a menu, for elements listed after their parents. */
function menuDescendants(snapshot: Snapshot): Uint8Array {
  const { elements } = snapshot;
  const out = new Uint8Array(elements.length);
  for (let i = 0; i < elements.length; i++) {
    const p = elements[i].parent;
    if (Number.isInteger(p) && p >= 0 && p < i) out[i] = out[p] || isMenu(elements[p]) ? 1 : 0;
  }
  return out;
}

/** The smallest rect holding all of them. */
export function union(rects: readonly Rect[]): Rect | undefined {
  if (rects.length === 0) return undefined;
  let x = Infinity;
  let y = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const r of rects) {
    x = Math.min(x, r.x);
    y = Math.min(y, r.y);
    right = Math.max(right, r.x + r.w);
    bottom = Math.max(bottom, r.y + r.h);
  }
  return { x, y, w: right - x, h: bottom - y };
}

/**
 * The screenshot's region in whole pixels, on screen: an explicit region or window as
 * asked; else the shown view's dialog (or viewport window) together with its open
 * popups. Falls back to the whole screen when nothing of it is on screen.
 */
export function captureRect(req: CaptureRequest, screen: { w: number; h: number }): Rect {
  const full = { x: 0, y: 0, w: screen.w, h: screen.h };
  let rect: Rect | undefined = req.capture?.rect;
  if (!rect && req.capture?.windowIndex !== undefined) {
    rect = req.view.snapshot.windows[req.capture.windowIndex]?.frame;
  }
  if (!rect) {
    const shown = req.appSwitch ?? req.view;
    const base = shown.dialog?.frame ?? shown.viewport;
    rect = union([base, ...popupFrames(shown)]);
  }
  const clipped = rect && intersect(rect, full);
  const pixels = clipped && wholePixels(clipped);
  return pixels && pixels.w > 0 && pixels.h > 0 ? pixels : full;
}

function wholePixels(r: Rect): Rect {
  const x = Math.round(r.x);
  const y = Math.round(r.y);
  return { x, y, w: Math.round(r.x + r.w) - x, h: Math.round(r.y + r.h) - y };
}

/** Frames of secure (password) fields: redacted in every screenshot. */
export function secureFrames(view: SnapshotView): Rect[] {
  return view.snapshot.elements
    .filter((e) => e.flags.includes('secure') && e.frame)
    .map((e) => e.frame as Rect);
}
