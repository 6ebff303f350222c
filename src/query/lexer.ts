/**
 * Splits a query into tokens that keep their offsets, so a part that turns out to be
 * plain text can be read back exactly as written.
 *
 * Quotes open only at the start of a token (so the apostrophe in `Don't save` is just a
 * letter); a `/` opens a regex right after an operator (`title:/^Save/i`) or at the
 * start of a step; `>` separates path steps and `[n]` at the end of a step picks the nth.
 */
import { QueryError } from './types.js';

export type TokenKind = 'word' | 'quoted' | 'regex' | 'op' | 'ws' | 'nth' | 'sep';

export interface Token {
  kind: TokenKind;
  start: number;
  end: number;
  /** word: its text; quoted: the unescaped content; op: `:` `~` `=`; sep: `>` or `>>`. */
  text: string;
  /** regex only. */
  flags?: string;
  /** nth only. */
  n?: number;
  /** regex only: true when it follows an operator (a value), false at a step start. */
  afterOp?: boolean;
}

const QUOTES = new Set(['"', "'"]);
const OPS = new Set([':', '~', '=']);
const NTH = /\[\s*(-?\d+)\s*\](?=\s*(?:>|$))/y;

export function lex(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  /** Last token that is not whitespace, since the start or the last separator. */
  const lastSolid = (): Token | undefined => {
    for (let k = out.length - 1; k >= 0; k--) {
      if (out[k].kind === 'sep') return out[k];
      if (out[k].kind !== 'ws') return out[k];
    }
    return undefined;
  };
  const prev = (): Token | undefined => out[out.length - 1];
  const atTokenStart = (): boolean => {
    const p = prev();
    return p === undefined || p.kind === 'ws' || p.kind === 'op' || p.kind === 'sep';
  };

  while (i < src.length) {
    const ch = src[i];
    if (/\s/.test(ch)) {
      const start = i;
      while (i < src.length && /\s/.test(src[i])) i++;
      out.push({ kind: 'ws', start, end: i, text: src.slice(start, i) });
      continue;
    }
    if (ch === '>') {
      const len = src[i + 1] === '>' ? 2 : 1;
      out.push({ kind: 'sep', start: i, end: i + len, text: src.slice(i, i + len) });
      i += len;
      continue;
    }
    if (OPS.has(ch)) {
      out.push({ kind: 'op', start: i, end: i + 1, text: ch });
      i++;
      continue;
    }
    if (QUOTES.has(ch) && atTokenStart()) {
      const q = readQuoted(src, i);
      out.push({ kind: 'quoted', start: i, end: q.end, text: q.text });
      i = q.end;
      continue;
    }
    if (ch === '/') {
      const p = prev();
      const solid = lastSolid();
      const afterOp = p?.kind === 'op';
      const stepStart = solid === undefined || solid.kind === 'sep';
      if (afterOp || stepStart) {
        const re = readRegex(src, i);
        if (re) {
          out.push({
            kind: 'regex',
            start: i,
            end: re.end,
            text: re.source,
            flags: re.flags,
            afterOp,
          });
          i = re.end;
          continue;
        }
        if (afterOp) {
          throw new QueryError(
            `unclosed regex at ${i + 1}: ${src.slice(i)} (close it with /)`,
            src,
            {
              position: i,
            },
          );
        }
      }
    }
    if (ch === '[') {
      NTH.lastIndex = i;
      const m = NTH.exec(src);
      if (m) {
        out.push({ kind: 'nth', start: i, end: i + m[0].length, text: m[0], n: Number(m[1]) });
        i += m[0].length;
        continue;
      }
    }
    // A word runs to whitespace, an operator or a separator. A quote inside it is a letter.
    const start = i;
    i++;
    while (i < src.length && !/[\s>:~=]/.test(src[i])) {
      if (src[i] === '[') {
        NTH.lastIndex = i;
        if (NTH.test(src)) break;
      }
      i++;
    }
    out.push({ kind: 'word', start, end: i, text: src.slice(start, i) });
  }
  return out;
}

function readQuoted(src: string, open: number): { text: string; end: number } {
  const q = src[open];
  let text = '';
  for (let i = open + 1; i < src.length; i++) {
    const c = src[i];
    if (c === '\\' && i + 1 < src.length) {
      text += src[i + 1];
      i++;
    } else if (c === q) {
      return { text, end: i + 1 };
    } else {
      text += c;
    }
  }
  throw new QueryError(
    `unclosed quote: ${q} at ${open + 1} has no closing ${q} (escape a literal quote as \\${q})`,
    src,
    { position: open },
  );
}

/**
 * A `/source/flags` literal starting at `open`, or null when there is no closing slash
 * (or the source would be empty). Slashes inside `[...]` or escaped do not close it.
 */
function readRegex(
  src: string,
  open: number,
): { source: string; flags: string; end: number } | null {
  let inClass = false;
  for (let i = open + 1; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      i++;
    } else if (c === '[') {
      inClass = true;
    } else if (c === ']') {
      inClass = false;
    } else if (c === '/' && !inClass) {
      if (i === open + 1) return null;
      let end = i + 1;
      while (end < src.length && /[a-z]/i.test(src[end])) end++;
      return { source: src.slice(open + 1, i), flags: src.slice(i + 1, end), end };
    }
  }
  return null;
}
