/**
 * Field-by-field comparison of one element with its match. Only changes that carry
 * information count: flag and action order, sub-point frame jitter and
 * undefined-versus-empty text are not changes.
 */
import { FLAG_ORDER, type Element, type Rect } from '../model/element.js';
import type { FieldChange } from '../model/diff.js';

/** Frames that differ by less than this (in points, per coordinate) are equal. */
export const FRAME_TOLERANCE = 1;

const FLAG_RANK = new Map<string, number>(FLAG_ORDER.map((flag, rank) => [flag, rank]));

export interface ElementComparison {
  changes: FieldChange[];
  /** The only change is the frame's position; its size is the same. */
  moved: boolean;
}

function near(a: number, b: number): boolean {
  return Math.abs(a - b) < FRAME_TOLERANCE;
}

function samePosition(a: Rect, b: Rect): boolean {
  return near(a.x, b.x) && near(a.y, b.y);
}

function sameSize(a: Rect, b: Rect): boolean {
  return near(a.w, b.w) && near(a.h, b.h);
}

function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 10) / 10);
}

/** "x,y wxh", or "none" when the platform reported no frame. */
export function formatFrame(frame: Rect | undefined): string {
  if (!frame) return 'none';
  const f = formatNumber;
  return `${f(frame.x)},${f(frame.y)} ${f(frame.w)}x${f(frame.h)}`;
}

/** Flags in the tree file's order (unknown ones after, sorted), without repeats. */
export function canonicalFlags(flags: readonly string[]): string[] {
  return [...new Set(flags)].sort((p, q) => {
    const rp = FLAG_RANK.get(p) ?? FLAG_ORDER.length;
    const rq = FLAG_RANK.get(q) ?? FLAG_ORDER.length;
    return rp !== rq ? rp - rq : p < q ? -1 : p > q ? 1 : 0;
  });
}

/** Set equality for short string lists (flags, actions): order and repeats do not matter. */
function sameSet(p: readonly string[], q: readonly string[]): boolean {
  if (p.length === q.length && p.every((x, k) => x === q[k])) return true;
  const ps = new Set(p);
  const qs = new Set(q);
  if (ps.size !== qs.size) return false;
  for (const x of ps) if (!qs.has(x)) return false;
  return true;
}

function textChange(
  changes: FieldChange[],
  field: 'name' | 'value' | 'description',
  old: string | undefined,
  neu: string | undefined,
): void {
  const o = old ?? '';
  const n = neu ?? '';
  if (o !== n) changes.push({ field, old: o, new: n });
}

/** Changes from `old` to `neu` in a fixed field order; `moved` for a position-only change. */
export function compareElements(old: Element, neu: Element): ElementComparison {
  const changes: FieldChange[] = [];
  if (old.role !== neu.role) changes.push({ field: 'role', old: old.role, new: neu.role });
  textChange(changes, 'name', old.name, neu.name);
  textChange(changes, 'value', old.value, neu.value);
  textChange(changes, 'description', old.description, neu.description);
  if (!sameSet(old.flags, neu.flags)) {
    changes.push({
      field: 'flags',
      old: canonicalFlags(old.flags).join(' '),
      new: canonicalFlags(neu.flags).join(' '),
    });
  }
  if (!sameSet(old.actions, neu.actions)) {
    changes.push({ field: 'actions', old: old.actions.join(' '), new: neu.actions.join(' ') });
  }
  let moved = false;
  const of = old.frame;
  const nf = neu.frame;
  if (of || nf) {
    const same = of && nf && samePosition(of, nf) && sameSize(of, nf);
    if (!same) {
      changes.push({ field: 'frame', old: formatFrame(of), new: formatFrame(nf) });
      moved = changes.length === 1 && !!of && !!nf && sameSize(of, nf);
    }
  }
  return { changes, moved };
}
