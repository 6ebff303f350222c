/** Text folding and edit distance shared by parsing, matching and suggestions. */

/**
 * Collapses whitespace and reads `…` as `...`, so "Save As…" matches a typed
 * "save as..." and a label wrapped over two lines matches the text on one.
 */
export function collapse(text: string): string {
  // Most names need nothing: one test instead of two replaces keeps 10 000 elements cheap.
  if (!NEEDS_COLLAPSE.test(text)) return text;
  return text
    .replace(/\u2026/g, '...')
    .replace(/\s+/g, ' ')
    .trim();
}

const NEEDS_COLLAPSE = /\s\s|[^\S ]|^ | $|\u2026/;

/** collapse + lower case: the form `exact` and `contains` compare. */
export function fold(text: string): string {
  return collapse(text).toLowerCase();
}

/** Lower case without spaces, underscores or dashes: how role and key names compare. */
export function compact(text: string): string {
  return text.toLowerCase().replace(/[\s_-]+/g, '');
}

/**
 * Edit distance counting a swap of two neighbours as one edit (optimal string
 * alignment), so the usual typos (`titel`, `chekbox`) are one edit away. Returns
 * `max + 1` as soon as the distance must exceed `max`: callers only want close strings.
 */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let before = new Array<number>(b.length + 1).fill(0);
  let prev = new Array<number>(b.length + 1);
  let cur = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const cb = b.charCodeAt(j - 1);
      let v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca === cb ? 0 : 1));
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) {
        v = Math.min(v, before[j - 2] + 1);
      }
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [before, prev, cur] = [prev, cur, before];
  }
  return prev[b.length];
}

/** Up to `n` of `names` closest to `word` within `max` edits, closest first, ties in list order. */
export function closest(word: string, names: readonly string[], n: number, max: number): string[] {
  const w = compact(word);
  return names
    .map((name, i) => ({ name, i, d: editDistance(w, compact(name), max) }))
    .filter((x) => x.d <= max)
    .sort((x, y) => x.d - y.d || x.i - y.i)
    .slice(0, n)
    .map((x) => x.name);
}

/** A regex that matches `text` literally. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
