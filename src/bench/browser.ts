/**
 * Walks of a web page in Firefox ESR (issue 10): our backend's walk beside pyatspi's on the
 * same page in the same run, interleaved run by run. The page is test/fixtures/web/form.html
 * with a 1,200-item list, so the tree has well over 1,000 elements.
 */
import fs from 'node:fs';
import path from 'node:path';
import { FIREFOX, launchFirefox, type LaunchedBrowser } from '../harness/browser.js';
import { packageRoot } from '../harness/session.js';
import type { BenchContext } from './context.js';
import { PyatspiWalker, type PyWalk } from './pyatspi.js';
import { fmt, out, ratio, STAT_HEADERS, statCells, table } from './report.js';
import { takeSnapshot } from './snapshot.js';
import { stats } from './stats.js';

const ITEMS = 1200;
const RUNS = 7;
/** How long the page may take to be in the tree after Firefox shows its window. */
const PAGE_READY_MS = 30_000;

export async function browserSection(ctx: BenchContext): Promise<void> {
  if (!fs.existsSync(FIREFOX)) {
    out('skipped: firefox-esr is not installed (scripts/install-system-deps.sh installs it)');
    return;
  }
  const page = path.join(packageRoot(), 'test', 'fixtures', 'web', 'form.html');
  let firefox: LaunchedBrowser | undefined;
  try {
    firefox = await launchFirefox(ctx.session, `file://${page}?items=${ITEMS}`, {
      name: 'firefox-bench',
    });
    const pid = firefox.app.pid;
    const until = performance.now() + PAGE_READY_MS;
    let elements = 0;
    while (performance.now() < until) {
      elements = (await takeSnapshot(ctx, pid)).elements.length;
      if (elements > ITEMS) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    out(
      `Firefox ESR pid ${pid} on form.html?items=${ITEMS} (${elements} elements); ${RUNS} runs each, interleaved.`,
    );
    out();
    const ours: number[] = [];
    const cached: PyWalk[] = [];
    let pyError: string | undefined;
    let walker: PyatspiWalker | undefined;
    try {
      walker = await PyatspiWalker.start(pid, ctx.session.desktop.processEnv());
      await walker.walk(false); // its cold read
    } catch (err) {
      pyError = (err as Error).message;
    }
    let last = 0;
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      last = (await takeSnapshot(ctx, pid)).elements.length;
      ours.push(performance.now() - t0);
      if (walker && !pyError) {
        try {
          cached.push(await walker.walk(false));
        } catch (err) {
          pyError = (err as Error).message;
        }
      }
    }
    await walker?.close();
    const o = stats(ours);
    const p = cached.length ? stats(cached.map((w) => w.ms)) : undefined;
    const rows = [
      ['axpage backend walk', String(last), ...statCells(o), ratio(p?.median, o.median)],
    ];
    rows.push(
      p
        ? [
            'pyatspi walk, cached (baseline)',
            String(cached[cached.length - 1].elements),
            ...statCells(p),
            '1x',
          ]
        : ['pyatspi walk', `error: ${pyError ?? '?'}`, '', '', '', '', ''],
    );
    table(['walk of the page', 'elements', ...STAT_HEADERS, 'x faster vs pyatspi'], rows);
    out();
    out(`alive after ${RUNS * 2 + 2} walks: ${fs.existsSync(`/proc/${pid}`) ? 'yes' : 'NO'}`);
    out(`median per element: ${fmt(o.median / Math.max(1, last), 3)} ms`);
  } finally {
    await firefox?.stop();
  }
}
