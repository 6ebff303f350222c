/**
 * What an app draws at a point, by its own hit test (Component.GetAccessibleAtPoint): the
 * tree keeps elements the app does not draw (GTK 4 keeps a hidden stack page's widgets,
 * with their last allocation and VISIBLE), so a frame alone does not say a click there
 * reaches the element. One call, asked of the element's window.
 *
 * Toolkits answer differently, which the caller allows for: GTK 4 picks the deepest drawn
 * widget, in coordinates relative to the asked widget whatever coordinate type is passed
 * (it does not know where its window is: see gtk4.ts); Qt goes down to the deepest child
 * whose rectangle holds the point, in screen coordinates; ATK (GTK 3, Gecko) answers the
 * asked object's child there, one level down. On a Wayland session no toolkit knows where
 * its window is, so its "screen" is its window: every toolkit is asked window-relative.
 */
import type { AtspiBus, ObjectRef } from './bus.js';
import { NULL_PATH } from './bus.js';
import { formatId, parseId } from './ids.js';
import { IFACE } from './read.js';
import { isGtk4Bus } from './gtk4.js';

const COORD_SCREEN = 0;
const COORD_WINDOW = 1;

/**
 * The id of the element the app says is at `p` (screen coordinates) within `rootId`, a
 * top-level whose frame on screen is `rootFrame`; null when it says none is. GTK 4 is
 * asked relative to its window's widget, at `rootFrame`'s origin, and so is every toolkit
 * when `windowRelative` (the session places frames by their windows).
 */
export async function accessibleAtPoint(
  bus: AtspiBus,
  rootId: string,
  rootFrame: { x: number; y: number },
  p: { x: number; y: number },
  timeoutMs: number,
  windowRelative = false,
): Promise<string | null> {
  const [dest, path] = parseId(rootId);
  const gtk4 = isGtk4Bus(dest);
  const [x, y] = gtk4 || windowRelative ? [p.x - rootFrame.x, p.y - rootFrame.y] : [p.x, p.y];
  const [ref] = await bus.call(
    dest,
    path,
    IFACE.Component,
    'GetAccessibleAtPoint',
    'iiu',
    [x, y, gtk4 ? COORD_WINDOW : COORD_SCREEN],
    timeoutMs,
  );
  const [b, at] = (ref ?? []) as ObjectRef;
  if (!at || at === NULL_PATH) return null;
  return formatId(b || dest, at);
}
