/**
 * Section 4 (issue 3): acting. ax_click round trips on a check box (client time, and the
 * server's settle time apart), typing rate in both delivery modes, and false added/removed
 * rows when scrolling a long list.
 */
import fs from 'node:fs';
import type { CallResult } from '../harness/session.js';
import type { BenchContext } from './context.js';
import { readHeader, refOf, treeSection, type TreeHeader } from './context.js';
import { fmt, out, STAT_HEADERS, statCells, table, verdict } from './report.js';
import { stats } from './stats.js';

const CLICKS = 16;
const TYPE_RUNS = 3;
const SCROLL_RUNS = 3;
const TARGET_CLICK_MS = 150;
const TYPED = 'The quick brown fox jumps over the lazy dog, 0123456789; ';

interface Timed {
  r: CallResult;
  head: TreeHeader;
  settle: number;
}

async function timedCall(
  ctx: BenchContext,
  tool: string,
  args: Record<string, unknown>,
): Promise<Timed> {
  const r = await ctx.call(tool, args);
  const head = readHeader(r.fields.file);
  const settle =
    typeof r.structured.settle_ms === 'number' ? r.structured.settle_ms : (head.settleMs ?? NaN);
  return { r, head, settle };
}

function countBy(values: string[]): string {
  const m = new Map<string, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m.entries()].map(([k, n]) => `${k} ${n}`).join(', ');
}

/** The timing rows every action table shares: client, settle, client − settle, act, walk. */
function breakdownRows(label: string, runs: Timed[], seqBefore: number): string[][] {
  const client = runs.map((t) => t.r.ms);
  const settle = runs.map((t) => t.settle);
  const rest = runs.map((t) => t.r.ms - t.settle);
  const act = runs.map((t) => t.head.actMs ?? NaN).filter(Number.isFinite);
  const walk = runs.map((t) => t.head.walkMs);
  // Snapshots the server presented per call: 1 = the before view came from the cache.
  const seqs = [seqBefore, ...runs.map((t) => t.head.snapshotSeq)];
  const per = runs.map((_, i) => seqs[i + 1] - seqs[i]);
  return [
    [`${label}: client round trip`, ...statCells(stats(client)), ''],
    [
      `${label}: server settle (settle_ms)`,
      ...statCells(stats(settle)),
      countBy(runs.map((t) => t.head.settleReason ?? '?')),
    ],
    [`${label}: client − settle`, ...statCells(stats(rest)), ''],
    [`${label}: act (header act:)`, ...statCells(stats(act)), ''],
    [
      `${label}: after-walk (header elapsed:)`,
      ...statCells(stats(walk)),
      `snapshots/call: ${countBy(per.map(String))}`,
    ],
  ];
}

/** Which app the window manager has in front (pid), for the notes. */
async function frontName(ctx: BenchContext): Promise<string> {
  const front = await ctx.backend.frontmost().catch(() => null);
  if (!front) return 'none';
  const app = [ctx.factory, ctx.demo].find((a) => a.pid === front.pid);
  return app ? app.name : `pid ${front.pid}`;
}

async function clickPass(
  ctx: BenchContext,
  ref: string,
  label: string,
): Promise<{ rows: string[][]; note: string; p50: number }> {
  await ctx.call('ax_click', { ref }); // warm-up
  const seq = (await timedCall(ctx, 'ax_click', { ref })).head.snapshotSeq;
  const runs: Timed[] = [];
  for (let i = 0; i < CLICKS; i++) runs.push(await timedCall(ctx, 'ax_click', { ref }));
  const mark = new RegExp(
    `^~ \\[AXCheckBox \\(check box\\)\\] "checkbutton" ${ref} \\| flags: `,
    'm',
  );
  const toggled = runs.filter((t) => mark.test(fs.readFileSync(t.r.fields.file, 'utf8'))).length;
  const switched = runs.filter((t) => t.r.fields.app_switch !== undefined);
  const note =
    `- ${label}: effect ${countBy(runs.map((t) => String(t.r.structured.effect)))}; the box's checked flag flips in the diff ` +
    `${toggled}/${CLICKS}; app_switch reported ${switched.length}/${CLICKS}` +
    (switched.length > 0 ? ` ("${switched[0].r.fields.app_switch}")` : '');
  return {
    rows: breakdownRows(label, runs, seq),
    note,
    p50: stats(runs.map((t) => t.r.ms - t.settle)).median,
  };
}

async function clicks(ctx: BenchContext): Promise<void> {
  const tree = await ctx.call('ax_get_tree', { app: ctx.factory.pid });
  // An enabled two-state box (the factory also shows disabled and inconsistent ones).
  const line = treeSection(fs.readFileSync(tree.fields.file, 'utf8')).find(
    (l) =>
      /\[AXCheckBox \(check box\)\] "checkbutton" e[0-9]+ .*\bvisible enabled\b/.test(l) &&
      !/\bmixed\b/.test(l),
  );
  const ref = line ? refOf(line) : undefined;
  if (!ref) throw new Error(`no visible enabled "checkbutton" check box in ${tree.fields.file}`);
  out(
    `### ax_click on a check box (${ref} "checkbutton", gtk3-widget-factory, background AT-SPI action)`,
  );
  out();
  out(
    `${CLICKS} clicks after 2 warm-ups per pass, toggling the same box; first with another app (${await frontName(ctx)}) ` +
      'in front as launched, then with the factory brought to the front. "snapshots/call": snapshots the server ' +
      'presented per click (1 = the before view came from its cache and no other app was walked; 2 = it walked the ' +
      'app before acting too, or walked another app for an app_switch). settle reasons: quiet = events, then 60 ms ' +
      'without; no-events = nothing came within the first-event wait.',
  );
  out();
  const behind = await clickPass(ctx, ref, 'factory behind');
  const restore = await ctx.backend.activate(ctx.factory.pid);
  void restore; // the factory stays in front for the rest of the section
  const front = await clickPass(ctx, ref, `factory in front (${await frontName(ctx)})`);
  table(['what', ...STAT_HEADERS, 'notes'], [...behind.rows, ...front.rows]);
  out(behind.note);
  out(front.note);
  out();
  out(
    `Target: p50 client − settle < ${TARGET_CLICK_MS} ms (information): factory behind ${fmt(behind.p50)} ms ` +
      `${verdict(behind.p50 < TARGET_CLICK_MS)}; factory in front ${fmt(front.p50)} ms ${verdict(front.p50 < TARGET_CLICK_MS)}`,
  );
  out();
}

async function typing(ctx: BenchContext): Promise<void> {
  const long = TYPED.repeat(Math.ceil(200 / TYPED.length) + 1);
  // A different 200 chars each call, so every call really changes the entry.
  let turn = 0;
  const nextText = (): string => long.slice(turn % TYPED.length, (turn++ % TYPED.length) + 200);
  const text = nextText();
  const tree = await ctx.call('ax_get_tree', { app: ctx.factory.pid });
  // An enabled one: the factory shows disabled entries too, which take no typing.
  const line = fs
    .readFileSync(tree.fields.file, 'utf8')
    .split('\n')
    .find((l) => /\[AXTextField \(text\)\] "entry" e[0-9]+ .* visible enabled/.test(l));
  const ref = line ? refOf(line) : undefined;
  if (!ref) throw new Error(`no visible, enabled "entry" text field in ${tree.fields.file}`);
  out(
    `### ax_type of ${text.length} chars into ${ref} ("entry", gtk3-widget-factory), clear_first`,
  );
  out();
  const rows: string[][] = [];
  const notes: string[] = [];
  for (const mode of ['background', 'foreground'] as const) {
    const args = (): Record<string, unknown> => ({
      ref,
      text: nextText(),
      clear_first: true,
      delivery_mode: mode,
    });
    await ctx.call('ax_type', args()); // warm-up
    const runs: Timed[] = [];
    for (let i = 0; i < TYPE_RUNS; i++) runs.push(await timedCall(ctx, 'ax_type', args()));
    const value = await ctx.call('ax_get_value', { ref });
    const typed = long.slice((turn - 1) % TYPED.length, ((turn - 1) % TYPED.length) + 200);
    const landed = value.structured.value === typed;
    const client = stats(runs.map((t) => t.r.ms));
    const act = stats(runs.map((t) => t.head.actMs ?? NaN).filter(Number.isFinite));
    const settle = stats(runs.map((t) => t.settle));
    const cps = (ms: number): string => fmt((text.length * 1000) / ms, 0);
    rows.push(
      [`${mode}: client round trip`, ...statCells(client), cps(client.median)],
      [`${mode}: act (typing itself)`, ...statCells(act), cps(act.median)],
      [`${mode}: settle`, ...statCells(settle), ''],
    );
    notes.push(
      `- ${mode}: delivery ${countBy(runs.map((t) => String(t.r.structured.delivery)))}; effect ${countBy(runs.map((t) => String(t.r.structured.effect)))}; ` +
        `app_switch reported ${runs.filter((t) => t.r.fields.app_switch !== undefined).length}/${runs.length}; ` +
        `text_changes named ${countBy(runs.flatMap((t) => changedRefs(t.r)))}; ` +
        `ax_get_value of ${ref} afterwards ${landed ? 'equals the typed text' : `DIFFERS: ${JSON.stringify(String(value.structured.value).slice(0, 40))}`}`,
    );
  }
  table(['what', ...STAT_HEADERS, 'chars/s (median)'], rows);
  for (const n of notes) out(n);
  out();
}

/** Refs the summary's text_changes name (`[AXTextField] e23: 'a' -> 'b'`). */
function changedRefs(r: CallResult): string[] {
  const refs = (r.lists.text_changes ?? []).map(
    (l) => /\] (?:"[^"]*" )?(e[0-9]+):/.exec(l)?.[1] ?? '?',
  );
  return refs.length > 0 ? refs : ['none'];
}

const ROW_LINE = /\[AXRow \(list item\)\] "(Row \d+)"/;

function rowsIn(lines: string[]): Set<string> {
  const s = new Set<string>();
  for (const l of lines) {
    const m = ROW_LINE.exec(l);
    if (m) s.add(m[1]);
  }
  return s;
}

async function scrolling(ctx: BenchContext): Promise<void> {
  const list = await ctx.session.launchFixture('long_list.py');
  try {
    const first = await ctx.call('ax_get_tree', { app: list.pid });
    let existing = rowsIn(treeSection(fs.readFileSync(first.fields.file, 'utf8')));
    out(`### ax_scroll on test/fixtures/apps/long_list.py (${existing.size} rows in the tree)`);
    out();
    out(
      'Each run scrolls down by the amount, then back up by it (both measured). "false +/-": diff lines ' +
        '`+ `/`- ` of a row that was in the tree before the call (+) or still is after it (-). Target 0.',
    );
    out();
    const rows: string[][] = [];
    let falseTotal = 0;
    for (const mode of ['background', 'foreground'] as const) {
      for (const amount of [300, 1000]) {
        const per = { down: [] as Timed[], up: [] as Timed[] };
        const fresh = () => ({
          add: 0,
          rem: 0,
          fadd: 0,
          frem: 0,
          moved: [] as number[],
          mod: [] as number[],
        });
        const counts = { down: fresh(), up: fresh() };
        for (let i = 0; i < SCROLL_RUNS; i++) {
          for (const direction of ['down', 'up'] as const) {
            const t = await timedCall(ctx, 'ax_scroll', {
              app: list.pid,
              direction,
              amount,
              delivery_mode: mode,
            });
            const text = fs.readFileSync(t.r.fields.file, 'utf8');
            const after = rowsIn(treeSection(text));
            const c = counts[direction];
            let moved = 0;
            let mod = 0;
            for (const l of text.split('\n')) {
              if (l === '# tree') break;
              if (l.startsWith('~ moved ')) moved++;
              if (l.startsWith('~ ')) mod++;
              const row = ROW_LINE.exec(l)?.[1];
              if (l.startsWith('+ ')) {
                c.add++;
                if (row && existing.has(row)) c.fadd++;
              } else if (l.startsWith('- ')) {
                c.rem++;
                if (row && after.has(row)) c.frem++;
              }
            }
            c.moved.push(moved);
            c.mod.push(mod);
            per[direction].push(t);
            existing = after;
          }
        }
        for (const direction of ['down', 'up'] as const) {
          const c = counts[direction];
          falseTotal += c.fadd + c.frem;
          rows.push([
            `${mode} ${direction} ${amount} px`,
            ...statCells(stats(per[direction].map((t) => t.r.ms))),
            fmt(stats(per[direction].map((t) => t.settle)).median),
            `${fmt(stats(c.mod).median, 0)} (${fmt(stats(c.moved).median, 0)} moved)`,
            `${c.add}/${c.rem}`,
            `${c.fadd}/${c.frem}`,
            countBy(per[direction].map((t) => String(t.r.structured.effect))),
            String(per[direction].filter((t) => t.r.fields.app_switch !== undefined).length),
          ]);
        }
      }
    }
    table(
      [
        'what',
        ...STAT_HEADERS,
        'settle ms (median)',
        '~ lines (median)',
        '+/- lines (total)',
        'false +/- rows (total)',
        'effect',
        'app_switch',
      ],
      rows,
    );
    out(
      `Target: 0 false added/removed rows: ${falseTotal} ${verdict(falseTotal === 0)} (information)`,
    );
    out();
  } finally {
    await list.stop().catch(() => undefined);
  }
}

export async function actionsSection(ctx: BenchContext): Promise<void> {
  // Each part guarded on its own: a failure in one still lets the others run.
  for (const [name, part] of [
    ['clicks', clicks],
    ['typing', typing],
    ['scrolling', scrolling],
  ] as const) {
    try {
      await part(ctx);
    } catch (err) {
      out(`**${name} failed:** ${(err as Error).message}\n`);
    }
  }
}
