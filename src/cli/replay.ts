/**
 * `axpage replay <log> [--from N] [--stop-on-diff]`: runs the calls of a session log
 * again, through a server of its own against the current desktop (DISPLAY and the
 * accessibility bus as `axpage serve` would use them; nothing is brought up), and says
 * step by step whether each call ended as recorded and, when not, what differs now.
 */
import fs from 'node:fs';
import { CLIPBOARD_TOOLS, cutFields, maskArgs, maskedFields } from '../guard/mask.js';
import { buildRecord, type CallRecord } from '../pipeline/record.js';
import { startServeClient, type ServeClient } from '../harness/serve-client.js';

const USAGE = `usage: axpage replay <session.jsonl> [--from N] [--stop-on-diff]
  Runs each recorded call again against the current desktop and prints, per step, whether
  it ended the same (outcome, error code, change counts, the element acted on) or what
  differs. Exit code 1 when a step differs, 2 on bad arguments or an unreadable log.
  --from N        start at the step with seq N (refs named before it may not resolve)
  --stop-on-diff  stop at the first step that differs`;

/** Longest one replayed call may take. */
const CALL_TIMEOUT_MS = 120_000;

export interface ReplayOptions {
  file: string;
  from: number;
  stopOnDiff: boolean;
}

export function parseReplayArgs(argv: readonly string[]): ReplayOptions | { help: true } {
  let file: string | undefined;
  let from = 1;
  let stopOnDiff = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return { help: true };
    if (arg === '--stop-on-diff') stopOnDiff = true;
    else if (arg === '--from' || arg.startsWith('--from=')) {
      const raw = arg === '--from' ? argv[++i] : arg.slice('--from='.length);
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 1) {
        throw new ReplayError(`--from needs a step number >= 1, got '${raw ?? ''}'`);
      }
      from = n;
    } else if (arg.startsWith('--')) throw new ReplayError(`unknown option '${arg}'`);
    else if (file === undefined) file = arg;
    else throw new ReplayError(`one log at a time (got '${file}' and '${arg}')`);
  }
  if (file === undefined) throw new ReplayError('which session log? (session-*.jsonl)');
  return { file, from, stopOnDiff };
}

export class ReplayError extends Error {}

/** The records of a session log, in order; a line that is not a record is an error naming it. */
export function parseLog(text: string, file = 'the log'): CallRecord[] {
  const records: CallRecord[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      throw new ReplayError(`${file}:${i + 1} is not JSON`);
    }
    const r = rec as Partial<CallRecord>;
    if (
      typeof r.seq !== 'number' ||
      typeof r.tool !== 'string' ||
      typeof r.args !== 'object' ||
      r.args === null ||
      (r.outcome !== 'success' && r.outcome !== 'error')
    ) {
      throw new ReplayError(`${file}:${i + 1} is not a session record (seq, tool, args, outcome)`);
    }
    records.push(r as CallRecord);
  });
  return records;
}

const CLIPBOARD_NOT_REPLAYED =
  'the clipboard text is never recorded, so it cannot be replayed (put it there with ax_clipboard_write)';

/** Why a recorded call cannot be run again, or undefined when it can. */
export function unreplayable(rec: CallRecord): string | undefined {
  // Even a log written before clipboard text was masked always: the text is not put back.
  if (CLIPBOARD_TOOLS.has(rec.tool)) return CLIPBOARD_NOT_REPLAYED;
  // At any depth: a workflow step's text is masked like a call's own.
  for (const [field, value] of maskedFields(rec.args)) {
    if (value.masked === 'secret') return `${field} went to a password field and is never recorded`;
    if (value.masked === 'withheld') return `${field} of a failed call is never recorded`;
    if (value.masked === 'clipboard') return CLIPBOARD_NOT_REPLAYED;
    const length = value.length === undefined ? '' : ` (${value.length} chars)`;
    return `${field}${length} was not recorded (record with --record-text / AXPAGE_RECORD_TEXT=1 to replay it)`;
  }
  // Capped in the log (see maskArgs): what was sent is not all there.
  const cut = cutFields(rec.args);
  return cut.length > 0 ? `${cut[0]} was cut in the log` : undefined;
}

export interface StepVerdict {
  same: boolean;
  /** One phrase per fact that differs: `outcome success -> error (no_match)`. */
  differences: string[];
}

function counts(r: Pick<CallRecord, 'changes'>): string | undefined {
  const c = r.changes;
  return c ? `${c.added} added, ${c.removed} removed, ${c.modified} modified` : undefined;
}

/**
 * What of the change counts a step is held to: elements added and removed and texts
 * changed. The modified count is shown but not compared: it includes focus and pressed
 * states that flicker while a key is pressed, so the same press counts 2 one time, 3 the next.
 */
function changeFacts(r: CallRecord): string | undefined {
  if (!r.changes) return undefined;
  return `${r.changes.added} added, ${r.changes.removed} removed, ${r.text_changed ?? 0} texts changed`;
}

function targetText(r: Pick<CallRecord, 'target'>): string | undefined {
  const t = r.target;
  return t ? `[${t.role}]${t.text !== undefined ? ` "${t.text}"` : ''}` : undefined;
}

/**
 * Recorded against now: the outcome and error code, what an action added, removed and
 * changed the text of, and the role and text of the element the result names (its ref
 * may differ). The effect and the target's state transitions are recorded but not held
 * to: a toggle key's pressed state, and so whether a no-op press showed a change, flicker
 * from one run to the next.
 */
export function compareStep(recorded: CallRecord, now: CallRecord): StepVerdict {
  const differences: string[] = [];
  const was = (v: string | undefined) => v ?? 'none';
  if (recorded.outcome !== now.outcome) {
    differences.push(
      `outcome ${recorded.outcome}${recorded.error_code ? ` (${recorded.error_code})` : ''} -> ${now.outcome}${now.error_code ? ` (${now.error_code})` : ''}`,
    );
  } else if (recorded.error_code !== now.error_code) {
    differences.push(`error ${was(recorded.error_code)} -> ${was(now.error_code)}`);
  }
  if (changeFacts(recorded) !== changeFacts(now)) {
    differences.push(`changes ${was(changeFacts(recorded))} -> ${was(changeFacts(now))}`);
  }
  if (targetText(recorded) !== targetText(now)) {
    differences.push(`element ${was(targetText(recorded))} -> ${was(targetText(now))}`);
  }
  return { same: differences.length === 0, differences };
}

/** Refs are minted per server: the one a replay got for an element stands in for the recorded one. */
function translateRefs(
  args: Record<string, unknown>,
  refMap: Map<string, string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    out[key] = typeof value === 'string' && refMap.has(value) ? refMap.get(value) : value;
  }
  return out;
}

/** A pid recorded as `app` that is gone now: the app's recorded name finds it again. */
function revivePid(args: Record<string, unknown>, rec: CallRecord): Record<string, unknown> {
  if (typeof args.app !== 'number' || alive(args.app) || rec.pid !== args.app || !rec.app) {
    return args;
  }
  return { ...args, app: rec.app };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The step's arguments as printed: masked by the recorder's rule, even when the log kept text. */
function argsText(rec: CallRecord): string {
  const text = JSON.stringify(
    maskArgs(rec.args, {
      secret: rec.secret === true,
      withhold: rec.outcome === 'error',
      lengths: true,
    }),
  );
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

export interface ReplayTally {
  same: number;
  differ: number;
  skipped: number;
}

/** Runs the steps through `client`, printing one line per step to `out`. */
export async function replaySteps(
  records: CallRecord[],
  client: Pick<ServeClient, 'call'>,
  opts: { from: number; stopOnDiff: boolean },
  out: (line: string) => void,
): Promise<ReplayTally> {
  const tally: ReplayTally = { same: 0, differ: 0, skipped: 0 };
  const refMap = new Map<string, string>();
  for (const rec of records) {
    if (rec.seq < opts.from) continue;
    const head = `#${rec.seq} ${rec.tool} ${argsText(rec)}`;
    const why = unreplayable(rec);
    if (why) {
      tally.skipped++;
      out(`${head}: skipped: ${why}`);
      continue;
    }
    const args = revivePid(translateRefs(rec.args, refMap), rec);
    const started = Date.now();
    let now: CallRecord;
    try {
      const r = await client.call(rec.tool, args, { timeoutMs: CALL_TIMEOUT_MS });
      now = buildRecord({
        seq: rec.seq,
        at: new Date(),
        tool: rec.tool,
        args,
        response: { text: r.text, structured: r.structured, isError: r.isError },
        ms: Date.now() - started,
        secret: false,
        keepText: false,
      });
    } catch (err) {
      tally.differ++;
      out(`${head}: DIFFERS: the call failed: ${err instanceof Error ? err.message : String(err)}`);
      if (opts.stopOnDiff) break;
      continue;
    }
    if (rec.target && now.target && targetText(rec) === targetText(now)) {
      refMap.set(rec.target.ref, now.target.ref);
    }
    const verdict = compareStep(rec, now);
    if (verdict.same) {
      tally.same++;
      out(`${head}: same (${now.outcome}${now.changes ? `; ${counts(now)}` : ''})`);
    } else {
      tally.differ++;
      out(
        `${head}: DIFFERS: ${verdict.differences.join('; ')}${now.tree ? ` (now: ${now.tree})` : ''}`,
      );
      if (opts.stopOnDiff) break;
    }
  }
  return tally;
}

export async function runReplay(argv: string[]): Promise<number> {
  let opts: ReplayOptions;
  let records: CallRecord[];
  try {
    const parsed = parseReplayArgs(argv);
    if ('help' in parsed) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    opts = parsed;
    let text: string;
    try {
      text = fs.readFileSync(opts.file, 'utf8');
    } catch (err) {
      throw new ReplayError(
        `cannot read ${opts.file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      );
    }
    records = parseLog(text, opts.file);
  } catch (err) {
    if (!(err instanceof ReplayError)) throw err;
    process.stderr.write(`axpage replay: ${err.message}\n${USAGE}\n`);
    return 2;
  }
  const client = await startServeClient({
    env: Object.fromEntries(
      Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined),
    ),
    name: 'axpage-replay',
  });
  let tally: ReplayTally;
  try {
    tally = await replaySteps(records, client, opts, (line) => process.stdout.write(`${line}\n`));
  } finally {
    await client.close();
  }
  process.stdout.write(
    `replayed ${opts.file}: ${tally.same} same, ${tally.differ} differ, ${tally.skipped} skipped\n`,
  );
  return tally.differ > 0 ? 1 : 0;
}
