/**
 * Recording what a person does in one app, for an agent to replay: the app's accessibility
 * events (focus, text, states, windows) and, where the display session shows them, the
 * person's clicks and keys. Each burst of events is followed by a walk of the app through
 * the normal pipeline (ax_get_tree: a tree file and PNG in the artifact dir, a line in the
 * session log), which names the elements the events were about by the query the rest of
 * axpage resolves; steps.ts merges the events into ax_workflow steps on stop.
 *
 * One recording per server at a time; it ends by itself at its limit and keeps what it
 * saw until it is stopped. A password field's text is never read (walks never read it),
 * so it is in no step, file or log.
 */
import path from 'node:path';
import { AxError } from '../errors.js';
import type { Element } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import type { Activity, Desktop, InputEvent } from '../platform/desktop.js';
import { exactQueryFor, withNth } from '../query/quote.js';
import { getTree } from '../tools/observe.js';
import type { ToolResponse } from '../pipeline/response.js';
import {
  mergeEvents,
  type RecordedEvent,
  type SecretSlot,
  type SeenElement,
  type WorkflowStep,
} from './steps.js';

/** A recording's length when none is asked for. */
export const DEFAULT_LIMIT_S = 600;
/** The longest recording one may ask for. */
export const MAX_LIMIT_S = 24 * 3600;
/** How long the app must have been quiet before a stop takes the steps (and at most how long to wait). */
const STOP_QUIET_MS = 300;
const STOP_QUIET_MAX_MS = 3000;
/** Elements of one name an nth may pick among before the step says it is unnamed. */
const MAX_NTH = 30;

const BUTTON_ROLES = new Set([
  'AXButton',
  'AXToggleButton',
  'AXMenuButton',
  'AXPopUpButton',
  'AXLink',
  'AXMenuItem',
  'AXMenuBarItem',
]);
const TOGGLE_ROLES = new Set([
  'AXCheckBox',
  'AXRadioButton',
  'AXSwitch',
  'AXToggleButton',
  'AXTab',
  'AXDisclosureTriangle',
  'AXMenuItem',
  'AXRow',
  'AXCell',
]);
const RADIO_ROLES = new Set(['AXRadioButton', 'AXTab', 'AXRow', 'AXCell']);

export type Inputs = 'accessibility and input events' | 'accessibility events only';

export interface RecordingResult {
  app: string;
  pid: number;
  /** Where the steps came from: with the person's clicks and keys, or inferred without them. */
  inputs: Inputs;
  note?: string;
  /** How it ended: stopped by the caller, its time limit, or the app quitting. */
  ended: 'stopped' | 'limit' | 'app_quit';
  seconds: number;
  steps: WorkflowStep[];
  /** Password fields typed into: the placeholder in each step's text, for the caller to fill. */
  secrets: SecretSlot[];
  /** The tree file (PNG beside it) of the walk after each step's last event. */
  pairs: Record<string, string>;
  artifact_dir: string;
}

export interface RecordingStatus {
  recording: boolean;
  app?: string;
  pid?: number;
  inputs?: Inputs;
  seconds?: number;
  limit_seconds?: number;
  events?: number;
  ended?: RecordingResult['ended'];
  note?: string;
}

interface Pending {
  at: number;
  activity?: Activity;
  input?: InputEvent;
}

/** Runs ax_get_tree as the server runs a call (its pair written, its line in the session log). */
export type WalkRunner = (tool: typeof getTree, args: { app: number }) => Promise<ToolResponse>;

const HIDDEN_INPUT = 'this display session hides input events from other clients';
const INFERRED =
  'steps are inferred from accessibility events alone (a check box or tab changing is a click on it, a button the focus reached just before a window opened or closed is taken as clicked, typing is read from the fields; keys that type nothing are not seen)';

class Recording {
  private readonly events: Array<RecordedEvent & { pair?: string }> = [];
  private readonly pending: Pending[] = [];
  private readonly known = new Map<string, SeenElement>();
  private lastView: SnapshotView | undefined;
  private lastPair: string | undefined;
  private draining: Promise<void> | undefined;
  private stops: Array<() => Promise<void>> = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly started = performance.now();
  private lastEventAt = performance.now();
  private endedAt: number | undefined;
  ended: RecordingResult['ended'] | undefined;
  private problem: string | undefined;

  constructor(
    private readonly pipeline: Pipeline,
    private readonly run: WalkRunner,
    readonly app: { name: string; pid: number },
    readonly limitS: number,
    public inputs: Inputs,
  ) {}

  private inputProblem: string | undefined;
  /** Presses made while another app was in front: left out, counted. */
  private elsewhere = 0;

  async begin(desktop: Desktop): Promise<void> {
    if (!desktop.watchActivity) {
      throw new AxError(
        'unsupported',
        'this platform reports no accessibility events to record from',
        'Drive the app with the action tools and replay the session log with axpage replay',
      );
    }
    // A first walk: the elements present before the person acts are known by name.
    await this.walk();
    this.stops.push(
      await desktop.watchActivity(this.app.pid, (activity) => this.take({ activity })),
    );
    if (desktop.watchInput) {
      try {
        this.stops.push(await desktop.watchInput((input) => this.take({ input })));
      } catch (err) {
        // The accessibility events still tell most of it: recorded as on a session that
        // hides input, saying why.
        this.inputs = 'accessibility events only';
        this.inputProblem = `the person's input cannot be watched (${(err as Error).message})`;
      }
    }
    this.timer = setTimeout(() => void this.end('limit'), this.limitS * 1000);
    this.timer.unref();
  }

  get seconds(): number {
    return Math.round(((this.endedAt ?? performance.now()) - this.started) / 1000);
  }

  status(): RecordingStatus {
    return {
      recording: this.ended === undefined,
      app: this.app.name,
      pid: this.app.pid,
      inputs: this.inputs,
      seconds: this.seconds,
      limit_seconds: this.limitS,
      events: this.events.length + this.pending.length,
      ...(this.ended ? { ended: this.ended, note: this.endNote() } : {}),
    };
  }

  /** Stops listening (idempotent); what was seen stays for result(). */
  async end(why: RecordingResult['ended']): Promise<void> {
    if (this.ended) return;
    this.ended = why;
    this.endedAt = performance.now();
    clearTimeout(this.timer);
    const stops = this.stops;
    this.stops = [];
    await Promise.all(stops.map((s) => s().catch(() => undefined)));
  }

  async result(): Promise<RecordingResult> {
    // What the person did last may still be on its way from the app: its events are
    // taken until the app has been quiet a moment (bounded: an app may never be).
    const deadline = performance.now() + STOP_QUIET_MAX_MS;
    while (!this.ended && performance.now() < deadline) {
      const quietFor = performance.now() - this.lastEventAt;
      if (quietFor >= STOP_QUIET_MS) break;
      await new Promise((r) => setTimeout(r, STOP_QUIET_MS - quietFor));
    }
    await this.end('stopped');
    // The events that came before the stop are all turned into steps.
    while (this.draining) await this.draining;
    const merged = mergeEvents(this.events, {
      app: this.app.name,
      inferClicks: this.inputs === 'accessibility events only',
    });
    const pairs: Record<string, string> = {};
    merged.steps.forEach((step, i) => {
      const pair = merged.pairs[i];
      if (pair) pairs[step.id] = pair;
    });
    const notes = [
      this.inputs === 'accessibility events only'
        ? `${this.inputProblem ?? HIDDEN_INPUT}: ${INFERRED}`
        : undefined,
      this.endNote(),
      this.elsewhere > 0
        ? `${this.elsewhere} click(s) or key(s) made while another app was in front are left out`
        : undefined,
      merged.unnamed > 0
        ? `${merged.unnamed} click(s) landed where no named element was and are left out`
        : undefined,
    ].filter((n): n is string => n !== undefined);
    return {
      app: this.app.name,
      pid: this.app.pid,
      inputs: this.inputs,
      ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
      ended: this.ended ?? 'stopped',
      seconds: this.seconds,
      steps: merged.steps,
      secrets: merged.secrets,
      pairs,
      artifact_dir: this.pipeline.config.outDir ?? '',
    };
  }

  private endNote(): string | undefined {
    if (this.ended === 'limit') {
      return `the recording ended by itself at its limit of ${this.limitS} s`;
    }
    if (this.ended === 'app_quit') return `the recording ended: ${this.problem ?? 'the app quit'}`;
    return undefined;
  }

  private take(item: Omit<Pending, 'at'>): void {
    if (this.ended) return;
    if (item.activity?.kind === 'lost') {
      this.problem = 'the connection to the accessibility bus was lost';
      void this.end('app_quit');
      return;
    }
    this.lastEventAt = performance.now();
    this.pending.push({ at: this.lastEventAt, ...item });
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
  }

  /** Walks after each burst and resolves the burst's events in that walk. */
  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0);
      const before = this.lastView;
      try {
        await this.walk();
      } catch (err) {
        this.problem = `the app could not be walked (${(err as Error).message})`;
        await this.end('app_quit');
        return;
      }
      // The person's presses are everyone's: those made while another app was in front
      // (typing in a terminal) are no step of this app's.
      const elsewhere =
        batch.some((item) => item.input) && !(await this.inFront().catch(() => true));
      for (const item of batch) {
        if (item.input && elsewhere) {
          this.elsewhere++;
          continue;
        }
        const ev = this.resolve(item, before);
        if (ev) this.events.push({ ...ev, ...(this.lastPair ? { pair: this.lastPair } : {}) });
      }
    }
  }

  /** Whether the recorded app has the active window (true when the session cannot tell). */
  private async inFront(): Promise<boolean> {
    const front = await (await this.pipeline.desktop()).frontmost();
    return front === null || front.pid === this.app.pid;
  }

  private async walk(): Promise<void> {
    const response = await this.run(getTree, { app: this.app.pid });
    if (response.isError) {
      throw new Error(String(response.structured.error ?? 'the walk failed'));
    }
    const file = response.structured.file;
    this.lastPair = typeof file === 'string' ? path.basename(file) : undefined;
    const view = this.pipeline.views.last(this.app.pid);
    if (!view) return;
    this.lastView = view;
    view.snapshot.elements.forEach((el, i) => {
      if (!el.id) return;
      const seen = this.seen(view, i);
      // Named as the person first saw it: a button relabelled by its click ("Start" to
      // "Stop") is replayed by its old name, a field named by its text by what it was.
      const first = this.known.get(el.id)?.query;
      this.known.set(el.id, first ? { ...seen, query: first } : seen);
    });
  }

  private resolve(item: Pending, before: SnapshotView | undefined): RecordedEvent | undefined {
    const at = item.at;
    const input = item.input;
    if (input) {
      if (input.kind === 'key') return { at, kind: 'key', key: input.key, typing: input.typing };
      // Where the click landed, as the screen stood before it (its effect may have closed
      // what was clicked): the deepest named element there.
      const element =
        (before && this.elementAt(before, input.x, input.y)) ??
        (this.lastView && this.elementAt(this.lastView, input.x, input.y));
      return { at, kind: 'click', x: input.x, y: input.y, ...(element ? { element } : {}) };
    }
    const a = item.activity;
    if (!a || a.kind === 'lost') return undefined;
    const element = this.known.get(a.elementId);
    switch (a.kind) {
      case 'focus':
        return element ? { at, kind: 'focus', element } : undefined;
      case 'text':
        return element?.field ? { at, kind: 'text', element } : undefined;
      case 'state':
        return element ? { at, kind: 'state', element, flag: a.flag, on: a.on } : undefined;
      case 'window':
        return { at, kind: 'window', opened: a.opened, ...(element ? { element } : {}) };
    }
  }

  private elementAt(view: SnapshotView, x: number, y: number): SeenElement | undefined {
    const els = view.snapshot.elements;
    for (let i = els.length - 1; i >= 0; i--) {
      const f = els[i].frame;
      if (!view.visible[i] || !f || x < f.x || y < f.y || x >= f.x + f.w || y >= f.y + f.h) {
        continue;
      }
      const seen = this.seen(view, i);
      if (seen.query && (seen.button || seen.toggle || seen.field)) return seen;
    }
    return undefined;
  }

  private seen(view: SnapshotView, index: number): SeenElement {
    const el = view.snapshot.elements[index];
    const secret = el.flags.includes('secure');
    const field = secret || el.flags.includes('editable');
    return {
      id: el.id,
      query: this.queryFor(view, index, el),
      button: BUTTON_ROLES.has(el.role),
      toggle: TOGGLE_ROLES.has(el.role),
      radio: RADIO_ROLES.has(el.role),
      field,
      secret,
      label: el.name || el.description || el.identifier || '',
      ...(field && !secret && el.value !== undefined ? { value: el.value } : {}),
    };
  }

  /** The element's role and name, with nth only when the name alone picks another. */
  private queryFor(view: SnapshotView, index: number, el: Element): string | undefined {
    // An element with no text of its own (a document's text area) goes by its role.
    const base = exactQueryFor(el) ?? (/^\w+$/.test(el.role) ? `role:${el.role}` : undefined);
    if (!base) return undefined;
    const picks = (query: string): boolean => {
      try {
        return (
          this.pipeline.resolveTarget(view, { kind: 'query', query }, { unique: true }).index ===
          index
        );
      } catch {
        return false;
      }
    };
    if (picks(base)) return base;
    for (let n = 1; n <= MAX_NTH; n++) if (picks(withNth(base, n))) return withNth(base, n);
    return undefined;
  }
}

/** The one recording of a server: start, status, stop. */
export class Recorder {
  private current: Recording | undefined;

  constructor(
    private readonly pipeline: Pipeline,
    private readonly run: WalkRunner,
  ) {}

  async start(opts: { app?: string | number; limitS?: number }): Promise<RecordingStatus> {
    const limitS = opts.limitS ?? DEFAULT_LIMIT_S;
    if (!Number.isFinite(limitS) || limitS <= 0 || limitS > MAX_LIMIT_S) {
      throw new AxError(
        'bad_argument',
        `a recording's limit is 1 to ${MAX_LIMIT_S} seconds, not ${String(opts.limitS)}`,
        `Pass limit_seconds between 1 and ${MAX_LIMIT_S} (default ${DEFAULT_LIMIT_S})`,
      );
    }
    if (this.current) {
      const s = this.current.status();
      throw new AxError(
        'blocked',
        s.recording
          ? `a recording of ${s.app} is already running (${s.seconds} s so far)`
          : `the recording of ${s.app} ended (${s.note ?? s.ended}) and its steps have not been taken`,
        'Read axpage://recording/stop for its steps first; one recording runs at a time',
      );
    }
    const app = await this.pipeline.resolveApp(opts.app);
    const desktop = await this.pipeline.desktop();
    const recording = new Recording(
      this.pipeline,
      this.run,
      { name: app.name, pid: app.pid },
      limitS,
      desktop.watchInput ? 'accessibility and input events' : 'accessibility events only',
    );
    this.current = recording;
    try {
      await recording.begin(desktop);
    } catch (err) {
      this.current = undefined;
      await recording.end('stopped');
      throw err;
    }
    return recording.status();
  }

  status(): RecordingStatus {
    return this.current?.status() ?? { recording: false };
  }

  async stop(): Promise<RecordingResult> {
    const recording = this.current;
    if (!recording) {
      throw new AxError(
        'bad_argument',
        'no recording is running',
        'Read axpage://recording/start (with ?app=NAME) first, then act in the app, then stop',
      );
    }
    try {
      return await recording.result();
    } finally {
      this.current = undefined;
    }
  }

  async close(): Promise<void> {
    await this.current?.end('stopped');
  }
}
