/**
 * The session recorder: every tool call of this server becomes one JSON line in
 * `session-<start>.jsonl` in the artifact dir (what was asked, masked; how it ended; the
 * pair it wrote; the refs it touched). The same record feeds the audit log (mutating
 * calls), the session counters of ax_session_info and the secrets the clipboard masks:
 * calls are counted here and nowhere else.
 */
import path from 'node:path';
import type { SnapshotView } from '../model/view.js';
import { ensurePrivateDir } from '../capture/index.js';
import { AuditLog, JsonLines } from '../guard/audit.js';
import {
  CLIPBOARD_TOOLS,
  contentStrings,
  loggedSummary,
  maskArgs,
  maskedKeys,
  MIN_MASK_ANYWHERE,
  type MaskOptions,
} from '../guard/mask.js';
import { isMutating, type GuardKind } from '../guard/policy.js';
import { isCopyKey, type SecretMemory } from './secrets.js';
import { isSecretField } from './secret-fields.js';
import { SelectionSecrets } from './transfers.js';
import type { ToolResponse } from './response.js';

export { loggedSummary, TYPED_MASK } from '../guard/mask.js';

/** The element a result names as what it acted on or read: `[AXRole] "text" e42`. */
export interface RecordedTarget {
  role: string;
  text?: string;
  ref: string;
}

export interface ChangeCounts {
  added: number;
  removed: number;
  modified: number;
  moved: number;
}

/** One line of the session log (docs/session-log-and-viewer.md). */
export interface CallRecord {
  seq: number;
  time: string;
  tool: string;
  /** The arguments with typed text masked (see maskArgs). */
  args: Record<string, unknown>;
  outcome: 'success' | 'error';
  error_code?: string;
  ms: number;
  /** UTF-8 bytes of the summary text returned. */
  summary_bytes: number;
  /**
   * The summary text returned, typed text of the arguments masked like `args` (see
   * loggedSummary); absent for a call to a password field.
   */
  summary?: string;
  /** Basenames of the tree file and screenshot the call wrote. */
  tree?: string;
  png?: string;
  app?: string;
  pid?: number;
  /** Refs the arguments named, then those the result names for what it acted on. */
  refs: string[];
  target?: RecordedTarget;
  changes?: ChangeCounts;
  /** How many elements' text changed (their text is not kept: it may be what was typed). */
  text_changed?: number;
  /**
   * The target's own state transitions (`unchecked -> checked`). Other elements' are left
   * out: a toggle key let go by the next press flickers in one diff or the next.
   */
  state_changed?: string[];
  effect?: string;
  /** The call typed into, set or copied from a password field: its text is not kept. */
  secret?: true;
  /** Typed text was kept as given (AXPAGE_RECORD_TEXT): the line is replayable. */
  text_kept?: true;
}

export interface RecordInput {
  seq: number;
  at: Date;
  tool: string;
  args: Record<string, unknown>;
  response: ToolResponse;
  ms: number;
  secret: boolean;
  keepText: boolean;
  /**
   * Text typed by earlier calls of the session that this call's summary must not show
   * either (a later read of the field shows what was typed into it).
   */
  earlierTyped?: readonly string[];
}

const REF_ARGS = ['ref', 'root', 'from_ref', 'to_ref'];
const LABEL = /\[(AX[A-Za-z]+)\](?: "((?:[^"\\]|\\.)*)")? (e[1-9][0-9]*)/;
const REF = /\be[1-9][0-9]*\b/g;
/** Refs a record lists at most (a result naming many elements is in its tree file). */
const MAX_REFS = 20;

/** Roles whose shown text is what was typed into them: the log keeps only their role. */
const TEXT_ENTRY_ROLES = new Set([
  'AXTextField',
  'AXTextArea',
  'AXSecureTextField',
  'AXSearchField',
  'AXComboBox',
]);

/**
 * The first element label in a summary line: what the call acted on or found. A text
 * entry's label is its content, typed text perhaps: left out.
 */
export function targetOf(summary: unknown): RecordedTarget | undefined {
  if (typeof summary !== 'string') return undefined;
  const m = LABEL.exec(summary);
  if (!m) return undefined;
  const text = m[2] !== undefined && !TEXT_ENTRY_ROLES.has(m[1]) ? { text: m[2] } : {};
  return { role: m[1], ...text, ref: m[3] };
}

function refsOf(args: Record<string, unknown>, structured: Record<string, unknown>): string[] {
  const refs = new Set<string>();
  for (const key of REF_ARGS) {
    const v = args[key];
    if (typeof v === 'string' && /^\s*e[1-9][0-9]*\s*$/.test(v)) refs.add(v.trim());
  }
  if (typeof structured.summary === 'string') {
    for (const m of structured.summary.matchAll(REF)) refs.add(m[0]);
  }
  for (const key of ['state_changes', 'text_changes']) {
    const list = structured[key];
    if (!Array.isArray(list)) continue;
    for (const item of list as Array<{ ref?: unknown }>) {
      if (typeof item.ref === 'string') refs.add(item.ref);
    }
  }
  return [...refs].slice(0, MAX_REFS);
}

function basenameOf(file: unknown): string | undefined {
  return typeof file === 'string' && file !== '' ? path.basename(file) : undefined;
}

/**
 * The typed text a call's content arguments carry (text, value, script, …), at any depth:
 * a workflow step's too (see contentStrings).
 */
export function typedTexts(args: Record<string, unknown>): string[] {
  return contentStrings(args);
}

/** Tools whose result is the clipboard's text. */
const CLIPBOARD_READS = new Set(['ax_clipboard_read']);

/**
 * What the clipboard held as a call read it (its own and its workflow steps' reads): never
 * kept in a record, whatever AXPAGE_RECORD_TEXT says.
 */
export function clipboardContents(tool: string, response: ToolResponse): string[] {
  const own = response.structured.text;
  const out = CLIPBOARD_READS.has(tool) && typeof own === 'string' && own !== '' ? [own] : [];
  for (const nested of response.calls ?? [])
    out.push(...clipboardContents(nested.tool, nested.response));
  return out;
}

/** The record of one call: pure, so its shape is tested on data. */
export function buildRecord(input: RecordInput): CallRecord {
  const s = input.response.structured;
  const opts = maskOptions(input);
  const { keepText } = opts;
  const record: CallRecord = {
    seq: input.seq,
    time: input.at.toISOString(),
    tool: input.tool,
    args: maskArgs(input.args, opts),
    outcome: input.response.isError ? 'error' : 'success',
    ms: input.ms,
    summary_bytes: Buffer.byteLength(input.response.text),
    refs: refsOf(input.args, s),
  };
  // Typed text kept in args (--record-text) is no secret in the summary either; the
  // clipboard's text is never kept, so it is masked wherever it shows.
  const own = keepText ? [] : contentStrings(input.args, opts);
  const clipboard = [
    ...(CLIPBOARD_TOOLS.has(input.tool) ? contentStrings(input.args) : []),
    ...clipboardContents(input.tool, input.response),
  ];
  const summary = loggedSummary(
    input.response.text,
    [...own, ...clipboard, ...(input.earlierTyped ?? [])],
    { secret: input.secret, keys: keepText ? [] : maskedKeys(input.args, opts) },
  );
  if (summary !== undefined) record.summary = summary;
  if (typeof s.error_code === 'string') record.error_code = s.error_code;
  const tree = basenameOf(s.file);
  const png = basenameOf(s.screenshot);
  if (tree) record.tree = tree;
  if (png) record.png = png;
  if (typeof s.app === 'string') record.app = s.app;
  if (typeof s.pid === 'number') record.pid = s.pid;
  const target = targetOf(s.summary);
  if (target) record.target = target;
  if (s.changes && typeof s.changes === 'object') record.changes = s.changes as ChangeCounts;
  const texts = Array.isArray(s.text_changes) ? s.text_changes.length : 0;
  const textsOmitted = typeof s.text_changes_omitted === 'number' ? s.text_changes_omitted : 0;
  if (texts + textsOmitted > 0) record.text_changed = texts + textsOmitted;
  const states = stateTransitions(s.state_changes, target?.ref);
  if (states.length > 0) record.state_changed = states;
  if (typeof s.effect === 'string') record.effect = s.effect;
  if (input.secret) record.secret = true;
  else if (keepText && typedTexts(input.args).length > 0) record.text_kept = true;
  return record;
}

/** How a call's arguments are masked in its records (session log and audit log alike). */
export function maskOptions(
  input: Pick<RecordInput, 'keepText' | 'secret' | 'response'> & { tool?: string },
) {
  // A failed call may have been refused for its target being a password field (safe mode):
  // nothing of its text is kept, not even with --record-text.
  const failed = input.response.isError;
  const clipboard = input.tool !== undefined && CLIPBOARD_TOOLS.has(input.tool);
  return {
    keepText: input.keepText && !input.secret && !failed && !clipboard,
    secret: input.secret,
    withhold: failed,
    lengths: true,
    clipboard,
  } satisfies MaskOptions;
}

function stateTransitions(list: unknown, ref: string | undefined): string[] {
  if (!Array.isArray(list) || ref === undefined) return [];
  const out: string[] = [];
  type Item = { ref?: unknown; changes?: Array<{ old?: unknown; new?: unknown }> };
  for (const item of list as Item[]) {
    if (item.ref !== ref) continue;
    for (const c of item.changes ?? []) out.push(`${String(c.old)} -> ${String(c.new)}`);
  }
  return out.sort();
}

/** Counters of this server session, as ax_session_info reports them. */
export interface SessionCounters {
  calls: number;
  errors: number;
  summary_bytes: number;
}

/** What the recorder reads of the pipeline to tell a password field from others. */
export interface RecordedPipeline {
  views: { last(pid: number): SnapshotView | undefined };
}

export interface RecorderOptions {
  /** Keep non-secret typed text in the log (replayable; a privacy trade-off, default off). */
  recordText?: boolean;
  /** Tool name → kind, for the audit view (mutating calls only). */
  kindOf?: (tool: string) => GuardKind | undefined;
  /**
   * What the session knows to be secret on the clipboard (the pipeline's: it learns copies
   * and pastes as they happen); the recorder notes typed secrets there too.
   */
  selections?: SelectionSecrets;
  now?: () => Date;
}

/** Typed texts remembered for masking later summaries (the oldest go first). */
const MAX_HIDDEN_TYPED = 200;

/** How many pair basenames ax_session_info lists. */
const RECENT_PAIRS = 5;

export class SessionRecorder {
  readonly startedAt: Date;
  readonly file: string;
  private readonly selections: SelectionSecrets;
  private readonly log: JsonLines;
  private readonly audit: AuditLog;
  private seq = 0;
  private readonly counts: SessionCounters = { calls: 0, errors: 0, summary_bytes: 0 };
  private readonly recent: string[] = [];
  private readonly apps = new Map<number, string>();
  /**
   * Text this session typed that its log does not keep, in memory only: a later call's
   * summary may show it (a read of the field it went into) and is masked for it too.
   */
  private readonly hiddenTyped: string[] = [];

  constructor(
    readonly dir: string,
    private readonly opts: RecorderOptions = {},
  ) {
    this.startedAt = opts.now?.() ?? new Date();
    this.selections = opts.selections ?? new SelectionSecrets();
    this.file = path.join(dir, `session-${this.startedAt.getTime()}-${process.pid}.jsonl`);
    this.log = new JsonLines(this.file);
    this.audit = AuditLog.in(dir);
  }

  get recordText(): boolean {
    return this.opts.recordText ?? false;
  }

  counters(): SessionCounters {
    return { ...this.counts };
  }

  /** The latest tree files written, newest last. */
  recentPairs(): string[] {
    return [...this.recent];
  }

  /** Apps this session's calls were about: pid → name. */
  appsSeen(): Map<number, string> {
    return new Map(this.apps);
  }

  /** Texts this session knows to be secret (typed into a password field, copied from one). */
  get secrets(): SecretMemory {
    return this.selections.memory;
  }

  /** Why the clipboard's `text` must not be shown, or undefined. */
  clipboardSecret(text: string): string | undefined {
    return this.selections.reason(text);
  }

  /** As clipboardSecret(), who offers it asked too (an app this server may not read). */
  clipboardSecretNow(text: string): Promise<string | undefined> {
    return this.selections.readReason(text);
  }

  /** The clipboard was written through ax_clipboard: it now holds what we put there. */
  clipboardWritten(): void {
    this.selections.written();
  }

  /**
   * Records one finished call: the session log line (awaited, so a call's line is on disk
   * before its result goes out), the audit line of a mutating call, the counters, and the
   * secrets the call showed (text typed into a password field, a copy from one).
   */
  async record(
    tool: string,
    args: Record<string, unknown>,
    response: ToolResponse,
    ms: number,
    pipeline: RecordedPipeline,
  ): Promise<CallRecord> {
    const secret = this.learnSecrets(args, response, (pid) => pipeline.views.last(pid));
    const record = buildRecord({
      seq: ++this.seq,
      at: this.opts.now?.() ?? new Date(),
      tool,
      args,
      response,
      ms,
      secret,
      keepText: this.recordText,
      earlierTyped: this.hiddenTyped,
    });
    if (!record.text_kept) this.rememberTyped(typedTexts(args));
    // What the clipboard held is masked in later summaries too (a paste shows it).
    this.rememberTyped(clipboardContents(tool, response));
    this.counts.calls++;
    if (record.outcome === 'error') this.counts.errors++;
    this.counts.summary_bytes += record.summary_bytes;
    if (record.tree) {
      this.recent.push(record.tree);
      if (this.recent.length > RECENT_PAIRS) this.recent.shift();
    }
    if (record.pid !== undefined && record.app !== undefined) this.apps.set(record.pid, record.app);
    const kind = this.opts.kindOf?.(tool);
    const { echoes } = this.selections;
    const audit = (): boolean =>
      kind === undefined ||
      !isMutating(kind) ||
      this.audit.write(
        {
          tool,
          args: echoes.scrubDeep(args),
          mask: maskOptions({ tool, keepText: this.recordText, secret, response }),
          outcome: record.outcome,
          error_code: record.error_code,
          pid: record.pid,
          app: record.app,
          ms,
          ...(response.structured.asked ? { asked: response.structured.asked } : {}),
        },
        new Date(record.time),
      );
    // A query or other argument may name a known secret (the agent's own): never kept.
    const line = echoes.scrubDeep(record as unknown as Record<string, unknown>);
    const logged = this.log.append(line);
    const audited = audit();
    if (logged && audited) return record;
    // A write failed: the dir may have been removed (made again here, private) or swapped.
    try {
      await ensurePrivateDir(this.dir);
    } catch {
      // The call's own result says why the dir is refused; the line cannot be written.
      return record;
    }
    if (!logged) this.log.append(line);
    if (!audited) audit();
    return record;
  }

  /**
   * Whether the call went to a password field, learning its secrets on the way: text typed
   * or set there. (What a copy from one puts on the clipboard the pipeline learns as the
   * copy happens: transfers.ts.)
   */
  private learnSecrets(
    args: Record<string, unknown>,
    response: ToolResponse,
    viewOf: (pid: number) => SnapshotView | undefined,
  ): boolean {
    // A workflow's steps: each as if it were a call of its own, at the view it left.
    let nestedSecret = false;
    for (const nested of response.calls ?? []) {
      if (this.learnSecrets(nested.args, nested.response, () => nested.view)) {
        nestedSecret = true;
      }
    }
    return this.learnOwnSecrets(args, response, viewOf) || nestedSecret;
  }

  private learnOwnSecrets(
    args: Record<string, unknown>,
    response: ToolResponse,
    viewOf: (pid: number) => SnapshotView | undefined,
  ): boolean {
    const s = response.structured;
    const pid = s.pid;
    const view = typeof pid === 'number' ? viewOf(pid) : undefined;
    const target = targetOf(s.summary);
    // A read or an assertion names its element by ref rather than by label.
    const refs = [target?.ref, s.element_ref, s.ref].filter((r) => typeof r === 'string');
    const secureTarget =
      target?.role === 'AXSecureTextField' ||
      (view !== undefined && refs.some((ref) => refIsSecure(view, ref as string)));
    const secureFocus = view !== undefined && focusIsSecure(view);
    const text = typeof args.text === 'string' ? args.text : undefined;
    const value = typeof args.value === 'string' ? args.value : undefined;
    if ((secureTarget || secureFocus) && (text ?? value) !== undefined) {
      this.secrets.note((text ?? value) as string, 'typed into a password field');
    }
    // Any content aimed at a password field (typed, set, asserted or waited for) is its
    // secret, and a wrong guess at it nearly as much: nothing of it is kept.
    const typedSecret = (secureTarget || secureFocus) && contentStrings(args).length > 0;
    const key = typeof args.key === 'string' ? args.key : undefined;
    // Keys pressed in a password field are its text too (one letter at a time).
    const secret = typedSecret || ((secureTarget || secureFocus) && key !== undefined);
    const modifiers = Array.isArray(args.modifiers) ? (args.modifiers as string[]) : [];
    // A copy from a password field: what it put on the clipboard is its text.
    const copied = !response.isError && key !== undefined && isCopyKey(key, modifiers);
    return secret || (copied && secureFocus);
  }

  private rememberTyped(texts: string[]): void {
    for (const t of texts) {
      // A letter or two is masked only in its own call: later, it would hide every label.
      if ([...t].length < MIN_MASK_ANYWHERE || this.hiddenTyped.includes(t)) continue;
      this.hiddenTyped.push(t);
      if (this.hiddenTyped.length > MAX_HIDDEN_TYPED) this.hiddenTyped.shift();
    }
  }
}

/** A password field now, or one once seen as one (see isSecretField). */
function isSecure(view: SnapshotView, element: SnapshotView['snapshot']['elements'][number]) {
  return element.flags.includes('secure') || isSecretField(view.snapshot.pid, element);
}

function refIsSecure(view: SnapshotView, ref: string | undefined): boolean {
  if (ref === undefined) return false;
  const i = view.refs.indexOf(ref);
  return i >= 0 && isSecure(view, view.snapshot.elements[i]);
}

function focusIsSecure(view: SnapshotView): boolean {
  return view.snapshot.elements.some((e) => e.flags.includes('focused') && isSecure(view, e));
}
