/**
 * What Qt's AT-SPI bridge needs that other toolkits do not.
 *
 * Qt 6.4 (Debian 12) connects to an accessibility bus named by AT_SPI_BUS_ADDRESS but never
 * registers with the registry on it: it announces that accessibility is on before it
 * listens for that announcement, so the app stays invisible. Found through the session
 * bus's org.a11y.Bus (as every desktop does it) the same bus works. So apps are started
 * without an AT_SPI_BUS_ADDRESS that only repeats what org.a11y.Bus says; every toolkit
 * finds the bus there.
 *
 * Qt's adaptor (Qt 5.15 and 6.4 as Debian ships them) routes every
 * org.freedesktop.DBus.Properties call by reading its first two arguments without checking
 * how many came. Properties.GetAll has one: the adaptor reads past its argument list and
 * the app dies (SIGSEGV in QVariant::toString under the bridge's message handler). So a Qt
 * app is never sent GetAll; its properties are read one Get at a time (two arguments, which
 * it answers). Whether an app is Qt is asked once per bus name, through such a Get.
 */
import { AtspiBus, ATSPI, ROOT_PATH } from './bus.js';
import { toolkitName } from './toolkit.js';

type Call = (
  dest: string,
  path: string,
  iface: string,
  member: string,
  signature?: string,
  body?: unknown[],
) => Promise<unknown[]>;

const PROPS = 'org.freedesktop.DBus.Properties';

/** Qt names its toolkit "Qt" (Qt 5 and 6); GTK says "GTK" or "gtk", Gecko "Gecko". */
export function isQtToolkitName(name: unknown): boolean {
  return typeof name === 'string' && /^qt\b/i.test(name.trim());
}

/** Whether the app on `dest` runs Qt's bridge (so Properties.GetAll would crash it). */
export async function isQtBridge(call: Call, dest: string): Promise<boolean> {
  return isQtToolkitName(await toolkitName(call, dest));
}

/**
 * The properties `names` of `iface` on one object, as GetAll answers them ({ value } per
 * name): one GetAll, or one Get per name for a Qt app. A property the object lacks is left
 * out.
 */
export async function readProps(
  call: Call,
  [dest, path]: readonly [string, string],
  iface: string,
  names: readonly string[],
): Promise<Record<string, { value: unknown }>> {
  if (!(await isQtBridge(call, dest))) {
    const [all] = await call(dest, path, PROPS, 'GetAll', 's', [iface]);
    return all as Record<string, { value: unknown }>;
  }
  const out: Record<string, { value: unknown }> = {};
  await Promise.all(
    names.map(async (name) => {
      try {
        const [v] = await call(dest, path, PROPS, 'Get', 'ss', [iface, name]);
        out[name] = v as { value: unknown };
      } catch {
        // Not a property of this object: left out, as GetAll would.
      }
    }),
  );
  return out;
}

/** The variable Qt 6.4 must not be given (see above). */
export const BUS_ADDRESS_VAR = 'AT_SPI_BUS_ADDRESS';

/** `env` without AT_SPI_BUS_ADDRESS: for a desktop whose session bus has org.a11y.Bus. */
export function withoutBusAddress(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  delete out[BUS_ADDRESS_VAR];
  return out;
}

/**
 * `env` for an app to start: AT_SPI_BUS_ADDRESS left out when the session bus's
 * org.a11y.Bus gives the same address (apps find it there), kept when it names another bus
 * or there is no launcher to ask (then it is the only way to the bus).
 */
export async function appBusEnv(
  env: NodeJS.ProcessEnv,
  timeoutMs = 1000,
): Promise<NodeJS.ProcessEnv> {
  const address = env[BUS_ADDRESS_VAR];
  const session = env.DBUS_SESSION_BUS_ADDRESS;
  if (!address || !session) return env;
  let bus: AtspiBus | undefined;
  try {
    bus = await AtspiBus.connect(session, timeoutMs);
    // Asking NameHasOwner first: a GetAddress call would start a launcher by activation.
    if (!(await bus.nameHasOwner('org.a11y.Bus'))) return env;
    const [said] = await bus.call('org.a11y.Bus', '/org/a11y/bus', 'org.a11y.Bus', 'GetAddress');
    return said === address ? withoutBusAddress(env) : env;
  } catch {
    return env;
  } finally {
    bus?.disconnect();
  }
}

/** How long a Qt action may take to answer before a live app counts it as running. */
export const QT_ACTION_ANSWER_MS = 700;

/**
 * Action.DoAction on a Qt app. Qt runs the action inside the call: one that opens a modal
 * dialog (QDialog::exec, QMessageBox) answers only when the dialog closes, while the app
 * goes on answering other calls from the dialog's event loop. So when DoAction has not
 * answered within `answerMs` but the app answers a ping, the action is running and counts
 * as done (`[true]`, as a prompt answer would be); an app that answers neither is busy or
 * hung, and that is the error.
 */
export async function qtDoAction(
  bus: AtspiBus,
  [dest, path]: readonly [string, string],
  index: number,
  answerMs = QT_ACTION_ANSWER_MS,
): Promise<unknown[]> {
  // Long bound: a dialog may stay open for minutes; the answer then only ends the call.
  const pending = bus.call(dest, path, ATSPI + 'Action', 'DoAction', 'i', [index], 600_000);
  pending.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<'waiting'>((resolve) => {
    timer = setTimeout(() => resolve('waiting'), answerMs);
  });
  try {
    const first = await Promise.race([pending, waited]);
    if (first !== 'waiting') return first;
  } finally {
    clearTimeout(timer);
  }
  // Throws (timeout) when the app does not answer this either: busy or hung.
  await bus.call(dest, ROOT_PATH, ATSPI + 'Accessible', 'GetRole', undefined, undefined, 2000);
  return [true];
}

/** Qt rich text as Qt itself tells it (Qt::mightBeRichText): it opens with a tag. */
const RICH_TEXT = /^\s*<(p|html|qt|b|i|u|span|div|font|nobr|br|center)\b[^>]*\/?>/i;
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', nbsp: ' ' };

/**
 * A name or description as plain text: Qt apps pass tool tips and labels in rich text
 * ("<p style='white-space:pre'>Save</p>"), which reads as noise. Plain text is left as is.
 */
export function plainText(text: string): string {
  if (!RICH_TEXT.test(text)) return text;
  return text
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(lt|gt|amp|quot|nbsp);/g, (_, e: string) => ENTITIES[e])
    .trim();
}
