/**
 * Is an app answering, asked before anything that could hang on it. A frozen app (stopped
 * by SIGSTOP or a debugger, or stuck in a busy main loop) leaves every call unanswered,
 * and each unanswered call costs the full call timeout. The check costs far less:
 *
 * - the process state in /proc/<pid>/stat: 'T' (stopped) or 't' (traced) is frozen for
 *   sure, and nothing is sent to it;
 * - otherwise one property read on the app's root with a short deadline: it is answered
 *   from the app's main loop (a D-Bus Peer.Ping is not, with GDBus and Qt, whose worker
 *   threads answer it while the main loop is stuck).
 *
 * An app that misses the deadline counts as not responding (AtspiBus.isSilent) until it
 * answers anything; meanwhile it is probed again in the background only, one probe at a
 * time, whose reply ends the spell whenever it comes. No call waits for it twice.
 */
import { stoppedProcess } from '../proc.js';
import type { AtspiBus } from './bus.js';
import { AtspiTimeoutError } from './bus.js';
import { IFACE } from './read.js';
import { wireFor } from './wire.js';

const PROPS = 'org.freedesktop.DBus.Properties';

/**
 * How long the probe waits: a responsive app answers in about a millisecond, and in tens
 * of ms on a machine whose cores are all busy; the call timeout is 3 s.
 */
export const LIVENESS_DEADLINE_MS = 500;

/**
 * - answering: the app answered the probe.
 * - stopped: its process is stopped or traced (asked nothing).
 * - silent: it let the probe (or a call lately) go unanswered: busy or hung.
 * - gone: its process or bus name no longer exists.
 */
export type Liveness = 'answering' | 'stopped' | 'silent' | 'gone';

export interface ProbedApp {
  bus: string;
  path: string;
  pid: number;
}

/** Per connection: app bus name → its probe under way, which every caller meanwhile shares. */
const probing = new WeakMap<AtspiBus, Map<string, Promise<Liveness>>>();

/** Per connection: apps marked silent because their process was seen stopped. */
const seenStopped = new WeakMap<AtspiBus, Set<string>>();

/**
 * One app's liveness. A stopped process is not asked; an app already known to be silent
 * is answered for at once (a probe in the background tells when it is back).
 */
export async function probeApp(
  bus: AtspiBus,
  app: ProbedApp,
  deadlineMs = LIVENESS_DEADLINE_MS,
): Promise<Liveness> {
  let stopped = seenStopped.get(bus);
  if (!stopped) seenStopped.set(bus, (stopped = new Set()));
  if (stoppedProcess(app.pid)) {
    // Marked for the callers that only ask isSilent (they then skip it too).
    bus.markSilent(app.bus);
    stopped.add(app.bus);
    return 'stopped';
  }
  // Continued since: a stop is no sign of a slow app, so the next answer is waited for.
  const continued = stopped.delete(app.bus);
  if (!continued && bus.isSilent(app.bus)) {
    // Over dbus-next: its late reply, when the app gets to it, ends the spell at once.
    void ask(bus, app, deadlineMs, false);
    return 'silent';
  }
  return ask(bus, app, deadlineMs, true);
}

/** Several apps' liveness, probed in parallel: the slowest costs one deadline, not their sum. */
export async function probeApps(
  bus: AtspiBus,
  apps: readonly ProbedApp[],
  deadlineMs = LIVENESS_DEADLINE_MS,
): Promise<Map<string, Liveness>> {
  const found = await Promise.all(apps.map((a) => probeApp(bus, a, deadlineMs)));
  return new Map(apps.map((a, i) => [a.bus, found[i]]));
}

function ask(bus: AtspiBus, app: ProbedApp, deadlineMs: number, lean: boolean): Promise<Liveness> {
  let mine = probing.get(bus);
  if (!mine) probing.set(bus, (mine = new Map()));
  const map = mine;
  let pending = map.get(app.bus);
  if (!pending) {
    pending = readChildCount(bus, app, deadlineMs, lean)
      .then(
        (): Liveness => {
          bus.clearSilent(app.bus);
          return 'answering';
        },
        (err: unknown): Liveness => {
          if (err instanceof AtspiTimeoutError) {
            bus.markSilent(app.bus);
            return 'silent';
          }
          // An error reply is an answer all the same.
          return isGoneError(err) ? 'gone' : 'answering';
        },
      )
      .finally(() => map.delete(app.bus));
    map.set(app.bus, pending);
  }
  return pending;
}

/**
 * The probe itself. `lean`: over the lean connection where there is one, as every call on
 * a responsive app pays for its check (a third of dbus-next's CPU per call); a reply after
 * the deadline is dropped there, unlike on dbus-next (AtspiBus.call).
 */
async function readChildCount(
  bus: AtspiBus,
  app: ProbedApp,
  deadlineMs: number,
  lean: boolean,
): Promise<unknown[]> {
  const args: [string, string, string, string, string, unknown[]] = [
    app.bus,
    app.path,
    PROPS,
    'Get',
    'ss',
    [IFACE.Accessible, 'ChildCount'],
  ];
  const conn = lean ? await wireFor(bus) : null;
  return conn ? conn.call(...args, deadlineMs) : bus.call(...args, deadlineMs);
}

/** The bus daemon's answer for a name without an owner (the app exited). */
function isGoneError(err: unknown): boolean {
  const name = (err as { dbusName?: string }).dbusName ?? '';
  return /ServiceUnknown|NameHasNoOwner/.test(name);
}
