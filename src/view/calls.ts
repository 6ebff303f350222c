/**
 * The viewer's timeline: the calls of a run, from its session log, or (no log) from the
 * pairs in its artifact dir by time stamp. Only names and log lines are read here; a
 * call's tree file is read and parsed when it is opened (pairOf), so a dir with
 * hundreds of pairs lists at once. Every file name comes from the dir's own listing or
 * is checked to be a pair name, so nothing outside the dir is ever read.
 */
import { constants } from 'node:fs';
import { lstat, open, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { AxError } from '../errors.js';
import { compareBase, parseArtifactFile, type BaseName } from '../capture/names.js';
import {
  CLIPBOARD_TOOLS,
  contentStrings,
  loggedSummary,
  maskArgs,
  maskedKeys,
} from '../guard/mask.js';

/** Tools whose summary shows the clipboard's text. */
const CLIPBOARD_READS = new Set(['ax_clipboard_read']);
import type { CallPage, ViewCall, ViewPair } from './model.js';
import { openPairFile, readPairFile } from '../capture/index.js';
import { parsePair } from './pair.js';
import { captureOriginOf } from '../visual/elements.js';

const SESSION_LOG = /^session-(\d+)(?:-(\d+))?\.jsonl$/;

/** Calls a page holds when no limit is given, and at most. */
export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1000;

/** What `axpage view` was given, resolved: the dir the pairs are in, and the log if any. */
export interface RunSource {
  dir: string;
  log?: string;
}

/**
 * A dir (its newest session log, else its pairs) or a session log (its dir's pairs).
 * Throws an AxError when it is neither.
 */
export async function resolveRun(target: string): Promise<RunSource> {
  const full = path.resolve(target);
  const st = await stat(full).catch(() => undefined);
  if (st?.isDirectory()) {
    const log = newestLog(await regularFiles(full));
    return log ? { dir: full, log: path.join(full, log) } : { dir: full };
  }
  if (st?.isFile() && SESSION_LOG.test(path.basename(full))) {
    // A log named on the command line may be reached through a link the user chose: the
    // real file stands for it, read like one found in the dir (never through a link).
    const real = await realpath(full);
    return { dir: path.dirname(real), log: real };
  }
  throw new AxError(
    'bad_argument',
    st
      ? `${target} is neither an artifact dir nor a session log (session-*.jsonl)`
      : `${target} does not exist`,
    'Pass the artifact dir of a run (AXPAGE_OUT) or one of its session-*.jsonl logs',
  );
}

/** The names in `dir` that are regular files (a link planted there is no log of the run). */
async function regularFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => e.name);
}

/** The newest session log among `names`: by start time, then pid. */
export function newestLog(names: readonly string[]): string | undefined {
  let best: { name: string; ms: number; pid: number } | undefined;
  for (const name of names) {
    const m = SESSION_LOG.exec(name);
    if (!m) continue;
    const ms = Number(m[1]);
    const pid = Number(m[2] ?? 0);
    if (!best || ms > best.ms || (ms === best.ms && pid > best.pid)) best = { name, ms, pid };
  }
  return best?.name;
}

/** A pair basename as the log names it, only when it is one (never a path). */
function pairName(value: unknown, kind: 'txt' | 'png'): string | undefined {
  if (typeof value !== 'string') return undefined;
  const parsed = parseArtifactFile(value);
  return parsed?.kind === kind ? value : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** One session-log line as a timeline entry; undefined when it is not a call record. */
export function callOfRecord(record: unknown, index: number): ViewCall | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const r = record as Record<string, unknown>;
  const tool = str(r.tool);
  const time = str(r.time);
  if (tool === undefined || time === undefined) return undefined;
  const outcome = r.outcome === 'success' || r.outcome === 'error' ? r.outcome : 'unknown';
  const call: ViewCall = { index, time, tool, outcome };
  const seq = num(r.seq);
  if (seq !== undefined) call.seq = seq;
  const args =
    typeof r.args === 'object' && r.args !== null && !Array.isArray(r.args)
      ? (r.args as Record<string, unknown>)
      : undefined;
  const masking = {
    secret: r.secret === true,
    withhold: r.outcome === 'error',
    lengths: true,
    clipboard: CLIPBOARD_TOOLS.has(tool),
  };
  if (args) {
    // The recorder's own rule again: a log written by another version, or with typed
    // text kept for replay, shows no content here either.
    call.args = maskArgs(args, masking);
  }
  const code = str(r.error_code);
  if (code !== undefined) call.error_code = code;
  const ms = num(r.ms);
  if (ms !== undefined) call.ms = ms;
  const bytes = num(r.summary_bytes);
  if (bytes !== undefined) call.summary_bytes = bytes;
  // A log that kept typed text for replay shows it nowhere here: the summary is masked
  // for the record's own content (none is left in a log that kept none).
  const summary = str(r.summary);
  // A clipboard read's summary is the clipboard's text: an older log may have kept it.
  const shown =
    summary === undefined || CLIPBOARD_READS.has(tool)
      ? undefined
      : loggedSummary(summary, contentStrings(args ?? {}, masking), {
          secret: r.secret === true,
          keys: maskedKeys(args ?? {}, masking),
        });
  if (shown !== undefined) call.summary = shown;
  const tree = pairName(r.tree, 'txt');
  if (tree) call.tree = tree;
  const png = pairName(r.png, 'png');
  if (png) call.png = png;
  const app = str(r.app);
  if (app !== undefined) call.app = app;
  const pid = num(r.pid);
  if (pid !== undefined) call.pid = pid;
  const target = r.target as Record<string, unknown> | undefined;
  if (target && typeof target === 'object' && str(target.role) && str(target.ref)) {
    call.target = {
      role: target.role as string,
      ref: target.ref as string,
      ...(str(target.text) !== undefined ? { text: target.text as string } : {}),
    };
  }
  const changes = r.changes as Record<string, unknown> | undefined;
  if (changes && typeof changes === 'object') {
    call.changes = {
      added: num(changes.added) ?? 0,
      removed: num(changes.removed) ?? 0,
      modified: num(changes.modified) ?? 0,
      moved: num(changes.moved) ?? 0,
    };
  }
  return call;
}

/** The calls of a session log's text, in order; lines that are not records are skipped. */
export function callsOfLog(text: string): ViewCall[] {
  const out: ViewCall[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    const call = callOfRecord(record, out.length);
    if (call) out.push(call);
  }
  return out;
}

/** The pairs among a dir's names, oldest first, as calls of unknown outcome. */
export function callsOfNames(names: readonly string[]): ViewCall[] {
  const trees: BaseName[] = [];
  const pngs = new Set<string>();
  for (const name of names) {
    const parsed = parseArtifactFile(name);
    if (!parsed) continue;
    if (parsed.kind === 'txt') trees.push(parsed);
    else pngs.add(parsed.base);
  }
  trees.sort(compareBase);
  return trees.map((b, index) => {
    const call: ViewCall = {
      index,
      time: new Date(b.ms).toISOString(),
      tool: `ax_${b.tool}`,
      outcome: 'unknown',
      tree: `${b.base}.txt`,
    };
    if (pngs.has(b.base)) call.png = `${b.base}.png`;
    return call;
  });
}

/** `offset`/`limit` made whole and in range. */
export function pageBounds(
  total: number,
  offset = 0,
  limit = DEFAULT_PAGE,
): { start: number; end: number } {
  const start = Math.min(total, Math.max(0, Math.floor(Number.isFinite(offset) ? offset : 0)));
  const size = Math.min(MAX_PAGE, Math.max(0, Math.floor(Number.isFinite(limit) ? limit : 0)));
  return { start, end: Math.min(total, start + size) };
}

/**
 * One run, read lazily: the call list is read on first use and again only when the log
 * (or the dir, without a log) has changed since, so a live run's new calls show up.
 */
export class Run {
  private cached?: { stamp: string; calls: ViewCall[] };

  constructor(readonly source: RunSource) {}

  static async open(target: string): Promise<Run> {
    return new Run(await resolveRun(target));
  }

  get dir(): string {
    return this.source.dir;
  }

  /** Every call, in order (names and log lines only; no tree file is read). */
  async calls(): Promise<ViewCall[]> {
    const file = this.source.log ?? this.source.dir;
    // The log itself, not through a link (readLog refuses one); the dir as given.
    const st = this.source.log ? await lstat(file) : await stat(file);
    const stamp = `${st.mtimeMs}:${st.size}:${st.ino}`;
    if (this.cached?.stamp === stamp) return this.cached.calls;
    const calls = this.source.log
      ? callsOfLog(await readLog(this.source.log))
      : callsOfNames(await readdir(this.source.dir));
    this.cached = { stamp, calls };
    return calls;
  }

  async page(offset?: number, limit?: number): Promise<CallPage> {
    const calls = await this.calls();
    const { start, end } = pageBounds(calls.length, offset, limit);
    return { total: calls.length, offset: start, calls: calls.slice(start, end) };
  }

  async call(index: number): Promise<ViewCall | undefined> {
    const calls = await this.calls();
    return Number.isInteger(index) ? calls[index] : undefined;
  }

  /**
   * The call's pair, parsed; undefined when the call wrote none or its tree file is gone
   * (pruned by retention). `png` is set only when the screenshot is on disk.
   */
  async pairOf(index: number): Promise<ViewPair | undefined> {
    const call = await this.call(index);
    if (!call?.tree) return undefined;
    // Read only as a pair file of the dir: never through a link planted under its name.
    const text = (await readPairFile(this.source.dir, call.tree))?.toString('utf8');
    if (text === undefined) return undefined;
    const png = call.png ?? `${call.tree.slice(0, -'.txt'.length)}.png`;
    const size = await pngSize(this.source.dir, png);
    const pair = parsePair(text, { tree: call.tree, ...(size ? { png } : {}) });
    if (!pair.capture && size) {
      // A file written before tree files stated their capture rect: guessed from the
      // image's size, as ax_visual_diff guesses it.
      const origin = captureOriginOf(text, { width: size.w, height: size.h });
      pair.capture = { ...origin, ...size };
      pair.capture_guessed = true;
    }
    return pair;
  }

  /** Absolute path of a call's screenshot, when it names one (whether or not it is on disk). */
  async pngPath(index: number): Promise<string | undefined> {
    const call = await this.call(index);
    return call?.png ? path.join(this.source.dir, call.png) : undefined;
  }
}

/**
 * A session log's text, never through a link planted under its name (a `session-*.jsonl`
 * symlink in the dir would otherwise have any file read as the run's calls).
 */
async function readLog(file: string): Promise<string> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) throw new Error(`${file} is not a regular file`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Width and height from a pair PNG's header (a pair file of `dir`, see openPairFile);
 * undefined when it is not there, not one, or not a PNG.
 */
export async function pngSize(
  dir: string,
  name: string,
): Promise<{ w: number; h: number } | undefined> {
  const handle = await openPairFile(dir, name);
  if (!handle) return undefined;
  try {
    const head = Buffer.alloc(24);
    const { bytesRead } = await handle.read(head, 0, 24, 0);
    if (bytesRead < 24 || head.toString('latin1', 12, 16) !== 'IHDR') return undefined;
    return { w: head.readUInt32BE(16), h: head.readUInt32BE(20) };
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
