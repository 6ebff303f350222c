/**
 * Section 1 (issue 2): how fast one app's tree is read. axpage's backend called directly
 * in this process, beside a naive pyatspi walk of the same app in the same run (cached
 * and with clear_cache), plus the full MCP round trip of ax_get_tree.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_CONFIG } from '../config.js';
import type { LaunchedApp } from '../desktop/apps.js';
import { packageRoot } from '../harness/session.js';
import type { Snapshot } from '../model/element.js';
import type { BenchContext } from './context.js';
import { fmt, out, ratio, STAT_HEADERS, statCells, table, verdict } from './report.js';
import { stats, timeRuns, type Stats } from './stats.js';

const RUNS = 9;
const PY_RUNS = 7;
const MCP_RUNS = 7;
const TARGET_RATIO = 10;
const TARGET_MS_PER_ELEMENT = 0.15;
const PYTHON = '/usr/bin/python3';

interface PyMode {
  elements: number;
  with_extents: number;
  warmup_ms: number[];
  ms: number[];
}

interface PyResult {
  app: string;
  pid: number;
  modes: { cached: PyMode; clear_cache: PyMode };
  error?: string;
}

export function pyatspiScript(): string {
  return path.join(packageRoot(), 'bench', 'pyatspi_walk.py');
}

function runPyatspi(ctx: BenchContext, pid: number): Promise<PyResult> {
  const script = pyatspiScript();
  if (!fs.existsSync(script)) return Promise.reject(new Error(`${script} is missing`));
  return new Promise((resolve, reject) => {
    execFile(
      PYTHON,
      [script, '--pid', String(pid), '--runs', String(PY_RUNS), '--warmup', '1'],
      { env: ctx.session.desktop.processEnv(), timeout: 90_000, maxBuffer: 1 << 20 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`pyatspi walk failed: ${err.message}\n${stderr}`));
        try {
          const r = JSON.parse(stdout) as PyResult;
          if (r.error) return reject(new Error(`pyatspi walk: ${r.error}`));
          resolve(r);
        } catch {
          reject(new Error(`pyatspi walk printed no JSON: ${stdout.slice(0, 300)} ${stderr}`));
        }
      },
    );
  });
}

/** The latest backend snapshot of each app, for the later sections (sizes, queries). */
export const lastSnapshots = new Map<number, Snapshot>();

export async function takeSnapshot(ctx: BenchContext, pid: number): Promise<Snapshot> {
  const snap = await ctx.backend.snapshot(pid, DEFAULT_CONFIG.limits);
  lastSnapshots.set(pid, snap);
  return snap;
}

interface AppFigures {
  app: LaunchedApp;
  ours: Stats;
  oursRuns: number[];
  oursElements: number;
  truncated: string | null;
  py?: PyResult;
  pyError?: string;
  mcp?: Stats;
  mcpElements?: number;
  mcpError?: string;
}

async function measureApp(ctx: BenchContext, app: LaunchedApp): Promise<AppFigures> {
  let last: Snapshot | undefined;
  const samples = await timeRuns(RUNS, 1, async () => {
    last = await takeSnapshot(ctx, app.pid);
  });
  const fig: AppFigures = {
    app,
    ours: stats(samples),
    oursRuns: samples,
    oursElements: last?.elements.length ?? 0,
    truncated: last?.truncated ?? null,
  };
  try {
    fig.py = await runPyatspi(ctx, app.pid);
  } catch (err) {
    fig.pyError = (err as Error).message;
  }
  try {
    let elements = 0;
    const mcp = await timeRuns(MCP_RUNS, 1, async () => {
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
    `axpage: \`LinuxDesktop.snapshot(pid, limits)\` in this process, ${RUNS} runs after 1 warm-up. ` +
      `pyatspi: \`bench/pyatspi_walk.py\` (${PYTHON}), a naive recursive walk reading role, name, ` +
      `description, states, children and screen extents per element, ${PY_RUNS} runs after 1 warm-up, ` +
      'first without and then with `app.clear_cache()` before each run. ' +
      'ax_get_tree: the MCP round trip as the client sees it (walk + hidden filter + tree file + screenshot + summary). ' +
      '"x faster" = the pyatspi median / this row\'s median.',
  );
  out();
  const figures: AppFigures[] = [];
  for (const app of [ctx.factory, ctx.demo]) figures.push(await measureApp(ctx, app));

  const rows: string[][] = [];
  for (const f of figures) {
    const pyC = f.py ? stats(f.py.modes.cached.ms) : undefined;
    const pyX = f.py ? stats(f.py.modes.clear_cache.ms) : undefined;
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
    if (f.py && pyC && pyX) {
      const c = f.py.modes.cached;
      const x = f.py.modes.clear_cache;
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
      rows.push(['pyatspi walk', f.app.name, `error: ${f.pyError ?? '?'}`, '', '', '', '', '', '', '']);
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
      rows.push(['ax_get_tree MCP round trip', f.app.name, `error: ${f.mcpError ?? '?'}`, '', '', '', '', '', '', '']);
    }
  }
  table(
    ['what', 'app', 'elements', ...STAT_HEADERS, 'ms/element', 'x faster vs pyatspi cached', 'x faster vs pyatspi clear_cache'],
    rows,
  );

  const targetRows = figures.map((f) => {
    const pyC = f.py ? stats(f.py.modes.cached.ms).median : undefined;
    const x = pyC !== undefined ? pyC / f.ours.median : undefined;
    const perEl = f.oursElements > 0 ? f.ours.median / f.oursElements : undefined;
    return [
      f.app.name,
      x !== undefined ? `${fmt(x)}x ${verdict(x >= TARGET_RATIO)}` : '–',
      perEl !== undefined ? `${fmt(perEl, 3)} ${verdict(perEl <= TARGET_MS_PER_ELEMENT)}` : '–',
      f.py ? `${f.oursElements} vs ${f.py.modes.cached.elements}` : '–',
    ];
  });
  out('Targets (information, not an exit code):');
  out();
  table(
    ['app', `>= ${TARGET_RATIO}x faster than pyatspi (cached)`, `<= ${TARGET_MS_PER_ELEMENT} ms/element`, 'elements axpage vs pyatspi'],
    targetRows,
  );
  for (const f of figures) {
    const cold = f.py ? `; pyatspi's cold first run: ${fmt(f.py.modes.cached.warmup_ms[0])} ms` : '';
    out(`- ${f.app.name}: axpage runs ${f.oursRuns.map((x) => fmt(x)).join(', ')} ms${cold}`);
  }
  out();
}
