/**
 * The Linux Desktop: AT-SPI2 over D-Bus for the trees and semantic actions, beside a display
 * session for windows, pixels and real input (X11 through the native addon: x11/session.ts)
 * and process control through /proc (processes.ts). The AT-SPI half asks the window system
 * only through the session (session.ts): where windows are for GTK4's window-relative
 * frames and for untitled windows, which windows are on a region for the secure-field scan,
 * and who holds input grabbed.
 */
import type { Element, Flag, Rect, Snapshot } from '../../model/element.js';
import type { RememberedField } from '../../model/field-succession.js';
import { PlatformError } from '../../errors.js';
import type {
  AccessReport,
  AppInfo,
  Activity,
  AppsChange,
  Change,
  ClickRoute,
  ClickSpot,
  CommitRoute,
  Desktop,
  DesktopWindow,
  DisplaySession,
  Frontmost,
  KeyCombo,
  KeyKind,
  LaunchedProcess,
  LaunchPlan,
  LaunchRequest,
  MouseButton,
  PointHit,
  RawImage,
  ScriptingSupport,
  SecureFieldScan,
  SnapshotOptions,
  TextPlace,
} from '../desktop.js';
import {
  AtspiBus,
  AtspiCallError,
  AtspiTimeoutError,
  BusClosedError,
  REGISTRY,
  resolveA11yAddress,
} from './atspi/bus.js';
import * as atspi from './atspi/index.js';
import {
  isWindowRelative,
  markWindowRelative,
  placeGtk4Element,
  placeGtk4Windows,
} from './atspi/gtk4.js';
import { scanSecureFields } from './atspi/secure.js';
import { accessibleAtPoint } from './atspi/hit.js';
import { stoppedProcess } from './proc.js';
import { clickRouteOf, clickSpotOf, commitRouteOf } from './click-routes.js';
import { dropDownButton } from './atspi/click-context.js';
import { LINUX_TRAITS } from './traits.js';
import { LinuxProcesses } from './processes.js';
import type { LinuxSession, SessionWindow } from './session.js';
import { describeSessionEnv, sessionEnvTaken } from './session-env.js';
import { SwaySession } from './wayland/session.js';
import { X11Session } from './x11/session.js';

/** Bound on asking an app whether it shows an open menu (its own grab). */
const GRAB_MENU_TIMEOUT_MS = 1000;
/** Bound on asking an app what it draws at a point, before a click there. */
const HIT_TEST_TIMEOUT_MS = 1000;

export class LinuxDesktop implements Desktop {
  readonly platform = 'linux';
  readonly traits = LINUX_TRAITS;
  /** AT-SPI2 has no scripting language of its own; clients drive it call by call. */
  readonly scripting: ScriptingSupport = {
    languages: [],
    reason: 'there is no native accessibility scripting facility like AppleScript/JXA',
  };
  /** The name results give the route of real input: the session's. */
  readonly inputRoute: string;
  // What the session lacks, the desktop lacks too: absent, they say the window system cannot.
  readonly embeddedWindows?: DisplaySession['embeddedWindows'];
  readonly selectionOwner?: DisplaySession['selectionOwner'];
  readonly popupWindows?: DisplaySession['popupWindows'];
  readonly captureStacked?: DisplaySession['captureStacked'];
  readonly guardedPointer?: DisplaySession['guardedPointer'];
  readonly anyGrab?: DisplaySession['anyGrab'];
  readonly watchInput?: DisplaySession['watchInput'];
  private readonly processes: LinuxProcesses;
  private readonly appRefs = new Map<number, atspi.AppRef>();
  /** Apps whose last walk had a window without an accessible name (see titleUntitledWindows). */
  private readonly untitled = new Set<number>();
  private reconnecting?: Promise<AtspiBus>;
  private closing = false;

  private constructor(
    private bus: AtspiBus,
    private readonly env: NodeJS.ProcessEnv,
    /** The display session: every window, input and pixel goes through it. */
    private readonly session: LinuxSession,
  ) {
    this.inputRoute = session.inputRoute;
    this.embeddedWindows = session.embeddedWindows?.bind(session);
    this.selectionOwner = session.selectionOwner?.bind(session);
    this.popupWindows = session.popupWindows?.bind(session);
    this.captureStacked = session.captureStacked?.bind(session);
    this.guardedPointer = session.guardedPointer?.bind(session);
    this.anyGrab = session.anyGrab?.bind(session);
    this.watchInput = session.watchInput?.bind(session);
    this.processes = new LinuxProcesses(env);
    this.followRegistry(bus);
  }

  /**
   * The bus connection, opened again when the bus daemon went away (the session's
   * at-spi-bus-launcher restarted it): the server recovers by itself. While no bus can be
   * reached, the error says the bus is gone and where it was.
   */
  private async live(): Promise<AtspiBus> {
    if (!this.bus.isClosed || this.closing) return this.bus;
    this.reconnecting ??= this.reconnect().finally(() => {
      this.reconnecting = undefined;
    });
    return this.reconnecting;
  }

  private async reconnect(): Promise<AtspiBus> {
    const old = this.bus;
    const reasons: string[] = [];
    for (const address of await reconnectAddresses(this.env, reasons)) {
      try {
        const bus = await AtspiBus.connect(address, RECONNECT_TIMEOUT_MS);
        await atspi.closeWires(old).catch(() => undefined);
        this.appRefs.clear();
        this.bus = bus;
        this.followRegistry(bus);
        return bus;
      } catch (err) {
        const where = address === old.address ? 'the same address' : address;
        reasons.push(`${where}: ${(err as Error).message}`);
      }
    }
    throw new PlatformError(
      'no_bus',
      `the accessibility bus is gone: the connection to ${old.address} closed (its daemon exited or restarted) and no bus answers now (${reasons.join('; ') || 'no address to try'})`,
      { address: old.address },
    );
  }

  /**
   * A restarted registry has forgotten our event registrations: renew them, and tell the
   * watchers anything may have changed meanwhile (events in the gap were lost).
   */
  private followRegistry(bus: AtspiBus): void {
    const rule = `type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='${REGISTRY}'`;
    bus.onSignal((msg) => {
      if (msg.member !== 'NameOwnerChanged' || msg.sender !== 'org.freedesktop.DBus') return;
      const [name, , owner] = msg.body as [string, string, string];
      if (name !== REGISTRY || !owner) return;
      void atspi.renewRegistrations(bus).then(() => {
        for (const notify of this.watchers) notify({ elementId: '' });
      });
    });
    bus.addMatch(rule).catch(() => undefined);
  }

  /** The change callbacks of the running watches. */
  private readonly watchers = new Set<(change: Change) => void>();

  static async open(env: NodeJS.ProcessEnv = process.env): Promise<LinuxDesktop> {
    let address: string;
    try {
      address = await resolveA11yAddress(env);
    } catch (err) {
      throw new PlatformError(
        'no_bus',
        `cannot reach the AT-SPI accessibility bus: ${(err as Error).message}`,
      );
    }
    let bus: AtspiBus;
    try {
      bus = await AtspiBus.connect(address);
    } catch (err) {
      throw new PlatformError(
        'no_bus',
        `the AT-SPI bus at ${address} does not answer: ${(err as Error).message}`,
        { address },
      );
    }
    return new LinuxDesktop(bus, env, openSession(env));
  }

  async checkAccess(): Promise<AccessReport> {
    const addon = this.session.problem();
    if (addon) {
      return { ok: false, reason: addon.message, problem: addon.code, details: { ...addon.facts } };
    }
    let bus: AtspiBus;
    try {
      bus = await this.live();
    } catch (err) {
      return {
        ok: false,
        reason: (err as Error).message,
        problem: 'no_bus',
        details: { a11y_bus: this.bus.address },
      };
    }
    const details: AccessReport['details'] = { a11y_bus: bus.address };
    try {
      const apps = await atspi.listApps(bus);
      details.registry = 'answering';
      details.apps = apps.length;
    } catch (err) {
      return {
        ok: false,
        reason: `the AT-SPI registry does not answer: ${(err as Error).message}`,
        problem: 'no_registry',
        details,
      };
    }
    Object.assign(details, await this.session.facts());
    const taken = sessionEnvTaken();
    if (taken) details.session_env = describeSessionEnv(taken);
    return { ok: true, details };
  }

  async listApps(): Promise<AppInfo[]> {
    const bus = await this.live();
    return wrap(() => atspi.listApps(bus));
  }

  async appByPid(pid: number): Promise<AppInfo | null> {
    // Remembered, or found by the pids the bus daemon gives: no other app is read (a listing
    // waits for every app never seen before, a frozen one for the whole call timeout).
    const ref = await this.appRef(pid).catch(() => undefined);
    if (!ref || this.bus.isClosed) return null;
    return atspi.appInfoFor(this.bus, ref).catch(() => null);
  }

  async knownApp(pid: number): Promise<{ pid: number; name: string } | null> {
    const known = this.appRefs.get(pid);
    // No name (its read failed when the app was found): the policy must not judge ''.
    if (!known?.name || this.bus.isClosed) return null;
    // The bus daemon never gives a unique name out again: while the app's has an owner,
    // the pid is still that app, not an exited one or a new process that got its pid.
    const [owned, live] = await Promise.all([
      atspi.nameHasOwner(this.bus, known.bus),
      atspi.probeApp(this.bus, known),
    ]);
    return owned && live === 'answering' ? { pid, name: known.name } : null;
  }

  async appsAnswering(pids: number[]): Promise<Map<number, boolean>> {
    const bus = await this.live();
    const found = await Promise.all(
      pids.map(async (pid): Promise<[number, boolean] | null> => {
        const ref = await this.appRef(pid).catch(() => undefined);
        if (!ref) return null;
        const live = await atspi.probeApp(bus, ref);
        return live === 'gone' ? null : [pid, live === 'answering'];
      }),
    );
    return new Map(found.filter((f): f is [number, boolean] => f !== null));
  }

  async frontmost(): Promise<Frontmost | null> {
    // The window system's active window is authoritative where there is one (X11: the
    // window manager's _NET_ACTIVE_WINDOW); AT-SPI's ACTIVE state is the fallback (and
    // agrees with it under openbox).
    try {
      const front = await this.session.frontmost();
      if (front) return front;
    } catch {
      // fall through to AT-SPI
    }
    const bus = await this.live();
    return wrap(() => atspi.findFrontmost(bus));
  }

  /** The app's registry entry, remembered: looking it up costs a few ms per walk. */
  private async appRef(pid: number, fresh = false): Promise<atspi.AppRef> {
    // First: a reconnect forgets every remembered entry (they name the old bus's peers).
    const bus = await this.live();
    const known = fresh ? undefined : this.appRefs.get(pid);
    if (known) return known;
    const ref = await atspi.appRefForPid(bus, pid);
    if (!ref) {
      this.appRefs.delete(pid);
      throw new PlatformError(
        'app_gone',
        `pid ${pid} is not (or no longer) an app on the accessibility bus`,
        { pid },
      );
    }
    // Found while not answering, its name is unread: not remembered, so the next call after
    // it answers reads the name (a nameless entry would never be vouched for by pid).
    if (ref.name || !bus.isSilent(ref.bus)) this.appRefs.set(pid, ref);
    return ref;
  }

  async snapshot(pid: number, options: SnapshotOptions): Promise<Snapshot> {
    // An app that had untitled windows likely still has: the windows are listed while the
    // app answers the walk's calls, not after the walk. One listing serves the titles and a
    // GTK4 walk's placement.
    let listing = this.untitled.has(pid) ? this.windowsListed() : undefined;
    const windows = (): Promise<SessionWindow[] | undefined> => (listing ??= this.windowsListed());
    let snapshot: Snapshot;
    try {
      try {
        const ref = await this.appRef(pid);
        snapshot = await atspi.snapshotApp(this.bus, ref, options);
      } catch (err) {
        // A remembered entry may be out of date (the app reconnected): look it up again.
        if (!(err instanceof atspi.AppGoneError)) throw err;
        const ref = await this.appRef(pid, true);
        snapshot = await atspi.snapshotApp(this.bus, ref, options);
      }
    } catch (err) {
      throw platformError(err);
    }
    // On Wayland every toolkit's frames are relative to its window, not GTK4's alone.
    if (this.session.windowRelativeFrames) markWindowRelative(snapshot);
    if (isWindowRelative(snapshot)) {
      const listed = await windows();
      placeGtk4Windows(
        snapshot,
        () => listed ?? [],
        () => this.session.popupStack(),
        this.session.windowRelativeFrames ? 'content' : 'centred',
      );
    }
    await this.titleUntitledWindows(snapshot, windows);
    return snapshot;
  }

  /**
   * The session's windows; undefined when the window system cannot be asked. X's answers
   * are waited for off the JS thread, which meanwhile goes on with the walk.
   */
  private async windowsListed(): Promise<SessionWindow[] | undefined> {
    try {
      return await this.session.windowStack();
    } catch {
      return undefined;
    }
  }

  /**
   * GTK windows with a header bar often have no accessible name; the window manager
   * knows their title. Match by pid and frame and borrow it, so windows can be named.
   * `windows` gives the call's one listing (taken as the walk began where it was).
   */
  private async titleUntitledWindows(
    snapshot: Snapshot,
    windows: () => Promise<SessionWindow[] | undefined>,
  ): Promise<void> {
    const untitled = snapshot.windows.filter((w) => !w.title && w.frame);
    if (untitled.length > 0) this.untitled.add(snapshot.pid);
    else this.untitled.delete(snapshot.pid);
    if (untitled.length === 0) return;
    const native = (await windows())?.filter((w) => w.mapped && w.pid === snapshot.pid && w.title);
    if (!native) return;
    for (const win of untitled) {
      const f = win.frame!;
      const hit = native.find(
        (n) =>
          Math.abs(n.x - f.x) <= 2 &&
          Math.abs(n.y - f.y) <= 2 &&
          Math.abs(n.w - f.w) <= 2 &&
          Math.abs(n.h - f.h) <= 2,
      );
      if (!hit) continue;
      win.title = hit.title;
      const el = snapshot.elements[win.index];
      if (!el.name) snapshot.elements[win.index] = { ...el, name: hit.title };
    }
  }

  /** One element-level call on the live bus, its failure as a PlatformError. */
  private async withBus<T>(fn: (bus: AtspiBus) => Promise<T>): Promise<T> {
    const bus = await this.live();
    return wrap(() => fn(bus));
  }

  async secureFieldFrames(
    region: Rect,
    timeoutMs: number,
    skip: readonly number[] = [],
    remembered?: ReadonlyMap<number, readonly RememberedField[]>,
  ): Promise<SecureFieldScan> {
    const embedded = this.embeddedWindows;
    return scanSecureFields(
      await this.live(),
      region,
      timeoutMs,
      {
        // Popups too (a password prompt may be one): no window manager lists them.
        windows: async () => {
          const listed = await this.windowsListed();
          if (!listed) return undefined;
          try {
            return [...this.session.popupStack(), ...listed];
          } catch {
            return undefined; // the window system cannot say: every app on the bus is read
          }
        },
        popupWindows: () => this.session.popupStack(),
        windowRelativeFrames: this.session.windowRelativeFrames === true,
        // A window system that draws no process's windows in another's has no plugs.
        plugs:
          embedded &&
          (async (hosts) => {
            const pids = new Map(hosts.map((h) => [h.window, h.pid]));
            const listed = hosts.flatMap((h) =>
              h.window === undefined || h.pid === null
                ? []
                : [{ id: h.window, pid: h.pid, title: h.title, frame: h, active: false }],
            );
            return (await embedded(listed)).map((p) => ({
              pid: p.pid,
              frame: p.frame,
              hostPid: pids.get(p.host) as number,
            }));
          }),
        appRef: async (pid) => {
          // An app found not answering (its process stopped, or a liveness check or call
          // left unanswered lately) answers no lookup either: said at once, not after the
          // lookup's bound. A check in the background tells when it answers again; the next
          // capture then looks it up fresh.
          if (stoppedProcess(pid)) {
            throw new PlatformError('not_responding', 'its process is stopped', { pid });
          }
          const ref = await this.appRef(pid);
          if (this.bus.isSilent(ref.bus)) {
            void atspi.probeApp(this.bus, ref);
            throw new PlatformError('not_responding', 'it left calls unanswered lately', { pid });
          }
          return ref;
        },
      },
      skip,
      remembered,
    );
  }

  clickRoute(element: Element, parent?: Element): ClickRoute {
    return clickRouteOf(element, parent);
  }

  clickSpot(element: Element, parent?: Element): ClickSpot | undefined {
    return clickSpotOf(element, parent);
  }

  async elementAt(root: Element, p: { x: number; y: number }): Promise<PointHit | null> {
    const frame = root.frame;
    if (!frame) throw new PlatformError('failed', 'the window has no frame to aim in');
    const windowRelative = this.session.windowRelativeFrames === true;
    return this.withBus((bus) =>
      accessibleAtPoint(bus, root.id, frame, p, HIT_TEST_TIMEOUT_MS, windowRelative),
    );
  }

  commitRoute(element: Element): CommitRoute {
    return commitRouteOf(element);
  }

  async doAction(elementId: string, action: string): Promise<void> {
    // GTK4's drop-down has no action of its own: its click is its button's (click-routes.ts).
    const on = (action.toLowerCase() === 'click' && dropDownButton(elementId)) || elementId;
    await this.withBus((bus) => atspi.doAction(bus, on, action));
  }

  async setText(elementId: string, text: string): Promise<void> {
    await this.withBus((bus) => atspi.setTextContents(bus, elementId, text));
  }

  async insertText(elementId: string, text: string, position: number): Promise<void> {
    await this.withBus((bus) => atspi.insertText(bus, elementId, text, position));
  }

  async textPlace(elementId: string): Promise<TextPlace | undefined> {
    return this.withBus((bus) => atspi.textPlace(bus, elementId));
  }

  async setTextPlace(elementId: string, place: TextPlace): Promise<boolean> {
    return this.withBus((bus) => atspi.setTextPlace(bus, elementId, place));
  }

  async focusElement(elementId: string): Promise<void> {
    await this.withBus((bus) => atspi.grabFocus(bus, elementId));
  }

  async selectElement(elementId: string): Promise<void> {
    await this.withBus((bus) => atspi.selectInContainer(bus, elementId));
  }

  async hasFocus(elementId: string): Promise<boolean> {
    const el = await this.withBus((bus) => atspi.readElement(bus, elementId));
    return el.flags.includes('focused');
  }

  async setValue(elementId: string, value: number): Promise<void> {
    await this.withBus((bus) => atspi.setCurrentValue(bus, elementId, value));
  }

  async readValue(
    elementId: string,
  ): Promise<{ value: number; min: number; max: number; step: number; steps?: boolean }> {
    const v = await this.withBus((bus) => atspi.readValue(bus, elementId));
    return {
      value: v.value,
      min: v.min,
      max: v.max,
      step: v.step,
      ...(v.steps ? { steps: true } : {}),
    };
  }

  elementDetails(elementId: string): Promise<Record<string, unknown>> {
    return this.withBus((bus) => atspi.elementDetails(bus, elementId));
  }

  readText(elementId: string): Promise<string | undefined> {
    return this.withBus((bus) => atspi.readText(bus, elementId));
  }

  readElement(elementId: string): Promise<Element> {
    const everyToolkit = this.session.windowRelativeFrames === true;
    return this.withBus((bus) => atspi.readElement(bus, elementId)).then((el) =>
      placeGtk4Element(el, everyToolkit),
    );
  }

  async grabbedInput(pid: number): Promise<'keyboard' | 'pointer' | undefined> {
    const grab = this.session.inputGrab(pid);
    if (!grab) return undefined;
    // A popup of the app on top: the grab is its own only while that popup shows the items
    // of a menu or list (a tooltip or toast of it on top says nothing of who grabbed). An
    // app that cannot say (no Collection: GTK 4, Qt) is taken at its popup's word.
    if (grab.ownPopupOnTop) {
      const top = this.session.popupStack()[0];
      const bus = await this.live();
      const holds = top
        ? await atspi
            .popupHoldsChoices(
              bus,
              await this.appRef(pid),
              { x: top.x, y: top.y, w: top.w, h: top.h },
              GRAB_MENU_TIMEOUT_MS,
            )
            .catch(() => false)
        : false;
      if (holds !== false) return undefined;
    }
    return grab.device;
  }

  // The display session's part, as the session does it.

  listWindows(pid?: number): Promise<DesktopWindow[]> {
    return this.session.listWindows(pid);
  }

  screenSize(): Promise<{ w: number; h: number }> {
    return this.session.screenSize();
  }

  capture(rect?: Rect): Promise<RawImage> {
    return this.session.capture(rect);
  }

  activate(pid: number): Promise<() => Promise<void>> {
    return this.session.activate(pid);
  }

  closeWindows(pid: number): Promise<number> {
    return this.session.closeWindows(pid);
  }

  click(x: number, y: number, button: MouseButton, count: number): Promise<void> {
    return this.session.click(x, y, button, count);
  }

  pressKey(combo: KeyCombo): Promise<void> {
    return this.session.pressKey(combo);
  }

  knowsKey(key: string): boolean {
    return this.session.knowsKey(key);
  }

  keyKind(key: string): KeyKind {
    return this.session.keyKind(key);
  }

  typeText(text: string): Promise<void> {
    return this.session.typeText(text);
  }

  scroll(x: number, y: number, dx: number, dy: number): Promise<void> {
    return this.session.scroll(x, y, dx, dy);
  }

  drag(
    from: { x: number; y: number },
    to: { x: number; y: number },
    durationMs: number,
    signal?: AbortSignal,
  ): Promise<void> {
    return this.session.drag(from, to, durationMs, signal);
  }

  // Process control, the same under any display session.

  planLaunch(request: LaunchRequest): Promise<LaunchPlan> {
    return this.processes.planLaunch(request);
  }

  launch(plan: LaunchPlan): Promise<LaunchedProcess> {
    return this.processes.launch(plan);
  }

  isRunning(pid: number): Promise<boolean> {
    return this.processes.isRunning(pid);
  }

  terminate(pid: number, kill = false): Promise<void> {
    return this.processes.terminate(pid, kill);
  }

  childProcesses(pid: number): Promise<number[]> {
    return this.processes.childProcesses(pid);
  }

  launchFamily(leader: number): Promise<number[]> {
    return this.processes.launchFamily(leader);
  }

  ancestors(pid: number): Promise<number[]> {
    return this.processes.ancestors(pid);
  }

  async watchChanges(
    pid: number,
    onChange: (change: Change) => void,
  ): Promise<() => Promise<void>> {
    const stop = await this.watchAppEvents(
      pid,
      (event) => onChange(changeOf(event)),
      () => onChange({ elementId: '', lost: true }),
    );
    this.watchers.add(onChange);
    return async () => {
      this.watchers.delete(onChange);
      await stop();
    };
  }

  watchActivity(
    pid: number,
    onActivity: (activity: Activity) => void,
  ): Promise<() => Promise<void>> {
    return this.watchAppEvents(
      pid,
      (event) => {
        const activity = activityOf(event);
        if (activity) onActivity(activity);
      },
      () => onActivity({ kind: 'lost' }),
    );
  }

  /** One app's AT-SPI events, and `onLost` when the bus goes; resolves to what stops both. */
  private async watchAppEvents(
    pid: number,
    onEvent: Parameters<typeof atspi.watchApp>[2],
    onLost: () => void,
  ): Promise<() => Promise<void>> {
    const bus = await this.live();
    const ref = await wrap(() => atspi.appRefForPid(bus, pid));
    if (!ref) {
      throw new PlatformError('app_gone', `pid ${pid} is not on the accessibility bus`, { pid });
    }
    const stop = await wrap(() => atspi.watchApp(bus, ref.bus, onEvent));
    const offClose = bus.onClose(onLost);
    return async () => {
      offClose();
      await stop();
    };
  }

  async watchApps(onChange: (change: AppsChange) => void): Promise<() => Promise<void>> {
    const bus = await this.live();
    const stop = await wrap(() =>
      atspi.watchRegistry(bus, (event) => onChange({ kind: appsChangeKind(event.type) })),
    );
    const offClose = bus.onClose(() => onChange({ kind: 'unknown', lost: true }));
    return async () => {
      offClose();
      await stop();
    };
  }

  async close(): Promise<void> {
    this.closing = true;
    await atspi.closeWires(this.bus).catch(() => undefined);
    this.bus.disconnect();
    this.session.close();
  }
}

/**
 * The display session `env` names: sway when it has sway's IPC socket and a Wayland
 * display and no X display (an X client of Xwayland would be driven as X11), else X11.
 */
export function sessionKind(env: NodeJS.ProcessEnv): 'sway' | 'x11' {
  return env.SWAYSOCK && env.WAYLAND_DISPLAY && !env.DISPLAY ? 'sway' : 'x11';
}

function openSession(env: NodeJS.ProcessEnv): LinuxSession {
  const session: LinuxSession =
    sessionKind(env) === 'sway' ? new SwaySession(env) : new X11Session(env);
  session.prepare?.();
  return session;
}

/** How long reopening the bus may take before the call says the bus is gone. */
const RECONNECT_TIMEOUT_MS = 1000;

/**
 * Where the accessibility bus may be now: the address we were given, then the session's
 * current one (a restarted launcher serves a new address). The session bus is asked only
 * when org.a11y.Bus has an owner, so that asking never activates a launcher.
 */
async function reconnectAddresses(env: NodeJS.ProcessEnv, reasons: string[]): Promise<string[]> {
  const out: string[] = [];
  if (env.AT_SPI_BUS_ADDRESS) out.push(env.AT_SPI_BUS_ADDRESS);
  if (!env.DBUS_SESSION_BUS_ADDRESS) return out;
  let session: AtspiBus | undefined;
  try {
    session = await AtspiBus.connect(env.DBUS_SESSION_BUS_ADDRESS, RECONNECT_TIMEOUT_MS);
    if (!(await session.nameHasOwner('org.a11y.Bus'))) {
      reasons.push('no at-spi-bus-launcher (org.a11y.Bus) on the session bus');
      return out;
    }
    // Checked above, and asked without activation: the launcher may exit in between.
    const address = await resolveA11yAddress(
      { DBUS_SESSION_BUS_ADDRESS: env.DBUS_SESSION_BUS_ADDRESS },
      RECONNECT_TIMEOUT_MS,
      false,
    );
    if (!out.includes(address)) out.push(address);
  } catch (err) {
    reasons.push(`session bus: ${(err as Error).message}`);
  } finally {
    session?.disconnect();
  }
  return out;
}

/** AT-SPI state names that are Flags under the same name. */
const FLAG_STATES = new Set<Flag>([
  'checked',
  'selected',
  'focused',
  'expanded',
  'pressed',
  'active',
  'modal',
]);

function changeOf(event: atspi.AtspiEvent): Change {
  const m = /^object:state-changed:(.+)$/.exec(event.type);
  const state = m?.[1] as Flag | undefined;
  if (state && FLAG_STATES.has(state)) {
    return { elementId: event.id, flag: state, on: event.detail1 !== 0 };
  }
  return { elementId: event.id };
}

/**
 * What a person did, from one AT-SPI event: `window:create`/`destroy` open and close a
 * window (activate/deactivate only move the focus between windows that are there).
 */
export function activityOf(event: atspi.AtspiEvent): Activity | undefined {
  const { type, id } = event;
  if (type === 'object:state-changed:focused') {
    return event.detail1 !== 0 ? { kind: 'focus', elementId: id } : undefined;
  }
  const text = /^object:text-changed:(insert|delete)/.exec(type);
  if (text) return { kind: 'text', elementId: id, inserted: text[1] === 'insert' };
  const state = /^object:state-changed:(.+)$/.exec(type)?.[1] as Flag | undefined;
  if (state && FLAG_STATES.has(state) && state !== 'active') {
    return { kind: 'state', elementId: id, flag: state, on: event.detail1 !== 0 };
  }
  if (type === 'window:create') return { kind: 'window', elementId: id, opened: true };
  if (type === 'window:destroy') return { kind: 'window', elementId: id, opened: false };
  return undefined;
}

async function wrap<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw platformError(err);
  }
}

/** AT-SPI failures as PlatformErrors: a vanished element or app, or one that does not answer, says so. */
function platformError(err: unknown): unknown {
  if (err instanceof PlatformError) return err;
  if (err instanceof atspi.AppGoneError) {
    return new PlatformError('app_gone', err.message, { pid: err.app.pid });
  }
  if (err instanceof BusClosedError) {
    return new PlatformError('no_bus', `the accessibility bus is gone: ${err.message}`, {
      address: err.address,
    });
  }
  // The registry is asked by its well-known name; an app never is.
  if (err instanceof AtspiCallError && err.message.includes(` on ${REGISTRY}`)) {
    return new PlatformError(
      'no_registry',
      `the AT-SPI registry (${REGISTRY}) does not answer: ${err.message}`,
    );
  }
  if (err instanceof AtspiTimeoutError) return new PlatformError('not_responding', err.message);
  // Chromium's web text fields, for one, have no EditableText: not a failure, an inability.
  if (err instanceof atspi.AtspiActionError && err.missingInterface === 'EditableText') {
    return new PlatformError('unsupported', err.message, { missing: err.missingInterface });
  }
  if (err instanceof AtspiCallError) {
    const said = `${err.dbusName ?? ''} ${err.message}`;
    if (/NoReply/.test(said)) return new PlatformError('not_responding', err.message);
    // The app's bus name has no owner any more: the whole app left, not just one element.
    if (/ServiceUnknown|NameHasNoOwner|was not provided by any \.service files/.test(said)) {
      return new PlatformError(
        'app_gone',
        `the app left the accessibility bus (it exited or closed its connection): ${err.message}`,
      );
    }
    const gone = /UnknownObject|ServiceUnknown|Disconnected|UnknownMethod/.test(said);
    return gone
      ? new PlatformError('element_gone', `the element is gone from the app (${err.message})`)
      : new PlatformError('failed', err.message);
  }
  return err;
}

/** What a registry children-changed event says happened to the app list. */
function appsChangeKind(type: string): AppsChange['kind'] {
  if (type.endsWith(':add')) return 'added';
  if (type.endsWith(':remove')) return 'removed';
  return 'unknown';
}
