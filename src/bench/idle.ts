/**
 * Quiet when idle: a server that looked at a busy app once (a label rewritten 20 times a
 * second) and then gets no call for 30 s. Its CPU from /proc, in 5 s slices, against the
 * app's own count of label updates and the change events the bench's backend sees.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchContext } from './context.js';
import { cpuSeconds } from './proc-usage.js';
import { fmt, out, table, verdict } from './report.js';
import { startServe } from './serve-process.js';

const IDLE_MS = 30_000;
const SLICE_MS = 5_000;
/** Target: at most this much of one core over the idle stretch. */
const TARGET_PERCENT = 5;
const UPDATE_INTERVAL_MS = 50;

export async function idleSection(ctx: BenchContext): Promise<void> {
  const server = await startServe(ctx.session, { callTimeoutMs: 10_000 });
  const busy = await ctx.session.launchFixture('busy.py', [
    '--labels',
    '1',
    '--interval-ms',
    String(UPDATE_INTERVAL_MS),
  ]);
  let events = 0;
  const unwatch = await ctx.backend.watchChanges(busy.pid, () => {
    events++;
  });
  try {
    const tree = await server.call('ax_get_tree', { app: busy.pid });
    if (tree.isError) throw new Error(`ax_get_tree failed: ${tree.text}`);
    const updates = busy.output?.events ?? [];
    const rows: string[][] = [];
    const t0 = performance.now();
    const c0 = cpuSeconds(server.pid);
    let cPrev = c0;
    let tPrev = t0;
    let ePrev = events;
    let uFrom = updates.length;
    for (let at = SLICE_MS; at <= IDLE_MS; at += SLICE_MS) {
      await sleep(Math.max(0, t0 + at - performance.now()));
      const c = cpuSeconds(server.pid);
      const t = performance.now();
      const secs = (t - tPrev) / 1000;
      const perS = updates
        .slice(uFrom)
        .filter((e) => e.event === 'updates')
        .map((e) => Number(e.count));
      rows.push([
        `${fmt((tPrev - t0) / 1000, 0)}–${fmt((t - t0) / 1000, 0)} s`,
        fmt(((c - cPrev) / secs) * 100),
        fmt((events - ePrev) / secs, 0),
        perS.length ? fmt(perS.reduce((a, b) => a + b, 0) / perS.length, 0) : '–',
      ]);
      cPrev = c;
      tPrev = t;
      ePrev = events;
      uFrom = updates.length;
    }
    const total = ((cPrev - c0) / ((tPrev - t0) / 1000)) * 100;
    out(
      `A fresh \`axpage serve\` (pid ${server.pid}) called once (\`ax_get_tree\` of busy.py, pid ${busy.pid}, ` +
        `one label rewritten every ${UPDATE_INTERVAL_MS} ms), then no call for ${IDLE_MS / 1000} s. ` +
        'CPU: the server process (user + system, /proc/<pid>/stat) per slice, as % of one core. ' +
        "Events/s: the app's change events as the bench's own backend sees them (what the server is sent while it watches).",
    );
    out();
    table(['slice', 'server CPU %', 'app events/s', 'label updates/s (app)'], rows);
    out(
      `Server CPU over ${IDLE_MS / 1000} s idle beside the busy app: ${fmt(total)} % of a core; target ≤ ${TARGET_PERCENT} %: ` +
        `${verdict(total <= TARGET_PERCENT)} (information)`,
    );
    out();
  } finally {
    await unwatch().catch(() => undefined);
    await busy.stop().catch(() => undefined);
    await server.close().catch(() => undefined);
  }
}
