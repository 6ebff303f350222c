/**
 * The buses every test desktop needs whatever its display: a private D-Bus session bus,
 * the AT-SPI bus (its launcher and the launcher's dbus-daemon) with IsEnabled set, and
 * the AT-SPI registry. The same sequence as the X11 desktop (headless.ts), for a display
 * session that is not X: each step waits on a readiness signal, each pid is recorded.
 */
import path from 'node:path';

import dbus from 'dbus-next';

import { AtspiBus, REGISTRY } from '../platform/linux/atspi/bus.js';
import { findAtspiDaemon, findInPath, firstLineOnFd3, recordPid, spawnDaemon } from './daemons.js';
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

/** Starts the session bus, the AT-SPI bus and the registry; resolves with their addresses. */
export async function startSessionBuses(ctx: BusesContext): Promise<Buses> {
  const { programs, pids, stepTimeoutMs: timeoutMs } = ctx;
  const logOf = (n: string): string => path.join(ctx.logDir, `${n}.log`);
  const opened: AtspiBus[] = [];
  try {
    // 1. Session bus. --nofork keeps the pid we spawned; the address comes on fd 3.
    ctx.stepLog('dbus-session');
    let t0 = performance.now();
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
    const sessionAddress = await firstLineOnFd3(d, 'dbus-daemon --session', timeoutMs);
    ctx.timed('sessionBus', round(performance.now() - t0));

    // 2. AT-SPI bus launcher. It must own org.a11y.Bus before anyone calls GetAddress: that
    // call would D-Bus-activate a second launcher. NameHasOwner activates nothing.
    ctx.stepLog('at-spi-bus-launcher');
    t0 = performance.now();
    const env = { ...ctx.env, DBUS_SESSION_BUS_ADDRESS: sessionAddress };
    const session = await AtspiBus.connect(sessionAddress, timeoutMs);
    opened.push(session);
    const l = await spawnDaemon(
      programs.busLauncher,
      ['--launch-immediately'],
      env,
      logOf('at-spi-bus-launcher'),
    );
    recordPid(pids, l.pid as number, 'at-spi-bus-launcher');
    await pollUntil(() => session.nameHasOwner('org.a11y.Bus'), {
      timeoutMs,
      intervalMs: 5,
      what: 'at-spi-bus-launcher owning org.a11y.Bus',
    });
    const owner = await session.pidOf('org.a11y.Bus');
    if (owner !== l.pid) recordPid(pids, owner, 'at-spi-bus-launcher(activated)');
    const [addr] = await session.call(
      'org.a11y.Bus',
      '/org/a11y/bus',
      'org.a11y.Bus',
      'GetAddress',
    );
    if (typeof addr !== 'string' || !addr) {
      throw new Error('org.a11y.Bus.GetAddress returned no address');
    }
    const a11y = await AtspiBus.connect(addr, timeoutMs);
    opened.push(a11y);
    // The launcher's child dbus-daemon serves the a11y bus; the bus driver reports its pid.
    recordPid(pids, await a11y.pidOf('org.freedesktop.DBus'), 'a11y-dbus-daemon');
    // Qt checks IsEnabled before it exposes anything; GTK does not need it.
    await session.call(
      'org.a11y.Bus',
      '/org/a11y/bus',
      'org.freedesktop.DBus.Properties',
      'Set',
      'ssv',
      ['org.a11y.Status', 'IsEnabled', new dbus.Variant('b', true)],
    );
    ctx.timed('a11yBus', round(performance.now() - t0));

    // 3. Registry, started by us (it is D-Bus-activatable too) so we own its pid.
    ctx.stepLog('at-spi2-registryd');
    t0 = performance.now();
    const r = await spawnDaemon(
      programs.registryd,
      [],
      { ...env, AT_SPI_BUS_ADDRESS: addr },
      logOf('at-spi2-registryd'),
    );
    recordPid(pids, r.pid as number, 'at-spi2-registryd');
    await pollUntil(() => a11y.nameHasOwner(REGISTRY), {
      timeoutMs,
      intervalMs: 5,
      what: 'at-spi2-registryd owning org.a11y.atspi.Registry',
    });
    const reg = await a11y.pidOf(REGISTRY);
    if (reg !== r.pid) recordPid(pids, reg, 'at-spi2-registryd(activated)');
    ctx.timed('registry', round(performance.now() - t0));
    return { sessionAddress, a11yAddress: addr };
  } finally {
    for (const b of opened) b.disconnect();
  }
}
