/**
 * Section 10 (issue 13), apps behind the captured window: every call looks up the password
 * fields of the other apps on its captured region, and for a GTK4 or Qt app (no Collection
 * interface) that lookup is a walk of the whole app, beside the call's own walk. An app
 * whose windows there are all behind others shows nothing in the capture and is not looked
 * up. Measured: widget-factory's round trip with gnome-calculator (GTK4) and featherpad
 * (Qt 5) behind its window, and with the same two raised in front of it (on the region,
 * looked up), round by round, beside the backend snapshot.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { LaunchedApp } from '../desktop/apps.js';
import { appsOnRegion } from '../platform/linux/occlusion.js';
import { X11 } from '../platform/linux/x11.js';
import type { BenchContext } from './context.js';
import { takeSnapshot } from './snapshot.js';
import { fmt, out, STAT_HEADERS, statCells, table } from './report.js';
import { stats } from './stats.js';

const RUNS = 15;
const WARMUP_ROUNDS = 3;
const GAP_MS = 50;
/** After raising windows: the apps repaint what was covered before the call. */
const SETTLE_MS = 150;
const BEHIND = ['gnome-calculator', 'featherpad'];

export async function hiddenAppsTable(ctx: BenchContext): Promise<void> {
  const env = ctx.session.desktop.processEnv();
  const x11 = X11.open(env.DISPLAY as string, { framebuffer: false });
  const extra: LaunchedApp[] = [];
  try {
    for (const command of BEHIND) extra.push(await ctx.session.launch(command));
    const target = ctx.factory;
    const raise = async (pids: number[]): Promise<void> => {
      for (const pid of pids) {
        const win = (await x11.windowStackAsync()).windows.find((w) => w.mapped && w.pid === pid);
        if (win) await x11.activate(win.window);
      }
      await sleep(SETTLE_MS);
    };
    /** What the redaction rule makes of the desktop as it is now: the rows' check. */
    const sorting = async (): Promise<{ showing: number[]; hidden: number[] }> => {
      const stack = await x11.windowStackAsync();
      const win = stack.windows.find((w) => w.mapped && w.pid === target.pid);
      if (!win) throw new Error(`${target.name} has no mapped window`);
      return appsOnRegion(win, stack, stack);
    };
    const states = [
      { what: 'behind its window (hidden)', raise: [target.pid], ms: [] as number[], seen: '' },
      {
        what: 'in front of it (on the captured region)',
        raise: extra.map((a) => a.pid),
        ms: [] as number[],
        seen: '',
      },
    ];
    const snap: number[] = [];
    const known = [...extra, ctx.demo];
    const names = (pids: number[]): string =>
      pids.map((p) => known.find((a) => a.pid === p)?.name ?? `pid ${p}`).join(', ') || 'none';
    for (let i = -WARMUP_ROUNDS; i < RUNS; i++) {
      // The order turns round by round (see roundTrips).
      const order = i % 2 === 0 ? states : [...states].reverse();
      for (const state of order) {
        await raise(state.raise);
        const { hidden } = await sorting();
        state.seen = `hidden: ${names(hidden.filter((p) => p !== target.pid))}`;
        await sleep(GAP_MS);
        const t0 = performance.now();
        await ctx.call('ax_get_tree', { app: target.pid });
        if (i >= 0) state.ms.push(performance.now() - t0);
      }
      await sleep(GAP_MS);
      const t0 = performance.now();
      await takeSnapshot(ctx, target.pid);
      if (i >= 0) snap.push(performance.now() - t0);
    }
    const base = stats(snap);
    out(
      `${BEHIND.join(' (GTK4) and ')} (Qt 5): neither has the Collection interface, so looking up ` +
        `their password fields is a walk of each. ${RUNS} rounds after ${WARMUP_ROUNDS}, each ` +
        `state set by raising windows (${SETTLE_MS} ms to repaint), each call after ${GAP_MS} ms ` +
        `idle. "hidden" is what the redaction rule found on ${target.name}'s window at that ` +
        `moment (the stacking order, no compositor, unshaped windows). In front, the two are ` +
        `looked up on every call, as every app with a window on the region was, hidden or not, ` +
        `before axpage left the hidden ones out.`,
    );
    out();
    table(
      ['what', 'app', 'the two apps', ...STAT_HEADERS, 'after the walk ms', 'last round'],
      [
        ['backend snapshot (baseline)', target.name, '', ...statCells(base), '', ''],
        ...states.map((s) => {
          const st = stats(s.ms);
          return [
            'ax_get_tree MCP round trip',
            target.name,
            s.what,
            ...statCells(st),
            fmt(st.median - base.median),
            s.seen,
          ];
        }),
      ],
    );
  } finally {
    for (const app of extra) await app.stop().catch(() => undefined);
    // Back in front, as the other sections found it.
    const demo = (await x11.windowStackAsync().catch(() => undefined))?.windows.find(
      (w) => w.mapped && w.pid === ctx.demo.pid,
    );
    if (demo) await x11.activate(demo.window).catch(() => undefined);
    x11.close();
  }
}
