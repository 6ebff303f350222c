/**
 * Which frames to fill in a capture: the secure (password) fields of every app with a
 * window on the captured region, located at capture time, not taken from a cached walk
 * (a window that moved since would show its field at the new spot). The one exception is
 * the app a call has just walked in full: its walk is a fresh read of its fields, made at
 * the same moment, so it stands for the lookup of that app (asking the app again would
 * only slow its walk down).
 *
 * Fails closed: an app whose fields cannot be read fresh in time (busy, frozen) has its
 * windows on the region filled whole, and so has a window without accessibility that says
 * it asks for a password; a lookup that cannot run at all fills the whole capture. The
 * capture says so. The time the lookup may take grows with the load and with how long
 * lookups lately took, within bounds: a busy desktop gets a longer look, not a blank one.
 */
import type { Rect, Snapshot } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import { loadPerCpu } from '../model/timeout.js';
import type { Desktop, DesktopWindow } from '../platform/desktop.js';
import { describeError } from '../errors.js';
import { secureFrames } from '../viewport/index.js';
import { intersect } from '../viewport/geometry.js';
import { MovingWindows, pinFields, shownAtPixels, type CaptureWindows } from './field-pins.js';

/** Least time the fresh lookup gets: enough for an idle desktop (a few ms per app). */
export const SECURE_LOOKUP_TIMEOUT_MS = 400;
/** Most it gets, however loaded: a frozen app must not stall a capture for long. */
export const SECURE_LOOKUP_MAX_MS = 4000;
/** How many recent lookups the budget looks back on. */
const RECENT_LOOKUPS = 8;
/** A lookup that took this share of its budget ran out. */
const RAN_OUT = 0.9;
/** The budget is this many times the slowest recent lookup: room for a slower one. */
const HEADROOM = 3;

/**
 * The time a lookup may take: the least, scaled by the run queue per CPU when the CPUs are
 * busy, and at least HEADROOM times the slowest recent lookup; never past the most.
 * `recentMs`: how long recent lookups took (one that ran out counts twice its budget).
 * `loadPerCpu`: runnable tasks per CPU (1: all busy).
 */
export function lookupBudget(
  recentMs: readonly number[],
  loadPerCpu: number,
  least = SECURE_LOOKUP_TIMEOUT_MS,
  most = SECURE_LOOKUP_MAX_MS,
): number {
  const byLoad = least * Math.max(1, Number.isFinite(loadPerCpu) ? loadPerCpu : 1);
  const byHistory = HEADROOM * Math.max(0, ...recentMs.filter(Number.isFinite));
  return Math.round(Math.min(most, Math.max(least, byLoad, byHistory)));
}

export interface Redaction {
  frames: Rect[];
  /**
   * Set when some frames stand for fields not located now (windows filled whole, last known
   * positions): `short` for the summary's line (it is capped), `detail` with the reasons for
   * the tree file.
   */
  stale?: { short: string; detail: string };
}

/** Names a few apps, counts many: the summary's line is capped. */
function whose(pids: readonly number[]): string {
  return pids.length <= 2 ? pids.map((p) => `pid ${p}`).join(', ') : `${pids.length} apps`;
}

/**
 * The note for what was filled without a fresh location: apps not located, windows that
 * moved around the capture, prompts.
 */
function staleNote(
  failed: number[],
  prompts: number,
  why: string,
  moved: number[] = [],
  bare = 0,
  fieldMoved: number[] = [],
): Redaction['stale'] {
  const parts: string[] = [];
  if (moved.length > 0) {
    parts.push(`windows of ${whose(moved)} filled whole: they moved while the screen was read`);
  }
  if (fieldMoved.length > 0) {
    parts.push(
      `windows of ${whose(fieldMoved)} filled whole where they show: a password field in them moved`,
    );
  }
  if (failed.length > 0) {
    parts.push(`windows of ${whose(failed)} filled whole: password fields not located in time`);
  }
  if (prompts > 0) {
    parts.push(
      `${prompts} window${prompts === 1 ? '' : 's'} without accessibility that ask${prompts === 1 ? 's' : ''} for a password filled whole`,
    );
  }
  if (bare > 0) {
    parts.push(
      `${bare} other window${bare === 1 ? '' : 's'} without accessibility filled whole (safe mode: nothing says where ${bare === 1 ? 'its' : 'their'} password fields are)`,
    );
  }
  if (parts.length === 0) return undefined;
  const short = parts.join('; ');
  return { short, detail: why ? `${short} (${why})` : short };
}

/** An app's password fields as a complete walk of it just found them. */
export interface WalkedFields {
  pid: number;
  frames: Rect[];
}

/**
 * The password fields of a walk that can stand for a fresh lookup of its app: a walk that
 * was not cut short, where every password field on screen has its frame. A field without a
 * frame that does not say it is off screen (a GTK4 window that could not be placed) leaves
 * the app to the lookup, which fails closed on it. Undefined when the walk cannot stand.
 */
export function fieldsOfWalk(snapshot: Snapshot): WalkedFields | undefined {
  if (snapshot.truncated !== null) return undefined;
  const frames: Rect[] = [];
  for (const el of snapshot.elements) {
    if (!el.flags.includes('secure')) continue;
    if (!el.frame) {
      if (el.flags.includes('offscreen')) continue;
      return undefined;
    }
    if (el.frame.w > 0 && el.frame.h > 0) frames.push(el.frame);
  }
  return { pid: snapshot.pid, frames };
}

export class SecureFieldLocator {
  /** pid → the frames of its last fresh read: filled too when it stops answering. */
  private readonly lastKnown = new Map<number, Rect[]>();
  /**
   * pid → its fields as last located (ids, frames, and the origin of the window each was in
   * then): read again before the next pixels, and compared with where they are now.
   */
  private readonly lastFields = new Map<number, TrackedField[]>();
  /** Field id → when it was last seen moving, whose, and where (see movedFields). */
  private readonly fieldMoves = new Map<string, { at: number; pid: number; box: Rect }>();
  /** How long recent lookups took, newest last (see lookupBudget). */
  private readonly recentMs: number[] = [];
  /** Windows seen moving lately, from the listings around captures (see pinFields). */
  private readonly moving: MovingWindows;

  /**
   * `fillInaccessible`: fill whole every window no accessible app stands behind (safe
   * mode: nothing says where its password fields are). `load`: runnable tasks per CPU now;
   * `now`: a clock in ms (both for tests).
   */
  constructor(
    private readonly fillInaccessible = false,
    private readonly load: () => number = loadPerCpu,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.moving = new MovingWindows(now);
  }

  /** The budget the next lookup gets. */
  budget(): number {
    return lookupBudget(this.recentMs, this.load());
  }

  private noteLookup(ms: number): void {
    this.recentMs.push(ms);
    if (this.recentMs.length > RECENT_LOOKUPS) this.recentMs.shift();
  }

  /**
   * Where the fields located last are now, read right before the pixels (pass it to
   * locate): a field that moves inside a window that stays put (scrolled, animated) is
   * found at one place after the pixels and may have been at another while they were read.
   * At most MAX_TRACKED fields, each read within TRACK_MS; one that cannot be read has no
   * entry.
   */
  async framesBefore(desktop: Desktop): Promise<Map<string, Rect>> {
    const ids = [...this.lastFields.values()].flat().slice(0, MAX_TRACKED);
    const out = new Map<string, Rect>();
    await Promise.all(
      ids.map(async ({ id }) => {
        const frame = await Promise.race([
          desktop.readElement(id).then((e) => e.frame),
          new Promise<undefined>((r) => setTimeout(() => r(undefined), TRACK_MS)),
        ]).catch(() => undefined);
        if (frame && frame.w > 0 && frame.h > 0) out.set(id, frame);
      }),
    );
    return out;
  }

  /**
   * The frames to fill in a capture of `region`. `views` are the walks in hand for this
   * call (the target app, an app switched to): their fields are filled too. `walkedNow`:
   * the fields of the app the call has just walked in full (see fieldsOfWalk): they are
   * that app's fresh frames, and only the other apps are looked up.
   * `around`: the windows listed right before and right after the pixels were read. With
   * them, every field found is pinned to its window as it was at the pixels (see
   * pinFields), and a walked app with password fields is looked up too: its walk is older
   * than the pixels.
   */
  async locate(
    desktop: Desktop,
    region: Rect,
    views: readonly SnapshotView[],
    walkedNow?: WalkedFields,
    around?: CaptureWindows,
    earlier?: ReadonlyMap<string, Rect>,
  ): Promise<Redaction> {
    const own = around && walkedNow && walkedNow.frames.length > 0 ? undefined : walkedNow?.pid;
    const walked = new Map<number, Rect[]>();
    for (const v of views) {
      if (v.snapshot.pid === own) continue;
      walked.set(v.snapshot.pid, [...(walked.get(v.snapshot.pid) ?? []), ...secureFrames(v)]);
    }
    // The walked app's frames come first, in the walk's order: an early encode made with
    // them then fills the very same boxes in the very same order (see sameRedaction).
    const frames: Rect[] = own === undefined ? [] : [...(walkedNow?.frames ?? [])];
    if (walkedNow) this.lastKnown.set(walkedNow.pid, walkedNow.frames);
    const budget = this.budget();
    const started = this.now();
    let scan;
    try {
      scan = await desktop.secureFieldFrames(region, budget, own === undefined ? [] : [own]);
    } catch (err) {
      // Nothing says which windows are where: nothing of the region can be shown.
      const why = describeError(err).message;
      return {
        frames: [...frames, region],
        stale: {
          short: 'password fields not located now: the whole capture is filled',
          detail: `password fields not located now (${why}): the whole capture is filled`,
        },
      };
    }
    // A backend that read the walked app anyway: its walk stands.
    const fresh = scan.fresh.filter((a) => a.pid !== own);
    const failedApps = scan.failed.filter((a) => a.pid !== own);
    // A lookup that ran out (an app did not answer in time) would have taken longer: it
    // counts twice, and the next one gets more. Apps skipped as not responding cost nothing.
    const tookMs = this.now() - started;
    this.noteLookup(tookMs >= budget * RAN_OUT ? 2 * tookMs : tookMs);
    for (const { pid, frames: found } of fresh) this.lastKnown.set(pid, found);
    const movedIn = this.movedFields(earlier ?? new Map(), fresh, around);
    for (const { pid, fields } of fresh) {
      if (!fields) continue;
      const tracked = oncePerId(fields).map((f) => ({
        id: f.id,
        ...(f.frame ? { frame: f.frame, origin: originOf(pid, f.frame, around?.after) } : {}),
      }));
      this.lastFields.set(pid, tracked);
    }
    if (around) this.moving.note([...around.before, ...around.after]);
    const pinned = await this.pin(desktop, region, fresh, around);
    frames.push(...pinned.frames, ...movedIn.frames);
    for (const { pid, windows } of failedApps) {
      // A backend that cannot say where the app's windows are: the whole region.
      frames.push(...(windows ?? [region]), ...this.fallback(pid, walked));
      // Where its windows were when the pixels were read too, and wherever one that keeps
      // moving was seen lately (it may have left and come back between the listings).
      for (const w of [...(around?.before ?? []), ...(around?.after ?? [])]) {
        if (w.pid === pid) frames.push(w.frame, ...(this.moving.placesOf(w) ?? []));
      }
    }
    // An app in hand that the scan did not see (its windows carry no pid): its walk's fields.
    const seen = new Set([...fresh, ...failedApps].map((a) => a.pid));
    for (const [pid, known] of walked) if (!seen.has(pid)) frames.push(...known);
    const prompts = scan.prompts ?? [];
    frames.push(...prompts.map((p) => p.frame));
    const bare = this.fillInaccessible ? (scan.inaccessible ?? []) : [];
    frames.push(...bare.map((w) => w.frame));
    const why = failedApps.map((f) => `pid ${f.pid}: ${f.reason}`).join('; ');
    const stale = staleNote(
      failedApps.map((f) => f.pid),
      prompts.length,
      why,
      pinned.moved,
      bare.length,
      movedIn.whole,
    );
    return stale ? { frames, stale } : { frames };
  }

  /**
   * The fresh fields placed on the pixels (see pinFields); without the windows around the
   * capture, as read. A listing that fails after the lookup leaves nothing to pin to: the
   * region is filled whenever there is a field.
   */
  private async pin(
    desktop: Desktop,
    region: Rect,
    fresh: ReadonlyArray<{ pid: number; frames: Rect[] }>,
    around: CaptureWindows | undefined,
  ): Promise<{ frames: Rect[]; moved: number[] }> {
    const withFields = fresh.filter((a) => a.frames.length > 0);
    if (!around || withFields.length === 0) {
      return { frames: withFields.flatMap((a) => a.frames), moved: [] };
    }
    try {
      const atLookup = await desktop.listWindows();
      this.moving.note(atLookup);
      return pinFields(withFields, around, atLookup, this.moving);
    } catch {
      return { frames: [region], moved: withFields.map((a) => a.pid) };
    }
  }

  /**
   * What to fill for fields that move: read right before the pixels at one place and found
   * after them at another (or not found), or found elsewhere than at the last capture. The
   * screen may show any place it had meanwhile (the toolkit draws a frame behind where it
   * reports the field): while a field was seen moving in the last MOVING_MS, its window is
   * filled whole (as listed around the pixels) where it shows, else the box around the
   * places. `whole`: the apps with a window filled so.
   */
  private movedFields(
    earlier: ReadonlyMap<string, Rect>,
    fresh: ReadonlyArray<{ pid: number; fields?: ReadonlyArray<{ id: string; frame?: Rect }> }>,
    around: CaptureWindows | undefined,
  ): { frames: Rect[]; whole: number[] } {
    const at = this.now();
    const out: Rect[] = [];
    const whole = new Set<number>();
    const windowsOf = (pid: number, f: Rect): DesktopWindow[] =>
      [...(around?.before ?? []), ...(around?.after ?? [])].filter(
        (w) => w.pid === pid && intersect(w.frame, f) !== null,
      );
    for (const { pid, fields } of fresh) {
      const last = new Map((this.lastFields.get(pid) ?? []).map((f) => [f.id, f]));
      // One frame per field: the first found (see oncePerId).
      const now = new Map(oncePerId(fields ?? []).map((f) => [f.id, f.frame]));
      for (const id of new Set([...last.keys(), ...now.keys()])) {
        const before = earlier.get(id);
        const after = now.get(id);
        const then = last.get(id);
        const places = [before, after, then?.frame].filter(
          (f): f is Rect => f !== undefined && f.w > 0 && f.h > 0,
        );
        if (places.length === 0) continue;
        // Where each is in its window: a window that moves carries its fields along (its
        // own moves are MovingWindows' to judge); a field that moves in it is this one's.
        const inWindow = [
          before && within(before, originOf(pid, before, around?.before)),
          after && within(after, originOf(pid, after, around?.after)),
          then?.frame && within(then.frame, then.origin),
        ].filter((f): f is Rect => f !== undefined && f.w > 0 && f.h > 0);
        // Gone or come since the last look counts too: a field that is hidden and shown
        // again and again (revealed, then flickering) may be drawn while neither read sees it.
        const moved =
          inWindow.some((f) => !sameBox(f, inWindow[0])) ||
          (before !== undefined && !after) ||
          (then?.frame !== undefined && !after) ||
          (then === undefined && after !== undefined && this.lastFields.has(pid));
        const box = places.reduce(hull);
        if (moved) this.fieldMoves.set(id, { at, pid, box });
      }
    }
    // Every field seen moving lately, in a window of its app still listed: that window
    // whole (one gone from every read still counts, where it was last).
    for (const [id, move] of this.fieldMoves) {
      if (at - move.at > FIELD_MOVING_MS) {
        this.fieldMoves.delete(id);
        continue;
      }
      const windows = windowsOf(move.pid, move.box);
      if (windows.length > 0) {
        whole.add(move.pid);
        for (const w of windows) out.push(...shownAtPixels(w, around));
      } else if (fresh.some((a) => a.pid === move.pid)) {
        out.push(move.box);
      }
    }
    return { frames: out, whole: [...whole] };
  }

  private fallback(pid: number, walked: Map<number, Rect[]>): Rect[] {
    return [...(this.lastKnown.get(pid) ?? []), ...(walked.get(pid) ?? [])];
  }
}

/** Most fields read again before a capture, and how long each read may take. */
const MAX_TRACKED = 32;
const TRACK_MS = 150;
/** How long a field seen moving has its window filled whole. */
const FIELD_MOVING_MS = 2000;

/** A field as last located: its frame, and the origin of its window then. */
interface TrackedField {
  id: string;
  frame?: Rect;
  origin?: { x: number; y: number };
}

/** The origin of the window of `pid` that holds the frame's centre; undefined: none listed. */
function originOf(
  pid: number,
  f: Rect,
  windows: readonly { pid: number; frame: Rect }[] | undefined,
): { x: number; y: number } | undefined {
  const cx = f.x + f.w / 2;
  const cy = f.y + f.h / 2;
  const w = windows?.find(
    (v) =>
      v.pid === pid &&
      cx >= v.frame.x &&
      cy >= v.frame.y &&
      cx < v.frame.x + v.frame.w &&
      cy < v.frame.y + v.frame.h,
  );
  return w && { x: w.frame.x, y: w.frame.y };
}

/** The fields less any that repeats an id found before it: each field once, as first found. */
function oncePerId<F extends { id: string }>(fields: readonly F[]): F[] {
  const seen = new Set<string>();
  return fields.filter((f) => !seen.has(f.id) && seen.add(f.id));
}

/** The frame relative to an origin (itself without one). */
const within = (f: Rect, o: { x: number; y: number } | undefined): Rect =>
  o ? { ...f, x: f.x - o.x, y: f.y - o.y } : f;

const sameBox = (a: Rect, b: Rect): boolean =>
  a.x === b.x && a.y === b.y && a.w === b.w && a.h === b.h;

function hull(a: Rect, b: Rect): Rect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y };
}
