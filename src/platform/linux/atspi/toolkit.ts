/**
 * Which toolkit an app's bridge is (Application.ToolkitName, and Version where it matters),
 * asked once per app for every toolkit-specific rule: Gecko's shared action buffer, Qt's
 * GetAll crash, GTK4's window-relative extents. Read with Properties.Get, which every
 * bridge answers safely (Qt's dies on GetAll).
 */
import { ROOT_PATH } from './bus.js';
import type { CallFn } from './read.js';

const PROPS = 'org.freedesktop.DBus.Properties';
const APPLICATION = 'org.a11y.atspi.Application';
/** Bound on the memory: apps come and go over a long-running server. */
const MAX_REMEMBERED = 512;

/** App bus name → what it said; bus names are not reused on a bus. */
const byBus = new Map<string, { name?: Promise<string>; version?: Promise<string> }>();

function remembered(appBus: string) {
  let entry = byBus.get(appBus);
  if (!entry) {
    if (byBus.size >= MAX_REMEMBERED) byBus.delete(byBus.keys().next().value as string);
    byBus.set(appBus, (entry = {}));
  }
  return entry;
}

function ask(call: CallFn, appBus: string, prop: 'ToolkitName' | 'Version'): Promise<string> {
  return call(appBus, ROOT_PATH, PROPS, 'Get', 'ss', [APPLICATION, prop]).then(([v]) => {
    const value = (v as { value?: unknown } | undefined)?.value;
    return typeof value === 'string' ? value : '';
  });
}

/**
 * The app's toolkit name ("GTK", "Qt", "Gecko"…). An app that does not answer counts as
 * an unknown toolkit ('') for this call and is asked again next time.
 */
export function toolkitName(call: CallFn, appBus: string): Promise<string> {
  const entry = remembered(appBus);
  entry.name ??= ask(call, appBus, 'ToolkitName').catch(() => {
    entry.name = undefined;
    return '';
  });
  return entry.name;
}

/** The toolkit's version ('' when the bridge does not say); asked only by who needs it. */
export function toolkitVersion(call: CallFn, appBus: string): Promise<string> {
  const entry = remembered(appBus);
  entry.version ??= ask(call, appBus, 'Version').catch(() => '');
  return entry.version;
}
