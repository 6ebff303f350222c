/**
 * Reading an element back from the app itself: its states, value and name as they are
 * now, compared with a reading taken just before the input was sent (not with the
 * cached tree, whose flags may have been computed at another moment). For a check item,
 * also its look: some toolkits draw a check mark they expose no state for (GTK 3's
 * popover menu items).
 */
import type { Element, Rect } from '../model/element.js';
import type { Desktop } from '../platform/desktop.js';
import { hasArea, intersect } from '../viewport/index.js';

/** A comparable digest of what an action can change about one element. */
function stateOf(el: Element): string {
  const flags = el.flags.filter((f) => f !== 'visible').sort();
  return JSON.stringify([flags, el.value ?? null, el.name]);
}

/** Roles whose look says their state: a check mark, a radio dot, a switch's knob. */
const CHECK_ROLES: ReadonlySet<string> = new Set([
  'AXCheckBox',
  'AXRadioButton',
  'AXSwitch',
  'AXMenuItem',
]);

/** The element's pixels on screen as now drawn, with where they were read; undefined when not a check item or unreadable. */
async function lookOf(
  desktop: Desktop,
  el: Element,
): Promise<{ rect: Rect; pixels: Buffer } | undefined> {
  if (!el.frame || !CHECK_ROLES.has(el.role) || el.flags.includes('secure')) return undefined;
  if (el.flags.includes('offscreen')) return undefined;
  const screen = await desktop.screenSize().catch(() => undefined);
  const rect = screen && intersect(el.frame, { x: 0, y: 0, w: screen.w, h: screen.h });
  if (!rect || !hasArea(rect)) return undefined;
  const image = await desktop.capture(rect).catch(() => undefined);
  return image && { rect, pixels: image.data };
}

function sameRect(a: Rect, b: Rect): boolean {
  return a.x === b.x && a.y === b.y && a.w === b.w && a.h === b.h;
}

/**
 * Reads the element now and returns a function telling whether it has changed since; an
 * element that is gone afterwards has changed (a button that closed its dialog). A check
 * item whose states read the same has changed when it is drawn differently in the same
 * place (its check mark, where the toolkit exposes no checked state).
 */
export async function watchElement(
  desktop: Desktop,
  elementId: string,
): Promise<(() => Promise<boolean>) | undefined> {
  const before = await desktop.readElement(elementId).catch(() => undefined);
  if (!before) return undefined;
  const was = stateOf(before);
  const looked = await lookOf(desktop, before);
  return async () => {
    const now = await desktop.readElement(elementId).catch(() => undefined);
    if (now === undefined || stateOf(now) !== was) return true;
    if (!looked) return false;
    const look = await lookOf(desktop, now);
    // Moved or resized, the pixels say nothing about the element itself.
    return (
      look !== undefined && sameRect(look.rect, looked.rect) && !look.pixels.equals(looked.pixels)
    );
  };
}
