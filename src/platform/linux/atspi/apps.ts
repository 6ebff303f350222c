/**
 * Applications and their top-level windows, as the AT-SPI registry sees them: the app
 * list with pids, the frontmost app (the top-level with STATE_ACTIVE; the caller
 * cross-checks with X11's _NET_ACTIVE_WINDOW), and the one-time call that turns on an
 * app's bridge cache.
 */
import fs from 'node:fs';

import type { AppInfo, Frontmost } from '../../desktop.js';
import type { Rect } from '../../../model/element.js';
import type { AtspiBus, ObjectRef } from './bus.js';
import { AtspiTimeoutError, REGISTRY, ROOT_PATH } from './bus.js';
import { formatId } from './ids.js';
import { directCall, frameOf, getProp, IFACE } from './read.js';
import type { CallFn } from './read.js';
import { probeApp, probeApps } from './liveness.js';
import type { Liveness } from './liveness.js';
import { hasState, STATE } from './states.js';
import type { StateBits } from './states.js';
import { roleName } from '../roles.js';
import { fastCall } from './wire.js';

/** One registered application: its bus name and root, its pid and name. */
export interface AppRef {
  bus: string;
  path: string;
  pid: number;
  name: string;
}

export interface TopLevel {
  ref: ObjectRef;
  id: string;
  role: string;
  name: string;
  states: StateBits;
}

/** Per connection: app bus name → its peer-to-peer address ('' when it has none). */
const woken = new WeakMap<AtspiBus, Map<string, Promise<string>>>();

/**
 * Calls `Application.GetApplicationBusAddress` once per app and connection, and resolves
 * to the app's peer-to-peer address ('' when it has none). The at-spi2 ATK bridge keeps
 * its Cache interface off until a client makes this call (research gotcha 6:
 * `Cache.GetItems` answers UnknownMethod on a fresh GTK app). Toolkits without the method
 * (GTK4, Qt) just fail it; either way it is not repeated.
 */
export function wakeBridge(bus: AtspiBus, app: { bus: string; path: string }): Promise<string> {
  let map = woken.get(bus);
  if (!map) woken.set(bus, (map = new Map()));
  let address = map.get(app.bus);
  if (!address) {
    address = bus
      .call(
        app.bus,
        app.path,
        IFACE.Application,
        'GetApplicationBusAddress',
        undefined,
        undefined,
        1000,
      )
      .then(([a]) => (typeof a === 'string' ? a : ''))
      .catch((err: unknown) => {
        // A busy app may answer late: ask again next time. A refusal is final.
        if (err instanceof AtspiTimeoutError) map!.delete(app.bus);
        return '';
      });
    map.set(app.bus, address);
  }
  return address;
}

/**
 * A call function for one app: peer-to-peer where it offers a socket (no bus daemon hop),
 * else over the bus.
 */
export async function appCall(bus: AtspiBus, app: { bus: string; path: string }): Promise<CallFn> {
  return fastCall(bus, { bus: app.bus, address: await wakeBridge(bus, app) });
}

/** Registry children with their pids (apps that vanish meanwhile are left out). */
async function registryRefs(bus: AtspiBus): Promise<Array<{ ref: ObjectRef; pid: number }>> {
  const [children] = await bus.call(REGISTRY, ROOT_PATH, IFACE.Accessible, 'GetChildren');
  const out = await Promise.all(
    (children as ObjectRef[]).map(async (ref) => {
      const pid = await bus.pidOf(ref[0]).catch(() => null);
      return pid === null ? null : { ref, pid };
    }),
  );
  return out.filter((x): x is { ref: ObjectRef; pid: number } => x !== null);
}

/** The top-level windows of an app (children of its root) with role, name and states. */
export async function topLevels(call: CallFn, app: { bus: string; path: string }) {
  const [children] = await call(app.bus, app.path, IFACE.Accessible, 'GetChildren');
  const out = await Promise.all(
    (children as ObjectRef[]).map(async (ref): Promise<TopLevel | null> => {
      const [dest, path] = ref;
      try {
        const [[role], name, [states]] = await Promise.all([
          call(dest, path, IFACE.Accessible, 'GetRole'),
          getProp(call, ref, IFACE.Accessible, 'Name'),
          call(dest, path, IFACE.Accessible, 'GetState'),
        ]);
        return {
          ref,
          id: formatId(dest, path),
          role: roleName(role as number),
          name: (name as string) ?? '',
          states: states as number[],
        };
      } catch {
        return null; // closed while we looked
      }
    }),
  );
  return out.filter((t): t is TopLevel => t !== null);
}

const showing = (t: TopLevel): boolean =>
  hasState(t.states, STATE.SHOWING) && hasState(t.states, STATE.VISIBLE);

/** How long a listing waits for an app it has listed before; then its last answer stands in. */
export const LIST_WAIT_MS = 750;

interface Listed {
  /** The app's last answer, or a stand-in (process name, no windows) once it let a call time out. */
  info?: AppInfo;
  /** A read under way: at most one per app, so a hung app holds one call, not one per listing. */
  reading?: Promise<AppInfo | null>;
}

/** Per connection: app bus name → what the last listing learnt of it. */
const listed = new WeakMap<AtspiBus, Map<string, Listed>>();

/** One app's name and showing windows, straight from the app (one round of calls). */
async function readApp(call: CallFn, ref: ObjectRef, pid: number): Promise<AppInfo> {
  const [name, tops] = await Promise.all([
    getProp(call, ref, IFACE.Accessible, 'Name'),
    topLevels(call, { bus: ref[0], path: ref[1] }),
  ]);
  const visible = tops.filter(showing);
  return {
    pid,
    name: (name as string) ?? '',
    windows: visible.length,
    active: visible.some((t) => hasState(t.states, STATE.ACTIVE)),
  };
}

/**
 * Every registered app with a pid. `windows` counts the top-levels that are showing
 * (GTK keeps hidden windows around as children of the app root); `active` is true for
 * the app owning the top-level with STATE_ACTIVE.
 *
 * Each app is read on its own and concurrently, so one hung app (SIGSTOPped, busy, under
 * a modal grab) cannot hold the list up: its liveness is checked first (see liveness.ts:
 * a stopped process is asked nothing, a stuck one costs one short deadline), and an app
 * not answering is listed from its last answer as not responding. An app that answers
 * the check but is slow to read gets LIST_WAIT_MS before its last answer stands in.
 */
export async function listApps(bus: AtspiBus): Promise<AppInfo[]> {
  const refs = await registryRefs(bus);
  let memo = listed.get(bus);
  if (!memo) listed.set(bus, (memo = new Map()));
  const seen = memo;
  const present = new Set(refs.map((r) => r.ref[0]));
  for (const name of seen.keys()) if (!present.has(name)) seen.delete(name);

  const notResponding = (ref: ObjectRef, pid: number, live: Liveness = 'silent'): AppInfo => {
    const entry = seen.get(ref[0]) ?? {};
    entry.info ??= { pid, name: processName(pid), windows: 0, active: false };
    seen.set(ref[0], entry);
    return notAnswering(entry.info, live);
  };

  const read = (ref: ObjectRef, pid: number): Promise<AppInfo | null> => {
    const entry = seen.get(ref[0]) ?? {};
    seen.set(ref[0], entry);
    entry.reading ??= readApp(directCall(bus), ref, pid).then(
      (info) => {
        entry.info = info;
        entry.reading = undefined;
        return info;
      },
      () => {
        entry.reading = undefined;
        return null;
      },
    );
    return entry.reading;
  };

  const apps = await Promise.all(
    refs.map(async ({ ref, pid }): Promise<AppInfo | null> => {
      const known = seen.get(ref[0])?.info;
      const live = await probeApp(bus, { bus: ref[0], path: ref[1], pid });
      if (live === 'gone') return null;
      if (live !== 'answering') return notResponding(ref, pid, live);
      const reading = read(ref, pid);
      const info = known
        ? await Promise.race([reading, delay(LIST_WAIT_MS).then(() => known)])
        : await reading;
      if (info) return info;
      // A read that failed because the app timed out: hung, not gone.
      return bus.isSilent(ref[0]) ? notResponding(ref, pid) : null;
    }),
  );
  // What users type for a browser is its command (firefox-esr), not its AT-SPI name.
  return apps
    .filter((a): a is AppInfo => a !== null)
    .map((a) => ({ ...a, command: a.command ?? processName(a.pid) }));
}

/**
 * One app as listApps gives it, read from its known registration alone (no registry scan,
 * no other app asked). Not answering its liveness check: its last known info, marked not
 * responding. Null when it is gone or answers the check but is slower than LIST_WAIT_MS
 * to read (listApps then answers, with its handling of slow and vanished apps).
 */
export async function appInfoFor(bus: AtspiBus, app: AppRef): Promise<AppInfo | null> {
  const live = await probeApp(bus, app);
  if (live === 'gone') return null;
  if (live !== 'answering') {
    const last = listed.get(bus)?.get(app.bus)?.info;
    const info = last ?? { pid: app.pid, name: app.name || processName(app.pid), windows: 0 };
    return { ...notAnswering({ ...info, active: false }, live), command: processName(app.pid) };
  }
  // Peer-to-peer, as a walk reads: every call naming a pid takes this path.
  const read = async (): Promise<AppInfo> =>
    readApp(await appCall(bus, app), [app.bus, app.path], app.pid);
  const info = await Promise.race([read().catch(() => null), delay(LIST_WAIT_MS).then(() => null)]);
  return info && { ...info, command: processName(app.pid) };
}

/** An app's last known info, marked not responding (and why, when its process is stopped). */
function notAnswering(info: AppInfo, live: Liveness): AppInfo {
  const out: AppInfo = { ...info, active: false, responding: false };
  if (live === 'stopped') out.stopped = true;
  else delete out.stopped;
  return out;
}

/** The process's own name (/proc/<pid>/comm), for an app that never told us its name. */
function processName(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * The registered app running as `pid`, or null. When a process holds more than one
 * registration (rare: a second toolkit in the process), the one with windows wins.
 */
export async function appRefForPid(bus: AtspiBus, pid: number): Promise<AppRef | null> {
  const mine = (await registryRefs(bus)).filter((r) => r.pid === pid);
  if (mine.length === 0) return null;
  const live = await probeApps(
    bus,
    mine.map(({ ref }) => ({ bus: ref[0], path: ref[1], pid })),
  );
  const withInfo = await Promise.all(
    mine.map(async ({ ref }) => {
      // Not answering: asked nothing more (each read would wait out the call timeout).
      if (live.get(ref[0]) !== 'answering') return { ref, name: '', count: 0 };
      const [name, count] = await Promise.all([
        bus.getProperty(ref[0], ref[1], IFACE.Accessible, 'Name').catch(() => ''),
        bus.getProperty(ref[0], ref[1], IFACE.Accessible, 'ChildCount').catch(() => 0),
      ]);
      return { ref, name: name as string, count: count as number };
    }),
  );
  withInfo.sort((a, b) => b.count - a.count);
  const best = withInfo[0];
  return { bus: best.ref[0], path: best.ref[1], pid, name: best.name ?? '' };
}

/**
 * The app whose top-level has STATE_ACTIVE, with that window's title and frame; null when
 * no window is active (no window manager, or the focus is on the root window).
 */
export async function findFrontmost(bus: AtspiBus): Promise<Frontmost | null> {
  const refs = await registryRefs(bus);
  const live = await probeApps(
    bus,
    refs.map(({ ref, pid }) => ({ bus: ref[0], path: ref[1], pid })),
  );
  const hits = await Promise.all(
    refs.map(async ({ ref, pid }) => {
      // A hung app cannot be the one the user works in right now; asking it would stall.
      if (live.get(ref[0]) !== 'answering') return null;
      const tops = await topLevels(directCall(bus), { bus: ref[0], path: ref[1] }).catch(() => []);
      const active = tops.find((t) => hasState(t.states, STATE.ACTIVE) && showing(t));
      return active ? { pid, top: active } : null;
    }),
  );
  const hit = hits.find((h) => h !== null);
  if (!hit) return null;
  let frame: Rect | undefined;
  try {
    const [ext] = await bus.call(
      hit.top.ref[0],
      hit.top.ref[1],
      IFACE.Component,
      'GetExtents',
      'u',
      [0],
    );
    frame = frameOf(ext as number[]);
  } catch {
    frame = undefined;
  }
  const out: Frontmost = { pid: hit.pid, windowTitle: hit.top.name };
  if (frame) out.windowFrame = frame;
  return out;
}
