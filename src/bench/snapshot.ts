/**
 * Section 1 (issue 2): how fast one app's tree is read. axpage's backend called directly
 * in this process, beside a naive pyatspi walk of the same app in the same run (cached
 * and with clear_cache), plus the full MCP round trip of ax_get_tree.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_CONFIG } from '../config.js';
import type { LaunchedApp } from '../desktop/apps.js';
import type { Snapshot } from '../model/element.js';
import type { BenchContext } from './context.js';
import { PYTHON, PyatspiWalker, type PyWalk } from './pyatspi.js';
import { cpuSeconds } from './proc-usage.js';
import { eventsPerWalk, waitQuiet } from './quiet.js';
import { fmt, out, ratio, STAT_HEADERS, statCells, table, verdict } from './report.js';
import { stats, timeRuns, type Stats } from './stats.js';

const RUNS = 15;
/**
 * Our walks before the timed rounds. V8 compiles the walk's code as it runs hot, over the
 * first few walks of a process (a server's first calls); the warm figure is what every
 * later call costs. The warm-up walks are printed as their own row.
 */
const WARMUP = 5;
/**
 * Idle time before every timed walk, ours and pyatspi's alike: a walk that starts while the
 * previous one's process (the Python walker after a clear_cache walk, our garbage
 * collector) is still busy on one of the 2 cores measured that walk's leftovers.
 */
const GAP_MS = 100;
/**
 * A second walk of ours each round, this soon after the first: what the same walk costs
 * while the machine is still awake (see the row "back to back").
 */
const SHORT_GAP_MS = 20;

const MCP_RUNS = 11;
/** MCP calls before the timed ones: the server's own warm-up (see section 10). */
const MCP_WARMUP = 5;
const TARGET_RATIO = 10;
const TARGET_MS_PER_ELEMENT = 0.1;

/** A backend snapshot with the server's default limits (also used by later sections). */
export function takeSnapshot(ctx: BenchContext, pid: number): Promise<Snapshot> {
  return ctx.backend.snapshot(pid, DEFAULT_CONFIG.limits);
}

interface PyFigures {
  cached: PyWalk[];
  /** Cached walks SHORT_GAP_MS after a cached walk. */
  quick: PyWalk[];
  clear: PyWalk[];
  coldMs?: number;
}

interface AppFigures {
  app: LaunchedApp;
  ours: Stats;
  oursRuns: number[];
  /** The warm-up walks, in order (the process's first walks of this app). */
  warmupRuns: number[];
  /** Walks SHORT_GAP_MS after one of ours. */
  backToBack: number[];
  /** The walk alone, as the snapshot reports it (elapsedMs). */
  walkRuns: number[];
  oursElements: number;
  quietMs: number;
  /** The other bench app and its CPU over the timed rounds, ms per second (animations). */
  other?: { name: string; cpuMsPerS: number };
  events?: { idle: number; perWalk: number };
  truncated: string | null;
  py?: PyFigures;
  pyError?: string;
  mcp?: Stats;
  mcpElements?: number;
  mcpError?: string;
}

/**
 * Ours and pyatspi's walks interleaved run by run (ours, pyatspi cached, pyatspi after
 * clear_cache), so drifting load on a small machine hits all three alike.
 */
async function interleaved(ctx: BenchContext, app: LaunchedApp, fig: AppFigures): Promise<void> {
  let walker: PyatspiWalker | undefined;
  try {
    walker = await PyatspiWalker.start(app.pid, ctx.session.desktop.processEnv());
  } catch (err) {
    fig.pyError = (err as Error).message;
  }
  const py: PyFigures = { cached: [], quick: [], clear: [] };
  const pyStep = async (fn: (w: PyatspiWalker) => Promise<void>): Promise<void> => {
    if (!walker) return;
    try {
      await fn(walker);
    } catch (err) {
      fig.pyError = (err as Error).message;
      await walker.close();
      walker = undefined;
    }
  };
  let last: Snapshot | undefined;
  try {
    // Warm-ups: ours WARMUP times; pyatspi's first walk is its cold read of the app.
    for (let i = 0; i < WARMUP; i++) {
      await sleep(GAP_MS);
      const t0 = performance.now();
      last = await takeSnapshot(ctx, app.pid);
      fig.warmupRuns.push(performance.now() - t0);
    }
    await pyStep(async (w) => {
      py.coldMs = (await w.walk(false)).ms;
      await w.walk(true);
    });
    const other = app === ctx.factory ? ctx.demo : ctx.factory;
    const otherCpu0 = cpuSeconds(other.pid);
    const started = performance.now();
    for (let i = 0; i < RUNS; i++) {
      await sleep(GAP_MS);
      const t0 = performance.now();
      last = await takeSnapshot(ctx, app.pid);
      fig.oursRuns.push(performance.now() - t0);
      fig.walkRuns.push(last.elapsedMs);
      await sleep(SHORT_GAP_MS);
      const t1 = performance.now();
      await takeSnapshot(ctx, app.pid);
      fig.backToBack.push(performance.now() - t1);
      await pyStep(async (w) => {
        await sleep(GAP_MS);
        py.cached.push(await w.walk(false));
        await sleep(SHORT_GAP_MS);
        py.quick.push(await w.walk(false));
        await sleep(GAP_MS);
        py.clear.push(await w.walk(true));
      });
    }
    fig.other = {
      name: other.name,
      cpuMsPerS: ((cpuSeconds(other.pid) - otherCpu0) * 1e6) / (performance.now() - started),
    };
  } finally {
    await walker?.close();
  }
  fig.ours = stats(fig.oursRuns);
  fig.oursElements = last?.elements.length ?? 0;
  fig.truncated = last?.truncated ?? null;
  if (py.cached.length > 0 && py.clear.length > 0) fig.py = py;
}

async function measureApp(ctx: BenchContext, app: LaunchedApp): Promise<AppFigures> {
  // A freshly started app sends hundreds of events for a second or so: time it idle.
  const quietMs = await waitQuiet(ctx.backend, app.pid);
  const fig: AppFigures = {
    app,
    ours: stats([]),
    oursRuns: [],
    warmupRuns: [],
    backToBack: [],
    walkRuns: [],
    oursElements: 0,
    quietMs,
    truncated: null,
  };
  await interleaved(ctx, app, fig);
  try {
    fig.events = await eventsPerWalk(ctx.backend, app.pid, () => takeSnapshot(ctx, app.pid));
  } catch {
    // a platform without change events: nothing to report
  }
  try {
    let elements = 0;
    const mcp = await timeRuns(MCP_RUNS, MCP_WARMUP, async () => {
      const r = await ctx.call('ax_get_tree', { app: app.pid });
      elements = Number(/\((\d+) elements\)/.exec(r.fields.file_size ?? '')?.[1] ?? 0);
    });
    fig.mcp = stats(mcp);
    fig.mcpElements = elements;
  } catch (err) {
    fig.mcpError = (err as Error).message;
  }
  return fig;
}

export async function snapshotSection(ctx: BenchContext): Promise<void> {
  out(
    `axpage: \`LinuxDesktop.snapshot(pid, limits)\` in this process. ` +
      `pyatspi: \`bench/pyatspi_walk.py\` (${PYTHON}), a naive recursive walk reading role, name, ` +
      'description, states, children and screen extents per element, keeping libatspi\'s cache ("cached") ' +
      'or calling `app.clear_cache()` before the walk. The three run interleaved, ' +
      `${RUNS} rounds after warm-up (${WARMUP} walks of ours, pyatspi's cold walk and one clear_cache walk), ` +
      `on an app idle for 300 ms, each walk after ${GAP_MS} ms idle (the targets' figure: an agent's calls come ` +
      `further apart still). Each round adds one walk of ours ${SHORT_GAP_MS} ms after its first: on a small VM the ` +
      'CPUs doze off within ~100 ms, and a walk is a chain of thousands of wake-ups (each GetExtents of a GTK 3 app ' +
      'is a round trip from the app to the X server), so the same walk runs faster on a machine still awake. ' +
      `ax_get_tree: the MCP round trip as the client sees it (walk + hidden filter + tree file + screenshot + summary), after ${MCP_WARMUP} calls. ` +
      '"x faster" = the pyatspi median / this row\'s median.',
  );
  out();
  const figures: AppFigures[] = [];
  for (const app of [ctx.factory, ctx.demo]) figures.push(await measureApp(ctx, app));

  const rows: string[][] = [];
  for (const f of figures) {
    const pyC = f.py ? stats(f.py.cached.map((w) => w.ms)) : undefined;
    const pyX = f.py ? stats(f.py.clear.map((w) => w.ms)) : undefined;
    const pyQ = f.py && f.py.quick.length > 0 ? stats(f.py.quick.map((w) => w.ms)) : undefined;
    const perEl = (s: Stats, n: number): string => (n > 0 ? fmt(s.median / n, 3) : '–');
    rows.push([
      'axpage snapshot (backend)',
      f.app.name,
      String(f.oursElements) + (f.truncated ? ` (truncated: ${f.truncated})` : ''),
      ...statCells(f.ours),
      perEl(f.ours, f.oursElements),
      ratio(pyC?.median, f.ours.median),
      ratio(pyX?.median, f.ours.median),
    ]);
    rows.push([
      `  its ${WARMUP} warm-up walks (first in this process)`,
      f.app.name,
      String(f.oursElements),
      ...statCells(stats(f.warmupRuns)),
      '',
      '',
      '',
    ]);
    const quick = stats(f.backToBack);
    rows.push([
      `  same, ${SHORT_GAP_MS} ms after the previous walk (information)`,
      f.app.name,
      String(f.oursElements),
      ...statCells(quick),
      perEl(quick, f.oursElements),
      `${ratio(pyQ?.median, quick.median)} (vs pyatspi's cached walk ${SHORT_GAP_MS} ms after another: ${pyQ ? fmt(pyQ.median) : '–'} ms)`,
      '',
    ]);
    const walk = stats(f.walkRuns);
    rows.push([
      '  of which the walk (snapshot.elapsedMs)',
      f.app.name,
      String(f.oursElements),
      ...statCells(walk),
      perEl(walk, f.oursElements),
      ratio(pyC?.median, walk.median),
      ratio(pyX?.median, walk.median),
    ]);
    if (f.py && pyC && pyX) {
      const c = f.py.cached[f.py.cached.length - 1];
      const x = f.py.clear[f.py.clear.length - 1];
      rows.push([
        'pyatspi walk, cached (baseline)',
        f.app.name,
        `${c.elements} (${c.with_extents} w/ extents)`,
        ...statCells(pyC),
        perEl(pyC, c.elements),
        '1x',
        ratio(pyX.median, pyC.median),
      ]);
      rows.push([
        'pyatspi walk, clear_cache each run (baseline)',
        f.app.name,
        `${x.elements} (${x.with_extents} w/ extents)`,
        ...statCells(pyX),
        perEl(pyX, x.elements),
        ratio(pyC.median, pyX.median),
        '1x',
      ]);
    } else {
      rows.push([
        'pyatspi walk',
        f.app.name,
        `error: ${f.pyError ?? '?'}`,
        '',
        '',
        '',
        '',
        '',
        '',
        '',
      ]);
    }
    if (f.mcp) {
      rows.push([
        'ax_get_tree MCP round trip',
        f.app.name,
        `${f.mcpElements ?? '?'} (hidden left out)`,
        ...statCells(f.mcp),
        perEl(f.mcp, f.oursElements),
        ratio(pyC?.median, f.mcp.median),
        ratio(pyX?.median, f.mcp.median),
      ]);
    } else {
      rows.push([
        'ax_get_tree MCP round trip',
        f.app.name,
        `error: ${f.mcpError ?? '?'}`,
        '',
        '',
        '',
        '',
        '',
        '',
        '',
      ]);
    }
  }
  table(
    [
      'what',
      'app',
      'elements',
      ...STAT_HEADERS,
      'ms/element',
      'x faster vs pyatspi cached',
      'x faster vs pyatspi clear_cache',
    ],
    rows,
  );

  const targetRows = figures.map((f) => {
    const pyC = f.py ? stats(f.py.cached.map((w) => w.ms)).median : undefined;
    const x = pyC !== undefined ? pyC / f.ours.median : undefined;
    const perEl = f.oursElements > 0 ? f.ours.median / f.oursElements : undefined;
    return [
      f.app.name,
      x !== undefined ? `${fmt(x)}x ${verdict(x >= TARGET_RATIO)}` : '–',
      perEl !== undefined ? `${fmt(perEl, 3)} ${verdict(perEl <= TARGET_MS_PER_ELEMENT)}` : '–',
      f.py ? `${f.oursElements} vs ${f.py.cached[0].elements}` : '–',
    ];
  });
  out('Targets (information, not an exit code):');
  out();
  table(
    [
      'app',
      `>= ${TARGET_RATIO}x faster than pyatspi (cached)`,
      `<= ${TARGET_MS_PER_ELEMENT} ms/element`,
      'elements axpage vs pyatspi',
    ],
    targetRows,
  );
  for (const f of figures) {
    const cold =
      f.py?.coldMs !== undefined ? `; pyatspi's cold first walk: ${fmt(f.py.coldMs)} ms` : '';
    out(
      `- ${f.app.name}: axpage warm-up ${f.warmupRuns.map((x) => fmt(x)).join(', ')} ms, then runs ${f.oursRuns.map((x) => fmt(x)).join(', ')} ms${cold}`,
    );
    if (f.pyError) out(`  pyatspi: ${f.pyError}`);
    out(`  (timed after ${fmt(f.quietMs, 0)} ms waiting for 300 ms without change events)`);
    if (f.other) {
      out(
        `  meanwhile ${f.other.name} (also on screen) used ${fmt(f.other.cpuMsPerS, 1)} ms of CPU per second` +
          (f.other.cpuMsPerS > 5
            ? ': an animation, whose drawing keeps the X server busy while a GTK 3 walk waits on it for every frame it reads'
            : ''),
      );
    }
    if (f.events) {
      out(
        `  change events one walk of ours provokes in the idle app: ${fmt(f.events.perWalk, 1)} ` +
          `(idle baseline over the same time: ${fmt(f.events.idle, 1)}); each one marks the server's cached view dirty`,
      );
    }
  }
  out();
}
