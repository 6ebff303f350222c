/**
 * How a single click reaches an element through AT-SPI, chosen from what each action
 * does rather than from its name alone (the table is docs/click-routes.md):
 *
 * - An element that takes text (editable: entries, text views, spin buttons, a combo
 *   box's entry, Firefox inputs) gets the keyboard focus, as a click gives it. Its
 *   "activate" action is what Enter does in GTK (a dialog's default button, a spin
 *   button's value committed), so it is never a click. An editable table cell offers
 *   "edit", which opens its editor as a click does.
 * - Anything else runs its press action, most specific first: GTK's "click", "press",
 *   "toggle" and "activate"; Chromium's "check"/"uncheck" and "doDefault"; Gecko's
 *   "switch" (a tab), "jump" (a link), "expand"/"collapse" (a <summary>); Qt's "Press",
 *   "Toggle" and "ShowMenu" (a menu).
 * - An element whose only fitting action moves the focus (Qt's "SetFocus") is focused.
 */
import type { Element } from '../../model/element.js';
import type { ClickRoute, CommitRoute } from '../desktop.js';

/** Press actions, most specific first (compared case-folded). */
const PRESS: readonly string[] = [
  'click',
  'press',
  'toggle',
  'check',
  'uncheck',
  'switch',
  'jump',
  'open',
  'activate',
  'expand',
  'collapse',
  'select',
  'showmenu',
  'dodefault',
];

/** Actions that only give the element the keyboard focus. */
const FOCUS: readonly string[] = ['setfocus'];

/** A table cell's action that opens its editor. */
const EDIT = 'edit';

export function clickRouteOf(el: Element): ClickRoute {
  const lower = el.actions.map((a) => a.toLowerCase());
  const named = (name: string): string | undefined => {
    const i = lower.indexOf(name);
    return i >= 0 ? el.actions[i] : undefined;
  };
  const takesText = el.flags.includes('editable') && !el.flags.includes('readonly');
  if (takesText) {
    const edit = named(EDIT);
    return edit && el.role === 'AXCell' ? { via: 'action', action: edit } : { via: 'focus' };
  }
  for (const name of PRESS) {
    const action = named(name);
    if (action) return { via: 'action', action };
  }
  if (FOCUS.some((n) => named(n))) return { via: 'focus' };
  return { via: 'none' };
}

/**
 * A spin button's typed text becomes its value on Enter: GTK's "activate" on a spin button
 * is exactly that (gtk_spin_button_activate updates the value), with no focus needed;
 * other toolkits (Qt's spin box, which offers none) take Return in the field.
 */
export function commitRouteOf(el: Element): CommitRoute {
  const i = el.actions.findIndex((a) => a.toLowerCase() === 'activate');
  return i >= 0 ? { via: 'action', action: el.actions[i] } : { via: 'key', key: 'Return' };
}
