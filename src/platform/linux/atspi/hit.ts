/**
 * What an app draws at a point, by its own hit test (Component.GetAccessibleAtPoint): the
 * tree keeps elements the app does not draw (GTK 4 keeps a hidden stack page's widgets,
 * with their last allocation and VISIBLE), so a frame alone does not say a click there
 * reaches the element. Asked of the element's window, then down as the toolkit needs.
 *
 * Toolkits answer differently, which the caller allows for: GTK 4 picks the deepest drawn
 * widget, in coordinates relative to the asked widget whatever coordinate type is passed
 * (it does not know where its window is: see gtk4.ts); Qt goes down to the deepest child
 * whose rectangle holds the point, in screen coordinates; ATK (GTK 3, Gecko) answers the
 * asked object's child there, one level down (so it is asked again of that child).
 * GTK 3's ATK answers the first child listed whose extents hold the point, and GTK 3
 * draws a container's later children over its earlier ones (an overlay's overlays, a
 * scrolled window's scroll bars), so a later sibling shown there is what is drawn on
 * top. Gecko answers by its layout's own hit test: its answer stands. On a Wayland session
 * no toolkit knows where its window is, so its "screen" is its window: every toolkit is
 * asked window-relative there.
 */
import type { AtspiBus, ObjectRef } from './bus.js';
import { NULL_PATH } from './bus.js';
import { formatId, parseId } from './ids.js';
import { directCall, getProp, IFACE, type CallFn } from './read.js';
import { isGtk4Bus } from './gtk4.js';
import { hasState, STATE } from './states.js';
import { pollFor } from '../../../model/timeout.js';
import { isQtToolkitName } from './qt.js';
import { toolkitName } from './toolkit.js';

const COORD_SCREEN = 0;
const COORD_WINDOW = 1;

/** How long a window that answered nothing at first is asked again. */
const FIRST_ANSWER_MS = 500;

/** How deep the hit test goes down asking each child found (a web page nests deep). */
const MAX_DESCENT = 48;

/**
 * The id of the deepest element the app says is at `p` (screen coordinates) within
 * `rootId`, a top-level whose frame on screen is `rootFrame`; null when it says none is.
 * GTK 4 is asked once, relative to its window's widget, at `rootFrame`'s origin: it
 * answers the deepest itself. ATK answers one level down, so the child found is asked
 * again, down to one that answers no child (or itself); a descent cut short by an error
 * or by its bound answers the deepest found, which the caller compares as any other.
 * `windowRelative`: the session places frames by their windows (Wayland).
 */
export async function accessibleAtPoint(
  bus: AtspiBus,
  rootId: string,
  rootFrame: { x: number; y: number },
  p: { x: number; y: number },
  timeoutMs: number,
  windowRelative = false,
): Promise<{ id: string; onItself?: boolean } | null> {
  const [dest] = parseId(rootId);
  const gtk4 = isGtk4Bus(dest);
  // Where the app itself puts the point: its window's coordinates where it knows no other.
  const point = gtk4 || windowRelative ? { x: p.x - rootFrame.x, y: p.y - rootFrame.y } : p;
  const ask = async (id: string): Promise<string | null> => {
    const [busName, path] = parseId(id);
    const [ref] = await bus.call(
      busName,
      path,
      IFACE.Component,
      'GetAccessibleAtPoint',
      'iiu',
      [point.x, point.y, gtk4 ? COORD_WINDOW : COORD_SCREEN],
      timeoutMs,
    );
    const [b, at] = (ref ?? []) as ObjectRef;
    if (!at || at === NULL_PATH) return null;
    return formatId(b || busName, at);
  };
  let first = await ask(rootId);
  // Gecko answers nothing at first, where its window holds the point, until its content
  // process has sent what it hit-tests with: a window is asked again (bounded) there.
  if (first === null && !gtk4 && isGecko(await toolkitName(directCall(bus), dest))) {
    await pollFor(
      async () => (first = await ask(rootId).catch(() => null)) !== null,
      FIRST_ANSWER_MS,
    );
  }
  if (gtk4 || first === null) return first === null ? null : { id: first };
  const toolkit = await toolkitName(directCall(bus), dest);
  // Qt answers the deepest element itself. On Wayland a window's hit test knows nothing
  // of its popups (GTK 3's menus are in its tree, drawn on surfaces of their own): going
  // down from the window would name what lies under an open menu, so it stops at once.
  if (isQtToolkitName(toolkit) || windowRelative) return { id: first };
  const listOrder = /^gtk$/i.test(toolkit);
  const above = async (id: string): Promise<string> =>
    listOrder ? ((await drawnAbove(bus, id, point, timeoutMs).catch(() => null)) ?? id) : id;
  let deepest = await above(first);
  for (let depth = 1; depth < MAX_DESCENT; depth++) {
    const next = await ask(deepest).catch(() => null);
    // Gecko answers the asked element itself where the point is on none of its children
    // (on its own text, or on a block drawn over them that is no element of its own).
    if (next === deepest) return { id: deepest, onItself: true };
    if (next === null) break;
    deepest = await above(next);
  }
  return { id: deepest };
}

const isGecko = (toolkit: string): boolean => /^gecko$/i.test(toolkit);

/** Siblings looked at after a child found: more is a list's rows, which do not overlap. */
const MAX_LATER_SIBLINGS = 16;

/**
 * The last sibling after `id` that is shown and holds `p` (drawn over it), else null.
 */
async function drawnAbove(
  bus: AtspiBus,
  id: string,
  p: { x: number; y: number },
  timeoutMs: number,
): Promise<string | null> {
  const [dest, path] = parseId(id);
  const call: CallFn = (d, o, iface, member, sig, body) =>
    bus.call(d, o, iface, member, sig, body, timeoutMs);
  const [index] = (await call(dest, path, IFACE.Accessible, 'GetIndexInParent')) as [number];
  const parent = (await getProp(call, [dest, path], IFACE.Accessible, 'Parent')) as ObjectRef;
  const [pb, pp] = parent ?? [];
  if (typeof index !== 'number' || index < 0 || !pp || pp === NULL_PATH) return null;
  const parentBus = pb || dest;
  const count = (await getProp(call, [parentBus, pp], IFACE.Accessible, 'ChildCount')) as number;
  if (typeof count !== 'number' || count - index - 1 > MAX_LATER_SIBLINGS) return null;
  let found: string | null = null;
  for (let k = index + 1; k < count; k++) {
    const [ref] = (await call(parentBus, pp, IFACE.Accessible, 'GetChildAtIndex', 'i', [k])) as [
      ObjectRef,
    ];
    const [cb, cp] = ref ?? [];
    if (!cp || cp === NULL_PATH) continue;
    const sib = cb || parentBus;
    const [states] = (await call(sib, cp, IFACE.Accessible, 'GetState')) as [number[]];
    if (!hasState(states, STATE.SHOWING) || !hasState(states, STATE.VISIBLE)) continue;
    const [ext] = (await call(sib, cp, IFACE.Component, 'GetExtents', 'u', [COORD_SCREEN])) as [
      number[],
    ];
    const [x, y, w, h] = ext ?? [];
    if (w > 0 && h > 0 && p.x >= x && p.x < x + w && p.y >= y && p.y < y + h) {
      found = formatId(sib, cp);
    }
  }
  return found;
}
