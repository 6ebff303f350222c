/**
 * What a click's route needs to know beyond the element and its parent, kept from the
 * walks: the route is asked synchronously, of elements a walk has already read.
 *
 * - The apps that run Qt's bridge. Qt's item views give a row or cell one action,
 *   "Toggle", which selects it; nothing expands or collapses a tree row.
 * - The lists that are a combo box's popup list (Qt's combo box; GTK 4's drop-down, whose
 *   list sits in a popover below it). Choosing a row there through the list's selection
 *   (Qt's "Toggle", GTK 4's Selection.SelectChild) moves the list's selection only: the
 *   combo box keeps its choice, which only a click on the row (or Enter) makes.
 * - GTK 4's drop-downs (GtkDropDown, a combo box with no action): their button, a child of
 *   theirs with a "click", is what a click on them presses; it opens their list.
 * - Gecko's <select> options (the items below a web page's combo box): their "select"
 *   action chooses the option without the page's change event.
 *
 * Element ids are bus name and object path; a bus name is not reused on a bus. The memory
 * is bounded: the oldest entries go first.
 */
import type { Element, Snapshot } from '../../../model/element.js';

/** Bound on each memory: a long-running server meets many apps and combo boxes. */
const MAX_REMEMBERED = 2048;

const qtBuses = new Set<string>();
const comboLists = new Set<string>();
const dropDownButtons = new Map<string, string>();
const pageComboOptions = new Set<string>();

function remember<T>(set: Set<T>, value: T): void {
  if (set.has(value)) return;
  if (set.size >= MAX_REMEMBERED) set.delete(set.values().next().value as T);
  set.add(value);
}

function rememberPair(map: Map<string, string>, key: string, value: string): void {
  if (!map.has(key) && map.size >= MAX_REMEMBERED) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

const busOf = (id: string): string => id.slice(0, id.indexOf('/'));

/** Containers whose children are rows. */
const LIST_ROLES = new Set(['list', 'list box', 'table', 'tree', 'tree table']);

/** The roles Gecko gives a <select>'s options. */
const OPTION_ROLES = new Set(['menu item', 'list item', 'option']);

/** How far below its combo box a popup list may sit (GTK 4: popover, content, box, scroll pane). */
const POPUP_DEPTH = 6;

/** Notes what click routes need from a walk of one app (see above). */
export function noteClickContext(
  s: Snapshot,
  toolkit: { qt?: boolean; gtk4?: boolean; gecko?: boolean },
): void {
  const els = s.elements;
  if (toolkit.qt) {
    const first = els.find((e) => e.id);
    if (first) remember(qtBuses, busOf(first.id));
  }
  els.forEach((combo, i) => {
    if (combo.nativeRole !== 'combo box' || !combo.id) return;
    for (let j = i + 1; j < els.length && els[j].depth > combo.depth; j++) {
      const e = els[j];
      if (e.id && e.depth - combo.depth <= POPUP_DEPTH && LIST_ROLES.has(e.nativeRole)) {
        remember(comboLists, e.id);
      }
      if (
        toolkit.gecko &&
        e.id &&
        e.depth - combo.depth <= POPUP_DEPTH &&
        OPTION_ROLES.has(e.nativeRole)
      ) {
        remember(pageComboOptions, e.id);
      }
      if (
        toolkit.gtk4 &&
        combo.actions.length === 0 &&
        e.parent === i &&
        e.nativeRole === 'push button' &&
        e.id &&
        e.actions.some((a) => a.toLowerCase() === 'click')
      ) {
        rememberPair(dropDownButtons, combo.id, e.id);
      }
    }
  });
}

/** Whether the element belongs to an app found running Qt's bridge. */
export function isQtElement(el: Element): boolean {
  return el.id !== '' && qtBuses.has(busOf(el.id));
}

/** Whether the element is a combo box's popup list. */
export function isComboList(el: Element): boolean {
  return comboLists.has(el.id);
}

/** Whether the element is an option of a web page's <select> (Gecko's combo box). */
export function isPageComboOption(el: Element): boolean {
  return pageComboOptions.has(el.id);
}

/** The id of the button a GTK 4 drop-down is clicked through, if `id` is one. */
export function dropDownButton(id: string): string | undefined {
  return dropDownButtons.get(id);
}
