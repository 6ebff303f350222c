/**
 * The buses every test desktop needs whatever its display: a private D-Bus session bus,
 * the AT-SPI bus (its launcher and the launcher's dbus-daemon) with IsEnabled set, and
 * the AT-SPI registry. The X11 desktop (headless.ts) and the sway session (sway.ts) both
 * bring them up here; headless.ts's restartAccessibility uses the launcher and registry
 * steps again. Each step waits on a readiness signal, each pid is recorded.
 */
import path from 'node:path';

import dbus from 'dbus-next';

import { AtspiBus, REGISTRY } from '../platform/linux/atspi/bus.js';
import { findAtspiDaemon, findInPath, firstLineOnFd3, recordPid, spawnDaemon } from './daemons.js';
import { DesktopError } from './errors.js';
import type { RecordedPid } from './procs.js';
import { pollUntil } from './procs.js';

export interface BusPrograms {
  dbusDaemon: string;
  busLauncher: string;
  registryd: string;
}

/** The bus programs, or the list of what is missing, each with its package. */
export function findBusPrograms(): BusPrograms | { missing: string[] } {
  const found = {
    dbusDaemon: findInPath('dbus-daemon'),
    busLauncher: findAtspiDaemon('at-spi-bus-launcher'),
    registryd: findAtspiDaemon('at-spi2-registryd'),
  };
  const missing: string[] = [];
  if (!found.dbusDaemon) missing.push('dbus-daemon (package dbus)');
  if (!found.busLauncher) missing.push('at-spi-bus-launcher (package at-spi2-core)');
  if (!found.registryd) missing.push('at-spi2-registryd (package at-spi2-core)');
  return missing.length > 0 ? { missing } : (found as BusPrograms);
}

export interface BusesContext {
  programs: BusPrograms;
  /** The clients' XDG_RUNTIME_DIR (0700): the session bus socket goes there. */
  runtimeDir: string;
  logDir: string;
  /** Environment the daemons run with (the session's client environment). */
  env: NodeJS.ProcessEnv;
  /** Every pid started is appended here, in start order. */
  pids: RecordedPid[];
  stepTimeoutMs: number;
  /** Called after each step with its name and time, in ms. */
  timed: (step: 'sessionBus' | 'a11yBus' | 'registry', ms: number) => void;
  /** Called with the log name of the step starting, so a failure can show its tail. */
  stepLog: (logName: string) => void;
}

export interface Buses {
  sessionAddress: string;
  a11yAddress: string;
}

const round = (ms: number): number => Math.round(ms * 10) / 10;

/** Starting one bus daemon: the program, its environment and log, where its pid goes. */
export interface DaemonStep {
  program: string;
  env: NodeJS.ProcessEnv;
  logFile: string;
  /** The pid started is appended here (and one D-Bus activated instead, if any). */
  pids: RecordedPid[];
  /** Bound for the readiness wait. */
  timeoutMs: number;
  /** How often readiness is polled; default 5 ms. */
  intervalMs?: number;
}

/** The accessibility bus's address, from its launcher on the session bus. */
export async function a11yBusAddress(session: AtspiBus): Promise<string> {
  const [addr] = await session.call('org.a11y.Bus', '/org/a11y/bus', 'org.a11y.Bus', 'GetAddress');
  if (typeof addr !== 'string' || !addr) {
    throw new DesktopError('org.a11y.Bus.GetAddress returned no address', 'start-failed');
  }
  return addr;
}

/**
 * Starts the AT-SPI bus launcher and waits until it owns org.a11y.Bus on the session bus;
 * resolves to the a11y bus address. It must own the name before anyone calls GetAddress:
 * that call would D-Bus-activate a second launcher. NameHasOwner activates nothing.
 */
export async function startBusLauncher(session: AtspiBus, step: DaemonStep): Promise<string> {
  const l = await spawnDaemon(step.program, ['--launch-immediately'], step.env, step.logFile);
  recordPid(step.pids, l.pid as number, 'at-spi-bus-launcher');
  await pollUntil(() => session.nameHasOwner('org.a11y.Bus'), {
    timeoutMs: step.timeoutMs,
    intervalMs: step.intervalMs ?? 5,
    what: 'at-spi-bus-launcher owning org.a11y.Bus',
  });
  const owner = await session.pidOf('org.a11y.Bus');
  // Someone else's call activated another launcher first: that one is ours to stop too.
  if (owner !== l.pid) recordPid(step.pids, owner, 'at-spi-bus-launcher(activated)');
  return a11yBusAddress(session);
}

/** Tells toolkits accessibility is on: Qt checks IsEnabled before it exposes anything. */
export async function enableAccessibility(session: AtspiBus): Promise<void> {
  await session.call(
    'org.a11y.Bus',
    '/org/a11y/bus',
    'org.freedesktop.DBus.Properties',
    'Set',
    'ssv',
    ['org.a11y.Status', 'IsEnabled', new dbus.Variant('b', true)],
  );
}

/**
 * Starts the AT-SPI registry and waits until it owns its name on the a11y bus. Started by
 * us (it is D-Bus-activatable too) so we own its pid and the first app does not pay
 * activation latency; one the bus activated first is recorded as well.
 */
export async function startRegistry(a11y: AtspiBus, step: DaemonStep): Promise<void> {
  const r = await spawnDaemon(step.program, [], step.env, step.logFile);
  recordPid(step.pids, r.pid as number, 'at-spi2-registryd');
  await pollUntil(() => a11y.nameHasOwner(REGISTRY), {
    timeoutMs: step.timeoutMs,
    intervalMs: step.intervalMs ?? 5,
    what: 'at-spi2-registryd owning org.a11y.atspi.Registry',
  });
  const owner = await a11y.pidOf(REGISTRY);
  if (owner !== r.pid) recordPid(step.pids, owner, 'at-spi2-registryd(activated)');
}

/**
 * Starts the session bus, the AT-SPI bus and the registry; resolves with their addresses.
 * A step's time covers starting its daemon until it is ready (for the AT-SPI bus: until
 * the launcher gives the address); connecting to a bus and setting IsEnabled fall between
 * steps, under the log of the step before.
 */
export async function startSessionBuses(ctx: BusesContext): Promise<Buses> {
  const { programs, pids, stepTimeoutMs: timeoutMs } = ctx;
  const logOf = (n: string): string => path.join(ctx.logDir, `${n}.log`);
  const step = async <T>(
    name: 'sessionBus' | 'a11yBus' | 'registry',
    logName: string,
    fn: () => Promise<T>,
  ): Promise<T> => {
    ctx.stepLog(logName);
    const t0 = performance.now();
    const v = await fn();
    ctx.timed(name, round(performance.now() - t0));
    return v;
  };
  const opened: AtspiBus[] = [];
  try {
    // 1. Session bus. --nofork keeps the pid we spawned; the address comes on fd 3.
    const sessionAddress = await step('sessionBus', 'dbus-session', async () => {
      const socket = path.join(ctx.runtimeDir, 'bus');
      // sockaddr_un paths hold 108 bytes; a long runtime dir falls back to an abstract tmpdir.
      const listen = socket.length < 100 ? `unix:path=${socket}` : 'unix:tmpdir=/tmp';
      const d = await spawnDaemon(
        programs.dbusDaemon,
        ['--session', '--nofork', '--nopidfile', `--address=${listen}`, '--print-address=3'],
        ctx.env,
        logOf('dbus-session'),
        ['pipe'],
      );
      recordPid(pids, d.pid as number, 'dbus-session');
      return firstLineOnFd3(d, 'dbus-daemon --session', timeoutMs);
    });
    const env = { ...ctx.env, DBUS_SESSION_BUS_ADDRESS: sessionAddress };
    const session = await AtspiBus.connect(sessionAddress, timeoutMs);
    opened.push(session);

    // 2. AT-SPI bus: its launcher, the launcher's dbus-daemon, IsEnabled.
    const a11yAddress = await step('a11yBus', 'at-spi-bus-launcher', () =>
      startBusLauncher(session, {
        program: programs.busLauncher,
        env,
        logFile: logOf('at-spi-bus-launcher'),
        pids,
        timeoutMs,
      }),
    );
    const a11y = await AtspiBus.connect(a11yAddress, timeoutMs);
    opened.push(a11y);
    // The launcher's child dbus-daemon serves the a11y bus; the bus driver reports its pid.
    recordPid(pids, await a11y.pidOf('org.freedesktop.DBus'), 'a11y-dbus-daemon');
    await enableAccessibility(session);

    // 3. Registry.
    await step('registry', 'at-spi2-registryd', () =>
      startRegistry(a11y, {
        program: programs.registryd,
        env: { ...env, AT_SPI_BUS_ADDRESS: a11yAddress },
        logFile: logOf('at-spi2-registryd'),
        pids,
        timeoutMs,
      }),
    );
    return { sessionAddress, a11yAddress };
  } finally {
    for (const b of opened) b.disconnect();
  }
}
