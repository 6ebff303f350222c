/**
 * Artifact file names: `<epoch-ms>[-<n>]_<tool>.txt|png`. The pattern is also the
 * ownership test for retention: only files whose names match it are ever deleted.
 */
import { ArtifactError } from './errors.js';

// No leading zeros: each slot has exactly one spelling, so a name maps to one file.
const BASE = String.raw`([1-9]\d{0,15})(?:-([1-9]\d{0,8}))?_([A-Za-z0-9][A-Za-z0-9_]{0,63})`;
const PAIR_FILE = new RegExp(`^${BASE}\\.(txt|png)$`);
/** Our temp files: `.<base>.<pid>.<random hex>.tmp` (dot-prefixed so `ls` and globs skip them). */
const TEMP_FILE = new RegExp(`^\\.${BASE}\\.\\d+\\.[0-9a-f]+\\.tmp$`);
const TOOL = /^[A-Za-z0-9][A-Za-z0-9_]{0,63}$/;

/** Where a client reads a pair, or one file of it, over MCP (resources/read). */
export const PAIR_URI_PREFIX = 'axpage://pair/';

/** Files of a pair, and images made from it (a visual diff, a marked screenshot). */
const PAIR_PARTS = ['.txt', '.png', '.diff.png', '.marks.png'] as const;
export type PairPart = (typeof PAIR_PARTS)[number];

/**
 * A name in the artifact dir split into the pair's base and which of its files it is;
 * null for any other name. Longest suffix first: `.diff.png` is not the pair's `.png`.
 */
export function splitPairPart(name: string): { base: string; part: PairPart } | null {
  const suffixes = [...PAIR_PARTS].sort((a, b) => b.length - a.length);
  for (const part of suffixes) {
    if (!name.endsWith(part)) continue;
    const base = name.slice(0, -part.length);
    return parseArtifactFile(`${base}.txt`) === null ? null : { base, part };
  }
  return null;
}

/** The resource URI of a file of the artifact dir, named `name`; undefined for no such file. */
export function pairPartUri(name: string): string | undefined {
  return splitPairPart(name) === null ? undefined : `${PAIR_URI_PREFIX}${name}`;
}

export interface BaseName {
  base: string;
  ms: number;
  n: number;
  tool: string;
}

export type ArtifactKind = 'txt' | 'png';

export function formatBase(ms: number, n: number, tool: string): string {
  return n === 0 ? `${ms}_${tool}` : `${ms}-${n}_${tool}`;
}

/** Parses `<base>.txt` / `<base>.png`; null for any other name. */
export function parseArtifactFile(name: string): (BaseName & { kind: ArtifactKind }) | null {
  const m = PAIR_FILE.exec(name);
  if (!m) return null;
  const ms = Number(m[1]);
  const n = m[2] === undefined ? 0 : Number(m[2]);
  return { base: formatBase(ms, n, m[3]), ms, n, tool: m[3], kind: m[4] as ArtifactKind };
}

export function isTempFile(name: string): boolean {
  return TEMP_FILE.test(name);
}

/** The tool part of a name: the tool name without `ax_`, checked to be file-name safe. */
export function toolSlug(tool: string): string {
  const slug = tool.replace(/^ax_/, '');
  if (!TOOL.test(slug)) {
    throw new ArtifactError(
      'bad_name',
      `tool name ${JSON.stringify(tool)} cannot be used in a file name (letters, digits, _; max 64)`,
    );
  }
  return slug;
}

/** Oldest first: by time, then same-millisecond sequence, then tool. */
export function compareBase(a: BaseName, b: BaseName): number {
  return a.ms - b.ms || a.n - b.n || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0);
}
