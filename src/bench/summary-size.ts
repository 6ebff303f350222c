/**
 * Section 3: what reaches the agent's context. Bytes of the ax_get_tree summary against
 * the same tree as inline JSON (what a server that returns the tree would send) and
 * against the tree file on disk; and, at the end of the run, the summary sizes of every
 * call the benchmark made.
 */
import fs from 'node:fs';
import type { BenchContext } from './context.js';
import { readHeader } from './context.js';
import { fmt, out, table, verdict } from './report.js';
import { stats } from './stats.js';
import { takeSnapshot } from './snapshot.js';

export const SUMMARY_TARGET_BYTES = 2048;

function share(bytes: number, of: number): string {
  if (!(of > 0)) return '–';
  return `${fmt((100 * bytes) / of, 1)}% (${fmt(of / bytes)}x smaller)`;
}

export async function summarySizeSection(ctx: BenchContext): Promise<void> {
  out(
    'The same moment three ways: `JSON.stringify(snapshot.elements)` of a backend snapshot (the baseline: ' +
      'the tree inline), the tree file ax_get_tree wrote, and the summary text it returned. ' +
      '`include_invisible: true` so the file holds the same elements as the snapshot; the default ' +
      'call (hidden elements left out) is shown too. Both with `detail: "full"`, the listing of a ' +
      'first look (section 6 shows what later calls cost). Bytes are UTF-8.',
  );
  out();
  const rows: string[][] = [];
  const checks: string[] = [];
  for (const app of [ctx.factory, ctx.demo]) {
    // detail "full": a first look's listing (the worst case), whatever this session showed before.
    const full = await ctx.call('ax_get_tree', {
      app: app.pid,
      include_invisible: true,
      detail: 'full',
    });
    const snap = await takeSnapshot(ctx, app.pid);
    const dflt = await ctx.call('ax_get_tree', { app: app.pid, detail: 'full' });
    const json = Buffer.byteLength(JSON.stringify(snap.elements));
    const fileBytes = fs.statSync(full.fields.file).size;
    const fileEls = readHeader(full.fields.file).elements;
    const dfltEls = readHeader(dflt.fields.file).elements;
    const sumFull = Buffer.byteLength(full.text);
    const sumDflt = Buffer.byteLength(dflt.text);
    const structured = Buffer.byteLength(JSON.stringify(full.structured));
    rows.push(
      [
        'inline JSON of the elements (baseline)',
        app.name,
        String(snap.elements.length),
        String(json),
        '100%',
        '–',
      ],
      ['tree file', app.name, String(fileEls), String(fileBytes), share(fileBytes, json), '100%'],
      [
        'summary text (include_invisible)',
        app.name,
        String(fileEls),
        String(sumFull),
        share(sumFull, json),
        share(sumFull, fileBytes),
      ],
      [
        'summary text (default call)',
        app.name,
        String(dfltEls),
        String(sumDflt),
        share(sumDflt, json),
        '–',
      ],
      [
        'structuredContent JSON (include_invisible)',
        app.name,
        String(fileEls),
        String(structured),
        share(structured, json),
        '–',
      ],
    );
    const worst = Math.max(sumFull, sumDflt);
    checks.push(
      `- ${app.name}: summary ${worst} bytes ${verdict(worst <= SUMMARY_TARGET_BYTES)} (target <= ${SUMMARY_TARGET_BYTES})`,
    );
  }
  table(['what', 'app', 'elements', 'bytes', 'vs inline JSON', 'vs tree file'], rows);
  for (const c of checks) out(c);
  out();
}

/** Summary bytes of every call of the run, by tool (printed last). */
export function summaryTotals(ctx: BenchContext): void {
  const rows = [...ctx.summaryBytes.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([tool, bytes]) => {
      const s = stats(bytes);
      return [
        tool,
        String(s.n),
        fmt(s.median, 0),
        String(s.min),
        String(s.max),
        verdict(s.max <= SUMMARY_TARGET_BYTES),
      ];
    });
  table(
    ['tool', 'n', 'median bytes', 'min bytes', 'max bytes', `max <= ${SUMMARY_TARGET_BYTES}`],
    rows,
  );
}
