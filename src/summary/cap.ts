/**
 * structuredContent is capped like the text: no field may echo an unbounded input (a
 * 1 MiB argument in an error's details) back into the agent's context. Every string is
 * cut to STRUCTURED_STRING_CHARS and the whole JSON to STRUCTURED_MAX_BYTES; what was cut
 * or dropped is named in `truncated_fields`, so nothing is cut silently.
 */
import { ELLIPSIS } from '../tree/text.js';

/** Cap on the JSON of a structuredContent, in UTF-8 bytes. */
export const STRUCTURED_MAX_BYTES = 16 * 1024;
/** Cap on each string in it, in code points (a `…` marks the cut). */
const STRUCTURED_STRING_CHARS = 1024;
/** How many paths `truncated_fields` names before it says how many more. */
const MAX_NAMED = 10;

/** Fields a reader needs most: dropped last, and never the `status`. */
const CORE = new Set(['status', 'summary', 'error', 'error_code', 'file', 'screenshot', 'pid']);

interface Pass {
  strings: number;
  items: number;
}

/** Tighter and tighter until the JSON fits. */
const PASSES: readonly Pass[] = [
  { strings: STRUCTURED_STRING_CHARS, items: Infinity },
  { strings: 256, items: 50 },
  { strings: 64, items: 10 },
  { strings: 32, items: 3 },
];

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

function cutString(text: string, max: number): string | undefined {
  if (text.length <= max) return undefined;
  const points = Array.from(text);
  if (points.length <= max) return undefined;
  return points.slice(0, max - 1).join('') + ELLIPSIS;
}

function capValue(value: unknown, pass: Pass, path: string, cut: string[], depth: number): unknown {
  if (typeof value === 'string') {
    const short = cutString(value, pass.strings);
    if (short === undefined) return value;
    cut.push(`${path} (${Array.from(value).length} chars)`);
    return short;
  }
  if (Array.isArray(value)) {
    const kept = value.length > pass.items ? value.slice(0, pass.items) : value;
    if (kept.length < value.length) cut.push(`${path} (${value.length} items)`);
    return kept.map((v, i) => capValue(v, pass, `${path}[${i}]`, cut, depth + 1));
  }
  if (value !== null && typeof value === 'object') {
    if (depth > 20) {
      cut.push(`${path} (nested too deep)`);
      return {};
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const name = cutString(k, 40) ?? k;
      out[k] = capValue(v, pass, path ? `${path}.${name}` : name, cut, depth + 1);
    }
    return out;
  }
  return value;
}

function named(cut: readonly string[]): string[] {
  if (cut.length <= MAX_NAMED) return [...cut];
  return [...cut.slice(0, MAX_NAMED), `… and ${cut.length - MAX_NAMED} more`];
}

/**
 * The structured object within the caps. Unchanged (the same object) when it fits
 * already; else a copy with strings cut, arrays shortened, and at the last resort whole
 * non-core fields dropped, largest first, each named in `truncated_fields`.
 */
export function capStructured(
  structured: Record<string, unknown>,
  maxBytes = STRUCTURED_MAX_BYTES,
): Record<string, unknown> {
  const fitsStrings = (v: unknown): boolean => {
    if (typeof v === 'string') return cutString(v, STRUCTURED_STRING_CHARS) === undefined;
    if (Array.isArray(v)) return v.every(fitsStrings);
    if (v !== null && typeof v === 'object') return Object.values(v).every(fitsStrings);
    return true;
  };
  if (jsonBytes(structured) <= maxBytes && fitsStrings(structured)) return structured;
  let last: { out: Record<string, unknown>; cut: string[] } | undefined;
  for (const pass of PASSES) {
    const cut: string[] = [];
    const out = capValue(structured, pass, '', cut, 0) as Record<string, unknown>;
    last = { out, cut };
    if (jsonBytes({ ...out, truncated_fields: named(cut) }) <= maxBytes) {
      return { ...out, truncated_fields: named(cut) };
    }
  }
  const { out, cut } = last as { out: Record<string, unknown>; cut: string[] };
  const droppable = Object.keys(out)
    .filter((k) => !CORE.has(k))
    .sort((a, b) => jsonBytes(out[b]) - jsonBytes(out[a]) || (a < b ? -1 : 1));
  for (const key of droppable) {
    delete out[key];
    cut.push(`${key} (dropped)`);
    if (jsonBytes({ ...out, truncated_fields: named(cut) }) <= maxBytes) break;
  }
  return { ...out, truncated_fields: named(cut) };
}
