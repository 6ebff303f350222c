/**
 * Elements that move on their own: a busy indicator's accessible extents turn with its
 * drawing (GTK 4 computes them from what it renders), so every walk finds it somewhere
 * else. Such a move is no action's effect: counted as one, a click on nothing reads as
 * confirmed and the wait for a late real effect is cut short. Told by behaviour, not by
 * role or toolkit: an element whose only change is its frame, that keeps moving while it
 * is read again with no input sent, and stays where it was within a few of its own sizes
 * (a scrolled or sliding element goes somewhere and stops). Remembered per app with the
 * area it moves in, so a later call drops its moves there without reading it again.
 */
import type { Modification, TreeDiff } from '../model/diff.js';
import type { Rect, Snapshot } from '../model/element.js';
import { scaledByLoad } from '../model/timeout.js';

/** At most this many frame-only changes are read again: more is a layout change (a scroll). */
const MAX_PROBED = 8;
/** Reads of each candidate, this far apart (more under load), until one moved. */
const PROBE_READS = 3;
const PROBE_GAP_MS = 40;
const PROBE_GAP_MAX_MS = 120;
/** "In place": everywhere it was seen fits in this many times its own larger side. */
const IN_PLACE_SIDES = 3;
/** Frames that differ by less than this per coordinate are the same (rounding). */
const SAME_PX = 1;

type Read = (id: string) => Promise<Rect | undefined>;

export function frameOnly(m: Modification): boolean {
  return m.changes.length > 0 && m.changes.every((c) => c.field === 'frame');
}

export function union(frames: readonly Rect[]): Rect {
  const x = Math.min(...frames.map((f) => f.x));
  const y = Math.min(...frames.map((f) => f.y));
  const r = Math.max(...frames.map((f) => f.x + f.w));
  const b = Math.max(...frames.map((f) => f.y + f.h));
  return { x, y, w: r - x, h: b - y };
}

/** Every frame lies in an area a few times the element's own size. */
export function inPlace(frames: readonly Rect[]): boolean {
  if (frames.length === 0) return false;
  const side = Math.max(1, ...frames.map((f) => Math.max(f.w, f.h)));
  const u = union(frames);
  return u.w <= IN_PLACE_SIDES * side && u.h <= IN_PLACE_SIDES * side;
}

export function sameFrame(a: Rect, b: Rect): boolean {
  return (
    Math.abs(a.x - b.x) < SAME_PX &&
    Math.abs(a.y - b.y) < SAME_PX &&
    Math.abs(a.w - b.w) < SAME_PX &&
    Math.abs(a.h - b.h) < SAME_PX
  );
}

/** Whether consecutive reads differ: the element moved while nothing was sent. */
export function kept(reads: readonly Rect[]): boolean {
  return reads.some((r, k) => k > 0 && !sameFrame(r, reads[k - 1]));
}

function within(f: Rect, box: Rect): boolean {
  return (
    f.x >= box.x - SAME_PX &&
    f.y >= box.y - SAME_PX &&
    f.x + f.w <= box.x + box.w + SAME_PX &&
    f.y + f.h <= box.y + box.h + SAME_PX
  );
}

export class RestlessElements {
  /** Per app: element id → the area it was seen moving in. */
  private readonly seen = new Map<number, Map<string, Rect>>();

  forget(pid: number): void {
    this.seen.delete(pid);
  }

  /** Ids known to move on their own in `pid` (for tests and notes). */
  known(pid: number): string[] {
    return [...(this.seen.get(pid)?.keys() ?? [])];
  }

  /**
   * `diff` without the moves of elements that move on their own. `read` reads one
   * element's frame now; `keep` is an element never to drop (the action's target: its own
   * move is what the action did).
   */
  async without(
    pid: number,
    before: Snapshot,
    after: Snapshot,
    diff: TreeDiff,
    read: Read,
    keep?: string,
  ): Promise<TreeDiff> {
    const framesOf = (m: Modification): Rect[] | undefined => {
      const a = before.elements[m.before];
      const b = after.elements[m.after];
      if (!a.frame || !b.frame || b.id === '' || b.id === keep) return undefined;
      return [a.frame, b.frame];
    };
    const candidates = diff.modified.filter((m) => frameOnly(m) && framesOf(m));
    if (candidates.length === 0) return diff;
    const app = this.seen.get(pid) ?? new Map<string, Rect>();
    const drop = new Set<Modification>();
    const toProbe: Modification[] = [];
    for (const m of candidates) {
      const frames = framesOf(m)!;
      const box = app.get(after.elements[m.after].id);
      if (box && frames.every((f) => within(f, box))) drop.add(m);
      else if (box && inPlace([box, ...frames])) {
        // Seen moving on its own, now a little further: its area grows, within bounds.
        app.set(after.elements[m.after].id, union([box, ...frames]));
        drop.add(m);
      } else toProbe.push(m);
    }
    if (toProbe.length > 0 && toProbe.length <= MAX_PROBED) {
      const gap = scaledByLoad(PROBE_GAP_MS, PROBE_GAP_MAX_MS);
      const reads = new Map<Modification, Rect[]>(toProbe.map((m) => [m, []]));
      for (let k = 0; k < PROBE_READS; k++) {
        if (k > 0) await new Promise((r) => setTimeout(r, gap));
        const open = toProbe.filter((m) => !kept(reads.get(m)!));
        if (open.length === 0) break;
        for (const m of open) {
          const f = await read(after.elements[m.after].id).catch(() => undefined);
          if (f) reads.get(m)!.push(f);
        }
      }
      for (const m of toProbe) {
        const r = reads.get(m)!;
        const frames = framesOf(m)!;
        const id = after.elements[m.after].id;
        if (kept(r) && inPlace([...frames, ...r])) {
          app.set(id, union([...frames, ...r]));
          drop.add(m);
        } else app.delete(id);
      }
    }
    if (app.size > 0) this.seen.set(pid, app);
    else this.seen.delete(pid);
    if (drop.size === 0) return diff;
    return { ...diff, modified: diff.modified.filter((m) => !drop.has(m)) };
  }
}
