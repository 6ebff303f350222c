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
 * - GTK4's tree expander (GtkTreeExpander) offers "listitem.toggle-expand", what a click on
 *   its arrow does; the arrow itself (a button with no action) runs its expander's. An
 *   expander with nothing to expand (a leaf) lists the action too, and it does nothing.
 * - A row of a list or a tab of a tab list that offers no action (GTK4's list box rows,
 *   list view and column view rows, notebook tabs; GTK3's list box rows and notebook tabs)
 *   is chosen through its container's selection (AT-SPI Selection.SelectChild), which is
 *   what a click on it changes; an activation (a row's "row-activated") has no route.
 * - A tree row's cell that can expand (GTK3's expander column cell: EXPANDABLE, with
 *   "expand or contract" beside "activate") expands or collapses: a click on a tree's
 *   expander is that, not the row's activation.
 * - A row in a combo box's popup list that would only be selected in that list (Qt's
 *   "Toggle", GTK4's list selection) has no route: the combo box keeps its choice. Nor has
 *   a Qt tree row that can expand: Qt offers nothing that expands it, its "Toggle" selects.
 * - GTK4's drop-down (a combo box with no action) is clicked through its button, which
 *   opens its list (see atspi/click-context.ts).
 */
import type { Element } from '../../model/element.js';
import type { ClickRoute, CommitRoute } from '../desktop.js';
import { dropDownButton, isComboList, isQtElement } from './atspi/click-context.js';

/** Press actions, most specific first (compared case-folded). */
const PRESS: readonly string[] = [
  'click',
  'press',
  'toggle',
  'listitem.toggle-expand',
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

/** GTK4's tree expander: what a click on its arrow runs (gtktreeexpander.c). */
const TOGGLE_EXPAND = 'listitem.toggle-expand';

/** Native roles of elements a click chooses in their container's selection. */
const CHOSEN_IN_CONTAINER = new Set(['list item', 'table row', 'tree item', 'page tab']);

/** GTK3's tree cell action that expands or collapses its row (the expander column's cell). */
const EXPAND_OR_CONTRACT = 'expand or contract';

/** Qt's item view rows and cells: their one action, "Toggle", selects them. */
const ITEM_ROLES = new Set(['list item', 'table cell', 'tree item', 'table row']);
const QT_SELECT = 'toggle';

/** GTK4's drop-down is pressed through its button (click-context.ts). */
const DROP_DOWN_CLICK = 'click';

function expandable(el: Element): boolean {
  return el.flags.includes('expanded') || el.flags.includes('collapsed');
}

/** Its only press action is Qt's "Toggle", which selects an item view's row or cell. */
function onlySelects(el: Element): boolean {
  const presses = el.actions.filter((a) => PRESS.includes(a.toLowerCase()));
  return presses.length === 1 && presses[0].toLowerCase() === QT_SELECT;
}

/** The action of `el` named `name` (case-folded), as the element spells it. */
function actionNamed(el: Element, name: string): string | undefined {
  const i = el.actions.findIndex((a) => a.toLowerCase() === name);
  return i >= 0 ? el.actions[i] : undefined;
}

export function clickRouteOf(el: Element, parent?: Element): ClickRoute {
  const named = (name: string): string | undefined => actionNamed(el, name);
  const takesText = el.flags.includes('editable') && !el.flags.includes('readonly');
  if (takesText) {
    const edit = named(EDIT);
    return edit && el.role === 'AXCell' ? { via: 'action', action: edit } : { via: 'focus' };
  }
  const expand = expandable(el) ? named(EXPAND_OR_CONTRACT) : undefined;
  if (expand) return { via: 'action', action: expand };
  const qtItem = ITEM_ROLES.has(el.nativeRole) && isQtElement(el);
  if (qtItem && onlySelects(el)) {
    if (expandable(el)) {
      return {
        via: 'none',
        why: 'Qt offers no action that expands or collapses a tree row (its Toggle only selects the row)',
      };
    }
    if (parent && isComboList(parent)) return comboListRow();
  }
  if (el.actions.length === 0 && dropDownButton(el.id)) {
    return { via: 'action', action: DROP_DOWN_CLICK };
  }
  for (const name of PRESS) {
    const action = named(name);
    // GTK4 lists the expander's actions on a row that has nothing to expand: they do nothing.
    if (action && (name !== TOGGLE_EXPAND || expandable(el))) return { via: 'action', action };
  }
  if (FOCUS.some((n) => named(n))) return { via: 'focus' };
  if (el.actions.length === 0) {
    // GTK4's expander arrow: a button with no action inside the expander, which has one.
    const toggle =
      parent &&
      el.nativeRole === 'push button' &&
      expandable(parent) &&
      actionNamed(parent, TOGGLE_EXPAND);
    if (toggle) return { via: 'action', action: toggle, on: 'parent' };
    if (CHOSEN_IN_CONTAINER.has(el.nativeRole)) {
      return parent && isComboList(parent) ? comboListRow() : { via: 'select' };
    }
  }
  return { via: 'none' };
}

/** A row of a combo box's popup list that would only be selected in the list. */
function comboListRow(): ClickRoute {
  return {
    via: 'none',
    why: "it is an item of a combo box's list, and choosing it there through accessibility only selects it in the list: the combo box keeps its choice",
  };
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
