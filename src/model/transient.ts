/**
 * States that come and go by themselves around an input, so they say nothing about what
 * the input changed. Toolkit-neutral: read from the normalized role and flags.
 *
 * A plain push button is `pressed` while it is being clicked (Qt holds a button clicked
 * through accessibility down for a moment, and runs the click only when it lets go),
 * where a toggle's `pressed` is its on state and stays (GTK 4 toggle buttons, normalized
 * to a check box role, report it so).
 */
import type { Element, Flag } from './element.js';

/** Roles whose `pressed` lasts only as long as the press: plain push buttons. */
const MOMENTARY_PRESS_ROLES: ReadonlySet<string> = new Set(['AXButton']);

/** The element's flags that will revert on their own (none for most elements). */
export function transientFlags(el: Pick<Element, 'role' | 'flags'>): Flag[] {
  const held =
    el.flags.includes('pressed') &&
    !el.flags.includes('checked') &&
    MOMENTARY_PRESS_ROLES.has(el.role);
  return held ? ['pressed'] : [];
}
