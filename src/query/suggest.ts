/**
 * suggestNames: the element texts closest to what a query looked for, for the
 * "nothing matched" error ("Closest names: 'Submit', 'Subscribe'").
 */
import type { Snapshot } from '../model/element.js';
import { parseQuery } from './parse.js';
import { roleMatches } from './roles.js';
import { collapse, editDistance } from './text.js';
import type { RoleSpec } from './types.js';

/** Longer texts are content, not names anyone types. */
const MAX_NAME = 120;

/**
 * Up to `n` distinct names (or descriptions / identifiers) in the snapshot closest to
 * the text the query looks for, by edit distance on the whole text or on one of its
 * words, closest first. `text` is the raw query: for `button:Sbumit` the needle is
 * "Sbumit" and names of buttons come first among equals. Values are never offered
 * (they are content, and may be secret).
 */
export function suggestNames(snapshot: Snapshot, text: string, n = 5): string[] {
  const { needles, roles } = needlesOf(text);
  if (needles.length === 0 || n <= 0) return [];
  const scored = new Map<string, { shown: string; d: number; order: number }>();
  const { elements } = snapshot;
  for (let i = 0; i < elements.length; i++) {
    const el = elements[i];
    const preferred = roles.some((r) => roleMatches(r, el.role, el.nativeRole));
    for (const raw of [el.name, el.description, el.identifier]) {
      if (!raw) continue;
      const shown = collapse(raw);
      if (shown === '' || shown.length > MAX_NAME) continue;
      const key = shown.toLowerCase();
      let d = Infinity;
      for (const needle of needles) d = Math.min(d, distance(needle, key));
      if (!Number.isFinite(d)) continue;
      if (preferred) d -= 0.25;
      const seen = scored.get(key);
      if (!seen || d < seen.d) scored.set(key, { shown, d, order: seen?.order ?? i });
    }
  }
  return [...scored.values()]
    .sort((a, b) => a.d - b.d || a.order - b.order)
    .slice(0, n)
    .map((s) => s.shown);
}

/**
 * Edit distance within a budget that grows with the needle, or Infinity. A name that
 * has a word close to the needle ("Submit form" for "sumbit") counts at that word's
 * distance plus a half, so whole-name hits rank first.
 */
function distance(needle: string, name: string): number {
  const max = needle.length <= 3 ? 1 : needle.length <= 6 ? 2 : Math.ceil(needle.length * 0.35);
  const whole = editDistance(needle, name, max);
  if (whole <= max) return whole;
  // One inside the other counts when it is most of it ("Submit" in "Submit form"), not
  // when a short name happens to sit in a long needle ("Ada" in "ada@example.com").
  const [short, long] = name.length <= needle.length ? [name, needle] : [needle, name];
  if (short.length >= 3 && short.length * 2 >= long.length && long.includes(short)) return max;
  let best = Infinity;
  if (!needle.includes(' ')) {
    for (const word of name.split(/[\s/:,.;()[\]-]+/)) {
      if (word.length === 0) continue;
      const d = editDistance(needle, word, max);
      if (d <= max) best = Math.min(best, d + 0.5);
    }
  }
  return best;
}

/** The texts (lower case) and roles a query looks for; the raw text when it does not parse. */
function needlesOf(text: string): { needles: string[]; roles: RoleSpec[] } {
  const needles = new Set<string>();
  const roles: RoleSpec[] = [];
  try {
    const q = parseQuery(text);
    const steps = q.attempts[0].steps;
    const last = steps[steps.length - 1];
    for (const t of last.terms) {
      if (t.kind === 'text' && t.match.op !== 'regex') needles.add(t.match.text.toLowerCase());
      if (t.kind === 'role') roles.push(t.role);
    }
  } catch {
    // An unparsable query is still a fine needle as typed.
  }
  if (needles.size === 0) {
    const plain = collapse(text).toLowerCase();
    if (plain !== '') needles.add(plain);
  }
  return { needles: [...needles].filter((s) => s !== ''), roles };
}
