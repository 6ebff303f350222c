/**
 * Pins password fields to the pixels they are filled in. A field's frame comes from its
 * app (read after the pixels), the pixels from the X server: a window that moved in
 * between shows its field elsewhere than the frame says. So each field is placed relative
 * to its top-level window as listed right after the lookup, and that offset is applied to
 * the window as it was when the pixels were read (listed right before and right after
 * reading them). A window that changed between those listings, or between the pixels and
 * the lookup, or a field not inside any window of its app, cannot be pinned: the window
 * is filled whole, at every place it had around the pixels, where it shows (less the
 * windows in front of it in both listings, in the same place).
 *
 * Listings cannot see a window that left and came back between two of them (one that keeps
 * moving, under load): a window seen moving again and again lately is never pinned either
 * (see MovingWindows), filled whole at every place it was seen.
 */
import type { Rect } from '../model/element.js';
import type { DesktopWindow } from '../platform/desktop.js';
import { subtractRects } from './denied.js';

/** Top-level windows listed around a capture: right before and right after its pixels. */
export interface CaptureWindows {
  before: readonly DesktopWindow[];
  after: readonly DesktopWindow[];
}

export interface PinnedFields {
  /** The frames to fill: pinned fields, and whole windows that could not be pinned. */
  frames: Rect[];
  /** Apps with a window filled whole because it moved (or its field was not in it). */
  moved: number[];
}

const sameRect = (a: Rect, b: Rect): boolean =>
  a.x === b.x && a.y === b.y && a.w === b.w && a.h === b.h;

const contains = (outer: Rect, inner: Rect): boolean =>
  inner.x >= outer.x &&
  inner.y >= outer.y &&
  inner.x + inner.w <= outer.x + outer.w &&
  inner.y + inner.h <= outer.y + outer.h;

/** The window listed under the same X id (or, without ids, the same pid and title). */
function sameWindow(list: readonly DesktopWindow[], w: DesktopWindow): DesktopWindow | undefined {
  return list.find((o) =>
    w.id !== undefined ? o.id === w.id : o.pid === w.pid && o.title === w.title,
  );
}

/** A window that moved twice within this long is moving (one move is a window relocated). */
export const MOVING_MS = 2000;
/** How many moves within MOVING_MS make a window one that keeps moving. */
const MOVES = 2;

/** Windows (by id) seen moving lately: each one's places and when it moved. */
export class MovingWindows {
  private readonly seen = new Map<number, { last: Rect; places: Rect[]; moves: number[] }>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Notes where each window of a listing is now. */
  note(windows: readonly DesktopWindow[]): void {
    const now = this.now();
    for (const w of windows) {
      if (w.id === undefined) continue;
      const known = this.seen.get(w.id);
      if (!known) {
        this.seen.set(w.id, { last: w.frame, places: [w.frame], moves: [] });
        continue;
      }
      known.moves = known.moves.filter((t) => now - t <= MOVING_MS);
      if (known.moves.length === 0) known.places = [known.last];
      if (sameRect(known.last, w.frame)) continue;
      known.last = w.frame;
      known.moves.push(now);
      if (!known.places.some((p) => sameRect(p, w.frame))) known.places.push(w.frame);
    }
    for (const [id, k] of this.seen) {
      if (k.moves.every((t) => now - t > MOVING_MS) && !windows.some((w) => w.id === id)) {
        this.seen.delete(id);
      }
    }
  }

  /** The places of a window that keeps moving; undefined when it did not lately. */
  placesOf(w: DesktopWindow): Rect[] | undefined {
    const known = w.id === undefined ? undefined : this.seen.get(w.id);
    const now = this.now();
    if (!known || known.moves.filter((t) => now - t <= MOVING_MS).length < MOVES) return undefined;
    return known.places;
  }
}

/**
 * The frames to fill for `fields` (per app, frames as its lookup read them), given the
 * windows listed around the pixels and right after the lookup (`atLookup`). An app with no
 * window listed (its windows carry no pid) keeps its frames as read: nothing better says
 * where it is.
 */
export function pinFields(
  fields: ReadonlyArray<{ pid: number; frames: readonly Rect[] }>,
  around: CaptureWindows,
  atLookup: readonly DesktopWindow[],
  moving?: MovingWindows,
): PinnedFields {
  const frames: Rect[] = [];
  const moved = new Set<number>();
  for (const { pid, frames: found } of fields) {
    const mine = atLookup.filter((w) => w.pid === pid);
    const aroundMine = [...around.before, ...around.after].filter((w) => w.pid === pid);
    if (mine.length === 0 && aroundMine.length === 0) {
      frames.push(...found);
      continue;
    }
    for (const field of found) {
      // Its decorations too: a title bar is filled when its title holds a secret.
      const home = mine.find((w) => contains(w.outer ?? w.frame, field));
      const before = home && sameWindow(around.before, home);
      const after = home && sameWindow(around.after, home);
      if (home && before && after && !moving?.placesOf(home)) {
        if (sameRect(before.frame, after.frame) && sameRect(after.frame, home.frame)) {
          frames.push({
            ...field,
            x: field.x - home.frame.x + after.frame.x,
            y: field.y - home.frame.y + after.frame.y,
          });
          continue;
        }
      }
      // Not pinned: every window of the app, wherever it was around the pixels, where it
      // shows (a window in front of it is another app's to show).
      moved.add(pid);
      frames.push(
        field,
        ...aroundMine.flatMap((w) => shownAtPixels(w, around)),
        ...mine.flatMap((w) => shownAtPixels(w, around)),
      );
      for (const w of mine) frames.push(...(moving?.placesOf(w) ?? []));
    }
  }
  return { frames: dedupe(frames), moved: [...moved] };
}

/**
 * The parts of a window that show at the pixels: the window less the windows in front of
 * it in both listings around the pixels, where both list them in the same place (a window
 * in front in one listing only, or that moved between them, may not have been in front
 * while the pixels were read). The whole window when a listing lacks it.
 */
export function shownAtPixels(w: DesktopWindow, around: CaptureWindows | undefined): Rect[] {
  const same = (a: DesktopWindow, b: DesktopWindow): boolean =>
    a.id !== undefined ? a.id === b.id : a.pid === b.pid && a.title === b.title;
  const inFront = (list: readonly DesktopWindow[] | undefined): DesktopWindow[] | undefined => {
    const i = list?.findIndex((o) => same(o, w)) ?? -1;
    return i < 0 ? undefined : list!.slice(0, i);
  };
  const before = inFront(around?.before);
  const after = inFront(around?.after);
  if (!before || !after) return [w.frame];
  const area = (o: DesktopWindow): Rect => o.outer ?? o.frame;
  const steady = before.filter((o) => after.some((p) => same(o, p) && sameRect(area(o), area(p))));
  return subtractRects(w.frame, steady.map(area));
}

function dedupe(rects: Rect[]): Rect[] {
  const seen = new Set<string>();
  return rects.filter((r) => {
    const key = `${r.x},${r.y},${r.w},${r.h}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
