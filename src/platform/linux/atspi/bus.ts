/**
 * A small AT-SPI2 client on dbus-next. It sends raw `Message` calls: proxy objects
 * would cost an introspection round trip per object, and a walk makes thousands of
 * calls. Every call carries a timeout, because an app under a modal grab or a hung
 * app can leave a call unanswered forever.
 */
import dbus from 'dbus-next';
import { withTimeout as boundedBy } from '../../../model/timeout.js';
import { stoppedProcess } from '../proc.js';

const { Message } = dbus;

export const ATSPI = 'org.a11y.atspi.';
export const REGISTRY = 'org.a11y.atspi.Registry';
export const ROOT_PATH = '/org/a11y/atspi/accessible/root';
export const NULL_PATH = '/org/a11y/atspi/null';
export const CACHE_PATH = '/org/a11y/atspi/cache';

/** Default per-call timeout: generous for a loaded machine, short enough to stay responsive. */
export const DEFAULT_CALL_TIMEOUT_MS = 3000;

/**
 * How long an app that let a call time out counts as not responding. Shared work (the
 * app list, the frontmost lookup) skips it meanwhile instead of paying the timeout on
 * every call; any answer from it ends the spell at once.
 */
export const NOT_RESPONDING_MEMORY_MS = 10_000;

export class AtspiCallError extends Error {
  constructor(
    message: string,
    readonly dbusName?: string,
  ) {
    super(message);
    this.name = 'AtspiCallError';
  }
}

/** The connection to the accessibility bus itself is gone (the bus daemon exited or restarted). */
export class BusClosedError extends AtspiCallError {
  constructor(readonly address: string) {
    super(
      `the accessibility bus at ${address} closed the connection (its daemon exited or restarted)`,
    );
    this.name = 'BusClosedError';
  }
}

export class AtspiTimeoutError extends AtspiCallError {
  constructor(
    what: string,
    readonly ms: number,
  ) {
    super(`${what} did not answer within ${ms} ms`);
    this.name = 'AtspiTimeoutError';
  }
}

/** (bus name, object path): how AT-SPI references an accessible. */
export type ObjectRef = [string, string];

export interface RegisteredApp {
  bus: string;
  path: string;
  pid: number | null;
  name: string;
  childCount: number;
}

/** The a11y bus address: $AT_SPI_BUS_ADDRESS, else org.a11y.Bus.GetAddress on the session bus. */
export async function resolveA11yAddress(
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = DEFAULT_CALL_TIMEOUT_MS,
  /**
   * Whether the call may start a launcher (D-Bus activation) when none runs. A reconnect
   * passes false: a launcher that exits after its bus died would otherwise be started
   * again by the very call that asks where the bus is, with a new, empty bus.
   */
  activate = true,
): Promise<string> {
  if (env.AT_SPI_BUS_ADDRESS) return env.AT_SPI_BUS_ADDRESS;
  if (!env.DBUS_SESSION_BUS_ADDRESS) {
    throw new AtspiCallError(
      'no D-Bus session bus: neither AT_SPI_BUS_ADDRESS nor DBUS_SESSION_BUS_ADDRESS is set',
    );
  }
  const session = dbus.sessionBus({ busAddress: env.DBUS_SESSION_BUS_ADDRESS });
  // dbus-next emits connection errors; without a listener they would crash the process.
  session.on('error', () => undefined);
  try {
    const reply = await withTimeout(
      session.call(
        new Message({
          destination: 'org.a11y.Bus',
          path: '/org/a11y/bus',
          interface: 'org.a11y.Bus',
          member: 'GetAddress',
          flags: activate ? 0 : dbus.MessageFlag.NO_AUTO_START,
        }),
      ),
      timeoutMs,
      'org.a11y.Bus.GetAddress on the session bus',
    );
    const address = reply?.body[0] as string | undefined;
    if (!address) throw new AtspiCallError('org.a11y.Bus.GetAddress returned no address');
    return address;
  } finally {
    session.disconnect();
  }
}

export class AtspiBus {
  private closed = false;
  /** App bus name → epoch ms until which it counts as not responding. */
  private readonly silent = new Map<string, number>();

  private constructor(
    private readonly bus: dbus.MessageBus,
    readonly address: string,
    readonly callTimeoutMs: number,
  ) {
    bus.on('error', () => {
      this.closed = true;
    });
    // dbus-next reports a socket the bus daemon closed only at the next write, and calls
    // in flight then wait forever: watch the stream so a dead bus is known at once.
    const stream = (bus as unknown as { _connection?: { stream?: NodeJS.EventEmitter } })
      ._connection?.stream;
    stream?.once('close', () => {
      this.closed = true;
      for (const fail of this.inFlight) fail();
      for (const listener of this.closeListeners) listener();
    });
  }

  private readonly closeListeners = new Set<() => void>();

  /** Called once when the bus daemon closes this connection. Returns an unsubscribe function. */
  onClose(listener: () => void): () => void {
    this.closeListeners.add(listener);
    return () => {
      this.closeListeners.delete(listener);
    };
  }

  /** Rejecters of the calls under way, so a closed connection fails them at once. */
  private readonly inFlight = new Set<() => void>();

  static async connect(
    address: string,
    callTimeoutMs = DEFAULT_CALL_TIMEOUT_MS,
  ): Promise<AtspiBus> {
    const bus = dbus.sessionBus({ busAddress: address });
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        bus.once('connect', () => resolve());
        bus.once('error', (err: unknown) => reject(asError(err)));
      }),
      callTimeoutMs,
      `connecting to the a11y bus at ${address}`,
    );
    return new AtspiBus(bus, address, callTimeoutMs);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The app (its unique bus name) let a call time out lately and has not answered since. */
  isSilent(busName: string): boolean {
    const until = this.silent.get(busName);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.silent.delete(busName);
    return false;
  }

  /** Counts the app as not responding (its process was found stopped) until it answers anything. */
  markSilent(busName: string): void {
    this.silent.set(busName, Date.now() + NOT_RESPONDING_MEMORY_MS);
  }

  /** The app answered (a liveness check on another connection): it counts as responding again. */
  clearSilent(busName: string): void {
    this.silent.delete(busName);
  }

  /** Whether a bus name has an owner (asking activates nothing, unlike a call to it). */
  async nameHasOwner(name: string): Promise<boolean> {
    const [has] = await this.call(
      'org.freedesktop.DBus',
      '/org/freedesktop/DBus',
      'org.freedesktop.DBus',
      'NameHasOwner',
      's',
      [name],
    );
    return has === true;
  }

  /** One method call; resolves to the reply body. */
  async call(
    destination: string,
    path: string,
    iface: string,
    member: string,
    signature?: string,
    body?: unknown[],
    timeoutMs = this.callTimeoutMs,
  ): Promise<unknown[]> {
    const fields: ConstructorParameters<typeof Message>[0] = {
      destination,
      path,
      interface: iface,
      member,
    };
    if (signature) {
      fields.signature = signature;
      fields.body = body;
    }
    if (this.closed) throw new BusClosedError(this.address);
    let fail = (): void => undefined;
    const closed = new Promise<never>((_, reject) => {
      fail = () => reject(new BusClosedError(this.address));
    });
    this.inFlight.add(fail);
    try {
      const pending = this.bus.call(new Message(fields));
      // A late answer (after the timeout) still shows the app is back.
      pending.then(
        () => this.silent.delete(destination),
        () => undefined,
      );
      const reply = await withTimeout(
        Promise.race([pending, closed]),
        timeoutMs,
        describeCall(destination, path, iface, member),
      );
      return (reply?.body ?? []) as unknown[];
    } catch (err) {
      if (err instanceof AtspiTimeoutError && destination.startsWith(':')) {
        this.markSilent(destination);
      }
      if (err instanceof AtspiCallError) throw err;
      const e = err as { type?: string; text?: string; message?: string };
      throw new AtspiCallError(
        `${iface.replace(ATSPI, '')}.${member} failed: ${e.text ?? e.message ?? String(err)}`,
        e.type,
      );
    } finally {
      this.inFlight.delete(fail);
    }
  }

  async getProperty(
    destination: string,
    path: string,
    iface: string,
    prop: string,
  ): Promise<unknown> {
    const [variant] = await this.call(
      destination,
      path,
      'org.freedesktop.DBus.Properties',
      'Get',
      'ss',
      [iface, prop],
    );
    return (variant as { value: unknown }).value;
  }

  async pidOf(busName: string): Promise<number> {
    const [pid] = await this.call(
      'org.freedesktop.DBus',
      '/org/freedesktop/DBus',
      'org.freedesktop.DBus',
      'GetConnectionUnixProcessID',
      's',
      [busName],
    );
    return pid as number;
  }

  /** Every application registered with the AT-SPI registry, with its pid. */
  async registeredApps(): Promise<RegisteredApp[]> {
    const [children] = await this.call(REGISTRY, ROOT_PATH, ATSPI + 'Accessible', 'GetChildren');
    const refs = children as ObjectRef[];
    const apps = await Promise.all(
      refs.map(async ([name, path]): Promise<RegisteredApp | null> => {
        const pid = await this.pidOf(name).catch(() => null);
        // A stopped process answers nothing: each read would wait out the call timeout.
        if (pid !== null && stoppedProcess(pid)) {
          return { bus: name, path, pid, name: '', childCount: 0 };
        }
        // An app that exits between GetChildren and these calls is simply left out.
        const [appName, childCount] = await Promise.all([
          this.getProperty(name, path, ATSPI + 'Accessible', 'Name').catch(() => null),
          this.getProperty(name, path, ATSPI + 'Accessible', 'ChildCount').catch(() => null),
        ]);
        if (appName === null && childCount === null) return null;
        return {
          bus: name,
          path,
          pid,
          name: (appName as string | null) ?? '',
          childCount: (childCount as number | null) ?? 0,
        };
      }),
    );
    return apps.filter((a): a is RegisteredApp => a !== null);
  }

  /** Add a match rule on the bus (for AT-SPI event signals). */
  async addMatch(rule: string): Promise<void> {
    await this.call(
      'org.freedesktop.DBus',
      '/org/freedesktop/DBus',
      'org.freedesktop.DBus',
      'AddMatch',
      's',
      [rule],
    );
  }

  async removeMatch(rule: string): Promise<void> {
    await this.call(
      'org.freedesktop.DBus',
      '/org/freedesktop/DBus',
      'org.freedesktop.DBus',
      'RemoveMatch',
      's',
      [rule],
    );
  }

  /** Listen to every signal that reaches this connection. Returns an unsubscribe function. */
  onSignal(listener: (msg: dbus.Message) => void): () => void {
    const handler = (msg: dbus.Message): void => {
      if (msg.type === dbus.MessageType.SIGNAL) listener(msg);
    };
    this.bus.on('message', handler);
    return () => {
      this.bus.removeListener('message', handler);
    };
  }

  disconnect(): void {
    if (this.closed) return;
    this.closed = true;
    this.bus.disconnect();
  }
}

/** A call as errors name it: `Accessible.GetChildren on :1.3/org/a11y/atspi/accessible/7`. */
export function describeCall(
  destination: string,
  path: string,
  iface: string,
  member: string,
): string {
  return `${iface.replace(ATSPI, '')}.${member} on ${destination}${path}`;
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return boundedBy(promise, ms, () => new AtspiTimeoutError(what, ms));
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
