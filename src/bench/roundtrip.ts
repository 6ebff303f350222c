/**
 * Section 10 (issue 13): the ax_get_tree round trip against the walk it is built on, with
 * where the time after the walk goes, and the capture paths and PNG encoder settings a
 * screenshot can take. Round trip and snapshot run interleaved on the same app so drifting
 * load (other processes on a small machine) hits both alike.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import os from 'node:os';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import sharp, { type PngOptions } from 'sharp';
import { DEFAULT_CONFIG } from '../config.js';
import type { LaunchedApp } from '../desktop/apps.js';
import { BandedPng, DEFAULT_PNG_LEVEL, encodePng } from '../capture/index.js';
import { quietCall } from '../pipeline/notify.js';
import { Pipeline } from '../pipeline/pipeline.js';
import { STAGES, type Stage } from '../pipeline/timing.js';
import { X11, type CaptureSource } from '../platform/linux/x11.js';
import { getTree } from '../tools/observe.js';
import type { ToolContext } from '../tools/context.js';
import type { BenchContext } from './context.js';
import { takeSnapshot } from './snapshot.js';
import { waitQuiet } from './quiet.js';
import { startServe } from './serve-process.js';
import { heapGrowthTable } from './heap-growth.js';
import { fmt, out, STAT_HEADERS, statCells, table, verdict } from './report.js';
import { stats, timeRuns, timeSync } from './stats.js';

const RUNS = 21;
/**
 * Rounds before the timed ones: the server process compiles its hot code over its first
 * ~20 calls (the table of a fresh server below shows how much that costs).
 */
const WARMUP_ROUNDS = 10;
/** Idle time before every timed call (see roundTrips). */
const GAP_MS = 50;
/**
 * ax_get_tree calls on the server before any round: its code is compiled over its first
 * ~30 calls (see the fresh server's table), the rounds measure what every call after costs.
 */
const SERVER_WARMUP_CALLS = 30;
/** Calls on a fresh server, timed one by one. */
const FRESH_CALLS = 30;
const CAPTURE_RUNS = 15;
const TARGET_OVERHEAD_MS = 10;

function load(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

/**
 * ax_get_tree's handler on a pipeline in this process: the same code the server runs. It
 * walks with the bench's backend, which later tables walk with too: closing the pipeline
 * must not close it. (A Proxy serves: LinuxDesktop keeps no `#` private fields.)
 */
function inProcess(ctx: BenchContext, outDir: string): Pipeline {
  const shared = new Proxy(ctx.backend, {
    get: (target, key, receiver) =>
      key === 'close' ? async () => undefined : Reflect.get(target, key, receiver),
  });
  return new Pipeline(async () => shared, { ...DEFAULT_CONFIG, outDir });
}

async function roundTrips(
  ctx: BenchContext,
  app: LaunchedApp,
  pipeline: Pipeline,
  sequential: Pipeline,
) {
  await waitQuiet(ctx.backend, app.pid);
  const snap: number[] = [];
  const mcp: number[] = [];
  const local: number[] = [];
  const after: number[] = [];
  const stages = new Map<Stage, number[]>();
  const taken = new Map<string, number>();
  const tool = { pipeline, call: quietCall('ax_get_tree') } as ToolContext;
  let r: Awaited<ReturnType<typeof getTree.handle>> | undefined;
  // Each timed call after the same idle gap, in an order that turns round by round: on a
  // small VM a call made right after another runs on CPUs still awake, and a fixed order
  // would hand that advantage to the same row every time.
  const timed: Array<[number[], () => Promise<unknown>]> = [
    [snap, () => takeSnapshot(ctx, app.pid)],
    [mcp, () => ctx.call('ax_get_tree', { app: app.pid })],
    [local, async () => (r = await getTree.handle({ app: app.pid }, tool))],
    [
      after,
      () =>
        getTree.handle({ app: app.pid }, {
          pipeline: sequential,
          call: quietCall('ax_get_tree'),
        } as ToolContext),
    ],
  ];
  for (let i = -WARMUP_ROUNDS; i < RUNS; i++) {
    for (let k = 0; k < timed.length; k++) {
      const [into, call] = timed[(k + Math.max(i, 0)) % timed.length];
      await sleep(GAP_MS);
      const t0 = performance.now();
      await call();
      if (i >= 0) into.push(performance.now() - t0);
    }
    if (i < 0 || !r) continue; // warm-up rounds
    const file = String(r.structured?.file ?? '');
    const when = /# screenshot: .*taken: (walk \w+)/.exec(readHead(file))?.[1] ?? 'no screenshot';
    taken.set(when, (taken.get(when) ?? 0) + 1);
    const times = pipeline.lastTimes?.toJSON() ?? {};
    for (const s of STAGES) {
      const ms = times[s];
      if (ms !== undefined) stages.set(s, [...(stages.get(s) ?? []), ms]);
    }
  }
  return {
    snap: stats(snap),
    mcp: stats(mcp),
    local: stats(local),
    after: stats(after),
    stages,
    taken,
  };
}

async function roundTripTable(ctx: BenchContext): Promise<void> {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'axpage-bench-trip-'));
  const pipeline = inProcess(ctx, outDir);
  const sequential = inProcess(ctx, outDir);
  sequential.shootDuringWalk = false;
  try {
    const rows: string[][] = [];
    const breakdown: string[][] = [];
    const verdicts: string[] = [];
    for (let i = 0; i < SERVER_WARMUP_CALLS; i++) {
      await ctx.call('ax_get_tree', { app: (i % 2 ? ctx.demo : ctx.factory).pid });
    }
    for (const app of [ctx.factory, ctx.demo]) {
      const r = await roundTrips(ctx, app, pipeline, sequential);
      const over = r.mcp.median - r.snap.median;
      rows.push(['backend snapshot (baseline)', app.name, ...statCells(r.snap), '', load()]);
      rows.push(['ax_get_tree MCP round trip', app.name, ...statCells(r.mcp), fmt(over), load()]);
      rows.push([
        'ax_get_tree in this process',
        app.name,
        ...statCells(r.local),
        fmt(r.local.median - r.snap.median),
        load(),
      ]);
      rows.push([
        '  same, screenshot after the walk (baseline)',
        app.name,
        ...statCells(r.after),
        fmt(r.after.median - r.snap.median),
        load(),
      ]);
      const when = [...r.taken].map(([k, n]) => `${k} ${n}/${RUNS}`).join(', ');
      verdicts.push(`- ${app.name}: in-process screenshots taken at ${when}`);
      verdicts.push(
        `- ${app.name}: round trip ${fmt(r.mcp.median)} ms = snapshot ${fmt(r.snap.median)} ms + ${fmt(over)} ms ${verdict(over <= TARGET_OVERHEAD_MS)}`,
      );
      // The same figure inside one call (its own walk's end to its result), which drifting
      // load between separate calls does not blur.
      const inCall = stats(r.stages.get('after_walk') ?? []);
      verdicts.push(
        `- ${app.name}: in one in-process call, walk end to result: median ${fmt(inCall.median)} ms, min ${fmt(inCall.min)} ms ${verdict(inCall.median <= TARGET_OVERHEAD_MS)}`,
      );
      for (const s of STAGES) {
        const samples = r.stages.get(s);
        if (samples) breakdown.push([s, app.name, ...statCells(stats(samples))]);
      }
    }
    out(
      `${SERVER_WARMUP_CALLS} calls to warm the server up, then ${RUNS} rounds after ${WARMUP_ROUNDS} warm-up rounds, interleaved (each call after ${GAP_MS} ms idle, the order turning round by round): backend snapshot (the walk with its reads, in this process), ` +
        'the MCP round trip, and the same handler on a pipeline in this process (its stages timed). ' +
        '"after the walk" = this row\'s median minus the snapshot\'s.',
    );
    out();
    table(['what', 'app', ...STAT_HEADERS, 'after the walk ms', 'load'], rows);
    out(`Target: round trip <= snapshot + ${TARGET_OVERHEAD_MS} ms (information):`);
    out();
    for (const v of verdicts) out(v);
    out();
    out(
      "Where the in-process call's time goes. Stages overlap: capture, redact_scan, encode and write_png " +
        'run while the walk (an early shot) or serialize and summary do, so the rows add up to more than ' +
        'the call. capture runs on a worker thread: its row is the wall time until the JS thread takes ' +
        'its result up, not time the JS thread spends.',
    );
    out();
    table(['stage', 'app', ...STAT_HEADERS], breakdown);
  } finally {
    await pipeline.close().catch(() => undefined);
    await sequential.close().catch(() => undefined);
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** The header lines of a tree file (enough for its `# screenshot:` line). */
function readHead(file: string): string {
  try {
    return readFileSync(file, 'utf8').slice(0, 2000);
  } catch {
    return '';
  }
}

const SOURCES: CaptureSource[] = ['framebuffer', 'shm', 'getimage'];

/** sharp's encoder: one deflate run over the frame (the encoder before the banded one). */
const ENCODERS: Array<{ what: string; png: PngOptions }> = [
  { what: 'level 6', png: { compressionLevel: 6, palette: false } },
  { what: 'level 1', png: { compressionLevel: 1, palette: false } },
  { what: 'level 3 (the default level)', png: { compressionLevel: 3, palette: false } },
  { what: 'level 6, no adaptive filter', png: { compressionLevel: 6, adaptiveFiltering: false } },
  { what: 'level 1, no adaptive filter', png: { compressionLevel: 1, adaptiveFiltering: false } },
  { what: 'level 9', png: { compressionLevel: 9, palette: false } },
  { what: 'palette, effort 1', png: { compressionLevel: 6, palette: true, effort: 1 } },
];

async function captureTable(ctx: BenchContext): Promise<void> {
  const env = ctx.session.desktop.processEnv();
  const x11 = X11.open(env.DISPLAY, { framebuffer: env.XVFB_FB ?? false });
  try {
    const win = x11.listWindows().find((w) => w.mapped && w.pid === ctx.factory.pid);
    const screen = x11.screenSize();
    const rect = win
      ? { x: win.x, y: win.y, w: win.w, h: win.h }
      : { x: 0, y: 0, w: screen.w, h: screen.h };
    const rows: string[][] = [];
    // Round robin, so load that drifts during the runs hits every path alike.
    const sources = SOURCES.filter((src) => src !== 'framebuffer' || x11.usesFramebuffer);
    const samples = new Map<CaptureSource, number[]>(sources.map((src) => [src, []]));
    for (let i = -2; i < CAPTURE_RUNS * 2; i++) {
      for (const src of sources) {
        const [ms] = timeSync(1, 0, () => x11.captureRegion(rect, src));
        if (i >= 0) samples.get(src)!.push(ms);
      }
    }
    for (const src of sources) {
      const s = stats(samples.get(src)!);
      rows.push([`capture ${src}`, `${rect.w}x${rect.h}`, ...statCells(s), '', load()]);
    }
    const auto = x11.captureRegion(rect);
    rows.push([`(default path here: ${auto.source})`, '', '', '', '', '', '', '']);
    // What the pipeline calls: the default path on the capture worker's own connection.
    // Its JS-thread cost is what a walk beside it loses; the wall time is the row.
    const worker = stats(
      await timeRuns(CAPTURE_RUNS * 2, 2, async () => {
        await x11.captureRegionAsync(rect);
      }),
    );
    rows.push([
      'capture on the worker thread (async, wall)',
      `${rect.w}x${rect.h}`,
      ...statCells(worker),
      '',
      load(),
    ]);
    const frame = { width: auto.width, height: auto.height, channels: auto.channels };
    for (const e of ENCODERS) {
      let bytes = 0;
      const s = stats(
        await timeRuns(CAPTURE_RUNS, 2, async () => {
          const png = await sharp(auto.data, { raw: frame }).png(e.png).toBuffer();
          bytes = png.length;
        }),
      );
      rows.push([
        `sharp encode ${e.what}`,
        `${rect.w}x${rect.h}`,
        ...statCells(s),
        fmt(bytes / 1024),
        load(),
      ]);
    }
    rows.push(...(await bandedRows(auto.data, frame, `${rect.w}x${rect.h}`)));
    const both = stats(
      await timeRuns(CAPTURE_RUNS, 2, async () => {
        const img = await x11.captureRegionAsync(rect);
        await encodePng(img, { origin: { x: img.x, y: img.y } });
      }),
    );
    rows.push([
      'default capture + encodePng',
      `${rect.w}x${rect.h}`,
      ...statCells(both),
      '',
      load(),
    ]);
    out(
      `The widget-factory window, ${CAPTURE_RUNS} runs after 2 warm-ups: each capture path, then sharp PNG ` +
        'settings on one captured frame, then the default banded encoder on it (KiB = file size).',
    );
    out();
    table(['what', 'size', ...STAT_HEADERS, 'KiB', 'load'], rows);
  } finally {
    x11.close();
  }
}

/**
 * The default encoder (bands of rows, see png-bands.ts) on the same frame: a whole frame,
 * the frame again with one band's pixels changed (as a spinner changes it), and the same
 * pixels again.
 */
async function bandedRows(
  data: Buffer,
  frame: { width: number; height: number; channels: 3 | 4 },
  size: string,
): Promise<string[][]> {
  const level = DEFAULT_PNG_LEVEL;
  let bytes = 0;
  const whole = stats(
    await timeRuns(CAPTURE_RUNS, 2, async () => {
      bytes = (await new BandedPng().encode({ ...frame, data }, level, true)).length;
    }),
  );
  const enc = new BandedPng();
  // Two frames that differ in one pixel of one band, encoded in turn.
  const frames = [data, Buffer.from(data)];
  const at = Math.min(frames[1].length - 1, (frame.height >> 1) * frame.width * frame.channels);
  frames[1][at] ^= 0xff;
  let turn = 0;
  const oneBand = stats(
    await timeRuns(CAPTURE_RUNS, 2, async () => {
      await enc.encode({ ...frame, data: frames[turn++ & 1] }, level, true);
    }),
  );
  const same = stats(
    await timeRuns(CAPTURE_RUNS, 2, async () => {
      await enc.encode({ ...frame, data: frames[turn & 1] }, level, true);
    }),
  );
  const row = (what: string, s: ReturnType<typeof stats>, kib = '') => [
    what,
    size,
    ...statCells(s),
    kib,
    load(),
  ];
  return [
    row(`banded encode level ${level} (default), whole frame`, whole, fmt(bytes / 1024)),
    row('  same, one band changed since the last frame', oneBand),
    row('  same, nothing changed', same),
  ];
}

/**
 * A server's first calls: the same ax_get_tree on a server started now, call by call. Its
 * code runs unoptimised at first; V8 compiles what runs hot as the calls go on.
 */
async function freshServerTable(ctx: BenchContext): Promise<void> {
  const server = await startServe(ctx.session, { callTimeoutMs: 30_000 });
  try {
    const ms: number[] = [];
    for (let i = 0; i < FRESH_CALLS; i++) {
      await sleep(GAP_MS);
      const r = await server.call('ax_get_tree', { app: ctx.factory.pid });
      if (r.isError) throw new Error(`ax_get_tree failed on a fresh server: ${r.text}`);
      ms.push(r.ms);
    }
    const spans: Array<[number, number]> = [
      [0, 1],
      [1, 5],
      [5, 10],
      [10, 20],
      [20, FRESH_CALLS],
    ];
    const rows = spans.map(([from, to]) => [
      to - from === 1 ? `call ${to}` : `calls ${from + 1}-${to}`,
      ...statCells(stats(ms.slice(from, to))),
    ]);
    out(
      `A server started now, ${FRESH_CALLS} ax_get_tree calls on ${ctx.factory.name} one after another ` +
        `(${GAP_MS} ms apart): its first calls run before V8 has compiled the walk and pipeline code.`,
    );
    out();
    table(['server call', ...STAT_HEADERS], rows);
  } finally {
    await server.close();
  }
}

export async function roundTripSection(ctx: BenchContext): Promise<void> {
  await roundTripTable(ctx);
  await heapGrowthTable(ctx);
  await freshServerTable(ctx);
  await captureTable(ctx);
}
