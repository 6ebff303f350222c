/**
 * Which elements the agent can actually see: an element is visible when its frame (with
 * a positive area) overlaps the region it can be drawn in, and the app does not hide it
 * where geometry cannot decide (see model/filter.ts: no frame, or a hidden page stacked
 * at the visible page's rect). A "not showing" flag on an ancestor does not hide an
 * element whose frame is on screen. The region is its surface (window, menu, popover)
 * clipped to the screen and to every scrolling ancestor, and, while a blocking dialog is
 * up, only the dialog's subtree counts. A frame, not a point: a button half scrolled out
 * is visible, one whose top-left corner alone is inside is not enough.
 */
import type { Element, Rect, Snapshot, WindowInfo } from '../model/element.js';
import { hiddenByApp } from '../model/filter.js';
import { vocabulary } from '../model/vocabulary.js';
import { findBlockingDialog, mainWindow } from './dialog.js';
import { clipForReport, hasArea, intersect } from './geometry.js';

/**
 * Containers whose frame is the visible part of scrolled content. Lists, tables and
 * outlines are not here: on macOS their frame is the whole content (clipping by it adds
 * nothing), on GTK the scroll pane around them already clips, and on web pages a list
 * whose items float has a zero-height frame, so clipping by it would hide real items.
 */
export const VIEWPORT_ROLES: ReadonlySet<string> = new Set(['AXScrollArea', 'AXWebArea']);

/**
 * Separate surfaces drawn above their parent (a menu below a small window, a popover):
 * they are clipped to the screen, not to the ancestors they hang from.
 */
export const SURFACE_ROLES: ReadonlySet<string> = new Set([
  'AXWindow',
  'AXDialog',
  'AXSheet',
  'AXDrawer',
  'AXMenu',
  'AXPopover',
  'AXHelpTag',
]);

/** Native roles count as the backend's vocabulary says, whatever they are normalized to. */
export function isViewportLike(el: Element): boolean {
  return VIEWPORT_ROLES.has(el.role) || vocabulary().viewportRoles.has(el.nativeRole);
}

export function isSurfaceRole(el: Element): boolean {
  return SURFACE_ROLES.has(el.role) || vocabulary().surfaceRoles.has(el.nativeRole);
}

/**
 * A combo box's list (Qt's): drawn in a popup window of its own while open, over and
 * beyond the dialog and scroll pane the combo box sits in, so it is a surface too.
 */
export function isComboList(el: Element, parent: Element | undefined): boolean {
  return el.role === 'AXList' && parent?.role === 'AXComboBox';
}

/**
 * A combo box's list while closed: the app says it is not showing and gives it no area
 * (Qt 6). Its rows keep frames, and are not drawn.
 */
export function closedComboList(el: Element, parent: Element | undefined): boolean {
  return isComboList(el, parent) && el.flags.includes('offscreen') && !hasArea(el.frame);
}

/**
 * A menu that hangs inside another element (a menu bar's "File", a submenu item, a
 * combo box's list): its frame is the title it opens from, and its items are drawn in a
 * popup of their own, so they are clipped to the screen, not to that title.
 */
export function isMenuTitle(el: Element, hasParent: boolean): boolean {
  return hasParent && (el.role === 'AXMenu' || vocabulary().menuTitleRoles.has(el.nativeRole));
}

export interface VisibilityOptions {
  /** The target window (an element index, as in WindowInfo.index). */
  windowIndex?: number;
}

export interface Visibility {
  /** The region the summary and file report: the dialog, else the target/active window, on screen. */
  viewport: Rect;
  dialog: WindowInfo | null;
  /** One entry per snapshot element. */
  visible: boolean[];
}

export function computeVisibility(
  snapshot: Snapshot,
  screen: Rect,
  opts: VisibilityOptions = {},
): Visibility {
  const { elements } = snapshot;
  const n = elements.length;
  const dialog = findBlockingDialog(snapshot, opts.windowIndex);
  const dialogIndex = dialog ? dialog.index : -1;
  const windowIndices = new Set(snapshot.windows.map((w) => w.index));
  const screenRect: Rect | null = hasArea(screen) ? screen : null;
  const hidden = hiddenByApp(snapshot);

  const visible = new Array<boolean>(n).fill(false);
  // Where an element's descendants can be drawn (null: nowhere).
  const region = new Array<Rect | null>(n).fill(null);
  // Inside the dialog's subtree (or no dialog).
  const scoped = new Uint8Array(n);
  // 0 = pending, 1 = on the current ancestor chain, 2 = done.
  const state = new Uint8Array(n);

  const compute = (i: number): void => {
    const el = elements[i];
    const p = el.parent;
    const hasParent = Number.isInteger(p) && p >= 0 && p < n && p !== i && state[p] === 2;
    const base = hasParent ? region[p] : screenRect;
    const inScope = dialogIndex < 0 || i === dialogIndex || (hasParent && scoped[p] === 1);
    scoped[i] = inScope ? 1 : 0;
    const surface =
      !hasParent || windowIndices.has(i) || isSurfaceRole(el) || isComboList(el, elements[p]);
    const frame = el.frame;
    const clip = surface ? screenRect : base;
    visible[i] =
      inScope &&
      clip !== null &&
      hasArea(frame) &&
      hidden[i] === 0 &&
      intersect(frame, clip) !== null;
    if (isMenuTitle(el, hasParent)) {
      region[i] = screenRect;
    } else if (closedComboList(el, hasParent ? elements[p] : undefined)) {
      // A closed combo box's list keeps its rows where they were last drawn (or at 0,0).
      region[i] = null;
    } else if (surface) {
      // A surface without a frame inherits; one with a degenerate frame shows nothing.
      if (frame === undefined) region[i] = hasParent ? base : screenRect;
      else region[i] = hasArea(frame) && screenRect ? intersect(frame, screenRect) : null;
    } else if (isViewportLike(el) && frame !== undefined) {
      region[i] = hasArea(frame) && base ? intersect(frame, base) : null;
    } else {
      region[i] = base;
    }
    state[i] = 2;
  };

  for (let i = 0; i < n; i++) {
    if (state[i] === 2) continue;
    // Parents normally come first; walk up for any that do not, and stop at a cycle.
    const chain: number[] = [];
    let j = i;
    while (j >= 0 && j < n && state[j] === 0) {
      state[j] = 1;
      chain.push(j);
      const p = elements[j].parent;
      j = Number.isInteger(p) && p !== j ? p : -1;
    }
    for (let k = chain.length - 1; k >= 0; k--) compute(chain[k]);
  }

  const scope = dialog ?? mainWindow(snapshot, opts.windowIndex);
  const frame = scope?.frame ?? (scope ? elements[scope.index]?.frame : undefined);
  const viewport =
    frame && hasArea(frame) && screenRect
      ? clipForReport(frame, screenRect)
      : { x: screen.x, y: screen.y, w: Math.max(0, screen.w), h: Math.max(0, screen.h) };
  return { viewport, dialog, visible };
}
