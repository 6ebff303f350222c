/**
 * Whether a popup of an app holds choices: what grabs the keyboard and pointer while it is
 * open is a menu, a combo box's list, a completion list (GTK 3 grabs both for each). Those
 * show their items inside the popup's window; a tooltip or a toast is a popup window too,
 * and shows none (it holds no grab).
 */
import { AtspiCallError } from './bus.js';
import { appCall } from './apps.js';
import type { AtspiBus } from './bus.js';
import { matching, NO_COLLECTION, showingRule } from './collection.js';
import { askExtents, frameOf } from './read.js';
import type { Rect } from '../../../model/element.js';
import { ATSPI_ROLES } from '../roles.js';

/**
 * Roles of the items a menu or a list shows, menus' first: an app's lists may show many
 * rows (a table of cells) before the menu it opened comes in tree order.
 */
const CHOICE_ROLES = [
  ['menu item', 'check menu item', 'radio menu item', 'menu', 'popup menu'],
  ['list item', 'table cell', 'tree item'],
].map((names) => names.map((name) => ATSPI_ROLES.indexOf(name)));

/** Most items looked at per kind (their extents: one call each, in parallel). */
const MAX_ITEMS = 64;

/**
 * True when the app shows a menu's or list's item inside `popup` (screen coordinates),
 * false when it shows none there; undefined when it cannot say (no Collection interface).
 */
export async function popupHoldsChoices(
  bus: AtspiBus,
  app: { bus: string; path: string },
  popup: Rect,
  timeoutMs: number,
): Promise<boolean | undefined> {
  const call = await appCall(bus, app);
  for (const roles of CHOICE_ROLES) {
    let items;
    try {
      items = await matching(call, app, showingRule(roles), timeoutMs, 'its menu items');
    } catch (err) {
      const said = err instanceof AtspiCallError ? `${err.dbusName ?? ''} ${err.message}` : '';
      if (NO_COLLECTION.test(said)) return undefined;
      throw err;
    }
    const frames = await Promise.all(
      items
        .slice(0, MAX_ITEMS)
        .map(async (ref) => frameOf((await askExtents(call, ref))[0] as number[])),
    );
    if (frames.some((f) => f !== undefined && f.w > 0 && f.h > 0 && inside(f, popup))) return true;
  }
  return false;
}

const inside = (a: Rect, b: Rect): boolean =>
  a.x >= b.x && a.y >= b.y && a.x + a.w <= b.x + b.w && a.y + a.h <= b.y + b.h;
