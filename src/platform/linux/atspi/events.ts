/**
 * Change events from one app, for settling after an action (DESIGN §2.4): the pipeline
 * waits until events stop instead of sleeping.
 *
 * Two things make an app's events reach us: the app must emit them, and the bus must route
 * them to us. Toolkit bridges emit an event only while some client has registered for it
 * with the registry (`Registry.RegisterEvent`, which the registry announces to every app),
 * and the bus delivers a signal only to connections with a matching rule (`AddMatch` with
 * `sender=` the app's bus name, so other apps' events never reach us).
 *
 * Registrations are counted per connection and event, and the last unsubscribe keeps them
 * a while (LINGER_MS) before deregistering: a pipeline watches around every action, and
 * re-registering each time would make every app on the desktop re-read its listener list
 * and could lose the first events of the next action while the app catches up.
 */
import type dbus from 'dbus-next';

import { ROOT_PATH, type AtspiBus } from './bus.js';

/** The registry object (on the registry's bus name) that takes RegisterEvent. */
const REGISTRY_NAME = 'org.a11y.atspi.Registry';
const REGISTRY_OBJECT = '/org/a11y/atspi/registry';
const REGISTRY_IFACE = 'org.a11y.atspi.Registry';

/** Event kinds a tree can change by; `window:` covers activate/deactivate/create/destroy... */
export const WATCHED_EVENTS = [
  'object:children-changed',
  'object:state-changed',
  'object:property-change',
  'object:text-changed',
  'window:',
] as const;

/** Signal interfaces those events arrive on. */
const EVENT_IFACES = ['org.a11y.atspi.Event.Object', 'org.a11y.atspi.Event.Window'];

/** How long registrations outlive their last watcher. */
export const LINGER_MS = 30_000;

export interface AtspiEvent {
  /** AT-SPI event name, e.g. "object:state-changed:checked", "window:activate". */
  type: string;
  /** Element id (`<bus name><object path>`) of the source. */
  id: string;
  detail1: number;
  detail2: number;
  /** performance.now() when the signal arrived. */
  at: number;
}

interface Registration {
  count: number;
  linger?: NodeJS.Timeout;
  /** Resolves once RegisterEvent has been answered (or failed). */
  ready: Promise<void>;
}

const registrations = new WeakMap<AtspiBus, Map<string, Registration>>();

function kebab(member: string): string {
  return member.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

/** The AT-SPI event name of a signal (interface Event.Object, member StateChanged, kind "checked"). */
export function eventType(iface: string, member: string, kind: string): string {
  const category = iface.slice(iface.lastIndexOf('.') + 1).toLowerCase();
  return `${category}:${kebab(member)}${kind ? ':' + kind : ''}`;
}

async function register(bus: AtspiBus, event: string): Promise<void> {
  let map = registrations.get(bus);
  if (!map) registrations.set(bus, (map = new Map()));
  const reg = map.get(event);
  if (reg) {
    reg.count++;
    if (reg.linger) clearTimeout(reg.linger);
    reg.linger = undefined;
    return reg.ready;
  }
  // The registry of at-spi2-core takes (s), (sas) or (sas s); (s) is the common ground.
  const ready = bus
    .call(REGISTRY_NAME, REGISTRY_OBJECT, REGISTRY_IFACE, 'RegisterEvent', 's', [event])
    .then(() => undefined);
  const entry: Registration = { count: 1, ready: ready.catch(() => undefined) };
  map.set(event, entry);
  try {
    await ready;
  } catch (err) {
    map.delete(event);
    throw err;
  }
}

function release(bus: AtspiBus, event: string): void {
  const reg = registrations.get(bus)?.get(event);
  if (!reg || --reg.count > 0) return;
  reg.linger = setTimeout(() => {
    if (reg.count > 0) return;
    registrations.get(bus)?.delete(event);
    if (bus.isClosed) return;
    // DeregisterEvent drops every registration of this event by this connection.
    bus
      .call(REGISTRY_NAME, REGISTRY_OBJECT, REGISTRY_IFACE, 'DeregisterEvent', 's', [event])
      .catch(() => undefined);
  }, LINGER_MS);
  reg.linger.unref();
}

/**
 * Calls `onChange` for every tree-changing event the app (`busName`, its unique name on the
 * a11y bus) emits. Resolves once the registry and the bus are set up; the function it
 * resolves to stops the watch (idempotent).
 */
export async function watchApp(
  bus: AtspiBus,
  busName: string,
  onChange: (event: AtspiEvent) => void,
): Promise<() => Promise<void>> {
  const rules = EVENT_IFACES.map((i) => `type='signal',interface='${i}',sender='${busName}'`);
  const off = bus.onSignal((msg: dbus.Message) => {
    if (msg.sender !== busName || !msg.interface || !EVENT_IFACES.includes(msg.interface)) return;
    const body = msg.body as [string, number, number, ...unknown[]];
    onChange({
      type: eventType(msg.interface, msg.member ?? '', body?.[0] ?? ''),
      id: busName + (msg.path ?? ''),
      detail1: body?.[1] ?? 0,
      detail2: body?.[2] ?? 0,
      at: performance.now(),
    });
  });
  const added: string[] = [];
  const registered: string[] = [];
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    off();
    for (const e of registered) release(bus, e);
    if (!bus.isClosed)
      await Promise.all(added.map((r) => bus.removeMatch(r).catch(() => undefined)));
  };
  try {
    // Match rules first: nothing the app emits once registered can slip past us.
    for (const r of rules) {
      await bus.addMatch(r);
      added.push(r);
    }
    await Promise.all(
      WATCHED_EVENTS.map(async (e) => {
        await register(bus, e);
        registered.push(e);
      }),
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return stop;
}

/**
 * A restarted registry knows none of this connection's event registrations, and toolkit
 * bridges emit only what some client registered: register again every event still held
 * (or lingering), so watched apps keep reporting changes.
 */
export async function renewRegistrations(bus: AtspiBus): Promise<void> {
  const map = registrations.get(bus);
  if (!map) return;
  await Promise.all(
    [...map.keys()].map((event) =>
      bus
        .call(REGISTRY_NAME, REGISTRY_OBJECT, REGISTRY_IFACE, 'RegisterEvent', 's', [event])
        .catch(() => undefined),
    ),
  );
}

const OBJECT_EVENT_IFACE = 'org.a11y.atspi.Event.Object';

/**
 * Calls `onChange` whenever an application registers with the AT-SPI registry or leaves
 * it. The registry announces both as `object:children-changed` (add/remove) on its own
 * root, whatever clients registered for: it emits these itself, no app has to. Only the
 * registry's own signals count (every app's root has the same object path). Resolves once
 * the match rule is in place; the function it resolves to stops the watch (idempotent).
 */
export async function watchRegistry(
  bus: AtspiBus,
  onChange: (event: AtspiEvent) => void,
): Promise<() => Promise<void>> {
  const rule = `type='signal',sender='${REGISTRY_NAME}',interface='${OBJECT_EVENT_IFACE}',member='ChildrenChanged',path='${ROOT_PATH}'`;
  const ownerRule = `type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='${REGISTRY_NAME}'`;
  // Signals carry the sender's unique name, not the registry's well-known one.
  let owner = '';
  const off = bus.onSignal((msg: dbus.Message) => {
    if (msg.member === 'NameOwnerChanged' && msg.sender === 'org.freedesktop.DBus') {
      const [name, , next] = msg.body as [string, string, string];
      if (name === REGISTRY_NAME) owner = next;
      return;
    }
    if (
      msg.member !== 'ChildrenChanged' ||
      msg.interface !== OBJECT_EVENT_IFACE ||
      msg.path !== ROOT_PATH ||
      msg.sender !== owner
    ) {
      return;
    }
    const body = msg.body as [string, number, number, ...unknown[]];
    onChange({
      type: eventType(msg.interface, msg.member, body?.[0] ?? ''),
      id: (msg.sender ?? '') + ROOT_PATH,
      detail1: body?.[1] ?? 0,
      detail2: body?.[2] ?? 0,
      at: performance.now(),
    });
  });
  const added: string[] = [];
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    off();
    if (!bus.isClosed)
      await Promise.all(added.map((r) => bus.removeMatch(r).catch(() => undefined)));
  };
  try {
    for (const r of [ownerRule, rule]) {
      await bus.addMatch(r);
      added.push(r);
    }
    const [name] = await bus.call(
      'org.freedesktop.DBus',
      '/org/freedesktop/DBus',
      'org.freedesktop.DBus',
      'GetNameOwner',
      's',
      [REGISTRY_NAME],
    );
    // A NameOwnerChanged that came in meanwhile is newer than this answer.
    owner ||= String(name);
  } catch (err) {
    await stop();
    throw err;
  }
  return stop;
}
