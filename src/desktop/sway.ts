/**
 * A headless sway session for tests and demos, as headless.ts is for X11: sway on the
 * wlroots headless backend with software rendering and one fixed output, a private D-Bus
 * session bus, the AT-SPI bus and registry. It returns the environment a client needs and
 * a stop() that ends every pid it recorded and removes its directories.
 *
 * Two runtime dirs, measured necessary (docs/wayland.md 2 and 4.1–4.2):
 * - sway refuses to run as root, so as root it runs as an unprivileged uid (65534) through
 *   setpriv, with a runtime dir of its own that uid owns; that dir sits directly in the
 *   system tmpdir because our private state dir (0700, ours) is closed to that uid;
 * - clients keep a runtime dir of their own, ours (Firefox refuses root with a runtime dir
 *   owned by someone else, Qt warns), and reach sway by an absolute WAYLAND_DISPLAY path.
 */
import { SharedA11yConnection } from './a11y-connection.js';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { AtspiBus } from '../platform/linux/atspi/bus.js';
import { helperPath } from '../platform/linux/wayland/input.js';
import { SwayIpc } from '../platform/linux/wayland/sway-ipc.js';
import type { SwayOutput } from '../platform/linux/wayland/sway-ipc.js';
import { launchApp } from './apps.js';
import type { LaunchedApp, LaunchOptions } from './apps.js';
import { findInPath, recordPid, spawnDaemon } from './daemons.js';
import { DesktopError, missingPrograms } from './errors.js';
import type { RecordedPid, StopReport } from './procs.js';
import { isAlive, logTail, pollUntil, stopRecorded } from './procs.js';
import { findBusPrograms, startSessionBuses } from './session-buses.js';
import type { BusPrograms } from './session-buses.js';
import { baseDir, readApps, recordApp } from './state.js';

export const SWAY_DEFAULT_SIZE = '1280x800';
/** The uid sway runs as when we are root: nobody, as measured. */
export const SWAY_DEFAULT_UID = 65534;

export interface SwayStartOptions {
  /** The output's mode, WxH; default 1280x800. */
  size?: string;
  /** The uid sway runs as when this process is root; default 65534. Ignored otherwise. */
  swayUid?: number;
  /** Bound for each step's readiness wait; default 10 s. */
  stepTimeoutMs?: number;
  /** Progress lines (one per step, with its time); default: none. */
  log?: (line: string) => void;
}

/**
 * Variables a client of the session must not inherit: an X display or another compositor
 * would pull toolkits away from ours, NO_AT_BRIDGE and GTK_A11Y turn accessibility off,
 * and the caller's buses are not the session's.
 */
export const SWAY_UNSET_VARS = [
  'DISPLAY',
  'XAUTHORITY',
  'WAYLAND_DISPLAY',
  'WAYLAND_SOCKET',
  'SWAYSOCK',
  'I3SOCK',
  'NO_AT_BRIDGE',
  'GTK_A11Y',
  'AT_SPI_BUS_ADDRESS',
  'DBUS_SESSION_BUS_ADDRESS',
  'XVFB_FB',
] as const;

/**
 * Our sway config: one output of a fixed size, no bar (none is configured), no Xwayland,
 * a known border (a title bar and 2 px sides), no swaynag, no focus following the pointer.
 */
export function swayConfig(size: string): string {
  return [
    '# Written by axpage (src/desktop/sway.ts) for a headless session.',
    `output * mode ${size} position 0 0 scale 1`,
    'xwayland disable',
    'default_border normal 2',
    'default_floating_border normal 2',
    'focus_follows_mouse no',
    'swaynag_command -',
    'seat seat0 fallback true',
    '',
  ].join('\n');
}

interface SwayPrograms {
  sway: string;
  setpriv: string | null;
}

const isRoot = (): boolean => process.getuid?.() === 0;

function findPrograms(asRoot: boolean): SwayPrograms & BusPrograms {
  const sway = findInPath('sway');
  const setpriv = asRoot ? findInPath('setpriv') : null;
  const buses = findBusPrograms();
  const missing: string[] = [];
  if (!sway) missing.push('sway (package sway)');
  if (asRoot && !setpriv) missing.push('setpriv (package util-linux), to run sway as non-root');
  if ('missing' in buses) missing.push(...buses.missing);
  if (missing.length > 0) {
    throw missingPrograms(missing);
  }
  return { sway: sway as string, setpriv, ...(buses as BusPrograms) };
}

function parseSize(size: string): { width: number; height: number } {
  const m = /^(\d{2,5})x(\d{2,5})$/.exec(size);
  if (!m) {
    throw new DesktopError(
      `bad output size ${JSON.stringify(size)}: expected WxH, e.g. 1280x800`,
      'start-failed',
    );
  }
  return { width: Number(m[1]), height: Number(m[2]) };
}

const round = (ms: number): number => Math.round(ms * 10) / 10;

/** The file in a sway session's state dir that lets later commands find it. */
const STATE_FILE = 'sway-state.json';
const STATE_VERSION = 1;

/** What `axpage desktop up --session sway` leaves for run, env and down. */
export interface SwayState {
  version: number;
  env: Record<string, string>;
  a11yAddress: string;
  pids: RecordedPid[];
  timings: Record<string, number>;
  stateDir: string;
  swayRuntimeDir: string;
  size: { width: number; height: number };
  created: string;
}

export class SwaySession {
  private stopped = false;
  private readonly apps: RecordedPid[] = [];
  private readonly a11yConn = new SharedA11yConnection(() => this.a11yAddress);

  constructor(
    /** Variables to set for clients (see processEnv). */
    readonly env: Readonly<Record<string, string>>,
    /** The AT-SPI bus address (not in env: apps find it through org.a11y.Bus, as Qt 6 must). */
    readonly a11yAddress: string,
    /** Daemons in start order. */
    private readonly daemons: RecordedPid[],
    /** Bring-up time of each step in ms (sway, sessionBus, a11yBus, registry, total). */
    readonly timings: Readonly<Record<string, number>>,
    /** Our private dir: logs, the clients' runtime dir. */
    readonly stateDir: string,
    /** sway's own runtime dir (its sockets), owned by the uid sway runs as. */
    readonly swayRuntimeDir: string,
    readonly size: { width: number; height: number },
  ) {}

  get logDir(): string {
    return path.join(this.stateDir, 'logs');
  }
  get waylandDisplay(): string {
    return this.env.WAYLAND_DISPLAY;
  }
  get swaySocket(): string {
    return this.env.SWAYSOCK;
  }
  /** Daemons in start order, then the apps started with spawnApp. */
  get pids(): RecordedPid[] {
    return [...this.daemons, ...this.apps];
  }

  /** The full environment for a process that should run in this session. */
  processEnv(extra: Record<string, string> = {}, base = process.env): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...base };
    for (const k of SWAY_UNSET_VARS) delete env[k];
    return { ...env, ...this.env, ...extra };
  }

  /** A connection to sway's IPC socket; the caller closes it. */
  ipc(timeoutMs?: number): Promise<SwayIpc> {
    return SwayIpc.connect(this.swaySocket, { timeoutMs });
  }

  /**
   * Starts a client in this session, in its own process group (recorded: stop() ends the
   * group), its output to a log file (a pipe nobody reads would stall it once full).
   * Resolves once it runs; a program that cannot start is a DesktopError.
   */
  async spawnApp(
    cmd: string,
    args: string[] = [],
    opts: { env?: Record<string, string>; cwd?: string } = {},
  ): Promise<{ pid: number; log: string }> {
    if (this.stopped) throw new DesktopError('this sway session has been stopped', 'not-up');
    // An interpreter's script names the app better than the interpreter.
    const name = path.basename(args[0] && /python|node|perl/.test(cmd) ? args[0] : cmd);
    const log = path.join(this.logDir, `app-${name}-${Date.now()}.log`);
    const child = await spawnDaemon(cmd, args, this.processEnv(opts.env), log).catch(
      (err: unknown) => {
        throw new DesktopError(
          `cannot start ${cmd} in the sway session: ${(err as Error).message}`,
          'start-failed',
        );
      },
    );
    const pid = child.pid as number;
    recordPid(this.apps, pid, `app:${name}`, true);
    return { pid, log };
  }

  /** A shared connection to this session's AT-SPI bus (closed by stop() or release()). */
  a11yBus(): Promise<AtspiBus> {
    return this.a11yConn.get();
  }

  /**
   * Starts an app in this session (own process group, recorded: stop() ends it) and waits
   * until it is registered with the AT-SPI registry and, by default, shows a window, as
   * the X11 desktop's launch does.
   */
  launch(cmd: string, args: string[] = [], opts: LaunchOptions = {}): Promise<LaunchedApp> {
    if (this.stopped) {
      return Promise.reject(new DesktopError('this sway session has been stopped', 'not-up'));
    }
    return launchApp(
      {
        env: this.processEnv(),
        logDir: this.logDir,
        a11yBus: () => this.a11yBus(),
        record: (entry) => {
          this.apps.push(entry);
          // Saved sessions keep their apps on disk too: another process's down stops them.
          if (fs.existsSync(path.join(this.stateDir, STATE_FILE))) {
            try {
              recordApp(this.stateDir, entry);
            } catch {
              // The state dir is gone (stopped from elsewhere): the record in memory counts.
            }
          }
        },
      },
      cmd,
      args,
      opts,
    );
  }

  /**
   * Writes the session's state to its state dir, so that another process can find it
   * (listSwaySessions) and run apps in it or stop it: `axpage desktop up --session sway`.
   */
  save(): void {
    const state: SwayState = {
      version: STATE_VERSION,
      env: { ...this.env },
      a11yAddress: this.a11yAddress,
      pids: this.daemons,
      timings: { ...this.timings },
      stateDir: this.stateDir,
      swayRuntimeDir: this.swayRuntimeDir,
      size: this.size,
      created: new Date().toISOString(),
    };
    const file = path.join(this.stateDir, STATE_FILE);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
    fs.renameSync(tmp, file);
  }

  /** A saved session, its apps launched by other processes included. */
  static attach(state: SwayState): SwaySession {
    const session = new SwaySession(
      state.env,
      state.a11yAddress,
      state.pids,
      state.timings,
      state.stateDir,
      state.swayRuntimeDir,
      state.size,
    );
    session.apps.push(...readApps(state.stateDir));
    return session;
  }

  /** Closes this process's connections but leaves the session running. */
  release(): void {
    this.a11yConn.close();
  }

  /**
   * Stops every recorded pid (apps first, then the daemons in reverse start order): SIGTERM,
   * then SIGKILL after a bound. Then removes both runtime dirs and the state dir.
   */
  async stop(): Promise<StopReport> {
    this.stopped = true;
    this.release();
    const report = await stopRecorded(this.pids);
    removeDirs(this.stateDir, this.swayRuntimeDir);
    return report;
  }

  /** Which recorded pids still run. */
  alive(): RecordedPid[] {
    return this.pids.filter((p) => isAlive(p.pid, p.start));
  }
}

/** Every saved sway session under our base dir, oldest first, and whether its sway runs. */
export function listSwaySessions(): Array<{ state: SwayState; up: boolean }> {
  const base = baseDir();
  const out: Array<{ state: SwayState; up: boolean }> = [];
  for (const name of fs.readdirSync(base)) {
    if (!name.startsWith('sway-')) continue;
    let state: SwayState;
    try {
      state = JSON.parse(fs.readFileSync(path.join(base, name, STATE_FILE), 'utf8')) as SwayState;
    } catch {
      continue; // not saved (a test's session), or torn down meanwhile
    }
    if (state.version !== STATE_VERSION) continue;
    const sway = state.pids.find((p) => p.name === 'sway');
    out.push({ state, up: sway !== undefined && isAlive(sway.pid, sway.start) });
  }
  return out.sort((a, b) => a.state.created.localeCompare(b.state.created));
}

/** The most recent saved sway session that is up; a DesktopError 'not-up' when none is. */
export function findSwaySession(): SwaySession {
  const up = listSwaySessions().filter((s) => s.up);
  if (up.length === 0) {
    throw new DesktopError(
      'no axpage sway session is up: start one with axpage desktop up --session sway',
      'not-up',
    );
  }
  return SwaySession.attach(up[up.length - 1].state);
}

function removeDirs(...dirs: string[]): void {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
}

/**
 * Brings up a headless sway session and returns once sway answers on IPC with its output
 * at the asked size, and the AT-SPI registry is up. Throws a DesktopError: 'missing-binary'
 * naming the packages, or 'start-failed' with the tail of the failing step's log.
 */
export async function startSway(opts: SwayStartOptions = {}): Promise<SwaySession> {
  const sizeText = opts.size ?? SWAY_DEFAULT_SIZE;
  const size = parseSize(sizeText);
  const asRoot = isRoot();
  const swayUid = asRoot ? (opts.swayUid ?? SWAY_DEFAULT_UID) : (process.getuid?.() ?? 0);
  if (!Number.isInteger(swayUid) || swayUid < 0 || (asRoot && swayUid === 0)) {
    throw new DesktopError(
      `bad swayUid ${opts.swayUid}: sway refuses to run as root, give a non-root uid`,
      'start-failed',
    );
  }
  const programs = findPrograms(asRoot);
  const timeoutMs = opts.stepTimeoutMs ?? 10_000;
  const log = opts.log ?? (() => undefined);
  const tAll = performance.now();

  // Private state (ours, 0700): logs and the clients' runtime dir.
  const stateDir = fs.mkdtempSync(path.join(baseDir(), 'sway-'));
  const logDir = path.join(stateDir, 'logs');
  const clientRuntime = path.join(stateDir, 'xdg');
  fs.mkdirSync(logDir, { mode: 0o700 });
  fs.mkdirSync(clientRuntime, { mode: 0o700 });
  // sway's runtime dir: mkdtemp makes it 0700 with a name nobody can guess; then it is
  // handed to sway's uid. Its sockets and our config live there.
  const swayRuntime = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-sway-'));
  const config = path.join(swayRuntime, 'sway.conf');
  fs.writeFileSync(config, swayConfig(sizeText), { mode: 0o600 });
  if (asRoot) {
    fs.chownSync(config, swayUid, swayUid);
    fs.chownSync(swayRuntime, swayUid, swayUid);
  }
  const logOf = (n: string): string => path.join(logDir, `${n}.log`);

  const pids: RecordedPid[] = [];
  const timings: Record<string, number> = {};
  let currentLog = 'sway';
  let ipc: SwayIpc | null = null;
  const fail = async (err: unknown): Promise<never> => {
    ipc?.close();
    await stopRecorded(pids, { graceMs: 1000 });
    const tail = logTail(logOf(currentLog), 30);
    removeDirs(stateDir, swayRuntime);
    const msg = err instanceof Error ? err.message : String(err);
    throw new DesktopError(
      `the sway session failed to start: ${msg}` +
        (tail ? `\n--- ${currentLog}.log ---\n${tail}` : ''),
      err instanceof DesktopError ? err.code : 'start-failed',
    );
  };

  // 1. sway. Its environment is built from scratch: nothing of ours (DISPLAY, a
  // WAYLAND_DISPLAY, our HOME) may leak into a compositor running as another uid.
  let sway: ChildProcess;
  const t0 = performance.now();
  const swayEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: swayRuntime,
    XDG_RUNTIME_DIR: swayRuntime,
    ...(process.env.LANG ? { LANG: process.env.LANG } : {}),
    WLR_BACKENDS: 'headless',
    WLR_HEADLESS_OUTPUTS: '1',
    WLR_LIBINPUT_NO_DEVICES: '1',
    // No GPU in CI: pixman draws in software, without GL.
    WLR_RENDERER: 'pixman',
  };
  const [cmd, args] = programs.setpriv
    ? [
        programs.setpriv,
        [
          `--reuid=${swayUid}`,
          `--regid=${swayUid}`,
          '--clear-groups',
          '--',
          programs.sway,
          '-c',
          config,
        ],
      ]
    : [programs.sway, ['-c', config]];
  try {
    sway = await spawnDaemon(cmd, args, swayEnv, logOf('sway'));
  } catch (err) {
    return fail(err);
  }
  // setpriv execs sway: the pid is sway's. Its own process group: stop() ends anything
  // sway starts too.
  recordPid(pids, sway.pid as number, 'sway', true);
  let exited: string | null = null;
  sway.once('exit', (code, sig) => {
    exited = String(code ?? sig);
  });
  let waylandDisplay: string;
  let swaySocket: string;
  try {
    // sway names its IPC socket after its uid and pid; it listens before it reads the
    // config and makes the output, so readiness is the output at our size.
    swaySocket = path.join(swayRuntime, `sway-ipc.${swayUid}.${sway.pid}.sock`);
    const output = await pollUntil(
      async (): Promise<SwayOutput | null> => {
        if (exited !== null) {
          throw new DesktopError(`sway exited (${exited}) before it was ready`, 'start-failed');
        }
        if (!ipc) {
          try {
            ipc = await SwayIpc.connect(swaySocket, { timeoutMs });
          } catch {
            // Not there yet, or there and not listening yet (bound before listen: seen as
            // a refused connection at bring-up). sway exiting ends the wait above.
            return null;
          }
        }
        const outputs = await ipc.getOutputs();
        return (
          outputs.find(
            (o) =>
              o.active &&
              o.current_mode?.width === size.width &&
              o.current_mode.height === size.height,
          ) ?? null
        );
      },
      { timeoutMs, intervalMs: 5, what: `sway with an active ${sizeText} output` },
    );
    const version = await ipc!.getVersion();
    ipc!.close();
    ipc = null;
    const sockets = fs.readdirSync(swayRuntime).filter((n) => /^wayland-\d+$/.test(n));
    if (sockets.length !== 1) {
      throw new DesktopError(
        `expected one wayland socket in ${swayRuntime}, found ${sockets.length}`,
        'start-failed',
      );
    }
    waylandDisplay = path.join(swayRuntime, sockets[0]);
    timings.sway = round(performance.now() - t0);
    log(`sway ${version.human_readable} (${output.name}) ready in ${timings.sway} ms`);
  } catch (err) {
    return fail(err);
  }

  // 2. Input devices. A headless sway has none, and its seat then offers clients no
  // pointer: an app started before a pointer exists binds one only when the capability
  // appears, and a click sent in that moment is lost (measured: the first real click after
  // the first device came missed the form now and then). A pointer and a keyboard kept
  // from here on, as a desktop with a mouse has them, close that window for every app.
  const helper = helperPath();
  if (helper) {
    currentLog = 'seat-devices';
    const t1 = performance.now();
    try {
      const devices = await spawnDaemon(
        helper,
        ['--hold'],
        { PATH: process.env.PATH ?? '/usr/bin:/bin', WAYLAND_DISPLAY: waylandDisplay },
        logOf('seat-devices'),
      );
      recordPid(pids, devices.pid as number, 'seat-devices', true);
      let gone: string | null = null;
      devices.once('exit', (code, sig) => {
        gone = String(code ?? sig);
      });
      ipc = await SwayIpc.connect(swaySocket, { timeoutMs });
      const seats = ipc;
      await pollUntil(
        async () => {
          if (gone !== null) {
            throw new DesktopError(`the input helper exited (${gone})`, 'start-failed');
          }
          // wl_seat capabilities: 1 pointer, 2 keyboard.
          const all = await seats.getSeats();
          return all.some((seat) => (seat.capabilities & 3) === 3) ? true : null;
        },
        { timeoutMs, intervalMs: 5, what: 'a seat with a pointer and a keyboard' },
      );
      ipc.close();
      ipc = null;
      timings.seatDevices = round(performance.now() - t1);
      log(`seat devices ready in ${timings.seatDevices} ms`);
    } catch (err) {
      return fail(err);
    }
  } else {
    log('no input helper built (native/build/axpage-wl-input): the seat has no pointer');
  }

  // 3–5. Session bus, AT-SPI bus, registry: run with the clients' environment.
  const env: Record<string, string> = {
    WAYLAND_DISPLAY: waylandDisplay,
    SWAYSOCK: swaySocket,
    XDG_RUNTIME_DIR: clientRuntime,
    GDK_BACKEND: 'wayland',
    QT_QPA_PLATFORM: 'wayland',
    MOZ_ENABLE_WAYLAND: '1',
    // GTK4 renders with cairo, not GL: no GPU here, and GL on llvmpipe costs a core per
    // animated window (as on the X11 desktop).
    GSK_RENDERER: 'cairo',
    GSETTINGS_BACKEND: 'memory',
    // Qt's AT-SPI bridge always on (Qt otherwise waits for a screen reader).
    QT_ACCESSIBILITY: '1',
    QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1',
  };
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const k of SWAY_UNSET_VARS) delete base[k];
  let buses: { sessionAddress: string; a11yAddress: string };
  try {
    buses = await startSessionBuses({
      programs,
      runtimeDir: clientRuntime,
      logDir,
      env: { ...base, ...env },
      pids,
      stepTimeoutMs: timeoutMs,
      timed: (step, ms) => {
        timings[step] = ms;
        log(`${step} ready in ${ms} ms`);
      },
      stepLog: (name) => {
        currentLog = name;
      },
    });
  } catch (err) {
    return fail(err);
  }
  env.DBUS_SESSION_BUS_ADDRESS = buses.sessionAddress;
  timings.total = round(performance.now() - tAll);
  log(`sway session ready in ${timings.total} ms`);
  return new SwaySession(env, buses.a11yAddress, pids, timings, stateDir, swayRuntime, size);
}
