/**
 * The artifact index as a resource shows it: the pairs in the artifact dir, newest first,
 * bounded, each with the tool, app and pid its tree file names. Pure: the caller lists
 * the dir and reads each tree file's first line.
 */
import { PAIR_URI_PREFIX, parseArtifactFile } from '../capture/index.js';

/** How many pairs the index lists (the dir may keep more; the index says how many). */
export const INDEX_LIMIT = 50;

export interface DirEntry {
  name: string;
  bytes: number;
}

export interface PairFiles {
  id: string;
  ms: number;
  n: number;
  tool: string;
  tree?: DirEntry;
  screenshot?: DirEntry;
}

/** Our pair files grouped by id (their shared base name), newest first. */
export function groupPairs(entries: DirEntry[]): PairFiles[] {
  const byId = new Map<string, PairFiles>();
  for (const entry of entries) {
    const parsed = parseArtifactFile(entry.name);
    if (!parsed) continue;
    let pair = byId.get(parsed.base);
    if (!pair) {
      pair = { id: parsed.base, ms: parsed.ms, n: parsed.n, tool: parsed.tool };
      byId.set(parsed.base, pair);
    }
    if (parsed.kind === 'txt') pair.tree = entry;
    else pair.screenshot = entry;
  }
  return [...byId.values()].sort((a, b) => b.ms - a.ms || b.n - a.n || cmp(b.tool, a.tool));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The app and pid a tree file's header line names (`# app: gedit  pid: 42  …`). */
export function headerFacts(firstLine: string): { app?: string; pid?: number } {
  const m = /^# app: (.*?) {2}pid: (\d+)/.exec(firstLine);
  return m ? { app: m[1], pid: Number(m[2]) } : {};
}

export interface IndexEntry {
  id: string;
  time: string;
  tool: string;
  app?: string;
  pid?: number;
  uri: string;
  tree?: { uri: string; bytes: number };
  screenshot?: { uri: string; bytes: number };
}

export interface ArtifactIndex {
  dir: string;
  total: number;
  listed: number;
  note: string;
  pairs: IndexEntry[];
}

export function pairUri(id: string): string {
  return `${PAIR_URI_PREFIX}${id}`;
}

export function buildIndex(
  dir: string,
  pairs: PairFiles[],
  facts: (pair: PairFiles) => { app?: string; pid?: number },
  limit = INDEX_LIMIT,
): ArtifactIndex {
  const listed = pairs.slice(0, limit);
  return {
    dir,
    total: pairs.length,
    listed: listed.length,
    note:
      pairs.length > limit
        ? `newest first; the ${limit} newest of ${pairs.length} pairs`
        : `newest first; all ${pairs.length} pairs (at most ${limit} are listed)`,
    pairs: listed.map((p) => ({
      id: p.id,
      time: new Date(p.ms).toISOString(),
      tool: p.tool,
      ...facts(p),
      uri: pairUri(p.id),
      ...(p.tree ? { tree: { uri: pairUri(p.tree.name), bytes: p.tree.bytes } } : {}),
      ...(p.screenshot
        ? { screenshot: { uri: pairUri(p.screenshot.name), bytes: p.screenshot.bytes } }
        : {}),
    })),
  };
}
