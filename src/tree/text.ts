/**
 * Text primitives shared by the tree file and the summary: escaping that keeps every
 * value on one line, cutting with a visible `…`, and a window around the changed span
 * of an old -> new pair. Widths are counted in code points of the escaped output, so a
 * cut never splits a surrogate pair or an escape sequence.
 */

/** What a secure (password) value is always shown as, whatever a backend passed. */
export const SECURE_MASK = '•••';

/** The mark a cut leaves. */
export const ELLIPSIS = '…';

/**
 * Code points that are escaped: C0 and C1 controls and DEL (line breaks, terminal
 * escapes), the Unicode line/paragraph separators (Python's splitlines and some editors
 * break lines on them, as they do on \v \f \x1c-\x1e \x85, all within the control
 * ranges), bidi overrides and isolates (they reorder what a reader sees), the BOM, and
 * lone surrogates (they would become U+FFFD on the way to UTF-8, so bytes would not
 * say what the platform reported).
 */
const NEEDS_ESCAPE =
  // eslint-disable-next-line no-control-regex
  /[\\\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]/;

function mustEscape(cp: number): boolean {
  return (
    cp < 0x20 ||
    (cp >= 0x7f && cp <= 0x9f) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2066 && cp <= 0x2069) ||
    cp === 0xfeff ||
    (cp >= 0xd800 && cp <= 0xdfff)
  );
}

/** One code point as it appears inside a value quoted with `quote` ('' = unquoted). */
function escapeChar(ch: string, quote: string): string {
  switch (ch) {
    case '\\':
      return '\\\\';
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
  }
  if (quote !== '' && ch === quote) return '\\' + quote;
  const cp = ch.codePointAt(0) ?? 0;
  if (mustEscape(cp)) return '\\u' + cp.toString(16).padStart(4, '0');
  return ch;
}

/** Width of one escaped token: escapes are ASCII; a kept character counts as one. */
function tokenWidth(token: string, ch: string): number {
  return token === ch ? 1 : token.length;
}

/** Escapes a whole value so it is one line; `quote` is the quote char it will sit in. */
export function escapeText(text: string, quote = '"'): string {
  if (!NEEDS_ESCAPE.test(text) && (quote === '' || !text.includes(quote))) return text;
  let out = '';
  for (const ch of text) out += escapeChar(ch, quote);
  return out;
}

/** Length in code points (what "(1234 chars)" counts). */
export function charLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

export interface Clipped {
  /** Escaped text, at most `max` code points wide including a trailing `…` when cut. */
  text: string;
  cut: boolean;
  /** Code points in the original text. */
  length: number;
}

/** Escapes and cuts `text` to at most `max` (≥ 1) code points of output. */
export function clipText(text: string, max: number, quote = '"'): Clipped {
  const limit = Math.max(1, Math.floor(max));
  let out = '';
  let width = 0;
  // Output length (UTF-16) at the last point where a trailing `…` still fits.
  let fitWithMark = 0;
  for (const ch of text) {
    const token = escapeChar(ch, quote);
    const w = tokenWidth(token, ch);
    if (width + w > limit) {
      return { text: out.slice(0, fitWithMark) + ELLIPSIS, cut: true, length: charLength(text) };
    }
    out += token;
    width += w;
    if (width <= limit - 1) fitWithMark = out.length;
  }
  return { text: out, cut: false, length: charLength(text) };
}

/** Width in code points of `text` once escaped. */
function escapedWidth(chars: readonly string[], quote: string): number {
  let w = 0;
  for (const ch of chars) w += tokenWidth(escapeChar(ch, quote), ch);
  return w;
}

/** Renders chars[start..] in at most `max` code points, `…` marking each cut end. */
function windowFrom(chars: readonly string[], start: number, max: number, quote: string): string {
  const lead = start > 0 ? ELLIPSIS : '';
  let out = lead;
  let width = lead.length;
  let fitWithMark = out.length;
  for (let i = start; i < chars.length; i++) {
    const token = escapeChar(chars[i], quote);
    const w = tokenWidth(token, chars[i]);
    if (width + w > max) return out.slice(0, fitWithMark) + ELLIPSIS;
    out += token;
    width += w;
    if (width <= max - 1) fitWithMark = out.length;
  }
  return out;
}

/** Code points of the text (lone surrogates stay single entries). */
function chars(text: string): string[] {
  return Array.from(text);
}

/**
 * Both sides of an old -> new change, escaped, each at most `max` code points, cut so
 * that the changed span stays in view: the common prefix is skipped except for a little
 * context, and both sides start at the same offset so they line up for the reader.
 */
export function clipChange(
  oldText: string,
  newText: string,
  max: number,
  quote = "'",
): { old: string; new: string } {
  const limit = Math.max(4, Math.floor(max));
  const a = chars(oldText);
  const b = chars(newText);
  if (escapedWidth(a, quote) <= limit && escapedWidth(b, quote) <= limit) {
    return { old: escapeText(oldText, quote), new: escapeText(newText, quote) };
  }
  let prefix = 0;
  const shorter = Math.min(a.length, b.length);
  while (prefix < shorter && a[prefix] === b[prefix]) prefix++;
  // A quarter of the room shows what comes before the change.
  const context = Math.min(prefix, Math.floor(limit / 4));
  const start = prefix - context;
  return {
    old: windowFrom(a, start, limit, quote),
    new: windowFrom(b, start, limit, quote),
  };
}

/**
 * A path (or any long single token) cut in the middle, keeping its start and its end
 * (the file name) readable: `/home/u/…/1763790000123_click.txt`.
 */
export function clipMiddle(text: string, max: number): string {
  const limit = Math.max(3, Math.floor(max));
  const all = chars(text);
  if (escapedWidth(all, '') <= limit) return escapeText(text, '');
  // The end (the file name) gets the larger share of the room.
  const tail = Math.floor((limit - 1) * 0.6);
  const head = limit - 1 - tail;
  let headOut = '';
  let width = 0;
  for (const ch of all) {
    const token = escapeChar(ch, '');
    const w = tokenWidth(token, ch);
    if (width + w > head) break;
    headOut += token;
    width += w;
  }
  let tailOut = '';
  width = 0;
  for (let i = all.length - 1; i >= 0; i--) {
    const token = escapeChar(all[i], '');
    const w = tokenWidth(token, all[i]);
    if (width + w > tail) break;
    tailOut = token + tailOut;
    width += w;
  }
  return headOut + ELLIPSIS + tailOut;
}

/** Quotes a word for a POSIX shell: '…' with embedded quotes as '\''. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** True when the text has a character that `escapeText` would rewrite (ignoring quotes). */
export function hasControlChars(text: string): boolean {
  return NEEDS_ESCAPE.test(text.replace(/\\/g, ''));
}
