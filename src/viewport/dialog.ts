/**
 * Which window scopes what the agent can see and use: a blocking dialog (sheet, modal,
 * or a dialog the user is in), else the target window.
 */
import type { Snapshot, WindowInfo } from '../model/element.js';
import { vocabulary } from '../model/vocabulary.js';

function exists(snapshot: Snapshot, w: WindowInfo): boolean {
  return Number.isInteger(w.index) && w.index >= 0 && w.index < snapshot.elements.length;
}

/**
 * The dialog that blocks the app's target window, or null.
 *
 * - `targetWindow` (an element index, as in WindowInfo.index) naming a dialog returns
 *   that dialog: the caller aims at it, so it scopes the view.
 * - A modal dialog/alert/sheet blocks every window of its app (GTK modality is
 *   app-wide; a macOS sheet blocks its window). Among several, the active one, else
 *   the first listed (backends list dialogs first, in stacking order where known).
 * - A non-modal dialog blocks when it is active and the target window (or, with no
 *   target, every non-dialog window) is not: the user is in the dialog (a font chooser
 *   without the modal state). An app whose only windows are dialogs (zenity) counts.
 */
export function findBlockingDialog(snapshot: Snapshot, targetWindow?: number): WindowInfo | null {
  const windows = snapshot.windows.filter((w) => exists(snapshot, w));
  const target =
    targetWindow === undefined ? undefined : windows.find((w) => w.index === targetWindow);
  if (target?.dialog) return target;
  const dialogs = windows.filter((w) => w.dialog);
  if (dialogs.length === 0) return null;
  const modal = dialogs.filter((w) => w.modal);
  if (modal.length > 0) return modal.find((w) => w.active) ?? modal[0];
  const activeDialog = dialogs.find((w) => w.active);
  if (!activeDialog) return null;
  const mains = target ? [target] : windows.filter((w) => !w.dialog);
  return mains.some((w) => w.active) ? null : activeDialog;
}

const POPUP_ROLES: ReadonlySet<string> = new Set(['AXMenu', 'AXHelpTag']);

/**
 * A top-level that pops up over an app window (a combo box's list, a menu, a tool tip)
 * rather than being one: it takes the focus while open, yet the agent's context is the
 * window it belongs to.
 */
export function isPopupWindow(snapshot: Snapshot, w: WindowInfo): boolean {
  if (w.dialog || !exists(snapshot, w)) return false;
  const el = snapshot.elements[w.index];
  return POPUP_ROLES.has(el.role) || vocabulary().popupWindowRoles.has(el.nativeRole);
}

/**
 * The window the viewport reports when no dialog scopes it: the target window when
 * given, else the active app window (not a popup), else the first app window, else the
 * first non-dialog one (popups included), else the first window of any kind.
 */
export function mainWindow(snapshot: Snapshot, windowIndex?: number): WindowInfo | null {
  const windows = snapshot.windows.filter((w) => exists(snapshot, w));
  if (windowIndex !== undefined) {
    const hit = windows.find((w) => w.index === windowIndex);
    if (hit) return hit;
  }
  const normal = windows.filter((w) => !w.dialog);
  const apps = normal.filter((w) => !isPopupWindow(snapshot, w));
  return (
    apps.find((w) => w.active) ??
    apps[0] ??
    normal.find((w) => w.active) ??
    normal[0] ??
    windows[0] ??
    null
  );
}

/** Surfaces that pop up over a window to be used and then go: a popover, a menu. */
const POPUP_KINDS: ReadonlyMap<string, 'popover' | 'menu'> = new Map([
  ['AXPopover', 'popover'],
  ['AXMenu', 'menu'],
  ['AXMenuBarItem', 'menu'],
]);

/** The popover or menu element `i` is inside (its nearest such ancestor), or undefined. */
export function popupAround(
  snapshot: Snapshot,
  i: number,
): { index: number; kind: 'popover' | 'menu' } | undefined {
  const els = snapshot.elements;
  if (i < 0 || i >= els.length) return undefined;
  for (let p = els[i].parent; p >= 0 && p < i; i = p, p = els[p].parent) {
    const kind = POPUP_KINDS.get(els[p].role);
    if (kind) return { index: p, kind };
  }
  return undefined;
}
