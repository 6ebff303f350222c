/**
 * Whether an app shows an open menu: what holds the keyboard and pointer while it is open
 * (GTK 3 grabs both for a menu). A menu opens in a popup window of its own: a showing popup
 * menu, or a showing menu whose parent is a top-level window (a menu bar's menus sit in the
 * app's window and are no open menu). A tooltip or a toast is a popup window too, and holds
 * nothing: it has no menu.
 */
import { AtspiCallError } from './bus.js';
import { appCall } from './apps.js';
import type { AtspiBus } from './bus.js';
import { matching, NO_COLLECTION, showingRule } from './collection.js';
import { getProp, IFACE } from './read.js';
import { ROLE } from '../roles.js';

/** Most menus looked at (each is one call). */
const MAX_MENUS = 32;

/**
 * True when the app shows an open menu, false when it shows none; undefined when it cannot
 * say (its toolkit has no Collection interface).
 */
export async function hasOpenMenu(
  bus: AtspiBus,
  app: { bus: string; path: string },
  timeoutMs: number,
): Promise<boolean | undefined> {
  const call = await appCall(bus, app);
  let menus;
  try {
    menus = await matching(
      call,
      app,
      showingRule([ROLE.MENU, ROLE.POPUP_MENU]),
      timeoutMs,
      'its menus',
    );
  } catch (err) {
    const said = err instanceof AtspiCallError ? `${err.dbusName ?? ''} ${err.message}` : '';
    if (NO_COLLECTION.test(said)) return undefined;
    throw err;
  }
  const open = await Promise.all(
    menus.slice(0, MAX_MENUS).map(async (ref) => {
      const [[role], parent] = await Promise.all([
        call(ref[0], ref[1], IFACE.Accessible, 'GetRole'),
        getProp(call, ref, IFACE.Accessible, 'Parent'),
      ]);
      if (role === ROLE.POPUP_MENU) return true;
      const [up, path] = parent as [string, string];
      const [parentRole] = await call(up, path, IFACE.Accessible, 'GetRole');
      return parentRole === ROLE.WINDOW;
    }),
  );
  return open.some(Boolean);
}
