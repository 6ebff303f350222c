/**
 * Which frames to fill in a capture: the secure (password) fields of every app with a
 * window on the captured region, located at capture time, not taken from a cached walk
 * (a window that moved since would show its field at the new spot). The one exception is
 * the app a call has just walked in full: its walk is a fresh read of its fields, made at
 * the same moment, so it stands for the lookup of that app (asking the app again would
 * only slow its walk down).
 *
 * Fails closed: an app whose fields cannot be read fresh gets its last known frames (the
 * last fresh read of it, and any walk of it in hand), and the capture says so.
 */
import type { Rect, Snapshot } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import type { Desktop } from '../platform/desktop.js';
import { describeError } from '../errors.js';
import { secureFrames } from '../viewport/index.js';

/** Longest the fresh lookup may add to a capture (a frozen app must not stall it). */
export const SECURE_LOOKUP_TIMEOUT_MS = 400;

export interface Redaction {
  frames: Rect[];
  /**
   * Set when some frames are last known positions rather than fresh ones: `short` for the
   * summary's line (it is capped), `detail` with the reasons for the tree file.
   */
  stale?: { short: string; detail: string };
}

/** Names a few apps, counts many: the summary's line is capped. */
function whose(pids: readonly number[]): string {
  return pids.length <= 2 ? pids.map((p) => `pid ${p}`).join(', ') : `${pids.length} apps`;
}

/**
 * The note for apps not located now: those with known positions were filled there; of
 * those never located nor walked nothing could be filled, and the note says that too.
 */
function staleNote(known: number[], unknown: number[], why: string): Redaction['stale'] {
  const parts: string[] = [];
  if (known.length > 0) {
    parts.push(`password fields of ${whose(known)} filled at their last known positions`);
  }
  if (unknown.length > 0) {
    parts.push(`password fields of ${whose(unknown)} not located: none filled`);
  }
  const short = parts.join('; ');
  return { short, detail: `${short}: not located now (${why})` };
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
  /** pid → the frames of its last fresh read: the fallback when it stops answering. */
  private readonly lastKnown = new Map<number, Rect[]>();

  constructor(private readonly timeoutMs = SECURE_LOOKUP_TIMEOUT_MS) {}

  /**
   * The frames to fill in a capture of `region`. `views` are the walks in hand for this
   * call (the target app, an app switched to): their fields are the fallback for their app.
   * `walkedNow`: the fields of the app the call has just walked in full (see fieldsOfWalk):
   * they are that app's fresh frames, and only the other apps are looked up.
   */
  async locate(
    desktop: Desktop,
    region: Rect,
    views: readonly SnapshotView[],
    walkedNow?: WalkedFields,
  ): Promise<Redaction> {
    const own = walkedNow?.pid;
    const walked = new Map<number, Rect[]>();
    for (const v of views) {
      if (v.snapshot.pid === own) continue;
      walked.set(v.snapshot.pid, [...(walked.get(v.snapshot.pid) ?? []), ...secureFrames(v)]);
    }
    // The walked app's frames come first, in the walk's order: an early encode made with
    // them then fills the very same boxes in the very same order (see sameRedaction).
    const frames: Rect[] = [...(walkedNow?.frames ?? [])];
    if (walkedNow) this.lastKnown.set(walkedNow.pid, walkedNow.frames);
    let scan;
    try {
      scan = await desktop.secureFieldFrames(
        region,
        this.timeoutMs,
        own === undefined ? undefined : [own],
      );
    } catch (err) {
      const pids = [...new Set([...walked.keys(), ...this.lastKnown.keys()])].filter(
        (pid) => pid !== own,
      );
      return {
        frames: [...frames, ...pids.flatMap((pid) => this.fallback(pid, walked))],
        stale: {
          short: `password fields not located now: ${pids.length > 0 ? `those of ${whose(pids)} filled at their last known positions, no others` : 'none filled'}`,
          detail: `password fields not located now (${describeError(err).message}); last known positions filled: ${pids.length > 0 ? whose(pids) : 'none'}`,
        },
      };
    }
    // A backend that read the walked app anyway: its walk stands.
    const fresh = scan.fresh.filter((a) => a.pid !== own);
    const failedApps = scan.failed.filter((a) => a.pid !== own);
    for (const { pid, frames: found } of fresh) {
      this.lastKnown.set(pid, found);
      frames.push(...found);
    }
    for (const { pid } of failedApps) frames.push(...this.fallback(pid, walked));
    // An app in hand that the scan did not see (its windows carry no pid): its walk's fields.
    const seen = new Set([...fresh, ...failedApps].map((a) => a.pid));
    for (const [pid, known] of walked) if (!seen.has(pid)) frames.push(...known);
    if (failedApps.length === 0) return { frames };
    const failed = failedApps.map((f) => f.pid);
    const isKnown = (pid: number): boolean => this.lastKnown.has(pid) || walked.has(pid);
    const why = failedApps.map((f) => `pid ${f.pid}: ${f.reason}`).join('; ');
    return {
      frames,
      stale: staleNote(
        failed.filter(isKnown),
        failed.filter((p) => !isKnown(p)),
        why,
      ),
    };
  }

  private fallback(pid: number, walked: Map<number, Rect[]>): Rect[] {
    return [...(this.lastKnown.get(pid) ?? []), ...(walked.get(pid) ?? [])];
  }
}
