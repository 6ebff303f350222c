/**
 * The last stage of every tool call: screenshot → PNG, tree file, summary. The two
 * files share one basename in the artifact directory; the summary points at both.
 * A screenshot failure never loses the tree: the summary says why the PNG is missing.
 */
import path from 'node:path';
import type { Config } from '../config.js';
import type { Rect } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import type { TreeDiff } from '../model/diff.js';
import type { Desktop, DesktopWindow, RawImage } from '../platform/desktop.js';
import {
  ArtifactError,
  ArtifactStore,
  pairWriteFailure,
  unwrittenNote,
  type ArtifactNames,
  decodePng,
  encodePng,
  BandedPng,
  resolveArtifactDir,
  sameRedaction,
} from '../capture/index.js';
import { renderTreeBody, renderTreeFile, windowTitle } from '../tree/index.js';
import { renderListingFile } from './listing.js';
import {
  capStructured,
  elementItem,
  renderSummary,
  selectVisibleElements,
  type Answer,
  type Ended,
  type SummaryInput,
  type VisibleItem,
} from '../summary/index.js';
import { ShownMemory, lookOf, type VisibleMode } from './shown.js';
import { describeError, type AxError } from '../errors.js';
import { captureRect, secureFrames } from '../viewport/index.js';
import { SecureFieldLocator, type Redaction, type WalkedFields } from './secure.js';
import { toUserError } from './platform-errors.js';
import { maskedFiles, withoutEchoes, type ToolResponse } from './response.js';
import type { SecretEchoes } from './secrets.js';
import { StageTimes } from './timing.js';

export interface ActionReport {
  route: string;
  delivery: 'background' | 'foreground';
  effect: 'confirmed' | 'unverifiable' | 'suspected_noop';
  escalation?: { recommended: 'px' | 'foreground'; reason: string };
  actMs: number;
  settleMs: number;
  settleReason: string;
}

export interface PublishRequest {
  view: SnapshotView;
  /** One line: what was done. Counts are appended by the summary. */
  did: string;
  before?: SnapshotView;
  diff?: TreeDiff;
  appSwitch?: SnapshotView;
  action?: ActionReport;
  /** The app exited or windows closed during the action (said first in the summary). */
  ended?: Ended;
  /** The element the action was on, as an index into `view` (state changes are said of it). */
  acted?: number;
  /** A failure after the snapshot (e.g. a later step of a composed action). */
  error?: string;
  extra?: Record<string, unknown>;
  results?: { title: string; indices: number[] };
  capture?: { rect?: Rect; windowIndex?: number };
  includeImage?: boolean;
  /** Extra `# note:` lines for the tree file header (what was left out and why). */
  notes?: string[];
  /**
   * "auto" (default): visible_elements lists only what this session has not shown yet
   * or what changed since; "full": all of them (capped), as on a first look.
   */
  detail?: Detail;
  /** A read tool's result: rendered instead of the visible list (reduced to a count). */
  answer?: AnswerRequest;
  /**
   * The window the call is about (element index of a top-level in `view`), for the
   * `window:` line and the file header; default: the scoping dialog, else the active window.
   */
  windowIndex?: number;
  /** Result sections for the tree file (before the tree). */
  sections?: Array<{ title: string; lines: string[] }>;
  /**
   * Work on the pair once its screenshot is written (a diff or a marked copy beside it,
   * an audit of its pixels), before the tree file and the summary: what it returns joins
   * the result.
   */
  written?: (pair: WrittenPair) => Promise<WrittenResult>;
  /** Where this call's time goes (the bench reads it); a fresh one when not given. */
  times?: StageTimes;
  /** A screenshot taken when the walk started (see Publisher.shootEarly): used when it still fits. */
  early?: EarlyShot;
  /**
   * The password fields of `view`'s app as this call's complete walk of it found them (see
   * fieldsOfWalk): they stand for a fresh lookup of that app, so only the other apps in
   * the captured region are looked up. Undefined: every app is looked up.
   */
  walkedNow?: WalkedFields;
  /** The screen size as this call read it after its walk (asked again when not given). */
  screen?: { w: number; h: number };
  /** The pair's names, claimed while the walk ran (see Publisher.claim); else claimed here. */
  names?: Promise<ArtifactNames>;
}

/**
 * A screenshot started before the walk, of the region the app's last screenshot showed:
 * it overlaps the walk, and is used only when the walk (complete) puts the region at the
 * same rect and the app's password fields where they were. The other apps' fields in the
 * region are looked up while the walk runs; the app's own are not (its walk reads them).
 */
export interface EarlyShot {
  pid: number;
  rect: Rect;
  /** The app's password fields as known when the shot was taken (its last walk): filled in it. */
  secure: Rect[];
  shooting: { taken: (pngPath: string) => Promise<Shot> };
}

/** A written screenshot as pixels, and the screen point of its top-left pixel. */
export interface ShotPixels {
  image: RawImage;
  origin: { x: number; y: number };
}

/** The pair a call is writing: its screenshot is on disk, its tree file comes next. */
export interface WrittenPair {
  file: string;
  screenshot?: string;
  /** Why there is no screenshot. */
  screenshotError?: string;
  /** The screen rect (points) the screenshot shows. */
  rect?: Rect;
  /**
   * The written PNG decoded: exactly the pixels on disk, password fields filled over.
   * Undefined when there is no screenshot or it does not decode (that leaves the work
   * without pixels, not the call without a result). Decoded once, on first ask.
   */
  pixels(): Promise<ShotPixels | undefined>;
}

/** What work on a written pair adds to the call's result. */
export interface WrittenResult {
  did?: string;
  error?: string;
  extra?: Record<string, unknown>;
  answer?: AnswerRequest;
  /** Result sections for the tree file, before the tree. */
  sections?: Array<{ title: string; lines: string[] }>;
  /** Lines appended to the tree file, after the tree. */
  appendix?: string[];
}

/**
 * A read's result as a tool gives it: a value, text lines, or elements of the view by
 * index (find's matches), with how many more the file lists.
 */
export interface AnswerRequest {
  key: string;
  value?: string;
  lines?: string[];
  indices?: number[];
  omitted?: number;
}

function answerOf(view: SnapshotView, req: AnswerRequest | undefined): Answer | undefined {
  if (!req) return undefined;
  const { indices, ...rest } = req;
  if (!indices) return rest;
  return {
    ...rest,
    elements: indices
      .map((i) => elementItem(view, i))
      .filter((i): i is VisibleItem => i !== undefined),
  };
}

export type Detail = 'auto' | 'full';

export interface ReportRequest {
  did: string;
  error?: string;
  extra?: Record<string, unknown>;
  /** Lines written to a file (with a full-screen screenshot), for lists that can be long. */
  listing?: { title: string; lines: string[] };
  /** A result as text lines (a workflow's steps, a diff of two pairs), rendered like a read's answer. */
  answer?: Omit<AnswerRequest, 'indices'>;
}

export class Publisher {
  private storePromise?: Promise<ArtifactStore>;
  /** What this server session has shown the agent (see shown.ts). */
  readonly shown = new ShownMemory();
  /** Where the password fields on screen are, at each capture. */
  private readonly secureFields: SecureFieldLocator;
  /**
   * The last screenshot of each region shot lately, by bands of rows: rows read again
   * unchanged are not encoded again, also when calls go back and forth between apps.
   */
  private readonly frames = new Map<string, BandedPng>();
  /** pid → the rect of its last screenshot of the default region, for shootEarly. */
  private readonly lastRegion = new Map<number, Rect>();

  constructor(
    private readonly desktop: () => Promise<Desktop>,
    private readonly config: Config,
    private readonly visibleMode: VisibleMode = config.visible,
    /** Screen rects no capture may show (the windows of apps the deny list names). */
    private readonly hidden: (desktop: Desktop) => Promise<Rect[]> = async () => [],
    /**
     * Every text written to a tree file with the secrets this server knows masked, line by
     * line: a header line may quote the agent's own query or an error naming one.
     */
    private readonly scrub: (text: string) => string = (text) => text,
  ) {
    this.secureFields = new SecureFieldLocator(config.policy.mode === 'safe');
  }

  /**
   * The visible-element facts of a summary: the session memory's choice of what to
   * list, a count for reads that answer with a result, or (with AXPAGE_VISIBLE=full) the
   * 30+10 best on every call. Nothing is noted as shown until `commit` (once the tree
   * file they point at is written).
   */
  private visibleFacts(
    req: PublishRequest,
    file: string,
  ): {
    facts: Pick<SummaryInput, 'visible' | 'unchanged' | 'visibleCount'>;
    commit: () => void;
  } {
    const ranked = {
      diff: req.before ? req.diff : undefined,
      prefer: req.results?.indices,
    };
    if (this.visibleMode === 'full') {
      return { facts: { visible: selectVisibleElements(req.view, ranked) }, commit: () => {} };
    }
    const all = selectVisibleElements(req.view, {
      ...ranked,
      maxInteractive: Infinity,
      maxText: Infinity,
    }).items;
    const looks = all.map(lookOf);
    const appeared = this.shown.dialogWouldAppear(req.view);
    const noteDialog = (): boolean => this.shown.dialogAppeared(req.view);
    const detail = req.detail ?? (appeared && !req.answer ? 'full' : 'auto');
    if (detail === 'full') {
      return {
        facts: { visible: { items: all, omitted: 0 } },
        commit: () => {
          noteDialog();
          this.shown.record(all, looks, file, true);
        },
      };
    }
    const part = this.shown.partition(all, looks);
    const unchanged =
      part.unchanged.length > 0 ? { count: part.unchanged.length, since: part.since } : undefined;
    if (req.answer) {
      return {
        facts:
          part.fresh.length === 0 && unchanged
            ? { unchanged, visible: { items: [], omitted: 0 } }
            : { visibleCount: { total: all.length, unlisted: part.fresh.length } },
        commit: noteDialog,
      };
    }
    return {
      facts: { visible: { items: part.fresh, omitted: 0 }, unchanged },
      commit: () => {
        noteDialog();
        // Fresh items are new or changed by definition: recorded without comparing again.
        this.shown.record(part.fresh, part.freshLooks, file, true);
      },
    };
  }

  /**
   * A handoff lists the other app's visible elements in full (app_switch lines): they
   * count as shown, so the next call on that app lists only what changed.
   */
  private recordSwitch(view: SnapshotView, file: string): void {
    if (this.visibleMode === 'full') return;
    const all = selectVisibleElements(view, { maxInteractive: Infinity, maxText: Infinity }).items;
    this.shown.record(all, all.map(lookOf), file, true);
    this.shown.dialogAppeared(view);
  }

  private store(): Promise<ArtifactStore> {
    this.storePromise ??= ArtifactStore.open({
      dir: resolveArtifactDir({ ...process.env, AXPAGE_OUT: this.config.outDir }),
      ...this.config.retention,
    }).catch((err: unknown) => {
      this.storePromise = undefined;
      throw err;
    });
    return this.storePromise;
  }

  /**
   * Claims the names of a call's pair ahead of publish (which takes them as `names`), so the
   * claim's file system round trips overlap the walk. A call that fails before publish
   * gives them back with `release`.
   */
  claim(tool: string): Promise<ArtifactNames> {
    return this.store().then((store) => store.allocate(shortName(tool)));
  }

  /** Gives back names `claim` took for a call that ended before anything was written. */
  async release(names: Promise<ArtifactNames>): Promise<void> {
    const [store, claimed] = await Promise.all([this.store(), names]);
    await store.release(claimed);
  }

  /**
   * Opens the artifact dir (once): an action checks it before it acts, so a dir that is
   * refused never leaves a click done and its result unwritten.
   */
  async ready(): Promise<void> {
    const store = await this.store();
    // Every time: the dir may have been swapped for a symlink since it was opened, or
    // filled up, or made read-only.
    await store.checkPath();
    await store.checkRoom();
  }

  /**
   * Screenshot, tree file, summary. The screenshot is captured when the walk in hand has
   * ended (nothing else comes first) and is encoded and written while the tree file is
   * rendered; the summary is rendered while the tree file is written.
   */
  async publish(tool: string, request: PublishRequest): Promise<ToolResponse> {
    try {
      return await this.publishPair(tool, request);
    } catch (err) {
      if (!(err instanceof ArtifactError) || err.code !== 'io') throw err;
      const why = pairWriteFailure(err, (await this.store()).dir);
      // A read with no pair is a clear error; an action was done: its result says so.
      if (!request.action) throw why;
      return this.unwritten(tool, request, why);
    }
  }

  /**
   * The result of an action whose pair could not be written (the disk filled up while it
   * ran): what was done and its effect, not an error, with why there are no files.
   */
  private unwritten(tool: string, req: PublishRequest, why: AxError): ToolResponse {
    const { text, structured } = renderSummary({
      status: req.error ? 'error' : 'success',
      tool,
      view: req.view,
      window: windowTitle(req.view, req.windowIndex),
      did: withNote(req.did, `done; ${unwrittenNote(why)}`),
      diff: req.diff && req.before ? { diff: req.diff, before: req.before } : undefined,
      action: req.action,
      ended: req.ended,
      acted: req.acted,
      appSwitch: req.appSwitch,
      error: req.error,
      screenshotError: `not written: ${why.actionable}`,
    });
    return {
      text,
      structured: capStructured({
        ...structured,
        ...req.extra,
        pair_error: why.actionable,
        pair_error_code: why.code,
      }),
      isError: Boolean(req.error),
    };
  }

  private async publishPair(tool: string, request: PublishRequest): Promise<ToolResponse> {
    const times = request.times ?? new StageTimes();
    const store = await this.store();
    const at = await this.shotTarget((screen) => captureRect(request, screen), request.screen);
    const rect = at && 'rect' in at ? at.rect : undefined;
    const defaultRegion = !request.capture && !request.appSwitch;
    if (rect && defaultRegion) this.noteRegion(request.view.snapshot.pid, rect);
    const early = request.early && rect && this.earlyFits(request.early, request, rect);
    const shooting = early
      ? request.early!.shooting
      : this.shoot(
          at,
          store,
          [request.view, ...(request.appSwitch ? [request.appSwitch] : [])],
          request.includeImage,
          times,
          request.walkedNow,
        );
    const names = await times.timeAsync('allocate', () => request.names ?? this.claim(tool));
    try {
      return await this.writePair(tool, request, { store, names, times, rect, early, shooting });
    } catch (err) {
      // Nothing of a pair that failed stays: neither the claimed tree file nor its PNG.
      if (err instanceof ArtifactError && err.code === 'io') await store.discard(names);
      else await store.release(names).catch(() => undefined);
      throw err;
    }
  }

  private async writePair(
    tool: string,
    request: PublishRequest,
    at: {
      store: ArtifactStore;
      names: ArtifactNames;
      times: StageTimes;
      rect: Rect | undefined;
      early: boolean | undefined;
      shooting: { taken: (pngPath: string) => Promise<Shot> };
    },
  ): Promise<ToolResponse> {
    const { store, names, times, rect, early, shooting } = at;
    const req: PublishRequest & { appendix?: string[] } = request.written
      ? await this.applyWritten(request, names.txtPath, await shooting.taken(names.pngPath), rect)
      : request;
    const body = times.time('serialize', () =>
      renderTreeBody({
        view: req.view,
        diff: req.diff && req.before ? { diff: req.diff, before: req.before } : undefined,
        appSwitch: req.appSwitch,
        results: req.results,
        sections: req.sections,
      }),
    );
    const shot = await times.timeAsync('await_png', () => shooting.taken(names.pngPath));
    const { screenshot, screenshotError, stale, images } = shot;
    const rendered = times.time('serialize', () =>
      renderTreeFile(
        {
          tool,
          view: req.view,
          screenshot,
          screenshotError,
          shotTakenAt: screenshot ? (early ? 'walk start' : 'walk end') : undefined,
          capture: screenshot ? rect : undefined,
          action: req.action,
          error: req.error,
          notes: stale ? [...(req.notes ?? []), stale.detail] : req.notes,
          windowIndex: req.windowIndex,
        },
        body,
      ),
    );
    const tree = this.scrub(req.appendix ? rendered + req.appendix.join('\n') + '\n' : rendered);
    const writing = times.timeAsync('write_txt', async () => {
      await store.writeText(names.txtPath, tree);
      await store.prune();
    });
    // A failed write must not leave its items noted as shown: settled before the summary.
    writing.catch(() => undefined);
    const basename = path.basename(names.txtPath);
    const summaryStart = performance.now();
    const visible = this.visibleFacts(req, basename);
    const input: SummaryInput = {
      ...visible.facts,
      answer: answerOf(req.view, req.answer),
      window: windowTitle(req.view, req.windowIndex),
      status: req.error ? 'error' : 'success',
      tool,
      view: req.view,
      file: names.txtPath,
      fileSize: Buffer.byteLength(tree),
      screenshot,
      screenshotError,
      error: req.error,
      did: withNote(req.did, stale?.short),
      diff: req.diff && req.before ? { diff: req.diff, before: req.before } : undefined,
      action: req.action,
      ended: req.ended,
      acted: req.acted,
      appSwitch: req.appSwitch,
      results: req.results,
    };
    const { text, structured } = renderSummary(input);
    times.add('summary', performance.now() - summaryStart);
    await writing;
    visible.commit();
    if (req.appSwitch) this.recordSwitch(req.appSwitch, basename);
    return {
      text,
      // Capped like the text: no field echoes an unbounded argument back.
      structured: capStructured({ ...structured, ...req.extra }),
      isError: Boolean(req.error),
      images: images.length > 0 ? images : undefined,
    };
  }

  /** A tool's work on the written pair (see PublishRequest.written), merged into its request. */
  private async applyWritten(
    request: PublishRequest,
    file: string,
    shot: Shot,
    rect: Rect | undefined,
  ): Promise<PublishRequest & { appendix?: string[] }> {
    const shotRect = shot.screenshot ? rect : undefined;
    let decoded: Promise<ShotPixels | undefined> | undefined;
    const { png } = shot;
    const added = await request.written!({
      file,
      screenshot: shot.screenshot,
      screenshotError: shot.screenshotError,
      rect: shotRect,
      pixels: () =>
        (decoded ??=
          png && shotRect
            ? decodePng(png).then(
                (image) => ({ image, origin: { x: shotRect.x, y: shotRect.y } }),
                () => undefined,
              )
            : Promise.resolve(undefined)),
    });
    return {
      ...request,
      did: added.did ?? request.did,
      error: added.error ?? request.error,
      extra: { ...request.extra, ...added.extra },
      answer: added.answer ?? request.answer,
      sections: [...(request.sections ?? []), ...(added.sections ?? [])],
      appendix: added.appendix,
    };
  }

  async report(tool: string, req: ReportRequest): Promise<ToolResponse> {
    let file: string | undefined;
    let fileSize: number | undefined;
    let screenshot: string | undefined;
    let screenshotError: string | undefined;
    let did = req.did;
    let images: ToolResponse['images'] = [];
    let pairError: AxError | undefined;
    if (req.listing) {
      const store = await this.store();
      let names: ArtifactNames | undefined;
      try {
        names = await store.allocate(shortName(tool));
        const shot = await this.shoot(
          await this.shotTarget((screen) => ({ x: 0, y: 0, w: screen.w, h: screen.h })),
          store,
          [],
        ).taken(names.pngPath);
        ({ screenshot, screenshotError, images } = shot);
        const stale = shot.stale;
        did = withNote(did, stale?.short);
        const listing = stale
          ? { ...req.listing, lines: [`# note: ${stale.detail}`, ...req.listing.lines] }
          : req.listing;
        const text = this.scrub(renderListingFile(tool, listing, screenshot, screenshotError));
        await store.writeText(names.txtPath, text);
        await store.prune();
        file = names.txtPath;
        fileSize = Buffer.byteLength(text);
      } catch (err) {
        if (!(err instanceof ArtifactError) || err.code !== 'io') throw err;
        // What the report says is in its summary too (a workflow's steps were done): not
        // an error, and no half pair left.
        if (names) await store.discard(names);
        pairError = pairWriteFailure(err, store.dir);
        did = withNote(did, unwrittenNote(pairError));
        screenshot = undefined;
        screenshotError = `not written: ${pairError.actionable}`;
        images = [];
      }
    }
    const { text, structured } = renderSummary({
      status: req.error ? 'error' : 'success',
      tool,
      file,
      fileSize,
      screenshot,
      screenshotError,
      error: req.error,
      did,
      answer: req.answer,
    });
    const unwritten = pairError
      ? { pair_error: pairError.actionable, pair_error_code: pairError.code }
      : {};
    return {
      text,
      structured: capStructured({ ...structured, ...req.extra, ...unwritten }),
      isError: Boolean(req.error),
      images: images.length > 0 ? images : undefined,
    };
  }

  /**
   * Starts the screenshot of an app's next observation now, before its walk, at the rect
   * its last screenshot of the default region had: the capture (on a worker thread), the
   * other apps' password-field lookup and the encode then overlap the walk. The app's own
   * fields are filled where its last walk found them; publish uses the shot only if this
   * walk finds them there too. Undefined when there is no such rect yet (the first call on
   * an app) or screenshots are off.
   */
  async shootEarly(
    last: SnapshotView | undefined,
    times?: StageTimes,
  ): Promise<EarlyShot | undefined> {
    if (!last) return undefined;
    const pid = last.snapshot.pid;
    const rect = this.lastRegion.get(pid);
    if (!rect || this.config.screenshots === 'off') return undefined;
    // No screen size asked: the rect was on screen last time and the capture clips it.
    let desktop: Desktop;
    try {
      desktop = await this.desktop();
    } catch {
      return undefined;
    }
    const store = await this.store();
    const secure = secureFrames(last);
    return {
      pid,
      rect,
      secure,
      shooting: this.shoot({ desktop, rect }, store, [last], false, times, {
        pid,
        frames: secure,
      }),
    };
  }

  /**
   * An early shot stands for this call's when it shows the same rect, is not inline, and
   * this call's complete walk found the app's password fields where the shot filled them.
   */
  private earlyFits(early: EarlyShot, req: PublishRequest, rect: Rect): boolean {
    const walked = req.walkedNow;
    const same =
      walked !== undefined &&
      walked.pid === early.pid &&
      early.pid === req.view.snapshot.pid &&
      !req.capture &&
      !req.appSwitch &&
      !req.includeImage &&
      this.config.screenshots !== 'inline' &&
      rect.x === early.rect.x &&
      rect.y === early.rect.y &&
      rect.w === early.rect.w &&
      rect.h === early.rect.h;
    const image = { width: rect.w, height: rect.h };
    const origin = { x: rect.x, y: rect.y };
    return same && sameRedaction(image, origin, early.secure, walked.frames);
  }

  /** The last frame shot of `rect`; the oldest region beyond a few drops out. */
  private framesOf(rect: Rect): BandedPng {
    const key = `${rect.x},${rect.y},${rect.w},${rect.h}`;
    return keepRecent(this.frames, key, this.frames.get(key) ?? new BandedPng(), MAX_FRAMES);
  }

  /** Remembers an app's region; apps that exited drop out after a while. */
  private noteRegion(pid: number, rect: Rect): void {
    keepRecent(this.lastRegion, pid, rect, MAX_REGIONS);
  }

  /** Where a screenshot is taken: the desktop and the screen rect, or why not. */
  private async shotTarget(
    region: (screen: { w: number; h: number }) => Rect,
    screen?: { w: number; h: number },
  ): Promise<ShotTarget | undefined> {
    if (this.config.screenshots === 'off') return undefined;
    try {
      const desktop = await this.desktop();
      return { desktop, rect: region(screen ?? (await desktop.screenSize())) };
    } catch (error) {
      return { error };
    }
  }

  /**
   * The screenshot of a call (undefined `at`: screenshots are off): captured now, password
   * fields filled, encoded in the background; `taken` writes it beside the tree file (once)
   * and inline when asked. A failure is a reason, never a lost tree.
   */
  private shoot(
    at: ShotTarget | undefined,
    store: ArtifactStore,
    views: SnapshotView[],
    includeImage = false,
    times = new StageTimes(),
    walkedNow?: WalkedFields,
  ): { taken: (pngPath: string) => Promise<Shot> } {
    if (!at) {
      const off = Promise.resolve<Shot>({ screenshotError: SCREENSHOTS_OFF, images: [] });
      return { taken: () => off };
    }
    const encoded =
      'error' in at
        ? Promise.reject(at.error)
        : this.captureRedacted(at.desktop, at.rect, views, times, walkedNow);
    // Handled when taken; a call that fails before then leaves it unread.
    encoded.catch(() => undefined);
    let written: Promise<Shot> | undefined;
    const write = async (pngPath: string): Promise<Shot> => {
      try {
        const shot = await encoded;
        await times.timeAsync('write_png', () => store.writeBinary(pngPath, shot.png));
        const inline = includeImage || this.config.screenshots === 'inline';
        return {
          screenshot: pngPath,
          stale: shot.stale,
          images: inline ? [{ data: shot.png.toString('base64'), mimeType: 'image/png' }] : [],
          png: shot.png,
        };
      } catch (err) {
        return { screenshotError: `capture failed: ${describeError(err).message}`, images: [] };
      }
    };
    return { taken: (pngPath) => (written ??= write(pngPath)) };
  }

  /**
   * Pixels of `rect` with every password field on it filled: the fields of every app with
   * a window there, located now (`views` are the walks in hand, the fallback for their
   * apps; `walkedNow` the fields of the app just walked, which stand for its lookup). The
   * pixels are read first, at once; the PNG is encoded while the fields are located, with
   * the fields the walks in hand found, and kept when the fresh lookup fills the very same
   * pixels (the usual case, no password field at all); else encoded again. Nothing is
   * written before the lookup has answered.
   */
  private async captureRedacted(
    desktop: Desktop,
    rect: Rect,
    views: SnapshotView[],
    times: StageTimes,
    walkedNow?: WalkedFields,
  ): Promise<{ png: Buffer; stale?: Redaction['stale'] }> {
    // The windows right before and right after the pixels: where each was when they were
    // read, to pin the password fields found later to (see pinFields).
    const listed = async (): Promise<DesktopWindow[] | undefined> => {
      try {
        return await desktop.listWindows();
      } catch {
        return undefined;
      }
    };
    // Where the fields located last are, right before the pixels (see framesBefore).
    const [before, earlier] = await times.timeAsync('redact_scan', () =>
      Promise.all([listed(), this.secureFields.framesBefore(desktop)]),
    );
    const image = await times.timeAsync('capture', () => desktop.capture(rect));
    const after = await times.timeAsync('redact_scan', listed);
    const around = before && after ? { before, after } : undefined;
    // A denied app's windows are filled whole; a listing that fails hides the whole region.
    // Listed after the pixels are read, like the password fields (where they are now), and
    // before the first encode, which then fills them already (a few ms, one encode saved).
    const denied = await times.timeAsync('redact_scan', () =>
      this.hidden(desktop).catch(() => [rect]),
    );
    const origin = { x: rect.x, y: rect.y };
    const bands = this.framesOf(rect);
    const walked = [
      ...(walkedNow?.frames ?? []),
      ...views.filter((v) => v.snapshot.pid !== walkedNow?.pid).flatMap((v) => secureFrames(v)),
      ...denied,
    ];
    const early = times.timeAsync('encode', () =>
      encodePng(image, { origin, redact: walked, reuse: bands, fixedPixels: true }),
    );
    early.catch(() => undefined);
    // After the pixels are read, never before: the order this redaction has always had.
    const located = await times.timeAsync('redact_scan', () =>
      this.secureFields.locate(desktop, rect, views, walkedNow, around, earlier),
    );
    const redaction = { ...located, frames: [...located.frames, ...denied] };
    if (sameRedaction(image, origin, walked, redaction.frames)) {
      return { png: await early, stale: redaction.stale };
    }
    await early.catch(() => undefined);
    const png = await times.timeAsync('encode', () =>
      encodePng(image, {
        origin,
        redact: redaction.frames,
        reuse: bands,
        fixedPixels: true,
      }),
    );
    return { png, stale: redaction.stale };
  }

  /**
   * The response with every secret `echoes` knows masked wherever it seems echoed (see
   * withoutEchoes); the elements a summary so masked listed count as not shown.
   */
  withoutEchoes(response: ToolResponse, echoes: SecretEchoes): ToolResponse {
    const masked = withoutEchoes(response, echoes);
    for (const file of maskedFiles(response, masked)) this.shown.forget(path.basename(file));
    return masked;
  }

  /** Releases the artifact dir's descriptor (opened again on the next call). */
  async close(): Promise<void> {
    const store = this.storePromise;
    this.storePromise = undefined;
    await (await store?.catch(() => undefined))?.close();
  }

  error(tool: string, err: unknown): ToolResponse {
    const { message, code, details } = describeError(toUserError(err));
    const escalation = details?.escalation as { recommended: string; reason: string } | undefined;
    const { text, structured } = renderSummary({
      status: 'error',
      tool,
      error: message,
      did: `${tool} failed`,
      escalation,
    });
    return {
      text,
      structured: capStructured({
        ...structured,
        error_code: code,
        ...(details ? { error_details: details } : {}),
      }),
      isError: true,
    };
  }
}

/** A screenshot's place, or why it cannot be taken. */
type ShotTarget = { desktop: Desktop; rect: Rect } | { error: unknown };

/** A call's screenshot as written (or why not). */
export interface Shot {
  screenshot?: string;
  screenshotError?: string;
  stale?: Redaction['stale'];
  images: NonNullable<ToolResponse['images']>;
  /** The PNG as written. */
  png?: Buffer;
}

/**
 * Regions whose last frame is kept for the next shot of them: the apps an agent goes
 * between. Each keeps its pixels (3 MB for a 1366x741 window) and its PNG.
 */
const MAX_FRAMES = 4;

/** Apps whose last screenshot region is remembered (for shootEarly). */
const MAX_REGIONS = 256;

const SCREENSHOTS_OFF = 'screenshots are off (AXPAGE_SCREENSHOTS=off)';

/** Sets `key` to `value` as the most recent entry of `map`; the oldest go past `max`. */
function keepRecent<K, V>(map: Map<K, V>, key: K, value: V, max: number): V {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
  return value;
}

/** A stale-redaction warning rides on the summary's one line of what was done. */
function withNote(did: string, note: string | undefined): string {
  return note ? `${did} (${note})` : did;
}

export function shortName(tool: string): string {
  return tool.replace(/^ax_/, '');
}
