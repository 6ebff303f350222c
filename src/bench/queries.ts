/**
 * Section 5 (issue 4): queries on gtk3-demo. ax_find over MCP, its first call against
 * the calls after it (the pipeline may answer from its cached view while no change event
 * came in), and the pure query engine (parseQuery, findMatches) on a backend snapshot.
 */
import { parseQuery, findMatches, type FindOptions } from '../query/index.js';
import { computeVisibility } from '../viewport/index.js';
import type { BenchContext } from './context.js';
import { readHeader } from './context.js';
import { fmt, out, ratio, STAT_HEADERS, statCells, table } from './report.js';
import { stats, timeSync } from './stats.js';
import { takeSnapshot } from './snapshot.js';

const FIND_RUNS = 9;
const PURE_RUNS = 300;
const PURE_WARMUP = 30;

/** Query forms of every kind, on names gtk3-demo shows. */
const QUERIES: Array<{ what: string; q: string }> = [
  { what: 'plain text, exact', q: 'Button Boxes' },
  { what: 'plain text, contains fallback', q: 'Boxe' },
  { what: 'role:title', q: 'button:Run' },
  { what: 'role only', q: 'role:cell' },
  { what: 'key:value terms', q: 'role:cell title~box enabled:true' },
  { what: 'regex', q: '/^C.*s$/i' },
  { what: 'path', q: 'window: > cell:Entry' },
  { what: 'xpath', q: "//AXCell[@title='Entry']" },
  { what: 'no match (every attempt)', q: 'Nothing Like This' },
];

export async function queriesSection(ctx: BenchContext): Promise<void> {
  const pid = ctx.demo.pid;
  out(
    `ax_find over MCP on gtk3-demo: the first call of each query, then ${FIND_RUNS} repeats with nothing ` +
      'changed in between. "walk ms" is the `elapsed:` of the snapshot in the tree file: the same value ' +
      'on every call would mean the cached view was reused; a new value, a new walk. "client − walk" is ' +
      'the rest of the call (what a cache hit would leave, roughly).',
  );
  out();
  const rows: string[][] = [];
  const repeatedMedians: number[] = [];
  for (const { what, q } of QUERIES.slice(0, 3)) {
    const first = await ctx.call('ax_find', { app: pid, query: q });
    const firstHead = readHeader(first.fields.file);
    const reps: number[] = [];
    const walks: number[] = [];
    const rest: number[] = [];
    for (let i = 0; i < FIND_RUNS; i++) {
      const r = await ctx.call('ax_find', { app: pid, query: q });
      const walk = readHeader(r.fields.file).walkMs;
      reps.push(r.ms);
      walks.push(walk);
      rest.push(r.ms - walk);
    }
    const s = stats(reps);
    repeatedMedians.push(s.median);
    const distinct = new Set([firstHead.walkMs, ...walks]).size;
    rows.push(
      [
        `ax_find "${q}" (${what}): first call`,
        '1',
        fmt(first.ms),
        fmt(first.ms),
        fmt(first.ms),
        'baseline',
        fmt(firstHead.walkMs),
        fmt(first.ms - firstHead.walkMs),
        String(first.structured.count ?? '?'),
      ],
      [
        `ax_find "${q}": repeated`,
        ...statCells(s),
        ratio(first.ms, s.median),
        `${fmt(stats(walks).median)} (${distinct} distinct of ${walks.length + 1})`,
        fmt(stats(rest).median),
        String(first.structured.count ?? '?'),
      ],
    );
  }
  table(
    ['what', ...STAT_HEADERS, 'x faster vs first call', 'walk ms', 'client − walk ms', 'matches'],
    rows,
  );

  const snap = await takeSnapshot(ctx, pid);
  const screen = await ctx.backend.screenSize();
  const { visible } = computeVisibility(snap, { x: 0, y: 0, w: screen.w, h: screen.h });
  const focusedIndex = snap.elements.findIndex((e) => e.flags.includes('focused'));
  const opts: FindOptions = {
    visible,
    focusedIndex: focusedIndex >= 0 ? focusedIndex : undefined,
    includeHidden: false,
    limit: 50,
  };
  out(
    `Pure engine on one backend snapshot of gtk3-demo (${snap.elements.length} elements), in this process: ` +
      `${PURE_RUNS} runs after ${PURE_WARMUP} warm-ups, times in **µs**. findMatches gets a parsed query; ` +
      '"x of ax_find" = the repeated ax_find median / this median (what the engine is of a call).',
  );
  out();
  const findMs = repeatedMedians.length > 0 ? stats(repeatedMedians).median : undefined;
  const pure: string[][] = [];
  for (const { what, q } of QUERIES) {
    let query;
    try {
      query = parseQuery(q);
    } catch (err) {
      pure.push([
        `${what}: ${q}`,
        `parse error: ${(err as Error).message}`,
        '',
        '',
        '',
        '',
        '',
        '',
      ]);
      continue;
    }
    const parse = stats(timeSync(PURE_RUNS, PURE_WARMUP, () => parseQuery(q)));
    let result = findMatches(snap, query, opts);
    const find = stats(
      timeSync(PURE_RUNS, PURE_WARMUP, () => (result = findMatches(snap, query, opts))),
    );
    const us = (s: typeof find): string[] => [
      String(s.n),
      fmt(s.median * 1000),
      fmt(s.p90 * 1000),
      fmt(s.min * 1000),
    ];
    pure.push([
      `findMatches ${what}: ${q}`,
      ...us(find),
      fmt(parse.median * 1000),
      `${result.total} (${result.tried.join(', ')})`,
      ratio(findMs, find.median),
    ]);
  }
  table(
    [
      'what',
      'n',
      'median µs',
      'p90 µs',
      'min µs',
      'parseQuery median µs',
      'matches (attempts)',
      'x of ax_find',
    ],
    pure,
  );
}
