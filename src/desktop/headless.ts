/**
 * The headless Linux desktop axpage runs on: Xvfb (with -fbdir, for fast screenshots), a
 * private D-Bus session bus, the AT-SPI bus launcher and its bus, the AT-SPI registry and
 * openbox (focus and _NET_ACTIVE_WINDOW need a window manager). The CLI, the demo, the tests
 * and the benchmarks all bring it up through startDesktop(), so they all run on the same
 * real stack. Every step waits for a readiness signal with a short poll and a bound, never
 * a fixed sleep, and its time is kept in `timings`.
 *
 * The daemons are started detached (own sessions, unref'd), so a caller like
 * `axpage desktop up` can exit while the desktop keeps running; their pids go to a state
 * file, and stop() signals only those recorded pids. Spawning them is daemons.ts's, the
 * bus sequence session-buses.ts's: the sway session (sway.ts) starts its own the same way.
 */
import { SharedA11yConnection } from './a11y-connection.js';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { AtspiBus, REGISTRY } from '../platform/linux/atspi/bus.js';
import { withoutBusAddress } from '../platform/linux/atspi/qt.js';
import type { LaunchedApp, LaunchOptions } from './apps.js';
import { launchApp } from './apps.js';
import { findInPath, firstLineOnFd3, recordPid, spawnDaemon } from './daemons.js';
import { DesktopError, missingPrograms } from './errors.js';
import type { RecordedPid, StopReport } from './procs.js';
import { isAlive, logTail, pollUntil, stopRecorded } from './procs.js';
import type { BusPrograms, DaemonStep } from './session-buses.js';
import {
  enableAccessibility,
  findBusPrograms,
  startBusLauncher,
  startRegistry,
  startSessionBuses,
} from './session-buses.js';
import type { DesktopState } from './state.js';
import {
  STATE_VERSION,
  claimStateDir,
  defaultStateDir,
  ensurePrivateDir,
  listStates,
  readApps,
  readState,
  recordApp,
  writeState,
} from './state.js';
import type { XServerInfo } from './x11.js';
import { probeDisplay, windowManagerCheck, xSocketPath } from './x11.js';

export const DEFAULT_SIZE = '1280x800x24';
/** Auto-picked displays start here, clear of the :0/:1 of real sessions and common CI :99. */
export const FIRST_AUTO_DISPLAY = 90;
const AUTO_DISPLAY_TRIES = 100;

/**
 * Variables a desktop client must NOT inherit: NO_AT_BRIDGE=1 turns GTK's atk-bridge off,
 * GTK_A11Y=atk makes GTK4 expose nothing (GTK3 ignores it), and a WAYLAND_DISPLAY would
 * pull toolkits away from our X server.
 */
export const UNSET_VARS = ['NO_AT_BRIDGE', 'GTK_A11Y', 'WAYLAND_DISPLAY'] as const;

/** The desktop's error and install hint live in errors.ts (sway.ts throws them too). */
export { DesktopError, INSTALL_SCRIPT } from './errors.js';
export type { DesktopErrorCode } from './errors.js';

export interface StartOptions {
  /** X display number; default: the first free one from 90 up. */
  display?: number;
  /** Xvfb screen geometry WxHxDepth; default 1280x800x24. */
  size?: string;
  /** Where state, logs, the framebuffer file and XDG_RUNTIME_DIR live; default per display. */
  stateDir?: string;
  /** Start openbox; default true. */
  windowManager?: boolean;
  /** Bound for each step's readiness wait; default 10 s. */
  stepTimeoutMs?: number;
  /** Progress lines (one per step, with its time); default: none. */
  log?: (line: string) => void;
}

export interface DesktopHealth {
  /** The X server answers the connection handshake. */
  x: XServerInfo | null;
  /** The session bus answers and the a11y bus launcher owns org.a11y.Bus on it. */
  a11yLauncher: boolean;
  /** The a11y bus answers at AT_SPI_BUS_ADDRESS. */
  a11yBus: boolean;
  /** org.a11y.atspi.Registry has an owner on the a11y bus. */
  registry: boolean;
  /** A window manager passes the EWMH check (null when the desktop runs without one). */
  windowManager: boolean | null;
  /** Every recorded daemon and app, and whether it still runs. */
  pids: Array<RecordedPid & { alive: boolean }>;
}

interface Binaries extends BusPrograms {
  xvfb: string;
  openbox: string | null;
}

/** Locates every program the desktop needs; one error naming all that are missing. */
export function findBinaries(windowManager: boolean): Binaries {
  const xvfb = findInPath('Xvfb');
  const buses = findBusPrograms();
  const openbox = windowManager ? findInPath('openbox') : null;
  const missing: string[] = [];
  if (!xvfb) missing.push('Xvfb (package xvfb)');
  if ('missing' in buses) missing.push(...buses.missing);
  if (windowManager && !openbox) missing.push('openbox (package openbox)');
  if (missing.length > 0) {
    throw missingPrograms(missing);
  }
  return { xvfb: xvfb as string, ...(buses as BusPrograms), openbox };
}

/** The display has an X socket or lock file (someone's X server, maybe a dead one's lock). */
export function displayInUse(display: number): boolean {
  return fs.existsSync(xSocketPath(display)) || fs.existsSync(`/tmp/.X${display}-lock`);
}

/** The process environment for a desktop client: ours minus UNSET_VARS, plus the desktop's. */
export function clientEnv(
  desktopEnv: Record<string, string>,
  base: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const k of UNSET_VARS) delete env[k];
  // The caller's own session buses must not leak in (the desktop env sets its own).
  delete env.AT_SPI_BUS_ADDRESS;
  delete env.DBUS_SESSION_BUS_ADDRESS;
  return { ...env, ...desktopEnv };
}

/** `export NAME='value'` lines (single quotes escaped for sh). */
export function formatExports(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([k, v]) => `export ${k}='${v.replace(/'/g, `'\\''`)}'`)
    .join('\n');
}

const round = (ms: number): number => Math.round(ms * 10) / 10;

/** What the progress log calls each bus step. */
const BUS_STEP_NAMES = {
  sessionBus: 'session bus',
  a11yBus: 'AT-SPI bus',
  registry: 'AT-SPI registry',
} as const;

export class HeadlessDesktop {
  private readonly a11yConn = new SharedA11yConnection(() => this.state.env.AT_SPI_BUS_ADDRESS);
  private readonly ownApps: RecordedPid[] = [];
  private stopped = false;

  private constructor(private readonly state: DesktopState) {}

  /** A handle on a desktop that is already up (from its state file). */
  static attach(state: DesktopState): HeadlessDesktop {
    return new HeadlessDesktop(state);
  }

  get display(): number {
    return this.state.display;
  }
  get size(): string {
    return this.state.size;
  }
  get stateDir(): string {
    return this.state.stateDir;
  }
  get windowManager(): boolean {
    return this.state.windowManager;
  }
  /** Variables to set for clients: DISPLAY, DBUS_SESSION_BUS_ADDRESS, AT_SPI_BUS_ADDRESS, ... */
  get env(): Readonly<Record<string, string>> {
    return this.state.env;
  }
  /** Bring-up time of each step in ms (xvfb, sessionBus, a11yBus, registry, wm, total). */
  get timings(): Readonly<Record<string, number>> {
    return this.state.timings;
  }
  get created(): string {
    return this.state.created;
  }
  /** Daemons in start order, then apps launched into this desktop (by anyone). */
  get pids(): RecordedPid[] {
    const apps = readApps(this.stateDir);
    const extra = this.ownApps.filter((a) => !apps.some((b) => b.pid === a.pid));
    return [...this.state.pids, ...apps, ...extra];
  }
  get logDir(): string {
    return path.join(this.stateDir, 'logs');
  }

  /** Full environment for a process that should run in this desktop. */
  processEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return { ...clientEnv(this.state.env), ...extra };
  }

  /** A shared connection to this session's AT-SPI bus (closed by stop() or release()). */
  a11yBus(): Promise<AtspiBus> {
    return this.a11yConn.get();
  }

  /**
   * Starts an app in this desktop (own process group) and waits until it is registered with
   * the AT-SPI registry and, by default, shows a top-level window.
   */
  launch(cmd: string, args: string[] = [], opts: LaunchOptions = {}): Promise<LaunchedApp> {
    if (this.stopped) {
      return Promise.reject(new DesktopError('this desktop has been stopped', 'not-up'));
    }
    return launchApp(
      {
        // Apps find the bus through org.a11y.Bus, as on a desktop: Qt 6 needs that (qt.ts).
        env: withoutBusAddress(this.processEnv()),
        logDir: this.logDir,
        a11yBus: () => this.a11yBus(),
        record: (entry) => {
          this.ownApps.push(entry);
          try {
            recordApp(this.stateDir, entry);
          } catch {
            // The state dir is gone (stopped from elsewhere); the in-memory record still counts.
          }
        },
      },
      cmd,
      args,
      opts,
    );
  }

  /** What is up: X, the buses, the registry, the WM, and which recorded pids still run. */
  async health(timeoutMs = 1000): Promise<DesktopHealth> {
    const pids = this.pids.map((p) => ({ ...p, alive: isAlive(p.pid, p.start) }));
    const [x, wm, launcher, a11y] = await Promise.all([
      probeDisplay(this.display, timeoutMs),
      this.windowManager ? windowManagerCheck(this.display, timeoutMs) : Promise.resolve(null),
      (async () => {
        const s = await AtspiBus.connect(this.state.env.DBUS_SESSION_BUS_ADDRESS, timeoutMs);
        try {
          return await s.nameHasOwner('org.a11y.Bus');
        } finally {
          s.disconnect();
        }
      })().catch(() => false),
      (async () => {
        const b = await AtspiBus.connect(this.state.env.AT_SPI_BUS_ADDRESS, timeoutMs);
        try {
          return { bus: true, registry: await b.nameHasOwner(REGISTRY) };
        } finally {
          b.disconnect();
        }
      })().catch(() => ({ bus: false, registry: false })),
    ]);
    return {
      x,
      a11yLauncher: launcher,
      a11yBus: a11y.bus,
      registry: a11y.registry,
      windowManager: this.windowManager ? wm !== null : null,
      pids,
    };
  }

  /**
   * Starts the AT-SPI bus (its launcher and dbus-daemon) and the registry again where
   * they are gone, the way `up` starts them, and records the new pids (a registry the bus
   * activated on its own too, so stop() ends it). A session's launcher would do the same
   * after a crash; fault tests use it to check that a running server recovers. Resolves
   * to the a11y bus address, a new one when the bus was restarted.
   */
  async restartAccessibility(timeoutMs = 10_000): Promise<string> {
    const bins = findBinaries(false);
    const env = this.state.env;
    const logOf = (n: string): string => path.join(this.logDir, `${n}.log`);
    const pids = this.state.pids;
    const step = (name: string): Omit<DaemonStep, 'program' | 'env'> => ({
      logFile: logOf(name),
      pids,
      timeoutMs,
      intervalMs: 10,
    });
    const reachable = async (address: string): Promise<boolean> => {
      try {
        // A dead bus refuses at once; a live one on a loaded machine may take a while to
        // answer, and taking it for dead would restart a bus that is fine.
        (await AtspiBus.connect(address, 5000)).disconnect();
        return true;
      } catch {
        return false;
      }
    };
    this.release();
    if (!(await reachable(env.AT_SPI_BUS_ADDRESS))) {
      // A launcher whose bus died keeps answering GetAddress with the dead address: end it.
      const stale = pids.filter((p) => /^(at-spi-bus-launcher|a11y-dbus-daemon)/.test(p.name));
      await stopRecorded(stale, { graceMs: 500 });
      const session = await AtspiBus.connect(env.DBUS_SESSION_BUS_ADDRESS, timeoutMs);
      try {
        env.AT_SPI_BUS_ADDRESS = await startBusLauncher(session, {
          program: bins.busLauncher,
          env: clientEnv(env),
          ...step('at-spi-bus-launcher'),
        });
        await enableAccessibility(session);
      } finally {
        session.disconnect();
      }
    }
    const a11y = await AtspiBus.connect(env.AT_SPI_BUS_ADDRESS, timeoutMs);
    try {
      const daemon = await a11y.pidOf('org.freedesktop.DBus');
      if (!pids.some((p) => p.pid === daemon)) recordPid(pids, daemon, 'a11y-dbus-daemon');
      if (!(await a11y.nameHasOwner(REGISTRY))) {
        await startRegistry(a11y, {
          program: bins.registryd,
          env: clientEnv(env),
          ...step('at-spi2-registryd'),
        });
      }
      const registry = await a11y.pidOf(REGISTRY);
      if (!pids.some((p) => p.pid === registry)) {
        recordPid(pids, registry, 'at-spi2-registryd(activated)');
      }
    } finally {
      a11y.disconnect();
    }
    writeState(this.state);
    return env.AT_SPI_BUS_ADDRESS;
  }

  /** Closes this process's connections but leaves the desktop running (for `desktop up`). */
  release(): void {
    this.a11yConn.close();
  }

  /**
   * Stops every recorded pid (apps first, then the daemons in reverse start order):
   * SIGTERM, then SIGKILL after a bound; zombies count as gone. Then removes the state.
   */
  async stop(): Promise<StopReport> {
    const entries = this.pids;
    this.stopped = true;
    this.release();
    const report = await stopRecorded(entries);
    removeOwnState(this.stateDir);
    return report;
  }
}

/** openbox's system configuration, which openboxConfig() starts from. */
const OPENBOX_RC = '/etc/xdg/openbox/rc.xml';

/**
 * openbox's configuration for this desktop, written into `dir`: the system one with no
 * button bound on client windows. Bound there (click to focus), openbox grabs every press
 * on a client synchronously and lets it go on later, to whatever window is on top by then:
 * a denied popup that showed meanwhile would get a press checked against the window
 * under it. Unbound, the X server delivers each press at once to the window on top as it
 * lands; focus comes from this server's own activation (_NET_ACTIVE_WINDOW), not a click.
 * Null when there is no system configuration to start from (openbox's built-in one then).
 */
export function openboxConfig(dir: string): string | null {
  let rc: string;
  try {
    rc = fs.readFileSync(OPENBOX_RC, 'utf8');
  } catch {
    return null;
  }
  const file = path.join(dir, 'openbox-rc.xml');
  const unbound = rc.replace(
    /<context name="Client">[\s\S]*?<\/context>/,
    '<context name="Client"></context>',
  );
  fs.writeFileSync(file, unbound, { mode: 0o600 });
  return file;
}

/** Removes what startDesktop put in the state dir, then the dir itself if that leaves it empty. */
function removeOwnState(stateDir: string): void {
  for (const name of ['state.json', 'apps.jsonl', 'owner.json', 'xdg', 'fb', 'logs']) {
    fs.rmSync(path.join(stateDir, name), { recursive: true, force: true });
  }
  try {
    fs.rmdirSync(stateDir);
  } catch {
    // Not empty (a caller-given dir with other files) or already gone.
  }
}

/** Picks the display and claims its state dir. */
function* displayCandidates(opts: StartOptions): Generator<number> {
  if (opts.display !== undefined) {
    yield opts.display;
    return;
  }
  for (let n = FIRST_AUTO_DISPLAY; n < FIRST_AUTO_DISPLAY + AUTO_DISPLAY_TRIES; n++) {
    if (!displayInUse(n)) yield n;
  }
}

/** Brings up a headless desktop and returns once every part answers. */
export async function startDesktop(opts: StartOptions = {}): Promise<HeadlessDesktop> {
  const size = opts.size ?? DEFAULT_SIZE;
  if (!/^\d+x\d+(x\d+)?$/.test(size)) {
    throw new DesktopError(
      `bad screen size ${JSON.stringify(size)}: expected WxH or WxHxDepth`,
      'start-failed',
    );
  }
  if (opts.display !== undefined && (!Number.isInteger(opts.display) || opts.display < 0)) {
    throw new DesktopError(`bad display number ${opts.display}`, 'start-failed');
  }
  const wm = opts.windowManager ?? true;
  const bins = findBinaries(wm);
  const stepTimeout = opts.stepTimeoutMs ?? 10_000;
  const log = opts.log ?? (() => undefined);
  const tAll = performance.now();

  for (const display of displayCandidates(opts)) {
    if (opts.display !== undefined && displayInUse(display)) {
      throw new DesktopError(
        `display :${display} is busy (${xSocketPath(display)} or /tmp/.X${display}-lock exists); ` +
          'pick another with --display, or omit it to take the first free one',
        'display-busy',
      );
    }
    const stateDir = opts.stateDir ?? defaultStateDir(display);
    if (opts.stateDir) {
      ensurePrivateDir(stateDir);
      const prev = readState(stateDir);
      if (prev && [...prev.pids, ...readApps(stateDir)].some((p) => isAlive(p.pid, p.start))) {
        throw new DesktopError(
          `${stateDir} belongs to desktop :${prev.display}, which is still running`,
          'display-busy',
        );
      }
      removeOwnState(stateDir);
      ensurePrivateDir(stateDir);
    } else if (!claimStateDir(stateDir)) {
      if (opts.display !== undefined) {
        throw new DesktopError(
          `display :${display} is being used by another axpage desktop`,
          'display-busy',
        );
      }
      continue;
    }
    const result = await tryStart(display, stateDir, size, wm, bins, stepTimeout, log, tAll);
    if (result !== 'busy') return result;
    if (opts.display !== undefined) {
      throw new DesktopError(
        `display :${display} is busy: another X server took it (see ${stateDir}/logs/xvfb.log)`,
        'display-busy',
      );
    }
    // Lost a race for this display to some other X server: try the next one.
  }
  throw new DesktopError(
    `no free X display between :${FIRST_AUTO_DISPLAY} and :${FIRST_AUTO_DISPLAY + AUTO_DISPLAY_TRIES - 1}`,
    'display-busy',
  );
}

async function tryStart(
  display: number,
  stateDir: string,
  size: string,
  wm: boolean,
  bins: Binaries,
  stepTimeout: number,
  log: (line: string) => void,
  tAll: number,
): Promise<HeadlessDesktop | 'busy'> {
  const xdg = path.join(stateDir, 'xdg');
  const fbDir = path.join(stateDir, 'fb');
  const logDir = path.join(stateDir, 'logs');
  for (const d of [xdg, fbDir, logDir]) ensurePrivateDir(d);
  fs.chmodSync(xdg, 0o700);
  const logOf = (n: string): string => path.join(logDir, `${n}.log`);

  const pids: RecordedPid[] = [];
  const timings: Record<string, number> = {};
  const env: Record<string, string> = {
    DISPLAY: `:${display}`,
    XDG_RUNTIME_DIR: xdg,
    XVFB_FB: path.join(fbDir, 'Xvfb_screen0'),
    GDK_BACKEND: 'x11',
    // GTK4 renders with cairo, not GL: Xvfb has no GPU, and GL on llvmpipe costs a core per
    // animated window (a spinner). GTK4 queues its AT-SPI registration at default-idle
    // priority, below its redraws, so an app that never finishes a frame in time (gtk4-
    // widget-factory on a loaded machine) never registers at all.
    GSK_RENDERER: 'cairo',
    GSETTINGS_BACKEND: 'memory',
    // Qt: X11 platform and its AT-SPI bridge always on (Qt otherwise waits for a screen reader).
    QT_QPA_PLATFORM: 'xcb',
    QT_ACCESSIBILITY: '1',
    QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1',
  };
  // The log of the step in progress: its tail goes into the error when the step fails.
  let currentLog = 'xvfb';
  const fail = async (err: unknown, logName?: string): Promise<never> => {
    await stopRecorded(pids, { graceMs: 1000 });
    const tail = logName ? logTail(logOf(logName)) : '';
    removeOwnState(stateDir);
    const msg = err instanceof Error ? err.message : String(err);
    throw new DesktopError(
      `desktop :${display} failed to start: ${msg}` +
        (tail ? `\n--- ${logName}.log ---\n${tail}` : ''),
      err instanceof DesktopError ? err.code : 'start-failed',
    );
  };

  // 1. Xvfb. -displayfd makes it write the display number once it accepts clients: a
  // readiness signal from our own server, which a poll of the socket cannot tell apart from
  // another server that won a race for the same display. -noreset keeps root properties when
  // the last client disconnects; -fbdir keeps the screen as an mmap'able XWD file.
  let xvfb: ChildProcess;
  try {
    xvfb = await spawnDaemon(
      bins.xvfb,
      [
        `:${display}`,
        ...[
          '-screen',
          '0',
          size,
          '-fbdir',
          fbDir,
          '-nolisten',
          'tcp',
          '-ac',
          '-noreset',
          '-dpi',
          '96',
        ],
        ...['+extension', 'XTEST', '+extension', 'RANDR', '-displayfd', '3'],
      ],
      clientEnv(env),
      logOf('xvfb'),
      ['pipe'],
    );
  } catch (err) {
    return fail(err, 'xvfb');
  }
  recordPid(pids, xvfb.pid as number, 'xvfb');
  try {
    const t0 = performance.now();
    const said = await firstLineOnFd3(xvfb, 'Xvfb', stepTimeout);
    if (said !== String(display)) {
      throw new DesktopError(`Xvfb reported display ${said}, not ${display}`, 'start-failed');
    }
    const info = await probeDisplay(display, stepTimeout);
    if (!info) throw new DesktopError(`X display :${display} does not answer`, 'start-failed');
    timings.xvfb = round(performance.now() - t0);
    log(`Xvfb :${display} ready in ${timings.xvfb} ms`);
  } catch (err) {
    const text = logTail(logOf('xvfb'), 40);
    if (
      /already active|Cannot establish any listening sockets|Could not create server lock/i.test(
        text,
      )
    ) {
      await stopRecorded(pids, { graceMs: 500 });
      removeOwnState(stateDir);
      return 'busy';
    }
    return fail(err, 'xvfb');
  }

  // The window manager needs only X, and takes longer to get ready than the buses (it loads
  // its theme and fonts): start it now and wait for it last, so the two overlap.
  let aborted = false;
  let wmReady: Promise<void> | null = null;
  if (wm && bins.openbox) {
    const t0 = performance.now();
    let o: ChildProcess;
    try {
      const config = openboxConfig(xdg);
      o = await spawnDaemon(
        bins.openbox,
        ['--sm-disable', ...(config ? ['--config-file', config] : [])],
        clientEnv(env),
        logOf('openbox'),
      );
    } catch (err) {
      return fail(err, 'openbox');
    }
    recordPid(pids, o.pid as number, 'openbox');
    let exited: number | string | null = null;
    o.once('exit', (code, sig) => {
      exited = code ?? sig;
    });
    wmReady = pollUntil(
      async () => {
        if (exited !== null) throw new DesktopError(`openbox exited (${exited})`, 'start-failed');
        if (aborted) throw new DesktopError('bring-up aborted', 'start-failed');
        return windowManagerCheck(display, 1000);
      },
      { timeoutMs: stepTimeout, intervalMs: 5, what: 'openbox (_NET_SUPPORTING_WM_CHECK)' },
    ).then(() => {
      timings.wm = round(performance.now() - t0);
      log(`openbox ready in ${timings.wm} ms`);
    });
    // Awaited below; until then a rejection must not count as unhandled.
    wmReady.catch(() => undefined);
  }

  try {
    // 2-4. Private session bus, AT-SPI bus launcher and its bus (IsEnabled set), registry.
    const buses = await startSessionBuses({
      programs: bins,
      runtimeDir: xdg,
      logDir,
      env: clientEnv(env),
      pids,
      stepTimeoutMs: stepTimeout,
      timed: (name, ms) => {
        timings[name] = ms;
        log(`${BUS_STEP_NAMES[name]} ready in ${ms} ms`);
      },
      stepLog: (name) => {
        currentLog = name;
      },
    });
    env.DBUS_SESSION_BUS_ADDRESS = buses.sessionAddress;
    env.AT_SPI_BUS_ADDRESS = buses.a11yAddress;

    // 5. The window manager, started right after Xvfb: it needs only X.
    if (wmReady) {
      currentLog = 'openbox';
      await wmReady;
    }
  } catch (err) {
    aborted = true;
    return fail(err, currentLog);
  }

  timings.total = round(performance.now() - tAll);
  const state: DesktopState = {
    version: STATE_VERSION,
    display,
    size,
    stateDir,
    env,
    pids,
    created: new Date().toISOString(),
    windowManager: wm,
    timings,
  };
  writeState(state);
  fs.rmSync(path.join(stateDir, 'owner.json'), { force: true });
  log(`desktop :${display} ready in ${timings.total} ms`);
  return HeadlessDesktop.attach(state);
}

/** Every desktop with a state file, oldest first, with whether its X server still runs. */
export function listDesktops(): Array<{ state: DesktopState; up: boolean }> {
  return listStates().map((state) => {
    const x = state.pids.find((p) => p.name === 'xvfb');
    return { state, up: x ? isAlive(x.pid, x.start) : false };
  });
}

/**
 * The desktop to act on: the one on `display`, else the only (or most recent) one that is
 * up. Throws a DesktopError('not-up') saying what is there instead.
 */
export function findDesktop(display?: number): HeadlessDesktop {
  const all = listDesktops();
  if (display !== undefined) {
    const hit = all.find((d) => d.state.display === display);
    if (!hit) throw new DesktopError(`no axpage desktop on :${display}${upList(all)}`, 'not-up');
    if (!hit.up) {
      throw new DesktopError(
        `the axpage desktop on :${display} is not running any more (its Xvfb is gone); ` +
          `clean it up with: axpage desktop down --display ${display}`,
        'not-up',
      );
    }
    return HeadlessDesktop.attach(hit.state);
  }
  const up = all.filter((d) => d.up);
  if (up.length === 0) {
    throw new DesktopError('no axpage desktop is up; start one with: axpage desktop up', 'not-up');
  }
  return HeadlessDesktop.attach(up[up.length - 1].state);
}

function upList(all: Array<{ state: DesktopState; up: boolean }>): string {
  const up = all.filter((d) => d.up).map((d) => `:${d.state.display}`);
  return up.length ? ` (up: ${up.join(', ')})` : ' (none is up)';
}
