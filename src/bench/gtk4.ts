/**
 * Section 9 (issue 10): walking a GTK4 app (gnome-calculator, GTK 4.8: no ATK bridge, no
 * cache, window-relative extents) with axpage's backend, interleaved run by run with a
 * pyatspi walk of the same app in the same run. The frames column counts elements that
 * got a position.
 */
import type { BenchContext } from './context.js';
import { PyatspiWalker, type PyWalk } from './pyatspi.js';
import { waitQuiet } from './quiet.js';
import { fmt, out, ratio, STAT_HEADERS, statCells, table } from './report.js';
import { takeSnapshot } from './snapshot.js';
import { stats } from './stats.js';

const RUNS = 9;
const APP = 'gnome-calculator';

export async function gtk4Section(ctx: BenchContext): Promise<void> {
  const app = await ctx.session.launch(APP);
  try {
    const quietMs = await waitQuiet(ctx.backend, app.pid);
    const walker = await PyatspiWalker.start(app.pid, ctx.session.desktop.processEnv());
    const ours: number[] = [];
    const cached: PyWalk[] = [];
    const clear: PyWalk[] = [];
    let last = await takeSnapshot(ctx, app.pid);
    try {
      await walker.walk(false); // pyatspi's cold read of the app
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        last = await takeSnapshot(ctx, app.pid);
        ours.push(performance.now() - t0);
        cached.push(await walker.walk(false));
        clear.push(await walker.walk(true));
      }
    } finally {
      await walker.close();
    }
    const o = stats(ours);
    const c = stats(cached.map((w) => w.ms));
    const x = stats(clear.map((w) => w.ms));
    const framed = last.elements.filter((e) => e.frame).length;
    table(
      ['walker', 'app', 'elements', 'with a frame', ...STAT_HEADERS, 'x faster than this'],
      [
        ['axpage backend', APP, String(last.elements.length), String(framed), ...statCells(o), ''],
        [
          'pyatspi cached',
          APP,
          String(cached[0].elements),
          String(cached[0].with_extents),
          ...statCells(c),
          ratio(c.median, o.median),
        ],
        [
          'pyatspi clear_cache',
          APP,
          String(clear[0].elements),
          String(clear[0].with_extents),
          ...statCells(x),
          ratio(x.median, o.median),
        ],
      ],
    );
    out(
      `- ${APP} (${last.method}${last.truncated ? `, truncated: ${last.truncated}` : ''}): ` +
        `timed after ${fmt(quietMs, 0)} ms waiting for quiet; pyatspi's frames are GTK4's ` +
        `window-relative extents, axpage's are on the screen.`,
    );
    out();
  } finally {
    await app.stop();
  }
}
