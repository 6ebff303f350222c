/**
 * Walking a browser page of 1,000+ elements: Chromium on a generated local page (a table
 * of links, buttons and text fields), axpage's backend snapshot beside the pyatspi walk of
 * the same page in the same run, interleaved, plus the MCP round trip of ax_get_tree.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchChromium, type LaunchedBrowser } from '../harness/browser.js';
import type { BenchContext } from './context.js';
import { PyatspiWalker, type PyWalk } from './pyatspi.js';
import { fmt, out, ratio, STAT_HEADERS, statCells, table } from './report.js';
import { stats, timeRuns } from './stats.js';
import { takeSnapshot } from './snapshot.js';

const RUNS = 7;
const ROWS = 200;
/** The page is in the tree once a snapshot holds at least this many elements. */
const MIN_ELEMENTS = 1000;

/** A page of ROWS table rows, each a cell of text, a link, a button and a text field. */
function bigPage(): string {
  const rows = Array.from(
    { length: ROWS },
    (_, i) =>
      `<tr><td>Row ${i}</td><td><a href="#r${i}">link ${i}</a></td>` +
      `<td><button type="button">press ${i}</button></td>` +
      `<td><input aria-label="field ${i}" value="v${i}"></td></tr>`,
  );
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bench page</title></head>' +
    `<body><h1>Bench page</h1><table>${rows.join('')}</table></body></html>`
  );
}

async function waitForPage(ctx: BenchContext, pid: number): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const n = (await takeSnapshot(ctx, pid)).elements.length;
    if (n >= MIN_ELEMENTS || Date.now() > deadline) return n;
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function chromiumSection(ctx: BenchContext): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-bench-web-'));
  const file = path.join(dir, 'bench-page.html');
  fs.writeFileSync(file, bigPage(), { mode: 0o600 });
  let browser: LaunchedBrowser | undefined;
  let walker: PyatspiWalker | undefined;
  try {
    browser = await launchChromium(ctx.session, pathToFileURL(file).href);
    const pid = browser.app.pid;
    const seen = await waitForPage(ctx, pid);
    out(
      `Chromium (--force-renderer-accessibility) on a generated page of ${ROWS} table rows ` +
        `(text, link, button, text field each); ${seen} elements in the first full walk. ` +
        `axpage backend snapshot and pyatspi (cached / clear_cache) interleaved, ${RUNS} rounds ` +
        'after a warm-up; ax_get_tree: the MCP round trip.',
    );
    out();
    let pyError: string | undefined;
    try {
      walker = await PyatspiWalker.start(pid, ctx.session.desktop.processEnv());
    } catch (err) {
      pyError = (err as Error).message;
    }
    const ours: number[] = [];
    const cached: PyWalk[] = [];
    const clear: PyWalk[] = [];
    let elements = 0;
    let truncated: string | null = null;
    await takeSnapshot(ctx, pid);
    await walker?.walk(false).catch((err: Error) => (pyError = err.message));
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const snap = await takeSnapshot(ctx, pid);
      ours.push(performance.now() - t0);
      elements = snap.elements.length;
      truncated = snap.truncated ?? null;
      if (walker && !pyError) {
        try {
          cached.push(await walker.walk(false));
          clear.push(await walker.walk(true));
        } catch (err) {
          pyError = (err as Error).message;
        }
      }
    }
    const mcp = await timeRuns(3, 1, () => ctx.call('ax_get_tree', { app: pid }));
    const o = stats(ours);
    const pyC = cached.length > 0 ? stats(cached.map((w) => w.ms)) : undefined;
    const pyX = clear.length > 0 ? stats(clear.map((w) => w.ms)) : undefined;
    const rows: string[][] = [
      [
        'axpage snapshot (backend)',
        `${elements}${truncated ? ` (truncated: ${truncated})` : ''}`,
        ...statCells(o),
        ratio(pyC?.median, o.median),
        ratio(pyX?.median, o.median),
      ],
      ['ax_get_tree (MCP round trip)', `${elements}`, ...statCells(stats(mcp)), '', ''],
    ];
    if (pyC && pyX) {
      const c = cached[cached.length - 1];
      const x = clear[clear.length - 1];
      rows.push(['pyatspi walk, cached (baseline)', `${c.elements}`, ...statCells(pyC), '1x', '']);
      rows.push([
        'pyatspi walk, clear_cache (baseline)',
        `${x.elements}`,
        ...statCells(pyX),
        '',
        '1x',
      ]);
    } else {
      rows.push(['pyatspi walk', `error: ${pyError ?? '?'}`, '', '', '', '', '', '']);
    }
    table(['walk', 'elements', ...STAT_HEADERS, 'x faster (cached)', 'x faster (clear)'], rows);
    out();
    out(`per element (axpage): ${elements > 0 ? fmt(o.median / elements, 3) : '–'} ms`);
  } finally {
    await walker?.close();
    await browser?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
