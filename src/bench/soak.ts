/**
 * Section 7: a soak. A mixed loop of calls on form.py through a fresh `axpage serve`,
 * three ways in the same run: alone, with a frozen app beside it (another form.py,
 * SIGSTOPped), and with a busy app beside it (busy.py, labels rewritten every few ms).
 * Per run: calls, errors, latency p50/p99 (overall and per tool), and the server
 * process's RSS and open descriptors at start, after warm-up and at the end, from /proc.
 * Then the server's CPU while idle: alone, and watching the busy app.
 *
 * Each run gets its own server, so the three start alike and one run's leftovers
 * (views, watches, a stuck call) cannot show up in the next run's figures.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { LaunchedApp } from '../desktop/apps.js';
import type { BenchContext } from './context.js';
import { cpuPercentOver, footprint, type Footprint } from './proc-usage.js';
import { fmt, out, table, verdict } from './report.js';
import { startServe, type ServeProcess, type TimedCall } from './serve-process.js';

/** Targets (information only). */
export const RSS_GROWTH_TARGET_MIB = 20; // per 1000 calls, after warm-up
export const P99_FACTOR_TARGET = 2; // p99 beside a frozen or busy app, against alone
export const IDLE_CPU_TARGET = 1; // % of a core, idle and alone
export const WATCH_CPU_TARGET = 5; // % of a core, idle and watching the busy app

const DEFAULT_CALLS = 210;
const DEFAULT_MAX_S = 30;
const CALL_TIMEOUT_MS = 10_000;
/** Growth is shown only over at least this many calls: fewer say more about GC than leaks. */
const MIN_GROWTH_CALLS = 50;
/**
 * RSS is judged only over at least this many calls: the heap of a fresh server grows for
 * its first few hundred calls (in a 1050-call run alone it went 126 → 177 MiB by call 530,
 * then 178 by call 1050), so a shorter run's RSS slope is mostly that growth.
 */
const RSS_VERDICT_MIN_CALLS = 400;
const CPU_WINDOW_MS = 5_000;
const EVENT_WINDOW_MS = 2_000;

/** One cycle of the loop: read, find, act, observe. `i` makes every typed text differ. */
const CYCLE: Array<(app: number, i: number) => [string, Record<string, unknown>]> = [
  (app) => ['ax_get_tree', { app }],
  (app) => ['ax_find', { app, query: 'button' }],
  (app) => ['ax_get_value', { app, query: 'Name' }],
  (app) => ['ax_click', { app, query: 'Subscribe' }],
  (app, i) => ['ax_type', { app, query: 'Name', text: `soak ${i}`, clear_first: true }],
  (app) => ['ax_screenshot', { app }],
  () => ['ax_list_apps', {}],
];
const WARMUP_CALLS = CYCLE.length;

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    out(`_${name}=${JSON.stringify(raw)} is not a positive integer: using ${fallback}_`);
    out();
    return fallback;
  }
  return n;
}

/** Nearest-rank percentile (p in 0..1). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

interface RunResult {
  name: string;
  /** Every call, warm-up included. */
  calls: TimedCall[];
  start: Footprint;
  warm: Footprint;
  /** Halfway through the calls after warm-up (warm, when the run stopped before). */
  mid: Footprint;
  /** How many calls had been made when `mid` was read. */
  midAt: number;
  end: Footprint;
  wallS: number;
  /** The loop ended on the time bound before making all its calls (at a cycle's end). */
  timedOut: boolean;
  /** Toggles form.py printed during the run, against clicks the server called a success. */
  togglesSeen: number;
  clicksOk: number;
}

const measured = (r: RunResult): TimedCall[] => r.calls.slice(WARMUP_CALLS);
const perThousand = (delta: number, calls: number): number =>
  calls >= MIN_GROWTH_CALLS ? (delta / calls) * 1000 : NaN;

async function soakLoop(
  name: string,
  server: ServeProcess,
  form: LaunchedApp,
  calls: number,
  maxS: number,
  start: Footprint,
): Promise<RunResult> {
  const events = form.output?.events ?? [];
  const from = events.length;
  let warm = start;
  let mid: Footprint | undefined;
  const half = WARMUP_CALLS + Math.floor(Math.max(0, calls - WARMUP_CALLS) / 2);
  const done: TimedCall[] = [];
  const t0 = performance.now();
  let timedOut = false;
  for (let i = 0; i < calls; i++) {
    // The bound is looked at between cycles, and only after the warm-up cycle and one
    // measured cycle: even when every call is slow, every tool gets timed at least once.
    const cycleStart = i % CYCLE.length === 0 && i >= 2 * CYCLE.length;
    if (cycleStart && performance.now() - t0 > maxS * 1000) {
      timedOut = true;
      break;
    }
    const [tool, args] = CYCLE[i % CYCLE.length](form.pid, i);
    done.push(await server.call(tool, args));
    if (done.length === WARMUP_CALLS) warm = footprint(server.pid);
    if (done.length === half) mid = footprint(server.pid);
  }
  const wallS = (performance.now() - t0) / 1000;
  // Let the last call's settle and any deferred work finish before the last reading.
  await sleep(500);
  const end = footprint(server.pid);
  return {
    name,
    calls: done,
    start,
    warm,
    mid: mid ?? warm,
    midAt: mid ? half : WARMUP_CALLS,
    end,
    wallS,
    timedOut,
    togglesSeen: events.slice(from).filter((e) => e.event === 'toggled').length,
    clicksOk: done.filter((c) => c.tool === 'ax_click' && !c.isError).length,
  };
}

/** What stands beside form.py during a run; `stop` undoes it. */
interface Neighbour {
  label: string;
  stop(): Promise<void>;
}

async function frozenNeighbour(ctx: BenchContext, server: ServeProcess): Promise<Neighbour> {
  const app = await ctx.session.launchFixture('form.py');
  // The server has seen it before it froze, as when an app an agent used hangs.
  await server.call('ax_get_tree', { app: app.pid });
  process.kill(app.pid, 'SIGSTOP');
  return {
    label: `form.py pid ${app.pid}, SIGSTOPped`,
    async stop() {
      process.kill(app.pid, 'SIGCONT');
      await app.stop();
    },
  };
}

async function runWith(
  ctx: BenchContext,
  name: string,
  form: LaunchedApp,
  opts: { calls: number; maxS: number },
  beside?: (server: ServeProcess) => Promise<Neighbour>,
  afterLoop?: (server: ServeProcess) => Promise<void>,
): Promise<RunResult> {
  const server = await startServe(ctx.session, { callTimeoutMs: CALL_TIMEOUT_MS });
  const start = footprint(server.pid);
  let neighbour: Neighbour | undefined;
  try {
    neighbour = beside ? await beside(server) : undefined;
    const r = await soakLoop(name, server, form, opts.calls, opts.maxS, start);
    if (neighbour) r.name = `${name} (${neighbour.label})`;
    const firstError = r.calls.find((c) => c.isError);
    if (firstError) {
      out(`first error in "${name}" (${firstError.tool}):`);
      out('```');
      out(firstError.text.split('\n').slice(0, 8).join('\n'));
      out('```');
      out();
    }
    await afterLoop?.(server);
    return r;
  } finally {
    await neighbour?.stop().catch(() => undefined);
    await server.close().catch(() => undefined);
  }
}

interface CpuRow {
  state: string;
  percent: number;
  target: number;
  eventsPerS?: number;
  updatesPerS?: number;
}

export async function soakSection(ctx: BenchContext): Promise<void> {
  const calls = envInt('AXPAGE_SOAK_CALLS', DEFAULT_CALLS);
  const maxS = envInt('AXPAGE_SOAK_MAX_S', DEFAULT_MAX_S);
  const opts = { calls, maxS };
  const form = await ctx.session.launchFixture('form.py');
  const cpu: CpuRow[] = [];
  const runs: RunResult[] = [];
  try {
    out(
      `form.py pid ${form.pid}; per run: ${calls} calls (AXPAGE_SOAK_CALLS) or ${maxS} s ` +
        `(AXPAGE_SOAK_MAX_S), whichever comes first; each call bounded at ${CALL_TIMEOUT_MS / 1000} s`,
    );
    out();

    // A run that fails is reported and the others still run.
    const attempt = async (name: string, run: () => Promise<RunResult>): Promise<void> => {
      try {
        runs.push(await run());
      } catch (err) {
        out(`**run "${name}" failed:** ${(err as Error)?.message ?? String(err)}`);
        out();
      }
    };

    await attempt('alone', () =>
      runWith(ctx, 'alone', form, opts, undefined, async (server) => {
        await sleep(1000);
        cpu.push({
          state: 'idle, alone',
          percent: await cpuPercentOver(server.pid, CPU_WINDOW_MS),
          target: IDLE_CPU_TARGET,
        });
      }),
    );
    await attempt('frozen app beside', () =>
      runWith(ctx, 'frozen app beside', form, opts, (s) => frozenNeighbour(ctx, s)),
    );
    let busy: LaunchedApp | undefined;
    await attempt('busy app beside', () =>
      runWith(
        ctx,
        'busy app beside',
        form,
        opts,
        async (server) => {
          const app = await ctx.session.launchFixture('busy.py');
          busy = app;
          // The server watches it, as after an agent looked at it once.
          await server.call('ax_get_tree', { app: app.pid });
          return {
            label: `busy.py pid ${app.pid}`,
            async stop() {
              await app.stop();
            },
          };
        },
        async (server) => {
          if (busy) cpu.push(await idleWatchingBusy(ctx, server, busy));
        },
      ),
    );
  } finally {
    await form.stop().catch(() => undefined);
  }

  printRuns(runs);
  printPerTool(runs);
  printCpu(cpu);
}

/** The server's CPU while idle and watching the busy app, with the app's event rate. */
async function idleWatchingBusy(
  ctx: BenchContext,
  server: ServeProcess,
  busy: LaunchedApp,
): Promise<CpuRow> {
  await sleep(1000);
  const eventsPerS = await countEvents(ctx, busy.pid, EVENT_WINDOW_MS);
  const lines = busy.output?.events ?? [];
  const from = lines.length;
  const percent = await cpuPercentOver(server.pid, CPU_WINDOW_MS);
  const seconds = lines.slice(from).filter((e) => e.event === 'updates');
  const updatesPerS =
    seconds.reduce((sum, e) => sum + Number(e.count), 0) / Math.max(1, seconds.length);
  return {
    state: 'idle, watching busy.py',
    percent,
    target: WATCH_CPU_TARGET,
    eventsPerS,
    updatesPerS,
  };
}

/** Change events per second the app sends, counted by the bench's own backend. */
async function countEvents(ctx: BenchContext, pid: number, ms: number): Promise<number> {
  let n = 0;
  const unwatch = await ctx.backend.watchChanges(pid, () => {
    n++;
  });
  try {
    n = 0;
    const t0 = performance.now();
    await sleep(ms);
    return n / ((performance.now() - t0) / 1000);
  } finally {
    await unwatch();
  }
}

/** PASS/MISS, or n/a when there was too little to measure. */
const judged = (x: number, ok: boolean): string => (Number.isNaN(x) ? 'n/a' : verdict(ok));

function printRuns(runs: RunResult[]): void {
  const alone = runs[0];
  const aloneP99 = alone
    ? percentile(
        measured(alone).map((c) => c.ms),
        0.99,
      )
    : NaN;
  const rows = runs.map((r) => {
    const ms = measured(r).map((c) => c.ms);
    const n = measured(r).length;
    const p99 = percentile(ms, 0.99);
    const secondHalf = r.calls.length - r.midAt;
    const rssGrowth = perThousand(r.end.rssMiB - r.mid.rssMiB, secondHalf);
    const fdGrowth = perThousand(r.end.fds - r.warm.fds, n);
    const errors = r.calls.filter((c) => c.isError).length;
    const checks = [
      `errors ${verdict(errors === 0)}`,
      `fd ${judged(fdGrowth, fdGrowth <= 0)}`,
      `RSS ${secondHalf >= RSS_VERDICT_MIN_CALLS ? judged(rssGrowth, rssGrowth < RSS_GROWTH_TARGET_MIB) : 'n/a'}`,
    ];
    if (r !== alone) checks.push(`p99 ${verdict(p99 <= P99_FACTOR_TARGET * aloneP99)}`);
    return [
      r.name,
      `${r.calls.length}${r.timedOut ? ' (time bound)' : ''}`,
      String(errors),
      fmt(percentile(ms, 0.5)),
      fmt(p99),
      [r.start, r.warm, r.mid, r.end].map((f) => fmt(f.rssMiB, 0)).join(' → '),
      fmt(rssGrowth, 1),
      `${r.start.fds} → ${r.warm.fds} → ${r.end.fds}`,
      fmt(fdGrowth, 1),
      `${r.togglesSeen}/${r.clicksOk}`,
      fmt(r.wallS, 1),
      checks.join(' · '),
    ];
  });
  table(
    [
      'run',
      'calls',
      'errors',
      'p50 ms',
      'p99 ms',
      'RSS MiB start → warm → mid → end',
      'RSS MiB /1000 calls (2nd half)',
      'fds start → warm → end',
      'fds /1000 calls',
      'toggles seen/clicks ok',
      'wall s',
      'targets',
    ],
    rows,
  );
  out(
    `"warm" is after the first ${WARMUP_CALLS} calls (one cycle); latency and fd growth count the calls after it. ` +
      `"mid" is halfway through those: RSS growth is taken over the second half, because V8 grows its heap ` +
      `for a while before it collects, and a leak keeps growing once that has levelled off. ` +
      `Growth over fewer than ${MIN_GROWTH_CALLS} calls is not shown (–, n/a), and RSS is judged only over ` +
      `${RSS_VERDICT_MIN_CALLS}+ calls (AXPAGE_SOAK_CALLS=1050 or more): a fresh server's heap grows for its first few hundred. ` +
      `"toggles seen" is what form.py itself printed. Targets: 0 errors, fd growth 0, ` +
      `RSS growth < ${RSS_GROWTH_TARGET_MIB} MiB per 1000 calls, p99 beside a frozen or busy app ` +
      `≤ ${P99_FACTOR_TARGET}x alone (${fmt(aloneP99)} ms).`,
  );
  out();
}

function printPerTool(runs: RunResult[]): void {
  const tools = [...new Set(CYCLE.map((step) => step(0, 0)[0]))];
  const rows = tools.map((tool) => [
    tool,
    ...runs.flatMap((r) => {
      const ms = measured(r)
        .filter((c) => c.tool === tool)
        .map((c) => c.ms);
      return [`${fmt(percentile(ms, 0.5))} / ${fmt(percentile(ms, 0.99))} (n=${ms.length})`];
    }),
  ]);
  table(['tool: p50 / p99 ms', ...runs.map((r) => r.name.replace(/ \(.*/, ''))], rows);
  out('With a few dozen calls per tool, p99 is about the slowest call.');
  out();
}

function printCpu(cpu: CpuRow[]): void {
  table(
    [
      'server state',
      'CPU % of a core',
      'busy.py events/s (bench count)',
      'label updates/s (busy.py)',
      'target',
    ],
    cpu.map((c) => [
      c.state,
      fmt(c.percent, 1),
      fmt(c.eventsPerS, 0),
      fmt(c.updatesPerS, 0),
      `≤ ${c.target} % ${verdict(c.percent <= c.target)}`,
    ]),
  );
  out(
    `CPU is utime+stime from /proc/<pid>/stat over ${CPU_WINDOW_MS / 1000} s with no call in flight, ` +
      `1 s after the last call. Events are counted in the bench process over ${EVENT_WINDOW_MS / 1000} s just before.`,
  );
  out();
}
