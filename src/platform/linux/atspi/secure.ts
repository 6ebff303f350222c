/**
 * Secure (password) fields located at capture time: one Collection.GetMatches by role per
 * app (the app walks its own tree, a single round trip), then the extents of each match.
 * A few ms per app, where a walk of the app would cost tens to hundreds.
 */
import type { Element, Rect, Snapshot } from '../../../model/element.js';
import {
  sameSpot,
  succeeds,
  takesText,
  traitName,
  traitNameOf,
  traitsIn,
  type RememberedField,
} from '../../../model/field-succession.js';
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
import { isGtk4Bus, markWindowRelative, placeGtk4Windows, type NativeWindowBox } from './gtk4.js';
import { askExtents, frameOf, getProp, IFACE } from './read.js';
import { ROLE } from '../roles.js';
import { PlatformError } from '../../../errors.js';
import { formatId, parseId } from './ids.js';
import { looksLikeSecretPrompt, type PromptFacts } from '../prompts.js';
import { matching, NO_COLLECTION, showingRule } from './collection.js';

/** Roles whose content is a secret (their native names are SECURE_ROLES in roles.ts). */
const SECURE_ROLES = [ROLE.PASSWORD_TEXT];
const SECURE_RULE = showingRule(SECURE_ROLES);

/** Roles a field shown as plain text has (what a password field's successor can be). */
const PLAIN_TEXT_ROLES = [ROLE.TEXT, ROLE.ENTRY];
const PLAIN_TEXT_RULE = showingRule(PLAIN_TEXT_ROLES);

type Call = Awaited<ReturnType<typeof appCall>>;

const usable = (f: Rect | undefined): f is Rect => f !== undefined && f.w > 0 && f.h > 0;

/**
 * The on-screen frames of an app's secure fields, read now, with the fields (id, frame;
 * the name too of one not in `known`, for the memory of password fields to know it by
 * when its app builds it anew). Throws when the app does not answer within `timeoutMs` per
 * call or has no Collection interface: the caller must then treat the app's fields as not
 * located.
 */
export async function secureFieldFrames(
  bus: AtspiBus,
  app: { bus: string; path: string },
  timeoutMs: number,
  known: ReadonlySet<string> = new Set(),
): Promise<LocatedFields> {
  const call = await appCall(bus, app);
  const refs = await matching(call, app, SECURE_RULE, timeoutMs, 'its secure-field lookup');
  const fields = await withTimeout(
    Promise.all(
      refs.map(async (ref): Promise<RememberedField> => {
        const id = formatId(ref[0], ref[1]);
        const [ext, name] = await Promise.all([
          askExtents(call, ref),
          known.has(id) ? undefined : getProp(call, ref, IFACE.Accessible, 'Name').catch(() => ''),
        ]);
        const frame = frameOf(ext[0] as number[]);
        const named = typeof name === 'string' ? traitName(name) : undefined;
        return { id, ...(frame ? { frame } : {}), ...(named ? { name: named } : {}) };
      }),
    ),
    timeoutMs,
    'its secure-field frames',
  );
  return { frames: fields.map((f) => f.frame).filter(usable), fields };
}

/** An app's secure fields as located: their frames on screen, and the fields. */
export interface LocatedFields {
  frames: Rect[];
  fields: RememberedField[];
}

/** An app's secure fields as its walk found them, with the walk. */
interface WalkedFields extends LocatedFields {
  walk: Snapshot;
  /** Elements whose frames were dropped because their window could not be placed. */
  unplaced: ReadonlySet<string>;
}

/**
 * The frames of elements known to hold a secret whatever their role says now (a password
 * field revealed as plain text), located by id; an element gone from the app (its dialog
 * closed) or not on screen has no frame. Any other failure (the app does not answer) fails
 * the app.
 *
 * A remembered field that has no frame now may have been built anew by its app (a web
 * page's input turned to plain text or replaced: a new element, a new id). Every plain
 * text field on screen in its last known place is filled, and learned as the same field
 * when it has its name too (see model/field-succession.ts; a look at the app's whole tree
 * can tell more). An app whose plain text fields cannot be listed (no Collection) leaves
 * the missing fields `unsought`: the caller looks for them in its walk of the app.
 */
async function rememberedFrames(
  bus: AtspiBus,
  app: { bus: string; path: string },
  remembered: readonly RememberedField[],
  timeoutMs: number,
): Promise<LocatedFields & { unsought?: RememberedField[] }> {
  if (remembered.length === 0) return { frames: [], fields: [] };
  const call = await appCall(bus, app);
  const located = await withTimeout(
    Promise.all(remembered.map((field) => frameUnlessGone(call, parseId(field.id)))),
    timeoutMs,
    'its remembered password fields',
  );
  const frames = located.filter(usable);
  const fields: RememberedField[] = [];
  located.forEach((frame, i) => {
    if (usable(frame)) fields.push({ id: remembered[i].id, frame });
  });
  const missing = remembered.filter((f, i) => !usable(located[i]) && usable(f.frame));
  if (missing.length === 0) return { frames, fields };
  let refs: ObjectRef[];
  try {
    refs = await matching(call, app, PLAIN_TEXT_RULE, timeoutMs, 'its plain text fields');
  } catch (err) {
    const said = err instanceof AtspiCallError ? `${err.dbusName ?? ''} ${err.message}` : '';
    if (!NO_COLLECTION.test(said)) throw err;
    return { frames, fields, unsought: missing };
  }
  const ids = new Set(remembered.map((f) => f.id));
  const fresh = refs.filter(([dest, path]) => !ids.has(formatId(dest, path)));
  const successors = await withTimeout(
    Promise.all(
      fresh.map(async (ref): Promise<RememberedField | undefined> => {
        const frame = await frameUnlessGone(call, ref);
        const there = missing.filter((f) => sameSpot(frame, f.frame));
        if (!usable(frame) || there.length === 0) return undefined;
        const name = traitName(
          String((await getProp(call, ref, IFACE.Accessible, 'Name').catch(() => '')) ?? ''),
        );
        const same = name !== undefined && there.some((f) => f.name === name);
        // Filled either way; learned only as the same field (same name, same place).
        frames.push(frame);
        return same ? { id: formatId(ref[0], ref[1]), frame, name } : undefined;
      }),
    ),
    timeoutMs,
    "its plain text fields in a remembered field's place",
  );
  for (const s of successors) if (s) fields.push(s);
  return { frames, fields };
}

/** An element's frame now; none when it is gone (any other failure fails the lookup). */
async function frameUnlessGone(call: Call, ref: ObjectRef): Promise<Rect | undefined> {
  try {
    return frameOf((await askExtents(call, ref))[0] as number[]);
  } catch (err) {
    if (err instanceof AtspiCallError && GONE.test(`${err.dbusName ?? ''} ${err.message}`)) {
      return undefined;
    }
    throw err;
  }
}

/**
 * Remembered fields missing from the app, looked for in a walk of it (an app without
 * Collection): what takes text in a missing field's place is filled, and learned as that
 * field when it succeeds it (see model/field-succession.ts). Without a walk, nothing says
 * what is there now: the places are filled as they were last seen.
 */
function successorsIn(
  walk: Snapshot | undefined,
  missing: readonly RememberedField[],
): LocatedFields {
  if (!walk) return { frames: missing.map((f) => f.frame).filter(usable), fields: [] };
  const out: LocatedFields = { frames: [], fields: [] };
  walk.elements.forEach((el, i) => {
    if (el.flags.includes('secure') || !takesText(el) || !usable(el.frame)) return;
    const there = missing.filter((f) => sameSpot(el.frame, f.frame));
    const traits = traitsIn(walk, i);
    const same = missing.filter((f) => succeeds(traits, f));
    if (there.length === 0 && same.length === 0) return;
    out.frames.push(el.frame);
    if (same.length > 0) out.fields.push({ id: el.id, ...traits });
  });
  return out;
}

/**
 * Remembered fields located in a walk of their app (its frames placed on the screen, as a
 * GTK4 walk's are): one in the walk with a frame is there; one missing, or no longer on
 * screen, is looked for as rememberedFrames does (see successorsIn). One whose window
 * could not be placed fails the app, as a fresh field's does.
 */
function rememberedInWalk(
  own: WalkedFields,
  remembered: readonly RememberedField[],
): LocatedFields & { unsought?: RememberedField[] } {
  const byId = new Map(own.walk.elements.map((e) => [e.id, e]));
  const out: LocatedFields & { unsought?: RememberedField[] } = { frames: [], fields: [] };
  const missing: RememberedField[] = [];
  for (const field of remembered) {
    const el = byId.get(field.id);
    if (own.unplaced.has(field.id)) {
      throw new Error('its password fields could not be placed on screen');
    }
    if (el && usable(el.frame)) {
      out.frames.push(el.frame);
      out.fields.push({ id: field.id, frame: el.frame });
    } else if (usable(field.frame)) {
      missing.push(field);
    }
  }
  if (missing.length > 0) out.unsought = missing;
  return out;
}

/**
 * The fields found by each way of looking, each field once (the first way's, a fresh
 * lookup before the memory): a field both found by its role and remembered by its id is
 * one field, tracked from one frame. Every frame found is filled.
 */
function oncePerField(parts: readonly LocatedFields[]): LocatedFields {
  const seen = new Set<string>();
  const fields: RememberedField[] = [];
  const frames: Rect[] = [];
  for (const part of parts) {
    for (const f of part.fields) {
      if (seen.has(f.id)) continue;
      seen.add(f.id);
      fields.push(f);
    }
    for (const f of part.frames) if (!frames.some((g) => sameRect(f, g))) frames.push(f);
  }
  return { frames, fields };
}

const sameRect = (a: Rect, b: Rect): boolean =>
  a.x === b.x && a.y === b.y && a.w === b.w && a.h === b.h;

/** How a bridge answers for an object it no longer has. */
const GONE = /UnknownObject|UnknownMethod|no such object|defunct/i;

/** What the scan needs from the rest of the Linux backend. */
export interface ScanContext {
  /**
   * The session's windows (mapped ones with a pid are the apps on screen); undefined: the
   * window system cannot say.
   */
  windows(): Promise<ScanWindow[] | undefined>;
  /** The popup windows shown now (GTK4 popovers are placed by them). */
  popupWindows?(): NativeWindowBox[];
  /**
   * Every toolkit's frames are relative to its window (Wayland): Collection's extents
   * cannot be placed (they name no window), so every app is walked and placed.
   */
  windowRelativeFrames?: boolean;
  /** The app on the bus for a pid; a PlatformError 'app_gone' when there is none. */
  appRef(pid: number): Promise<AppRef>;
  /**
   * Windows of other processes drawn inside these (XEmbed plugs), clipped to their hosts;
   * absent: none can be.
   */
  plugs?(hosts: readonly ScanWindow[]): Promise<Plug[]>;
}

/** A window of one process drawn inside another's (see ScanContext.plugs). */
export interface Plug {
  pid: number | null;
  frame: Rect;
  /** The pid of the window it is drawn in. */
  hostPid: number;
}

/** An X window as the scan sees it: where it is, whose, and what it says it is. */
export type ScanWindow = NativeWindowBox & PromptFacts & { window?: number };

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
  remembered: ReadonlyMap<number, readonly RememberedField[]> = new Map(),
): Promise<SecureFieldScan> {
  // Listed once, as the capture is taken: which apps are on the region, and where a GTK4
  // app's windows are.
  const windows = await ctx.windows();
  const onRegion = windows?.filter((w) => w.mapped && overlaps(w, region));
  let pids = onRegion?.filter((w) => w.pid !== null).map((w) => w.pid as number);
  pids ??= (await bus.registeredApps()).flatMap((a) => (a.pid === null ? [] : [a.pid]));
  const scan: SecureFieldScan = { fresh: [], failed: [], prompts: [], inaccessible: [] };
  const plugs = await plugsOn(onRegion ?? [], region, ctx, scan);
  // An app with a plug in its window is read here, walked, whatever the caller walked:
  // whether its walk reached the plug's tree is what says the plug's fields are located.
  if (skip.length > 0) pids = pids.filter((pid) => !skip.includes(pid) || plugs.has(pid));
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
        const known = remembered.get(pid) ?? [];
        const hosted = plugs.get(pid);
        const readKept = (): ReturnType<typeof rememberedFrames> =>
          rememberedFrames(bus, app, known, Math.max(1, until - Date.now()));
        // Read by id, a GTK4 field's extents are relative to its window, and so is every
        // toolkit's on Wayland: such an app's remembered fields are taken from its walk,
        // placed as its fresh ones are. Other apps' are read alongside their lookup (a
        // walk, when there is one, wins).
        const early = isGtk4Bus(app.bus) || ctx.windowRelativeFrames ? undefined : readKept();
        early?.catch(() => undefined);
        const own = await framesOf(
          bus,
          app,
          until,
          windows ?? [],
          ctx,
          new Set(known.map((f) => f.id)),
          !!hosted,
        );
        const walked = 'walk' in own ? own : undefined;
        const kept = walked ? rememberedInWalk(walked, known) : await (early ?? readKept());
        if (hosted) splitPlugs(own, hosted, scan);
        const found = kept.unsought ? successorsIn(walked?.walk, kept.unsought) : undefined;
        return oncePerField([own, kept, ...(found ? [found] : [])]);
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
        // Its plugs are not located either: their windows are filled whole.
        for (const plug of plugs.get(pid) ?? []) {
          scan.failed.push({
            pid: plug.pid,
            reason: `its window is drawn inside an app whose fields could not be read (${(err as Error).message})`,
            windows: [plug.frame],
          });
        }
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

/** A plug on the region whose process is on the bus, by the bus name its tree is on. */
interface LocatablePlug {
  pid: number;
  bus: string;
  frame: Rect;
}

/**
 * The plugs on the region (windows of other processes drawn inside an app's window), by
 * the pid of the app they are in. What the plug shows is in its host's tree, below the
 * socket it is plugged into, on the plug's own bus (its app's root lists none of it): its
 * fields are located by the host's walk. A plug whose process is not on the bus is a window
 * no accessible app stands behind (filled whole in safe mode), whoever started it: nothing
 * can say what it shows. One whose app does not answer is failed (filled whole).
 */
async function plugsOn(
  onRegion: readonly ScanWindow[],
  region: Rect,
  ctx: ScanContext,
  scan: SecureFieldScan,
): Promise<Map<number, LocatablePlug[]>> {
  const out = new Map<number, LocatablePlug[]>();
  if (!ctx.plugs || onRegion.length === 0) return out;
  const found = (await ctx.plugs(onRegion)).filter(
    (p) => p.pid !== p.hostPid && overlaps(p.frame, region),
  );
  await Promise.all(
    found.map(async ({ pid, frame, hostPid }) => {
      if (pid === null) return void scan.inaccessible!.push({ pid, frame });
      try {
        const app = await ctx.appRef(pid);
        const list = out.get(hostPid) ?? [];
        out.set(hostPid, [...list, { pid, bus: app.bus, frame }]);
      } catch (err) {
        if (!(err instanceof PlatformError && err.code === 'app_gone')) {
          return void scan.failed.push({ pid, reason: (err as Error).message, windows: [frame] });
        }
        scan.inaccessible!.push({ pid, frame });
      }
    }),
  );
  return out;
}

/**
 * The fields a host's walk found on its plugs' buses, given to the plugs' apps (the caller
 * keeps its own walk of the host, the plugs' fields stand apart); a plug the walk did not
 * reach is failed (filled whole).
 */
function splitPlugs(
  own: LocatedFields & { walk?: Snapshot },
  plugs: readonly LocatablePlug[],
  scan: SecureFieldScan,
): void {
  const reached = new Set((own.walk?.elements ?? []).map((e) => parseId(e.id)[0]));
  for (const plug of plugs) {
    if (!reached.has(plug.bus)) {
      scan.failed.push({
        pid: plug.pid,
        reason: 'its window is drawn inside another app whose tree did not lead to it',
        windows: [plug.frame],
      });
      continue;
    }
    const fields = own.fields.filter((f) => parseId(f.id)[0] === plug.bus);
    const frames = fields.flatMap((f) => (usable(f.frame) ? [f.frame] : []));
    const entry = scan.fresh.find((a) => a.pid === plug.pid);
    if (entry) {
      entry.frames.push(...frames);
      entry.fields = [...(entry.fields ?? []), ...fields];
    } else {
      scan.fresh.push({ pid: plug.pid, frames, fields });
    }
  }
}

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
 * An app's secure fields: by Collection where the app has it, else by a walk bounded by
 * the deadline (a walk cut short cannot say where every field is: that is a failure). A
 * GTK4 walk's frames (every walk's on Wayland) are relative to their windows: they are moved to the screen as a
 * tool's walk is, and a field whose window cannot be placed fails the app (filling at its
 * window-relative spot would cover the wrong pixels and leave the field bare).
 */
async function framesOf(
  bus: AtspiBus,
  app: AppRef,
  deadline: number,
  windows: NativeWindowBox[],
  ctx: ScanContext,
  known: ReadonlySet<string>,
  walk = false,
): Promise<LocatedFields | WalkedFields> {
  // Collection reads the app's own tree only: a plug's, on another bus, needs the walk.
  if (!walk && !ctx.windowRelativeFrames) {
    try {
      return await secureFieldFrames(bus, app, Math.max(1, deadline - Date.now()), known);
    } catch (err) {
      const said = err instanceof AtspiCallError ? `${err.dbusName ?? ''} ${err.message}` : '';
      if (!NO_COLLECTION.test(said)) throw err;
    }
  }
  const snapshot = await snapshotApp(bus, app, {
    maxElements: 5000,
    maxDepth: 60,
    timeBudgetMs: Math.max(1, deadline - Date.now()),
  });
  if (snapshot.truncated) throw new Error(`its walk was cut short (${snapshot.truncated})`);
  const secure = (): Element[] => snapshot.elements.filter((e) => e.flags.includes('secure'));
  const framed = snapshot.elements.filter((e) => e.frame);
  if (ctx.windowRelativeFrames) markWindowRelative(snapshot);
  placeGtk4Windows(
    snapshot,
    () => windows,
    ctx.popupWindows,
    ctx.windowRelativeFrames ? 'content' : 'centred',
  );
  // Elements whose window could not be placed lose their frames: where they are is unknown.
  const unplaced = new Set(framed.filter((e) => !e.frame).map((e) => e.id));
  if (secure().some((e) => unplaced.has(e.id))) {
    throw new Error('its password fields could not be placed on screen');
  }
  const placed = secure().filter((e) => e.frame);
  return {
    walk: snapshot,
    unplaced,
    frames: placed.map((e) => e.frame as Rect).filter((f) => f.w > 0 && f.h > 0),
    fields: secure().map((e) => {
      const name = traitNameOf(e);
      return { id: e.id, ...(e.frame ? { frame: e.frame } : {}), ...(name ? { name } : {}) };
    }),
  };
}
