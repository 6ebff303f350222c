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
import type { ClickRoute, ClickSpot, CommitRoute } from '../desktop.js';
import {
  dropDownButton,
  isComboList,
  isPageComboOption,
  isQtElement,
} from './atspi/click-context.js';
import { isGtk4Bus } from './atspi/gtk4.js';

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

const busOf = (id: string): string => id.slice(0, id.indexOf('/'));

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
        why: 'is a Qt tree row that expands: Qt offers no action that expands or collapses it (its Toggle only selects it)',
      };
    }
    if (parent && isComboList(parent)) return comboListRow();
  }
  if (el.actions.length === 0 && dropDownButton(el.id)) {
    return { via: 'action', action: DROP_DOWN_CLICK };
  }
  if (
    el.actions.length === 0 &&
    el.nativeRole === 'menu item' &&
    parent?.nativeRole === 'menu bar'
  ) {
    if (isGtk4Bus(busOf(el.id))) {
      return {
        via: 'none',
        why: "is a menu of GTK 4's popover menu bar, which offers no action that opens it (GTK 4.8 gives its menus none)",
      };
    }
  }
  // A GTK 3 tree view's cell offers "activate": the row's activation (Enter, a double
  // click: "row-activated"). A single click puts the tree's cursor on the cell, which
  // selects its row: so does focusing it (the table's row selection, asked instead,
  // selects the row but leaves its cells saying they are not selected).
  if (ITEM_ROLES.has(el.nativeRole) && !isQtElement(el) && onlyActivates(el)) {
    return { via: 'focus', effect: CELL_FOCUS };
  }
  // A GTK 3 icon view's item: its "activate" is the item's activation too (a double click,
  // Enter); a single click selects it, as its view's selection does.
  if (
    el.nativeRole === ICON &&
    parent?.nativeRole === ICON_VIEW &&
    !isQtElement(el) &&
    onlyActivates(el)
  ) {
    return { via: 'select' };
  }
  for (const name of PRESS) {
    const action = named(name);
    // GTK4 lists the expander's actions on a row that has nothing to expand: they do nothing.
    if (action && (name !== TOGGLE_EXPAND || expandable(el))) {
      // Qt's Toggle on a checkable button sets its state (toggled) and sends no click.
      if (name === QT_SELECT && isQtElement(el) && CHECKABLE_ROLES.has(el.nativeRole)) {
        return { via: 'action', action, caveat: QT_TOGGLE_CAVEAT };
      }
      // Gecko chooses a <select>'s option through accessibility without telling the page.
      if (isPageComboOption(el)) return { via: 'action', action, caveat: PAGE_OPTION_CAVEAT };
      return { via: 'action', action };
    }
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

/** Qt's checkable buttons: their only action, Toggle, is no click. */
const CHECKABLE_ROLES = new Set(['radio button', 'check box', 'toggle button']);
/** An app acting on the click rather than the state (kcalc's angle-mode radios) ignores it. */
const QT_TOGGLE_CAVEAT = 'sets its state and sends no click';
/** A page reacting to its <select>'s change (most form code) never hears of the choice. */
const PAGE_OPTION_CAVEAT =
  "chooses the option without firing the page's change event, so the page's own handler does not run";

/** An icon view's item, and the icon view (GtkIconView) holding it. */
const ICON = 'icon';
const ICON_VIEW = 'layered pane';

/** What focusing a GTK 3 tree view's cell does. */
const CELL_FOCUS =
  "put its tree's cursor on it, which selects its row as a click does (not activated as Enter or a double click would)";

/** Actions of a tree view's cell that are no click: activation, the editor, the expander. */
const CELL_NON_CLICKS = new Set(['activate', 'edit', 'expand or contract']);

/** Whether the element's only click-like action is its activation. */
function onlyActivates(el: Element): boolean {
  const names = el.actions.map((a) => a.toLowerCase());
  return names.includes('activate') && names.every((a) => CELL_NON_CLICKS.has(a));
}

/** A row of a combo box's popup list that would only be selected in the list. */
function comboListRow(): ClickRoute {
  return {
    via: 'none',
    why: "is an item of a combo box's list: choosing it through accessibility only selects it in the list, and the combo box keeps its choice",
  };
}

/**
 * Where the expander arrow of an expandable tree row's cell is drawn, left of the cell:
 *
 * - GTK3 (gtk/a11y/gtktreeviewaccessible.c) reports the expander column's cell moved right
 *   by the style's expander-size plus 4 past the cell's own start, and draws the arrow in
 *   a box just left of that start, expander-size plus half the horizontal-separator wide
 *   (gtk/gtktreeview.c), where a click expands or collapses the row. With Adwaita's sizes
 *   (16 and 8: a 20 px box) its centre is 30 px left of the cell reported; with GTK's
 *   defaults (14 and 4: an 18 px box) 26 px, still inside the box.
 * - Qt draws it in the row's indentation, just left of the cell (QTreeView's indentation,
 *   20 px in its styles), where a click expands or collapses the row.
 */
const ARROW_LEFT_GTK3 = 30;
const ARROW_LEFT_QT = 10;
const EXPANDER_ARROW = 'expander arrow';

export function clickSpotOf(el: Element, parent?: Element): ClickSpot | undefined {
  const f = el.frame;
  if (!f || f.w <= 0 || f.h <= 0 || !expandable(el) || !ITEM_ROLES.has(el.nativeRole)) {
    return undefined;
  }
  const left = actionNamed(el, EXPAND_OR_CONTRACT)
    ? ARROW_LEFT_GTK3
    : isQtElement(el) && onlySelects(el)
      ? ARROW_LEFT_QT
      : undefined;
  if (left === undefined) return undefined;
  const x = f.x - left;
  // Not left of the tree it is in: the arrow is inside it.
  if (parent?.frame && x < parent.frame.x) return undefined;
  return { x, y: f.y + Math.floor(f.h / 2), part: EXPANDER_ARROW };
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
