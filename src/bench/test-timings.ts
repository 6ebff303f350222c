/**
 * Section 12: timings the end-to-end tests once asserted and now leave to the bench (a
 * test on a busy machine cannot hold a clock): a walk with a 1 ms time budget beside the
 * full walk of the same app, and a drag paced over 100 ms beside the same drag unpaced.
 * Runs interleaved, so drifting load hits both alike. Printed, never asserted.
 */
import { DEFAULT_CONFIG } from '../config.js';
import { X11 } from '../platform/linux/x11.js';
import type { BenchContext } from './context.js';
import { fmt, out, STAT_HEADERS, statCells, table } from './report.js';
import { stats } from './stats.js';

const RUNS = 11;
const DRAG_MS = 100;
const DRAG_STEPS = 5;

export async function testTimingsSection(ctx: BenchContext): Promise<void> {
  await budgetWalks(ctx);
  await drags(ctx);
}

async function budgetWalks(ctx: BenchContext): Promise<void> {
  const pid = ctx.factory.pid;
  const full: number[] = [];
  const budget: number[] = [];
  let truncated: string | null = null;
  let kept = 0;
  let all = 0;
  for (let i = -1; i < RUNS; i++) {
    let t0 = performance.now();
    const whole = await ctx.backend.snapshot(pid, DEFAULT_CONFIG.limits);
    const fullMs = performance.now() - t0;
    t0 = performance.now();
    const cut = await ctx.backend.snapshot(pid, { ...DEFAULT_CONFIG.limits, timeBudgetMs: 1 });
    const budgetMs = performance.now() - t0;
    if (i < 0) continue; // the first round warms both up
    full.push(fullMs);
    budget.push(budgetMs);
    truncated = cut.truncated;
    kept = cut.elements.length;
    all = whole.elements.length;
  }
  out(
    `gtk3-widget-factory walked by the backend in this process: the full walk (the baseline) ` +
      `and one with a 1 ms time budget, interleaved; the cut walk says "${truncated ?? 'not truncated'}".`,
  );
  out();
  table(
    ['walk', 'elements', ...STAT_HEADERS],
    [
      ['full (baseline)', String(all), ...statCells(stats(full))],
      ['1 ms time budget', String(kept), ...statCells(stats(budget))],
    ],
  );
}

async function drags(ctx: BenchContext): Promise<void> {
  const [w, h] = ctx.session.desktop.size.split('x').map(Number);
  // The bottom-right corner of the root window: no app window there, nothing to move.
  const from = { x: w - 80, y: h - 40 };
  const to = { x: w - 20, y: h - 10 };
  const x = X11.open(ctx.session.desktop.processEnv().DISPLAY, { framebuffer: false });
  const paced: number[] = [];
  const unpaced: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      let t0 = performance.now();
      await x.drag(from, to, DRAG_MS, DRAG_STEPS);
      paced.push(performance.now() - t0);
      t0 = performance.now();
      await x.drag(from, to, 0, DRAG_STEPS);
      unpaced.push(performance.now() - t0);
    }
  } finally {
    x.close();
  }
  out(
    `X11 drag of ${DRAG_STEPS} steps on the root window, asked to take ${DRAG_MS} ms, beside the ` +
      `same drag asked to take 0 ms (the baseline: the input itself); interleaved.`,
  );
  out();
  const p = stats(paced);
  table(
    ['drag', ...STAT_HEADERS, 'median - asked ms'],
    [
      [`${DRAG_MS} ms asked`, ...statCells(p), fmt(p.median - DRAG_MS)],
      ['0 ms asked (baseline)', ...statCells(stats(unpaced)), '–'],
    ],
  );
}
