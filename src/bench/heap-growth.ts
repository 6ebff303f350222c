/**
 * Section 10's heap-growth table: MCP round trips on servers with the old heap allowed to
 * grow to 3x its live size between full collections (AXPAGE_HEAP_GROWTH=200, the default)
 * and on servers left to V8's own rule (0). V8's rule makes servers of the same build
 * diverge (one collects in full every ~6 calls, another every ~2), so one server per
 * setting would mostly measure which server is which: each setting runs on SERVERS_EACH
 * fresh servers, all interleaved, and is judged by the mean of its servers' medians.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchContext } from './context.js';
import { fmt, out, STAT_HEADERS, statCells, table } from './report.js';
import { startServe } from './serve-process.js';
import type { ServeProcess } from './serve-process.js';
import { stats } from './stats.js';
import { cpuSeconds } from './proc-usage.js';

const SERVERS_EACH = 3;
const WARMUP_CALLS = 30;
const ROUNDS = 31;
const GAP_MS = 50;
const SETTINGS = ['200', '0'] as const;

interface Server {
  growth: (typeof SETTINGS)[number];
  process: ServeProcess;
  ms: number[];
  /** CPU seconds (user + system) the server had used when the rounds began. */
  cpu0: number;
}

export async function heapGrowthTable(ctx: BenchContext): Promise<void> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < SERVERS_EACH * SETTINGS.length; i++) {
      const growth = SETTINGS[i % SETTINGS.length];
      const process = await startServe(ctx.session, {
        env: { AXPAGE_HEAP_GROWTH: growth },
        callTimeoutMs: 30_000,
      });
      servers.push({ growth, process, ms: [], cpu0: 0 });
    }
    const app = ctx.factory;
    const call = async (s: Server): Promise<number> => {
      const r = await s.process.call('ax_get_tree', { app: app.pid });
      if (r.isError) throw new Error(`ax_get_tree failed: ${r.text}`);
      return r.ms;
    };
    for (let i = 0; i < WARMUP_CALLS; i++) for (const s of servers) await call(s);
    for (const s of servers) s.cpu0 = cpuSeconds(s.process.pid);
    for (let round = 0; round < ROUNDS; round++) {
      // The order turns round by round: no server always follows the same one.
      for (let k = 0; k < servers.length; k++) {
        const s = servers[(k + round) % servers.length];
        await sleep(GAP_MS);
        s.ms.push(await call(s));
      }
    }
    // The server's own CPU over the rounds, per call: garbage collection shows here plainly,
    // where the wall time also holds the app's answers and the other processes' turns.
    const cpuMs = servers.map((s) => ((cpuSeconds(s.process.pid) - s.cpu0) * 1000) / ROUNDS);
    const rows = servers.map((s, i) => [
      `server ${i + 1}, AXPAGE_HEAP_GROWTH=${s.growth}${s.growth === '200' ? ' (default)' : ' (baseline)'}`,
      ...statCells(stats(s.ms)),
      fmt(cpuMs[i]),
    ]);
    const meanOf = (growth: Server['growth'], of: (s: Server, i: number) => number): number => {
      const values = servers.flatMap((s, i) => (s.growth === growth ? [of(s, i)] : []));
      return values.reduce((a, b) => a + b, 0) / values.length;
    };
    const median = (s: Server) => stats(s.ms).median;
    const cpu = (_s: Server, i: number) => cpuMs[i];
    out(
      `Heap growth (AXPAGE_HEAP_GROWTH): ${SERVERS_EACH} fresh servers at 200 (the default) and ${SERVERS_EACH} at 0 ` +
        `(V8's own rule), ${WARMUP_CALLS} calls each to warm up, then ${ROUNDS} rounds of one ax_get_tree on ` +
        `${app.name} per server (each after ${GAP_MS} ms idle, the order turning). Each setting is judged by ` +
        "the mean of its servers' medians: under V8's rule, servers of the same build differ by up to ~20 ms.",
    );
    out();
    table(['server', ...STAT_HEADERS, 'server CPU ms per call'], rows);
    out(
      `- mean of medians: ${fmt(meanOf('200', median))} ms at 200, ${fmt(meanOf('0', median))} ms at 0`,
    );
    out(
      `- server CPU per call: ${fmt(meanOf('200', cpu))} ms at 200, ${fmt(meanOf('0', cpu))} ms at 0; ` +
        `the most any server used: ${fmt(Math.max(...cpuMs.filter((_, i) => servers[i].growth === '200')))} ms at 200, ` +
        `${fmt(Math.max(...cpuMs.filter((_, i) => servers[i].growth === '0')))} ms at 0`,
    );
    out();
  } finally {
    for (const s of servers) await s.process.close().catch(() => undefined);
  }
}
