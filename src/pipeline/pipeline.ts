/**
 * The one response pipeline every tool runs through:
 *
 *   resolve app ─► before view (cached while the app is unchanged) ─► act ─► settle
 *   ─► after snapshot ─► frontmost check (handoff) ─► diff ─► publish
 *
 * Observation tools take the same path without act/settle/diff. A tool declares only its
 * schema and its action; publishing (screenshot, tree file, summary) lives in publish.ts.
 */
import type { Config } from '../config.js';
import { TRUNCATED_APP_EXITED, type Rect, type SnapshotLimits } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import { dropHidden } from '../model/filter.js';
import { pollUntil, WaitTimeoutError } from '../model/timeout.js';
import { transientFlags } from '../model/transient.js';
import type { TreeDiff } from '../model/diff.js';
import type { AccessReport, Clipboard, Desktop } from '../platform/desktop.js';
import type { ArtifactNames } from '../capture/index.js';
import { closedWindows, diffSnapshots, hasShowingWindow } from '../diff/index.js';
import { popupAround } from '../viewport/index.js';
import {
  conclusive,
  judge,
  READ_BACK_MS,
  type Delivered,
  type Evidence,
  type Reading,
  type Scene,
} from '../actions/index.js';
import { AppDirectory, type ResolvedApp } from './apps.js';
import {
  Policy,
  type AncestorsOf,
  type ExecutableOf,
  type ProgramIdentity,
} from '../guard/policy.js';
import { AxError, describeError } from '../errors.js';
import { KeyedLock } from './lock.js';
import {
  Publisher,
  type AnswerRequest,
  type Detail,
  type PublishRequest,
  type ReportRequest,
  type WrittenPair,
  type WrittenResult,
} from './publish.js';
import { RefRegistry } from './refs.js';
import { scrubLines, type ToolResponse } from './response.js';
import { RestlessElements } from './restless.js';
import {
  AnswerPace,
  changeOrQuiet,
  settle,
  waitQuiet,
  type AnswerQuiet,
  type SettleOptions,
  type SettleResult,
} from './settle.js';
import { resolveInView, type ResolvedTarget, type ResolveOptions, type Target } from './target.js';
import { ViewCache } from './views.js';
import { adviseAccess } from './platform-errors.js';
import { noteWalk, type ToolCall } from './notify.js';
import { UndoJournal } from './undo.js';
import { StageTimes } from './timing.js';
import { fieldsOfWalk, type WalkedFields } from './secure.js';
import { passwordGuardOf, pointerOffPasswordFields } from './password-field.js';
import { keysOffUnseenPlugs } from './plug-keys.js';
import { strictGrabs } from './grab-guard.js';
import { selectionOwner } from './selection-owner.js';
import { isSecretField, keepingSecrets, maskEchoesIn, secretFields } from './secret-fields.js';
import { DeniedApps } from './denied.js';
import { scaledByLoad } from '../model/timeout.js';
import { LaunchWatch } from './launch-watch.js';
import { ActionTransfers, SelectionSecrets } from './transfers.js';
import { holdSelections } from './selection-hold.js';
import { LingeringHold } from './lingering-hold.js';
import { LaunchLogs } from './launch-log.js';
import type { Element } from '../model/element.js';
import type { Asking } from '../elicit/asking.js';
import { CallMoments } from '../elicit/moments.js';

/** What an observation tool sees: the view and, when it named one, its target. */
export interface Observed {
  view: SnapshotView;
  target?: ResolvedTarget;
  desktop: Desktop;
}

export interface ObserveRequest {
  app?: string | number;
  /** Walk only below this element (a ref or query resolved against the full view). */
  root?: Target;
  /** An element the tool is about (get_value, assert): resolved against the view. */
  target?: Target;
  limits?: Partial<SnapshotLimits>;
  /** Use the cached view while no change event says the app changed (reads, not get_tree). */
  reuse?: boolean;
  /** Leave out subtrees the app reports as not showing (get_tree's default). */
  dropHidden?: boolean;
  /** Reads beyond the snapshot (fresh values, attributes), before publishing. */
  inspect?: (seen: Observed) => Promise<Record<string, unknown>>;
  /** One line saying what was done; gets the element counts appended. */
  describe: (seen: Observed, facts: Record<string, unknown>) => string;
  /** A result list (find) written to the tree file and capped in the summary. */
  results?: (seen: Observed) => { title: string; indices: number[] } | undefined;
  /** The result is a failure (e.g. a wait that timed out), though the snapshot worked. */
  failure?: (seen: Observed, facts: Record<string, unknown>) => string | undefined;
  capture?: { rect?: Rect; windowIndex?: number };
  includeImage?: boolean;
  /** "full" lists every visible element again; "auto" only what this session has not shown. */
  detail?: Detail;
  /** A read's result, rendered in the summary in place of the visible list. */
  answer?: (seen: Observed, facts: Record<string, unknown>) => AnswerRequest | undefined;
  /** Work on the written pair before the summary (see PublishRequest.written). */
  written?: (seen: Observed, pair: WrittenPair) => Promise<WrittenResult>;
}

/** What an action's perform gets: the scene its delivery works on, and its target. */
export interface ActContext extends Scene {
  target?: ResolvedTarget;
  /** Resolve a second target (e.g. a drag's end) against the same view. */
  resolve: (spec: Target) => ResolvedTarget;
}

/** What the action did and how its effect reads back (see src/actions). */
export type ActOutcome = Delivered;

export interface ActRequest {
  app?: string | number;
  target?: Target;
  /** `full` lists every visible element, not only what this session has not seen. */
  detail?: Detail;
  perform: (ctx: ActContext) => Promise<ActOutcome>;
  /**
   * Text the action sends into the app (typed or set). Into a password field, it is a
   * secret from before it is sent: whatever the app echoes of it is masked in this very
   * call's walk, file, PNG and summary.
   */
  sends?: string;
  /** False for an undo itself: it is not recorded as an action to take back. */
  journal?: boolean;
  /**
   * What the action does to its target, in words ("click", "press Return on"), when it
   * activates it; `focused`: with no target, the focused element is what it activates.
   * An element whose text says it destroys is confirmed with the person first.
   */
  activates?: { action: string; focused?: boolean };
  extra?: (after: SnapshotView, outcome: ActOutcome) => Record<string, unknown>;
}

/** Walks again after the after-walk while change events keep coming, at most this often. */
const LATE_REWALKS = 2;
/** Bound on waiting for quiet before such a walk. */
const LATE_QUIET_MAX_MS = 400;
/** Between the steps of one call, how long the app may take to show a first reaction. */
const BETWEEN_STEPS_FIRST_EVENT_MS = 350;
/**
 * ... and at least how long an app that answers at once must stay quiet before the next
 * step goes anyway: a form's button enabling from a short timer after the text changed.
 */
const BETWEEN_STEPS_QUIET_MIN_MS = 150;
/**
 * At least how long an action with nothing to show yet is read back, however fast the app
 * answers: an app's own timer (a toast, a validation, a label set a moment later) shows
 * its effect with no event before it, and a no-op verdict then would be false.
 */
const READ_BACK_QUIET_MIN_MS = 300;
/**
 * A dialog still up after an action in it may be about to close (a Save that writes the
 * file first): this long for a change, then a walk again.
 */
const DIALOG_GRACE_MS = 800;
/** ... and while changes keep coming, walks again until this bound. */
const DIALOG_GRACE_TOTAL_MS = 1500;
/** The target's states an action sets, read back when the walk shows no change. */
const TARGET_STATES: ReadonlySet<string> = new Set([
  'checked',
  'mixed',
  'pressed',
  'selected',
  'expanded',
  'collapsed',
]);
/**
 * After a change seen with no change event in the settle's first window, how long a
 * follow-on change (an app's idle callback reacting to it) is waited for, on an idle
 * machine; more under load, up to the most. GTK 4's dropdown search empties its list
 * after the late events of its text set through accessibility, past the settle's first
 * window (the whole follow-on took 0.4-1.5 s on a loaded 2-core machine).
 */
const FOLLOW_ON_MS = 400;
const FOLLOW_ON_MAX_MS = 1500;
/** ... and while changes keep coming, walks again until this bound. */
const FOLLOW_ON_TOTAL_MS = 3000;
/** Poll period of the read-back wait when nothing showed an effect yet. */
const EXTRA_POLL_MS = 20;
/**
 * The waits for a late or follow-on change end once the app has stayed quiet this many
 * times its slowest answer to a read (at least the settle's quiet window): an app that
 * answers at once while saying nothing has nothing left to do about the action.
 */
const ANSWER_QUIET_FACTOR = 4;
/**
 * How long a state held only during the action (a push button down) may take to go, on
 * an idle machine (Qt lets a clicked button go after 100 ms); more under load, up to the
 * most. One still held then is reported as it is.
 */
const TRANSIENT_SETTLE_MS = 1500;
const TRANSIENT_SETTLE_MAX_MS = 6000;
/** How long locating the password fields a cut walk left unread may take, at least and at most. */
const UNWALKED_LOOKUP_MS = 400;
const UNWALKED_LOOKUP_MAX_MS = 4000;
/** Elements read again while waiting for their transient states to go (the first ones). */
const TRANSIENT_READS = 4;
/**
 * An app whose last window the action closed may be on its way out: this long (idle
 * machine; more under load, up to the most) for it to leave the bus before its summary
 * says only that the window closed.
 */
const LAST_WINDOW_EXIT_MS = 1500;
const LAST_WINDOW_EXIT_MAX_MS = 6000;

/** Whether the view's focused element is a password field (now, or once seen as one). */
function focusIsSecret(view: SnapshotView): boolean {
  const pid = view.snapshot.pid;
  return view.snapshot.elements.some((e) => e.flags.includes('focused') && isSecretField(pid, e));
}

export class Pipeline {
  readonly refs = new RefRegistry();
  readonly apps = new AppDirectory();
  readonly policy: Policy;
  /** Where a call asks the person (a pick, a confirmation): elicit/moments.ts. */
  private readonly moments: CallMoments;
  /** What the deny list hides: windows in captures, points for pointer events, listings. */
  readonly denied: DeniedApps;
  /** What launches started, watched for programs the deny list names. */
  readonly launches: LaunchWatch;
  /** The logs of the apps this server launched, written while they run (launch-log.ts). */
  readonly launchLogs = new LaunchLogs();
  /** What this session knows to be secret on the clipboard and the primary selection. */
  readonly selections = new SelectionSecrets();
  /** Safe mode: selections kept empty between calls beside a password field. */
  private readonly lingering = new LingeringHold();
  /** The desktop's clipboard (useClipboard): safe mode empties it around some actions. */
  private clipboard?: () => Promise<Clipboard>;
  /** How many secrets the cached views were last masked for (see keepViewsClean). */
  private echoesMasked = 0;
  /** Per app, the text field that had the keyboard focus in its latest walk that showed one. */
  private readonly lastFields = new Map<number, Pick<Element, 'id' | 'flags'>>();
  readonly views = new ViewCache(this.refs);
  /** The actions of this session that reached an app, for ax_undo and workflow rollback. */
  readonly journal = new UndoJournal();
  private readonly lock = new KeyedLock();
  /** Elements seen moving on their own, per app: their moves are no action's effect. */
  private readonly restless = new RestlessElements();
  private readonly publisher: Publisher;
  private desktopPromise?: Promise<Desktop>;
  private openFailures = 0;
  /** Failed opens before the desktop was reached: the next call tells its client. */
  private recoveredAfter = 0;
  /** Where the last observation's time went, stage by stage (for the bench). */
  lastTimes?: StageTimes;
  /** Take an app's screenshot as its walk starts when its region is known (the bench turns it off for its baseline). */
  shootDuringWalk = true;

  constructor(
    private readonly openDesktop: () => Promise<Desktop>,
    readonly config: Config,
    /** A process's real executable, so the deny list sees through renamed and linked binaries. */
    executableOf?: ExecutableOf,
    /** What a file or process is, so the deny list sees through copies and hard links. */
    identity?: ProgramIdentity,
    /** What a process descends from, so a denied app's helpers are denied too. */
    ancestorsOf?: AncestorsOf,
  ) {
    this.policy = new Policy(config.policy, Date.now, executableOf, identity, ancestorsOf);
    this.moments = new CallMoments(config);
    this.denied = new DeniedApps(this.policy);
    this.launches = new LaunchWatch(() => this.desktop(), this.policy);
    // What a denied app offers on a selection, or what nothing vouches for, is never read
    // out or pasted as plain text.
    this.selections.askOwner(
      selectionOwner(() => this.desktop(), {
        safe: config.policy.mode === 'safe',
        denied: this.denied,
        self: process.pid,
        limits: config.limits,
      }),
    );
    // A secret learned after an app printed it: the launch logs already written are masked again.
    this.selections.echoes.whenAdded(() => this.launchLogs.remask());
    this.publisher = new Publisher(
      () => this.desktop(),
      config,
      config.visible,
      (desktop) => this.denied.windowFrames(desktop),
      (text) => scrubLines(text, this.selections.echoes),
    );
  }

  /** The platform backend, opened on first use; a failure is retried on the next call. */
  desktop(): Promise<Desktop> {
    this.desktopPromise ??= this.openDesktop().then(
      (desktop) => {
        this.recoveredAfter = this.openFailures;
        this.openFailures = 0;
        // Every read and capture goes through it: a field once a password field stays one.
        return keepingSecrets(
          this.denied.keepOut(desktop),
          secretFields,
          this.selections.echoes,
          this.config.limits,
        );
      },
      (err: unknown) => {
        this.openFailures++;
        this.desktopPromise = undefined;
        throw err;
      },
    );
    return this.desktopPromise;
  }

  /** The desktop was reached after failed tries: says so to this call's client, once. */
  private tellRecovery(call: ToolCall): void {
    if (this.recoveredAfter === 0) return;
    call.notify.log('info', `reached the desktop after ${this.recoveredAfter} failed tries`);
    this.recoveredAfter = 0;
  }

  /**
   * The app an argument names, when this server's policy lets it be touched. A denied app
   * is not there, however it is named (pid, name, command, title): the error is the one an
   * app that does not run gets, so no answer tells that it runs, or its pid.
   */
  async resolveApp(app: string | number | undefined, asking?: Asking): Promise<ResolvedApp> {
    const desktop = this.denied.hideApps(await this.desktop());
    let resolved: ResolvedApp;
    try {
      resolved = await this.apps.resolve(desktop, app);
    } catch (err) {
      // Several apps fit the name equally well: the person picks one, when they can be asked.
      if (!(err instanceof AxError) || err.code !== 'app_ambiguous') throw err;
      const pid = await this.moments.pickApp(asking, err, String(app));
      resolved = { ...(await this.apps.resolve(desktop, pid)), matchedBy: 'picked by the person' };
    }
    this.policy.checkApp(resolved);
    return resolved;
  }

  /** An app known by pid (a ref's), as the policy sees it: its last known name. */
  private appOf(pid: number): { pid: number; name: string } {
    return { pid, name: this.views.last(pid)?.snapshot.app ?? `pid ${pid}` };
  }

  /** The pid an app argument or a ref points at; a ref wins and must agree with app. */
  private async targetPid(
    app: string | number | undefined,
    spec?: Target,
    asking?: Asking,
  ): Promise<number> {
    if (spec?.kind === 'ref') {
      const origin = this.refs.originOf(spec.ref);
      if (app !== undefined) {
        const resolved = await this.resolveApp(app, asking);
        if (resolved.pid !== origin.pid) {
          throw new AxError(
            'bad_argument',
            `ref ${spec.ref} belongs to pid ${origin.pid}, not to ${resolved.name} (pid ${resolved.pid})`,
            'Drop app (a ref already names its app) or pass a ref from this app',
          );
        }
      }
      this.policy.checkApp(this.appOf(origin.pid));
      return origin.pid;
    }
    const known = await this.apps.known(this.denied.hideApps(await this.desktop()), app);
    if (!known) return (await this.resolveApp(app, asking)).pid;
    this.policy.checkApp(known);
    return known.pid;
  }

  /** A fresh full snapshot of an app, presented (refs + visibility) and cached. */
  async snapshot(
    pid: number,
    call: ToolCall,
    limits?: Partial<SnapshotLimits>,
    times = new StageTimes(),
    /** Where the screen size read after the walk goes (a call reuses it, one X round trip). */
    screenOut?: { screen?: { w: number; h: number } },
  ): Promise<SnapshotView> {
    const desktop = await this.desktop();
    void this.views.watch(desktop, pid);
    this.views.beginSnapshot(pid);
    const snapshot = await times.timeAsync('walk', () =>
      desktop.snapshot(pid, { ...this.config.limits, ...limits }),
    );
    noteWalk(snapshot, call.notify);
    // A menu opened over a field takes the focus: its Paste item pastes into that field.
    const field = snapshot.elements.find(
      (e) =>
        e.flags.includes('focused') && (e.flags.includes('editable') || e.flags.includes('secure')),
    );
    if (field) this.lastFields.set(pid, { id: field.id, flags: [...field.flags] });
    const partial = limits?.maxDepth !== undefined && limits.maxDepth < this.config.limits.maxDepth;
    const screen = await desktop.screenSize();
    if (screenOut) screenOut.screen = screen;
    // A walk cut short may have left password fields unread: they are located now (and so
    // remembered) before the app can reveal one, whether or not this call takes a capture.
    if (snapshot.truncated !== null && snapshot.elements.length > 0) {
      await desktop
        .secureFieldFrames(
          { x: 0, y: 0, w: screen.w, h: screen.h },
          scaledByLoad(UNWALKED_LOOKUP_MS, UNWALKED_LOOKUP_MAX_MS),
        )
        .catch(() => undefined);
    }
    return times.time('present', () => this.views.present(snapshot, screen, call.tool, partial));
  }

  /** The app's view: the cached one while no change event came in, else a new walk. */
  async currentView(pid: number, call: ToolCall): Promise<SnapshotView> {
    return this.views.fresh(pid) ?? this.snapshot(pid, call);
  }

  resolveTarget(view: SnapshotView, spec: Target, opts?: ResolveOptions): ResolvedTarget {
    return resolveInView(
      view,
      spec,
      { indexOf: (ref) => view.refs.indexOf(ref), lastSeen: (ref) => this.refs.lastSeen(ref) },
      opts,
    );
  }

  async observe(call: ToolCall, req: ObserveRequest): Promise<ToolResponse> {
    const times = new StageTimes();
    const pid = await times.timeAsync('resolve', () =>
      this.targetPid(req.app, req.root ?? req.target, call.asking),
    );
    this.tellRecovery(call);
    return this.lock.run(pid, async () => {
      const desktop = await this.desktop();
      this.keepViewsClean();
      this.lastTimes = times;
      // The pair's names are claimed while the walk runs; a call that fails gives them back.
      const names = this.publisher.claim(call.tool);
      names.catch(() => undefined); // publish awaits it; a failure before then is the call's own
      try {
        return await this.observeLocked(call, req, desktop, times, pid, names);
      } catch (err) {
        await this.publisher.release(names).catch(() => undefined);
        throw err;
      }
    });
  }

  private async observeLocked(
    call: ToolCall,
    req: ObserveRequest,
    desktop: Desktop,
    times: StageTimes,
    pid: number,
    names: Promise<ArtifactNames>,
  ): Promise<ToolResponse> {
    const startedAt = performance.now();
    // A root is found in the whole tree; the limits (a depth cut) apply below it only.
    const ownLimits = req.root ? undefined : req.limits;
    const walksAll = !req.root && !ownLimits && !req.reuse;
    // The app's usual screenshot, taken as the walk starts so it overlaps the walk (used
    // only if the walk leaves its region where it was).
    const early =
      this.shootDuringWalk && walksAll && !req.capture && !req.includeImage && !req.written
        ? await this.publisher.shootEarly(this.views.last(pid), times)
        : undefined;
    times.add('before_walk', performance.now() - startedAt);
    // The screen size read after this call's walk, for everything after it.
    const read: { screen?: { w: number; h: number } } = {};
    const screenNow = async (): Promise<{ w: number; h: number }> =>
      (read.screen ??= await desktop.screenSize());
    let view =
      req.reuse && !ownLimits
        ? await this.currentView(pid, call)
        : await this.snapshot(pid, call, ownLimits, times, read);
    const walkedAt = performance.now();
    // A complete walk made just now reads the app's password fields itself: the
    // screenshot's redaction takes them from it (before any filter leaves elements out).
    const walkedNow: WalkedFields | undefined =
      !req.reuse && !ownLimits ? fieldsOfWalk(view.snapshot) : undefined;
    if (req.root) {
      const root = this.resolveTarget(view, req.root);
      const sub = await times.timeAsync('walk', () =>
        desktop.snapshot(pid, {
          ...this.config.limits,
          ...req.limits,
          rootId: root.element?.id,
        }),
      );
      const screen = await desktop.screenSize();
      read.screen = screen;
      view = times.time('present', () => this.views.present(sub, screen, call.tool, true));
    }
    let notes: string[] = [];
    if (req.dropHidden) {
      const { snapshot, dropped, kept } = times.time('filter', () => dropHidden(view.snapshot));
      if (dropped > 0) {
        const screen = await screenNow();
        const full = view;
        // The full view's refs carry over: presented once, narrowed here.
        view = times.time('present', () => this.views.narrow(full, snapshot, kept, screen));
        notes = [
          `hidden: ${dropped} elements the app reports as not showing were left out (include_invisible: true keeps them)`,
        ];
      }
    }
    const target = req.target ? this.resolveTarget(view, req.target) : undefined;
    const seen: Observed = { view, target, desktop };
    const facts = req.inspect ? await req.inspect(seen) : {};
    // A read takes the best match: the others are counted, so the agent knows it chose.
    const others = target?.otherMatches ?? 0;
    if (others > 0) facts.other_matches = others;
    const response = await this.publisher.publish(call.tool, {
      view,
      did:
        req.describe(seen, facts) +
        (others > 0
          ? `; the best of ${others + 1} matches (ax_find lists them all, nth:n picks one)`
          : ''),
      error: req.failure?.(seen, facts),
      extra: facts,
      results: req.results?.(seen),
      capture: req.capture,
      includeImage: req.includeImage,
      notes,
      detail: req.detail,
      answer: req.answer?.(seen, facts),
      written: req.written && ((pair) => req.written!(seen, pair)),
      times,
      early,
      walkedNow,
      // No screen (no display): publish asks again and says why there is no screenshot.
      screen: await screenNow().catch(() => undefined),
      names,
    });
    times.add('after_walk', performance.now() - walkedAt);
    return response;
  }

  /** The clipboard the server's tools use: what safe mode holds empty (selection-hold.ts). */
  /**
   * Safe mode: gives back what the selections held beside a password field (the agent
   * reads or writes the clipboard itself, or the server stops).
   */
  async releaseHeldSelections(): Promise<void> {
    await this.lingering.release();
  }

  useClipboard(open: () => Promise<Clipboard>): void {
    this.clipboard = open;
  }

  async act(call: ToolCall, req: ActRequest): Promise<ToolResponse> {
    const pid = await this.targetPid(req.app, req.target, call.asking);
    this.tellRecovery(call);
    // Counted before anything is read or sent; a refused call did nothing.
    this.policy.admitMutation(this.appOf(pid));
    return this.lock.run(pid, async () => {
      const desktop = await this.desktop();
      this.keepViewsClean();
      let before = await this.currentView(pid, call);
      // An action needs one element: several equally good matches are an error, or a
      // question to the person (the app may have changed while they chose: seen again).
      let target: ResolvedTarget | undefined;
      if (req.target) {
        try {
          target = this.resolveTarget(before, req.target, { unique: true });
        } catch (err) {
          if (!(err instanceof AxError) || err.code !== 'ambiguous_target') throw err;
          if (req.target.kind !== 'query') throw err;
          const action = req.activates?.action ?? call.tool.replace(/^ax_/, '').replace(/_/g, ' ');
          const ref = await this.moments.pickElement(
            call.asking,
            err,
            before,
            action,
            req.target.query,
          );
          before = await this.currentView(pid, call);
          target = this.resolveTarget(before, { kind: 'ref', ref });
        }
      }
      // What the action activates, confirmed first when its text says it destroys.
      if (req.activates) {
        const index =
          target?.index ??
          (req.activates.focused && !req.target
            ? before.snapshot.elements.findIndex((e) => e.flags.includes('focused'))
            : -1);
        if (index >= 0) {
          await this.moments.beforeActivating(call.asking, before, {
            action: req.activates.action,
            index,
          });
        }
      }
      // Safe mode refuses text into a password field: the person may allow it for this call.
      // The password guards ask their policy only for secureTypingRefusal (password-field.ts):
      // an allowed call hands them one that refuses nothing; every other guard stays.
      const refusal = this.policy.secureTypingRefusal('a password field');
      let guardPolicy: Pick<Policy, 'secureTypingRefusal'> = this.policy;
      if (
        refusal &&
        call.asking?.canAsk &&
        req.sends !== undefined &&
        this.goesToSecretField(before, target)
      ) {
        await this.moments.allowPasswordTyping(
          call.asking,
          before,
          this.secretFieldIndex(before, target),
          refusal,
        );
        guardPolicy = { secureTypingRefusal: () => undefined };
      }
      // Known before the first key goes: nothing read after it may show the app's echo.
      if (req.sends !== undefined && this.goesToSecretField(before, target)) {
        this.learnSent(req.sends);
      }
      const childrenBefore = new Set(await desktop.childProcesses(pid).catch(() => []));
      const frontBefore = (await desktop.frontmost().catch(() => null))?.pid;
      const watching = (await this.views.watch(desktop, pid)) !== null;
      const settleOptions = (delivery: 'background' | 'foreground'): SettleOptions => ({
        quietMs: this.config.settleQuietMs,
        // An accessibility action's echo comes sooner than real input's (the platform says how soon).
        firstEventMs: desktop.traits.firstEventMs[delivery],
        maxMs: this.config.settleMaxMs,
        spawnWaitMs: this.config.spawnWaitMs,
      });
      const startedAt = Date.now();
      // Selections kept empty beside a password field: given back once a call acts on an
      // app that shows none.
      if (
        this.lingering.active &&
        !before.snapshot.elements.some((el) => secretFields.isSecretField(pid, el))
      ) {
        await this.lingering.release();
      }
      // Text moved by a paste or a drag: a secret's field is where it lands (transfers.ts).
      const transfers = new ActionTransfers({
        pid,
        before,
        selections: this.selections,
        desktop,
        isSecret: (p, el) => secretFields.isSecretField(p, el),
        learn: (p, ids) => secretFields.learn(p, ids),
        lastField: () => this.lastFields.get(pid),
        walk: (p) => desktop.snapshot(p, this.config.limits),
        ...(this.clipboard && this.policy.secureTypingRefusal('a password field')
          ? {
              holdSelections: async () =>
                holdSelections(await this.clipboard!(), (note) => call.notify.log('warning', note)),
              lingering: this.lingering,
              selectionsStillHeld: async () => {
                const clipboard = await this.clipboard!();
                return (['clipboard', 'primary'] as const).every((s) => clipboard.owns?.(s));
              },
            }
          : {}),
      });
      // Safe mode, an app that shows a password field: the selections are empty before any
      // input goes, whatever it turns out to press or focus (it may paste later, or read
      // the clipboard into the field itself). Throws, with nothing sent, when they cannot be.
      await transfers.holdBesidePasswordField();
      const ctx: ActContext = {
        transfers,
        // Pointer events at a denied app's window are refused, whichever app this call is on.
        // In safe mode, none on a password field either, of any app (see pointerOffPasswordFields).
        // Keys into another process's window in this app's that no guard can read: refused
        // unless the focus is known to be outside it (see keysOffUnseenPlugs).
        desktop: keysOffUnseenPlugs(
          // The deny list first: the safe-mode checks name what they find, and nothing
          // may name a denied app.
          this.denied.guardPointer(
            pointerOffPasswordFields(
              strictGrabs(desktop, {
                safe: this.policy.secureTypingRefusal('a password field') !== undefined,
                denied: this.denied,
              }),
              guardPolicy as Policy,
              pid,
              () => ctx.view.snapshot.enteredApps ?? [],
            ),
          ),
          {
            pid,
            view: () => ctx.view.snapshot,
            denied: async (p) => (await this.denied.deniedPids(desktop, [p])).has(p),
            safe: this.policy.secureTypingRefusal('a password field') !== undefined,
          },
        ),
        pid,
        view: before,
        target,
        resolve: (spec) => this.resolveTarget(before, spec, { unique: true }),
        // Against the latest view: after refresh(), a later step finds what has focus now.
        targetAt: (index) =>
          this.resolveTarget(ctx.view, { kind: 'ref', ref: ctx.view.refs[index] }),
        refresh: async () => {
          ctx.view = await this.snapshot(pid, call);
        },
        passwordGuard: passwordGuardOf(guardPolicy as Policy, () => this.lastFields.get(pid)),
        // Between the steps of one call: the longer first-event window whatever the
        // delivery (an app validating typed text, e.g. a Save button enabling, reacts later
        // than a DoAction's echo); no spawn wait, the last step's settle does that.
        settle: async () => {
          await settle(
            desktop,
            this.views,
            pid,
            childrenBefore,
            Date.now(),
            {
              ...settleOptions('foreground'),
              // A dialog validates typed text from an idle callback or after a folder read
              // (GTK's file chooser enables Save ~100-300 ms after the name is set): a
              // Return sent sooner does nothing.
              firstEventMs: BETWEEN_STEPS_FIRST_EVENT_MS,
              spawnWaitMs: 0,
              // ... unless the app shows it has nothing pending: quiet for a while by its
              // own answer times, never less than a timer of a dialog's usual delay.
              pace: {
                ping: () => this.answering(pid),
                quiet: {
                  minMs: BETWEEN_STEPS_QUIET_MIN_MS,
                  factor: ANSWER_QUIET_FACTOR,
                  maxMs: BETWEEN_STEPS_FIRST_EVENT_MS,
                },
              },
            },
            watching,
          );
        },
      };
      // Last thing before acting (a call queued on the lock may have waited): the dir is
      // still ours, writable, with room for the pair, so nothing done goes unrecorded.
      await this.publisher.ready();
      try {
        const outcome = await req.perform(ctx);
        const actMs = Date.now() - startedAt;
        if (req.journal !== false) {
          this.journal.record({
            tool: call.tool,
            pid,
            app: before.snapshot.app,
            did: outcome.did,
            reversal: outcome.undo ?? { kind: 'none', reason: `${call.tool} cannot be reversed` },
          });
        }
        try {
          return await this.judgeAndPublish(call, pid, req, {
            before,
            outcome,
            targetId: target?.element?.id,
            actMs,
            frontBefore,
            watching,
            transfers,
            sends: req.sends,
            settled: await settle(
              desktop,
              this.views,
              pid,
              childrenBefore,
              Date.now(),
              settleOptions(outcome.delivery),
              watching,
            ),
          });
        } catch (err) {
          // The action fronted a window and then the call failed: put the previous one back.
          await outcome.restore?.().catch(() => undefined);
          throw err;
        }
      } finally {
        // What the selections held before the action, offered again once it is judged
        // (or later, while the app still shows a password field).
        await transfers.done(ctx.view.snapshot);
      }
    });
  }

  /**
   * Whether text sent by an action goes into a password field: the field it names, when it
   * names one that takes text; else the focused field (or the last one that had the focus).
   */
  private goesToSecretField(view: SnapshotView, target: ResolvedTarget | undefined): boolean {
    const pid = view.snapshot.pid;
    const el = target?.element;
    if (el && (isSecretField(pid, el) || el.flags.includes('editable'))) {
      return isSecretField(pid, el);
    }
    if (focusIsSecret(view)) return true;
    const last = this.lastFields.get(pid);
    return last !== undefined && isSecretField(pid, last);
  }

  /** The password field text sent by an action goes into, when the view holds it. */
  private secretFieldIndex(
    view: SnapshotView,
    target: ResolvedTarget | undefined,
  ): number | undefined {
    const pid = view.snapshot.pid;
    if (target?.index !== undefined && isSecretField(pid, view.snapshot.elements[target.index])) {
      return target.index;
    }
    const focused = view.snapshot.elements.findIndex(
      (e) => e.flags.includes('focused') && isSecretField(pid, e),
    );
    return focused >= 0 ? focused : undefined;
  }

  /** Text sent into a password field: a known secret, and every view kept masks it now. */
  private learnSent(text: string): void {
    this.selections.memory.note(text, 'typed into a password field');
    this.keepViewsClean();
  }

  /**
   * The views kept from walks made before a secret was known (for later reads, and as the
   * "before" of the next diff) masked as a walk made now would be, once per secret learned.
   */
  private keepViewsClean(): void {
    const echoes = this.selections.echoes;
    if (echoes.size === this.echoesMasked) return;
    this.echoesMasked = echoes.size;
    for (const view of this.views.views()) maskEchoesIn(view.snapshot, echoes);
  }

  /**
   * After the action has settled: walk the app (again while late change events come in),
   * diff, check for a handoff, put the previous window back, read the effect back (with a
   * bounded extra wait when nothing shows yet) and publish the one verdict.
   */
  private async judgeAndPublish(
    call: ToolCall,
    pid: number,
    req: ActRequest,
    run: {
      before: SnapshotView;
      outcome: ActOutcome;
      actMs: number;
      frontBefore: number | undefined;
      /** The element acted on, for the `window:` line. */
      targetId?: string;
      watching: boolean;
      settled: SettleResult;
      transfers: ActionTransfers;
      sends?: string;
    },
  ): Promise<ToolResponse> {
    const { before, outcome, actMs, settled, watching } = run;
    const exit = () => this.publishExit(call, pid, before, outcome, actMs, settled);
    const first = await this.afterOrExit(pid, call, watching);
    if (!first) return exit();
    // A button still held down from the action is not its effect, and what the action does
    // may come only once it is let go (Qt clicks on release).
    const released = await this.settleTransient(pid, call, before, first, watching);
    if (!released.view) return exit();
    let after = released.view;
    // A field a secret was pasted into just became a password field: walked again, so
    // nothing written shows its text.
    if (await run.transfers.settled(after)) {
      const again = await this.afterOrExit(pid, call, watching);
      if (!again) return exit();
      after = again;
    }
    // A dialog the action was in is still up: it may close a moment later, and the summary
    // must not show a dialog that has gone. Bounded wait for a change, then walk again.
    const graceEnd = Date.now() + DIALOG_GRACE_TOTAL_MS;
    while (
      watching &&
      outcome.mayDismiss &&
      after.dialog &&
      before.dialog &&
      after.dialog.title === before.dialog.title &&
      Date.now() < graceEnd
    ) {
      if (!(await this.changeWithin(pid, DIALOG_GRACE_MS))) break;
      const again = await this.afterOrExit(pid, call, watching);
      if (!again) return exit();
      after = again;
    }
    const desktop = await this.desktop();
    // An element that moves on its own (a busy indicator turning) is not the effect: its
    // moves would confirm a click on nothing and cut short the wait for a late effect.
    const diffOf = (view: SnapshotView): Promise<TreeDiff> =>
      this.restless.without(
        pid,
        before.snapshot,
        view.snapshot,
        diffSnapshots(
          before.snapshot,
          view.snapshot,
          this.views.matchOf(before.snapshot, view.snapshot),
        ),
        async (id) => (await desktop.readElement(id)).frame,
        run.targetId,
      );
    let diff = await diffOf(after);
    const acted = actedIndex(before, run.targetId);
    // The action closed the app's last window: it may be about to exit, which is then the
    // effect to report.
    if (
      !hasShowingWindow(after.snapshot) &&
      closedWindows(before.snapshot, after.snapshot, diff.matchOf).length > 0 &&
      (await this.exitsWithin(pid, scaledByLoad(LAST_WINDOW_EXIT_MS, LAST_WINDOW_EXIT_MAX_MS)))
    ) {
      return exit();
    }
    const appSwitch = await this.handoff(pid, call, settled, run.frontBefore);
    // Restore only when the target is still in front: never bury a window the action opened.
    // Nor while the app shows a menu the action opened: fronting another window closes it.
    if (outcome.restore && !appSwitch && !(await this.showsPopup(pid))) {
      await outcome.restore().catch(() => undefined);
    }
    // Read back only what the verdict needs: the intended effect when the action has
    // one, the target's own state only when nothing else showed a change.
    const evidence = async (): Promise<Evidence> => {
      const seen: Evidence = {
        // A copy shows nothing in the app: the clipboard taking another text is its effect.
        changed: appSwitch !== undefined || !isEmpty(diff) || run.transfers.clipboardChanged,
        // A button held down by the action took it, whatever else reads back.
        touched: released.reacted || undefined,
        reading: outcome.probe ? await outcome.probe().catch((): Reading => 'absent') : undefined,
        delivery: outcome.delivery,
        escalate: outcome.escalate,
      };
      if (!conclusive(seen) && outcome.touched) {
        seen.touched = await outcome.touched().catch(() => false);
      }
      return seen;
    };
    // A toolkit may change the target's own state without a word (GTK 4.8 sets a toggle
    // button's pressed state after its action returned, and says nothing): when the walk
    // shows the target as it was, it is read once more, and the app walked again when it
    // no longer reads so.
    if (watching && this.views.fresh(pid) && (await this.targetMoved(after, run.targetId))) {
      this.views.markDirty(pid);
      const again = await this.afterOrExit(pid, call, watching);
      if (!again) return exit();
      after = again;
      diff = await diffOf(after);
    }
    // The app changed without a change event in the first window (its events come late,
    // as GTK 4's do for text set through accessibility): what it does about the change (a
    // search filtering its list from an idle callback) is still to come. Bounded wait for
    // a follow-on change, then a walk again.
    let followOnMs = 0;
    if (watching && settled.reason === 'no-events' && !isEmpty(diff)) {
      // The late events of the change itself may come first, and the follow-on after them.
      const from = Date.now();
      const window = scaledByLoad(FOLLOW_ON_MS, FOLLOW_ON_MAX_MS);
      // Walked again even when no event came the first time: its events may not say all
      // it changed. After a walk that followed its late events, quiet says it is done.
      for (let changed = await this.changeBeforeQuiet(pid, window), first = true; ;) {
        if (!first && !changed && this.views.fresh(pid)) break;
        first = false;
        this.views.markDirty(pid);
        const again = await this.afterOrExit(pid, call, watching);
        if (!again) return exit();
        after = again;
        if (!changed || Date.now() - from >= FOLLOW_ON_TOTAL_MS) break;
        changed = await this.changeBeforeQuiet(pid, window);
      }
      diff = await diffOf(after);
      followOnMs = Date.now() - from;
    }
    let seen = await evidence();
    // Nothing to show yet: effects can arrive late (GTK4, a dialog closing a moment
    // later). Read back again for a bounded time, walking again when the app changed,
    // until the effect reads back and the tree shows it (or the bound).
    const waitStart = Date.now();
    let extraWaitMs = 0;
    // With change events to go by, the wait also ends once the app has been quiet for
    // long enough by its own answer times (a click on nothing costs what the app takes to
    // stay quiet); without them, only the bound ends it.
    const pace = new AnswerPace({
      ...this.answerQuiet(READ_BACK_MS),
      minMs: Math.max(this.config.settleQuietMs, READ_BACK_QUIET_MIN_MS),
    });
    const quietNow = (): boolean =>
      watching &&
      pace.quietEnough(Date.now() - Math.max(waitStart, this.views.activity(pid).lastAt));
    // A target that changed only in itself (pressed, focused) may be about to do more; an
    // effect that read back (the text typed) needs no change elsewhere.
    const treeUnchanged = (): boolean =>
      watching &&
      seen.reading === undefined &&
      appSwitch === undefined &&
      isEmpty(diff) &&
      !run.transfers.clipboardChanged;
    while (
      (!conclusive(seen) || treeUnchanged()) &&
      Date.now() - waitStart < READ_BACK_MS &&
      !quietNow()
    ) {
      await delay(EXTRA_POLL_MS);
      let rewalked = false;
      // The target's own state may still change without a word (see targetMoved above).
      if (
        watching &&
        (!this.views.fresh(pid) ||
          (treeUnchanged() && (await this.targetMoved(after, run.targetId))))
      ) {
        const again = await this.afterOrExit(pid, call, watching);
        if (!again) return exit();
        after = again;
        diff = await diffOf(after);
        rewalked = true;
      }
      if (rewalked || !conclusive(seen)) seen = await pace.ping(evidence).then((e) => e ?? seen);
      else await pace.ping(() => this.answering(pid));
      extraWaitMs = Date.now() - waitStart;
    }
    if (extraWaitMs > 0)
      call.notify.log('info', `read the effect back again for ${extraWaitMs} ms`);
    // The text went into a password field after all (the app moved the focus there while
    // it was typed): a secret from now on, masked in this call's walks before they are shown.
    if (
      run.sends !== undefined &&
      this.selections.memory.reason(run.sends) === undefined &&
      focusIsSecret(after)
    ) {
      this.learnSent(run.sends);
      maskEchoesIn(before.snapshot, this.selections.echoes);
      maskEchoesIn(after.snapshot, this.selections.echoes);
      diff = await diffOf(after);
    }
    const verdict = judge(seen);
    // What the app shows instead of the effect that did not read back.
    const shows =
      seen.reading === 'absent' && outcome.shows
        ? ((await outcome.shows().catch(() => undefined)) ?? '')
        : '';
    const closed = closedWindows(before.snapshot, after.snapshot, diff.matchOf, acted);
    const actedAfter =
      run.targetId !== undefined
        ? after.snapshot.elements.findIndex((e) => e.id === run.targetId)
        : -1;
    const request: PublishRequest = {
      view: after,
      did:
        outcome.did +
        shows +
        popupOpened(after, released.popup) +
        stillOpen(after, actedAfter) +
        (run.transfers.clipboardChanged ? '; the clipboard took a new text' : ''),
      ended: closed.length > 0 ? { closed } : undefined,
      acted: actedAfter >= 0 ? actedAfter : undefined,
      before,
      diff,
      appSwitch,
      action: {
        route: outcome.route,
        delivery: outcome.delivery,
        effect: verdict.effect,
        escalation: verdict.escalation,
        actMs,
        settleMs: settled.ms + followOnMs + extraWaitMs,
        settleReason:
          settled.reason +
          (followOnMs > 0 ? '+follow-on' : '') +
          (extraWaitMs > 0 ? '+read-back' : ''),
      },
      error: outcome.error,
      extra: req.extra?.(after, outcome),
      detail: req.detail,
      windowIndex: actedWindow(after, run.targetId),
    };
    return this.publisher.publish(call.tool, request);
  }

  /**
   * The view after an action, or null when the app exited meanwhile (its walk failed and
   * it is gone, or the walk itself was cut short by the exit): the action's effect is then
   * its exit.
   */
  /** Whether a popup window of the app (an open menu, a combo box's list) is on screen now. */
  private async showsPopup(pid: number): Promise<boolean> {
    const desktop = await this.desktop();
    const popups = await desktop.popupWindows?.().catch(() => []);
    return (popups ?? []).some((p) => p.pid === pid);
  }

  /**
   * Whether the target's states a click or key sets (checked, pressed, selected, expanded)
   * read now differ from the view's (unread: no).
   */
  private async targetMoved(view: SnapshotView, targetId: string | undefined): Promise<boolean> {
    const walked = targetId && view.snapshot.elements.find((e) => e.id === targetId);
    if (!walked) return false;
    const desktop = await this.desktop();
    const now = await desktop.readElement(walked.id).catch(() => undefined);
    if (!now) return false;
    const flags = (e: { flags: readonly string[] }) =>
      e.flags
        .filter((f) => TARGET_STATES.has(f))
        .sort()
        .join(' ');
    return flags(now) !== flags(walked);
  }

  private async afterOrExit(
    pid: number,
    call: ToolCall,
    watching: boolean,
  ): Promise<SnapshotView | null> {
    let view: SnapshotView;
    try {
      view = await this.afterView(pid, call, watching);
    } catch (err) {
      if (!(await this.hasExited(pid))) throw err;
      return null;
    }
    return view.snapshot.truncated === TRUNCATED_APP_EXITED ? null : view;
  }

  /**
   * The view once the states the action put on elements only for its own duration have
   * gone (see model/transient.ts): when the after-walk caught some that were not there
   * before, re-reads those elements until they read back without them (bounded, scaled for
   * load), then walks again: `view` is null when the app exited meanwhile, and a state
   * still held at the bound is real (the view is returned as it was). `reacted`: some
   * element took such a state from the action, so the app took the input.
   */
  private async settleTransient(
    pid: number,
    call: ToolCall,
    before: SnapshotView,
    view: SnapshotView,
    watching: boolean,
  ): Promise<{ view: SnapshotView | null; reacted: boolean; popup?: Rect }> {
    const matchOf = this.views.matchOf(before.snapshot, view.snapshot);
    const els = view.snapshot.elements;
    const held: string[] = [];
    for (let i = 0; i < els.length && held.length < TRANSIENT_READS; i++) {
      const now = transientFlags(els[i]);
      if (now.length === 0 || els[i].id === '') continue;
      const j = matchOf[i];
      const was = j >= 0 ? transientFlags(before.snapshot.elements[j]) : [];
      if (now.some((f) => !was.includes(f))) held.push(els[i].id);
    }
    if (held.length === 0) return { view, reacted: false };
    const desktop = await this.desktop();
    // An element gone meanwhile holds nothing any more (a button that closed its window).
    const stillHeld = async (id: string): Promise<boolean> => {
      const el = await desktop.readElement(id).catch(() => undefined);
      return el !== undefined && transientFlags(el).length > 0;
    };
    // A button with a menu stays pressed while the menu it opened shows: that is no press
    // to wait out, and the menu is the effect.
    let popup: Rect | undefined;
    const popupOpen = async (): Promise<boolean> => {
      const popups = await desktop.popupWindows?.().catch(() => undefined);
      popup = popups?.find((p) => p.pid === pid)?.frame;
      return popup !== undefined;
    };
    try {
      await pollUntil(
        async () => {
          if (await popupOpen()) return true;
          for (const id of held) if (await stillHeld(id)) return false;
          return true;
        },
        {
          timeoutMs: scaledByLoad(TRANSIENT_SETTLE_MS, TRANSIENT_SETTLE_MAX_MS),
          intervalMs: 20,
          what: 'states held during the action',
        },
      );
    } catch (err) {
      if (err instanceof WaitTimeoutError) return { view, reacted: true };
      throw err;
    }
    return { view: await this.afterOrExit(pid, call, watching), reacted: true, popup };
  }

  /** How long the app must stay quiet in a wait bounded by `maxMs`, by its answer times. */
  private answerQuiet(maxMs: number): AnswerQuiet {
    return { minMs: this.config.settleQuietMs, factor: ANSWER_QUIET_FACTOR, maxMs };
  }

  /** One read the app answers from its main loop (its liveness), timed by the caller. */
  private async answering(pid: number): Promise<void> {
    const desktop = await this.desktop();
    await desktop.appsAnswering?.([pid]);
  }

  /**
   * Whether a change event comes for the app before it has been quiet for long enough by
   * its own answer times (then waits for quiet), bounded by `ms`. Without a way to ask
   * the app, the whole `ms`.
   */
  private async changeBeforeQuiet(pid: number, ms: number): Promise<boolean> {
    const desktop = await this.desktop();
    if (!desktop.appsAnswering) return this.changeWithin(pid, ms);
    const changed = await changeOrQuiet(
      this.views,
      pid,
      () => this.answering(pid),
      this.answerQuiet(ms),
    );
    if (changed) await waitQuiet(this.views, pid, this.config.settleQuietMs, LATE_QUIET_MAX_MS);
    return changed;
  }

  /** Whether a change event comes for the app within `ms` (then waits for quiet). */
  private async changeWithin(pid: number, ms: number): Promise<boolean> {
    const seen = this.views.activity(pid).count;
    const start = Date.now();
    while (Date.now() - start < ms) {
      await delay(20);
      if (this.views.activity(pid).count !== seen) {
        await waitQuiet(this.views, pid, this.config.settleQuietMs, LATE_QUIET_MAX_MS);
        return true;
      }
    }
    return false;
  }

  /** Whether the app leaves the bus within `ms` (polled). */
  private async exitsWithin(pid: number, ms: number): Promise<boolean> {
    try {
      return await pollUntil(() => this.hasExited(pid), {
        timeoutMs: ms,
        intervalMs: 50,
        what: 'the app to exit',
      });
    } catch (err) {
      if (err instanceof WaitTimeoutError) return false;
      throw err;
    }
  }

  private async hasExited(pid: number): Promise<boolean> {
    const apps = await (await this.desktop()).listApps().catch(() => undefined);
    return apps !== undefined && !apps.some((a) => a.pid === pid);
  }

  /**
   * The action ended the app (an OK that closes a zenity dialog, a Quit): that is its
   * effect, not an error. The file keeps the tree from before, says so, and hands off to
   * whatever is in front now.
   */
  private async publishExit(
    call: ToolCall,
    pid: number,
    before: SnapshotView,
    outcome: ActOutcome,
    actMs: number,
    settled: SettleResult,
  ): Promise<ToolResponse> {
    await this.views.forget(pid);
    this.restless.forget(pid);
    secretFields.forget(pid);
    this.lastFields.delete(pid);
    const appSwitch = await this.handoff(pid, call, settled, undefined);
    return this.publisher.publish(call.tool, {
      view: before,
      did: outcome.didOnExit ?? outcome.did,
      ended: { exited: { app: before.snapshot.app, pid } },
      appSwitch,
      action: {
        route: outcome.route,
        delivery: outcome.delivery,
        effect: 'confirmed',
        actMs,
        settleMs: settled.ms,
        settleReason: settled.reason,
      },
      error: outcome.error,
      notes: [
        `${before.snapshot.app} (pid ${pid}) exited after the action: the tree below is from before it`,
      ],
    });
  }

  /**
   * After an action: a new walk. Change events during the walk mean the app was still
   * changing (a dialog closing a moment later): wait for quiet and walk again, bounded.
   * Without change events, walk until two walks agree.
   */
  private async afterView(pid: number, call: ToolCall, watching: boolean): Promise<SnapshotView> {
    let view = await this.snapshot(pid, call);
    if (watching) {
      for (let i = 0; i < LATE_REWALKS && !this.views.fresh(pid); i++) {
        await waitQuiet(this.views, pid, this.config.settleQuietMs, LATE_QUIET_MAX_MS);
        view = await this.snapshot(pid, call);
      }
      return view;
    }
    for (let i = 0; i < 3; i++) {
      const again = await this.snapshot(pid, call);
      const d = diffSnapshots(view.snapshot, again.snapshot);
      view = again;
      if (isEmpty(d)) break;
    }
    return view;
  }

  /**
   * Another process came to the front because of the action, or one the action started
   * showed a window. An app that was already in front before a background action is not
   * a handoff.
   */
  private async handoff(
    pid: number,
    call: ToolCall,
    settled: SettleResult,
    frontBefore: number | undefined,
  ): Promise<SnapshotView | undefined> {
    const desktop = await this.desktop();
    const front = await desktop.frontmost().catch(() => null);
    let other = front && front.pid !== pid && front.pid !== frontBefore ? front.pid : undefined;
    if (other === undefined && settled.spawned.length > 0) other = settled.spawned[0];
    if (other === undefined) return undefined;
    const apps = await desktop.listApps();
    const app = apps.find((a) => a.pid === other);
    if (!app) return undefined;
    // An app the policy blocks is not shown, not even as a handoff.
    try {
      this.policy.checkApp(app);
    } catch {
      return undefined;
    }
    return this.snapshot(app.pid, call);
  }

  /** Wait until no change event came for `quietMs`, bounded by `timeoutMs`. */
  async waitIdle(
    pid: number,
    call: ToolCall,
    quietMs: number,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ idle: boolean; ms: number; events: number }> {
    const desktop = await this.desktop();
    const watching = (await this.views.watch(desktop, pid)) !== null;
    const start = Date.now();
    const first = this.views.activity(pid).count;
    if (!watching) {
      // No events: idle when two walks a quiet period apart agree.
      let prev = await this.snapshot(pid, call);
      for (;;) {
        await delay(quietMs);
        const next = await this.snapshot(pid, call);
        const d = diffSnapshots(prev.snapshot, next.snapshot);
        const ms = Date.now() - start;
        if (d.added.length + d.removed.length + d.modified.length === 0)
          return { idle: true, ms, events: 0 };
        if (ms >= timeoutMs || signal?.aborted) return { idle: false, ms, events: 0 };
        prev = next;
      }
    }
    for (;;) {
      const now = Date.now();
      const { lastAt, count } = this.views.activity(pid);
      if (now - Math.max(lastAt, start) >= quietMs)
        return { idle: true, ms: now - start, events: count - first };
      if (now - start >= timeoutMs || signal?.aborted)
        return { idle: false, ms: now - start, events: count - first };
      call.notify.progress('waiting for quiet', timeoutMs);
      await delay(Math.min(20, quietMs));
    }
  }

  /**
   * Re-read the app whenever it changes (and at least every 500 ms) until the predicate
   * holds for its view, bounded by `timeoutMs`.
   */
  async waitUntil(
    pid: number,
    call: ToolCall,
    predicate: (view: SnapshotView) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ satisfied: boolean; ms: number }> {
    const desktop = await this.desktop();
    await this.views.watch(desktop, pid);
    const start = Date.now();
    for (;;) {
      const seen = this.views.activity(pid).count;
      const view = await this.lock.run(pid, () => this.snapshot(pid, call));
      if (predicate(view)) return { satisfied: true, ms: Date.now() - start };
      call.notify.progress('waiting: not yet', timeoutMs);
      const readAt = Date.now();
      for (;;) {
        const elapsed = Date.now() - start;
        if (elapsed >= timeoutMs || signal?.aborted) return { satisfied: false, ms: elapsed };
        await delay(20);
        if (this.views.activity(pid).count !== seen || Date.now() - readAt >= 500) break;
      }
    }
  }

  /** Is the accessibility stack reachable; a failure to open the backend is the answer, not an error. */
  async accessReport(): Promise<AccessReport> {
    let desktop: Desktop;
    try {
      desktop = await this.desktop();
    } catch (err) {
      const { message } = describeError(err);
      return {
        ok: false,
        reason: message,
        suggestion:
          'Start axpage inside a desktop session (DISPLAY and DBUS_SESSION_BUS_ADDRESS set, AT-SPI running), or bring one up with `axpage desktop up` and export what it prints',
        details: {},
      };
    }
    const report = adviseAccess(await desktop.checkAccess());
    if (report.ok && this.denied.active && typeof report.details.apps === 'number') {
      // The deny list's apps are no apps to this server: counted apart, never named. Every
      // surface of this report (the tool, the status resource) counts the same apps.
      const listed = await desktop.listApps().catch(() => undefined);
      if (listed === undefined) {
        delete report.details.apps;
      } else {
        const { apps, leftOut } = await this.denied.visibleApps(desktop, listed);
        report.details.apps = apps.length;
        if (leftOut > 0) report.details.left_out = leftOut;
      }
    }
    return report;
  }

  /**
   * For a side effect that does not go through act() (a launch, the clipboard): the
   * artifact dir is still ours, writable, with room for the result, before anything is done.
   */
  readyToAct(): Promise<void> {
    return this.publisher.ready();
  }

  /** A response that is not about one app's tree (access check, app list). */
  report(call: ToolCall, req: ReportRequest): Promise<ToolResponse> {
    return this.publisher.report(call.tool, req);
  }

  /**
   * The last guard before a result goes out: every secret this server knows masked wherever
   * the response seems to echo it (see Publisher.withoutEchoes).
   */
  withoutEchoes(response: ToolResponse): ToolResponse {
    return this.publisher.withoutEchoes(response, this.selections.echoes);
  }

  errorResponse(tool: string, err: unknown): ToolResponse {
    return this.publisher.error(tool, err);
  }

  async close(): Promise<void> {
    await this.lingering.release();
    this.launches.close();
    // The apps run on: their logs too, masked by a relay that knows the secrets known now.
    await this.launchLogs.handOn(this.selections.echoes.added());
    await this.views.close();
    await this.publisher.close();
    if (this.desktopPromise) {
      const desktop = await this.desktopPromise.catch(() => undefined);
      await desktop?.close();
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function isEmpty(d: TreeDiff): boolean {
  return d.added.length + d.removed.length + d.modified.length === 0;
}

/**
 * The top-level window the action's element is in after the action, for the `window:`
 * line; undefined (the default: the scoping dialog, else the active window) when a
 * dialog scopes the view or the element is gone.
 */
function actedWindow(after: SnapshotView, elementId: string | undefined): number | undefined {
  if (after.dialog || elementId === undefined) return undefined;
  const els = after.snapshot.elements;
  let i = els.findIndex((e) => e.id === elementId);
  while (i >= 0 && els[i].parent >= 0) i = els[i].parent;
  // A window the action closed (hidden, not destroyed) is not the one to name.
  return i >= 0 && !els[i].flags.includes('offscreen') ? i : undefined;
}

/**
 * `; the popover it is in stays open` when the element acted on is still showing in a
 * popover or menu after the action (a toggle in a popover menu leaves it up), else ''.
 */
function stillOpen(after: SnapshotView, acted: number): string {
  if (acted < 0 || !after.visible[acted]) return '';
  const popup = popupAround(after.snapshot, acted);
  if (!popup || (popup.kind === 'popover' && !after.visible[popup.index])) return '';
  return `; the ${popup.kind} it is in stays open`;
}

/**
 * The element the action went to in the before view: its target, else the element that
 * had the keyboard focus (where a key press without a target goes). Undefined when neither
 * is known.
 */
function actedIndex(before: SnapshotView, targetId: string | undefined): number | undefined {
  const els = before.snapshot.elements;
  const i =
    targetId !== undefined
      ? els.findIndex((e) => e.id === targetId)
      : els.findIndex((e) => e.flags.includes('focused'));
  return i >= 0 ? i : undefined;
}

/**
 * What the summary says of a popup of the app that opened while the target was held down
 * (a button's menu): where it is, and whether the app's tree shows anything in it.
 */
function popupOpened(view: SnapshotView, popup: Rect | undefined): string {
  if (!popup) return '';
  const where = `(${popup.x},${popup.y} ${popup.w}x${popup.h})`;
  const inside = view.snapshot.elements.some((e, i) => {
    const f = e.frame;
    return (
      view.visible[i] &&
      f !== undefined &&
      f.w > 0 &&
      f.x >= popup.x &&
      f.y >= popup.y &&
      f.x + f.w <= popup.x + popup.w &&
      f.y + f.h <= popup.y + popup.h
    );
  });
  return inside
    ? `; a popup of the app opened at ${where}`
    : `; a popup of the app opened at ${where}: its tree shows none of its items (ax_screenshot does; Down, Return choose, Escape closes)`;
}
