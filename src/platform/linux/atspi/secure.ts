/**
 * Secure (password) fields located at capture time: one Collection.GetMatches by role per
 * app (the app walks its own tree, a single round trip), then the extents of each match.
 * A few ms per app, where a walk of the app would cost tens to hundreds.
 */
import type { Element, Rect } from '../../../model/element.js';
import type { SecureFieldScan } from '../../desktop.js';
import {
  AtspiCallError,
  AtspiTimeoutError,
  withTimeout,
  type AtspiBus,
  type ObjectRef,
} from './bus.js';
import { appCall, type AppRef } from './apps.js';
import { snapshotApp } from './walk.js';
import { placeGtk4Windows, type NativeWindowBox } from './gtk4.js';
import { askExtents, frameOf } from './read.js';
import { STATE } from './states.js';
import { ROLE } from '../roles.js';
import { PlatformError } from '../../../errors.js';
import { formatId, parseId } from './ids.js';
import { looksLikeSecretPrompt, type PromptFacts } from '../prompts.js';

const COLLECTION = 'org.a11y.atspi.Collection';
/** AtspiCollectionMatchType / AtspiCollectionSortOrder values. */
const MATCH_ALL = 1;
const MATCH_ANY = 2;
/** Anything else (0 is "invalid") makes the bridge answer with no matches at all. */
const SORT_CANONICAL = 1;
/** Roles whose content is a secret (their native names are SECURE_ROLES in roles.ts). */
const SECURE_ROLES = [ROLE.PASSWORD_TEXT];

/** A bitset of 32-bit words, as match rules carry roles and states. */
function bitset(values: readonly number[], words: number): number[] {
  const bits = new Array<number>(words).fill(0);
  // `|` keeps each word a signed 32-bit number, as D-Bus 'i' wants it.
  for (const v of values) bits[v >> 5] |= 1 << (v & 31);
  return bits;
}
const roleBits = (roles: readonly number[]): number[] => bitset(roles, 4);
const stateBits = (states: readonly number[]): number[] => bitset(states, 2);

/**
 * The match rule (aiia{ss}iaiiasib): showing (as a walk reads frames only of showing
 * elements: a field in a hidden window has no place on screen), any of the roles.
 */
const SECURE_RULE = [
  stateBits([STATE.SHOWING]),
  MATCH_ALL,
  {},
  MATCH_ALL,
  roleBits(SECURE_ROLES),
  MATCH_ANY,
  [],
  MATCH_ALL,
  false,
];

/**
 * The on-screen frames of an app's secure fields, read now. Throws when the app does not
 * answer within `timeoutMs` per call or has no Collection interface: the caller must then
 * treat the app's fields as not located.
 */
export async function secureFieldFrames(
  bus: AtspiBus,
  app: { bus: string; path: string },
  timeoutMs: number,
): Promise<LocatedFields> {
  const call = await appCall(bus, app);
  const [matches] = await withTimeout(
    call(app.bus, app.path, COLLECTION, 'GetMatches', '(aiia{ss}iaiiasib)uib', [
      SECURE_RULE,
      SORT_CANONICAL,
      0,
      true,
    ]),
    timeoutMs,
    'its secure-field lookup',
  );
  const refs = matches as ObjectRef[];
  const frames = await withTimeout(
    Promise.all(refs.map(async (ref) => frameOf((await askExtents(call, ref))[0] as number[]))),
    timeoutMs,
    'its secure-field frames',
  );
  return {
    frames: frames.filter((f): f is Rect => f !== undefined && f.w > 0 && f.h > 0),
    ids: refs.map(([dest, path]) => formatId(dest, path)),
  };
}

/** An app's secure fields as located: their frames on screen and their element ids. */
export interface LocatedFields {
  frames: Rect[];
  ids: string[];
}

/**
 * The frames of elements known to hold a secret whatever their role says now (a password
 * field revealed as plain text). An element gone from the app (its dialog closed) has no
 * frame; any other failure (the app does not answer) fails the app.
 */
async function rememberedFrames(
  bus: AtspiBus,
  app: { bus: string; path: string },
  ids: readonly string[],
  timeoutMs: number,
): Promise<Rect[]> {
  if (ids.length === 0) return [];
  const call = await appCall(bus, app);
  const frames = await withTimeout(
    Promise.all(
      ids.map(async (id) => {
        try {
          return frameOf((await askExtents(call, parseId(id)))[0] as number[]);
        } catch (err) {
          if (err instanceof AtspiCallError && GONE.test(`${err.dbusName ?? ''} ${err.message}`)) {
            return undefined;
          }
          throw err;
        }
      }),
    ),
    timeoutMs,
    'its remembered password fields',
  );
  return frames.filter((f): f is Rect => f !== undefined && f.w > 0 && f.h > 0);
}

/** How a bridge answers for an object it no longer has. */
const GONE = /UnknownObject|UnknownMethod|no such object|defunct/i;

/** What the scan needs from the rest of the Linux backend. */
export interface ScanContext {
  /** The X windows (mapped ones with a pid are the apps on screen); undefined: X can't say. */
  windows(): Promise<ScanWindow[] | undefined>;
  /** Every top-level X window, popups included (GTK4 popovers are placed by them). */
  popupWindows?(): NativeWindowBox[];
  /** The app on the bus for a pid; a PlatformError 'app_gone' when there is none. */
  appRef(pid: number): Promise<AppRef>;
}

/** An X window as the scan sees it: where it is, whose, and what it says it is. */
export type ScanWindow = NativeWindowBox & PromptFacts;

const overlaps = (a: Rect, b: Rect): boolean =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/**
 * The secure fields of every app with a mapped window on `region`, each app read in
 * parallel within `timeoutMs`. Without the window list (no X), every app on the bus is
 * read: slower, never less redacted. Apps in `skip` are left out (the caller walked them
 * just now, and asking an app that is being walked only slows its walk down).
 *
 * An app that cannot be read in time is failed with its windows' frames (the caller fills
 * them whole). A window no app on the bus stands behind (no accessibility, or no pid) is
 * no app to ask: it is a prompt to fill whole when it says it asks for a secret, else it
 * has no field anyone can locate.
 */
export async function scanSecureFields(
  bus: AtspiBus,
  region: Rect,
  timeoutMs: number,
  ctx: ScanContext,
  skip: readonly number[] = [],
  remembered: ReadonlyMap<number, readonly string[]> = new Map(),
): Promise<SecureFieldScan> {
  // Listed once, as the capture is taken: which apps are on the region, and where a GTK4
  // app's windows are.
  const windows = await ctx.windows();
  const onRegion = windows?.filter((w) => w.mapped && overlaps(w, region));
  let pids = onRegion?.filter((w) => w.pid !== null).map((w) => w.pid as number);
  pids ??= (await bus.registeredApps()).flatMap((a) => (a.pid === null ? [] : [a.pid]));
  if (skip.length > 0) pids = pids.filter((pid) => !skip.includes(pid));
  const scan: SecureFieldScan = { fresh: [], failed: [], prompts: [], inaccessible: [] };
  const windowsOf = (pid: number): Rect[] =>
    (onRegion ?? []).filter((w) => w.pid === pid).map(boxOf);
  // Windows of a process with no accessibility: those that say they ask for a secret, and
  // the others.
  const inaccessibleOf = (pid: number | null): void => {
    for (const w of onRegion ?? []) {
      if (w.pid !== pid) continue;
      const list = looksLikeSecretPrompt(w) ? scan.prompts! : scan.inaccessible!;
      list.push({ pid, frame: boxOf(w) });
    }
  };
  inaccessibleOf(null);
  const deadline = Date.now() + timeoutMs;
  const slow = slowApps(bus);
  const lookup = (pid: number, until: number): Promise<LocatedFields> =>
    withTimeout(
      ctx.appRef(pid).then(async (app) => {
        const [own, kept] = await Promise.all([
          framesOf(bus, app, until, windows ?? [], ctx),
          rememberedFrames(bus, app, remembered.get(pid) ?? [], Math.max(1, until - Date.now())),
        ]);
        return { frames: [...own.frames, ...kept], ids: own.ids };
      }),
      Math.max(0, until - Date.now()),
      'its secure-field lookup',
    );
  // Without X's window list nothing says where its windows are (the caller fills it all).
  const fail = (pid: number, reason: string): void =>
    void scan.failed.push({ pid, reason, ...(onRegion ? { windows: windowsOf(pid) } : {}) });
  await Promise.all(
    [...new Set(pids)].map(async (pid) => {
      if (slow.has(pid)) {
        // It did not answer last time: no capture waits on it again until it does.
        if (!slow.get(pid)) {
          const probe = lookup(pid, Date.now() + PROBE_TIMEOUT_MS).then(
            () => void slow.delete(pid),
            () => void slow.set(pid, undefined),
          );
          slow.set(pid, probe);
        }
        fail(pid, 'not responding (it did not answer the last lookup)');
        return;
      }
      try {
        scan.fresh.push({ pid, ...(await lookup(pid, deadline)) });
      } catch (err) {
        if (err instanceof PlatformError && err.code === 'app_gone') {
          // No accessibility: no field of it can be located, so none is claimed.
          scan.fresh.push({ pid, frames: [] });
          inaccessibleOf(pid);
          return;
        }
        if (err instanceof AtspiTimeoutError) slow.set(pid, undefined);
        fail(pid, (err as Error).message);
      }
    }),
  );
  return scan;
}

const boxOf = (w: NativeWindowBox): Rect => ({ x: w.x, y: w.y, w: w.w, h: w.h });

/** How long a background lookup of an app that stopped answering may take. */
const PROBE_TIMEOUT_MS = 3000;

/**
 * Per connection: apps whose last lookup timed out, each with its background probe while
 * one runs. An app leaves the map when a probe answers.
 */
const slowByBus = new WeakMap<AtspiBus, Map<number, Promise<void> | undefined>>();

function slowApps(bus: AtspiBus): Map<number, Promise<void> | undefined> {
  let map = slowByBus.get(bus);
  if (!map) slowByBus.set(bus, (map = new Map()));
  return map;
}

/**
 * Toolkits without the Collection interface (GTK4, Qt) refuse the call by these names; Qt
 * says UnknownObject ("No such object path") for an interface it does not handle.
 */
const NO_COLLECTION = /UnknownMethod|UnknownInterface|NotSupported|UnknownObject/;

/**
 * An app's secure fields: by Collection where the app has it, else by a walk bounded by
 * the deadline (a walk cut short cannot say where every field is: that is a failure). A
 * GTK4 walk's frames are relative to their windows: they are moved to the screen as a
 * tool's walk is, and a field whose window cannot be placed fails the app (filling at its
 * window-relative spot would cover the wrong pixels and leave the field bare).
 */
async function framesOf(
  bus: AtspiBus,
  app: AppRef,
  deadline: number,
  windows: NativeWindowBox[],
  ctx: ScanContext,
): Promise<LocatedFields> {
  try {
    return await secureFieldFrames(bus, app, Math.max(1, deadline - Date.now()));
  } catch (err) {
    const said = err instanceof AtspiCallError ? `${err.dbusName ?? ''} ${err.message}` : '';
    if (!NO_COLLECTION.test(said)) throw err;
  }
  const snapshot = await snapshotApp(bus, app, {
    maxElements: 5000,
    maxDepth: 60,
    timeBudgetMs: Math.max(1, deadline - Date.now()),
  });
  if (snapshot.truncated) throw new Error(`its walk was cut short (${snapshot.truncated})`);
  const secure = (): Element[] => snapshot.elements.filter((e) => e.flags.includes('secure'));
  const before = secure().filter((e) => e.frame).length;
  placeGtk4Windows(snapshot, () => windows, ctx.popupWindows);
  const placed = secure().filter((e) => e.frame);
  if (placed.length < before) throw new Error('its password fields could not be placed on screen');
  return {
    frames: placed.map((e) => e.frame as Rect).filter((f) => f.w > 0 && f.h > 0),
    ids: secure().map((e) => e.id),
  };
}
