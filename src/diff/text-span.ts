/**
 * Cutting long old/new texts down to the part that changed, so a summary line can show
 * `'…quick brown fox…' -> '…quick red fox…'` instead of two truncated heads that look
 * identical. Whole strings, never character bags.
 */
import fastDiff from 'fast-diff';

export interface TextSpan {
  old: string;
  new: string;
}

const ELLIPSIS = '…';

/** Middles longer than this are diffed on their first this-many characters only (fast-diff is O(N·D)). */
const DIFF_WINDOW = 400;

interface Hunk {
  /** Where the first change starts; the same offset in both strings. */
  start: number;
  oldLength: number;
  newLength: number;
}

function commonPrefix(p: string, q: string): number {
  const n = Math.min(p.length, q.length);
  let k = 0;
  while (k < n && p.charCodeAt(k) === q.charCodeAt(k)) k++;
  return k;
}

function commonSuffix(p: string, q: string, limit: number): number {
  let k = 0;
  while (k < limit && p.charCodeAt(p.length - 1 - k) === q.charCodeAt(q.length - 1 - k)) k++;
  return k;
}

/**
 * The first changed hunk. Stripping the common prefix and suffix bounds the change;
 * fast-diff then finds where the FIRST edit ends, so two edits far apart do not force
 * everything between them into view.
 */
function firstHunk(old: string, neu: string): Hunk {
  const prefix = commonPrefix(old, neu);
  const suffix = commonSuffix(old, neu, Math.min(old.length, neu.length) - prefix);
  const oldMid = old.slice(prefix, old.length - suffix);
  const newMid = neu.slice(prefix, neu.length - suffix);
  if (oldMid.length === 0 || newMid.length === 0) {
    return { start: prefix, oldLength: oldMid.length, newLength: newMid.length };
  }
  const ops = fastDiff(oldMid.slice(0, DIFF_WINDOW), newMid.slice(0, DIFF_WINDOW), undefined, true);
  let offset = 0;
  let k = 0;
  while (k < ops.length && ops[k][0] === fastDiff.EQUAL) offset += ops[k++][1].length;
  let oldLength = 0;
  let newLength = 0;
  for (; k < ops.length && ops[k][0] !== fastDiff.EQUAL; k++) {
    if (ops[k][0] === fastDiff.DELETE) oldLength += ops[k][1].length;
    else newLength += ops[k][1].length;
  }
  return { start: prefix + offset, oldLength, newLength };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** `text.slice(from, to)` without leaving half of a surrogate pair at either cut. */
function slicePairs(text: string, from: number, to: number): string {
  if (from > 0 && isLowSurrogate(text.charCodeAt(from))) from++;
  if (to < text.length && isHighSurrogate(text.charCodeAt(to - 1))) to--;
  return text.slice(from, Math.max(from, to));
}

/** At most `max` chars of `text` (ellipses included) showing `text[start]` after `context` chars. */
function cut(text: string, start: number, context: number, max: number): string {
  if (text.length <= max) return text;
  const from = Math.max(0, start - context);
  // The tail fits after a leading ellipsis: show as much of it as the budget allows.
  if (from > 0 && text.length - from <= max - 1) {
    return ELLIPSIS + slicePairs(text, text.length - (max - 1), text.length);
  }
  if (from === 0) return slicePairs(text, 0, max - 1) + ELLIPSIS;
  return ELLIPSIS + slicePairs(text, from, from + max - 2) + ELLIPSIS;
}

/**
 * Both strings cut to at most `maxSide` characters each (`…` marks a cut, and counts),
 * around the first place they differ, with the same amount of leading context on both
 * sides so they line up. Strings that already fit come back whole. `maxSide` below 3 is
 * treated as 3 (room for a character between two ellipses).
 */
export function textSpan(old: string, neu: string, maxSide: number): TextSpan {
  const max = Math.max(3, Math.floor(maxSide));
  if (old.length <= max && neu.length <= max) return { old, new: neu };
  const hunk = old === neu ? { start: 0, oldLength: 0, newLength: 0 } : firstHunk(old, neu);
  const widest = Math.max(hunk.oldLength, hunk.newLength);
  const room = max - 2;
  // A third of the spare room before the change; the rest shows it and what follows.
  const context =
    room > widest ? Math.floor((room - widest) / 3) : Math.min(8, Math.floor(room / 4));
  return {
    old: cut(old, hunk.start, context, max),
    new: cut(neu, hunk.start, context, max),
  };
}
