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
import type { Desktop, RawImage } from '../platform/desktop.js';
import { ArtifactStore, decodePng, encodePng, resolveArtifactDir } from '../capture/index.js';
import { renderTreeFile, windowTitle } from '../tree/index.js';
import { renderListingFile } from './listing.js';
import {
  capStructured,
  elementItem,
  renderSummary,
  selectVisibleElements,
  type Answer,
  type SummaryInput,
  type VisibleItem,
} from '../summary/index.js';
import { ShownMemory, lookOf, type VisibleMode } from './shown.js';
import { describeError } from '../errors.js';
import { captureRect } from '../viewport/index.js';
import { SecureFieldLocator, type Redaction } from './secure.js';
import { toUserError } from './platform-errors.js';
import type { ToolResponse } from './response.js';

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
  private readonly secureFields = new SecureFieldLocator();

  constructor(
    private readonly desktop: () => Promise<Desktop>,
    private readonly config: Config,
    private readonly visibleMode: VisibleMode = config.visible,
  ) {}

  /**
   * The visible-element facts of a summary: the session memory's choice of what to
   * list (recorded as shown), a count for reads that answer with a result, or (with
   * AXPAGE_VISIBLE=full) the 30+10 best on every call.
   */
  private visibleFacts(
    req: PublishRequest,
    file: string,
  ): Pick<SummaryInput, 'visible' | 'unchanged' | 'visibleCount'> {
    const ranked = {
      diff: req.before ? req.diff : undefined,
      prefer: req.results?.indices,
    };
    if (this.visibleMode === 'full') return { visible: selectVisibleElements(req.view, ranked) };
    const all = selectVisibleElements(req.view, {
      ...ranked,
      maxInteractive: Infinity,
      maxText: Infinity,
    }).items;
    const looks = all.map(lookOf);
    const appeared = this.shown.dialogAppeared(req.view);
    const detail = req.detail ?? (appeared && !req.answer ? 'full' : 'auto');
    if (detail === 'full') {
      this.shown.record(all, looks, file, true);
      return { visible: { items: all, omitted: 0 } };
    }
    const part = this.shown.partition(all, looks);
    const unchanged =
      part.unchanged.length > 0 ? { count: part.unchanged.length, since: part.since } : undefined;
    if (req.answer) {
      return part.fresh.length === 0 && unchanged
        ? { unchanged, visible: { items: [], omitted: 0 } }
        : { visibleCount: { total: all.length, unlisted: part.fresh.length } };
    }
    // Fresh items are new or changed by definition: recorded without comparing again.
    this.shown.record(part.fresh, part.freshLooks, file, true);
    return { visible: { items: part.fresh, omitted: 0 }, unchanged };
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
   * Opens the artifact dir (once): an action checks it before it acts, so a dir that is
   * refused never leaves a click done and its result unwritten.
   */
  async ready(): Promise<void> {
    // Every time: the dir may have been swapped for a symlink since it was opened.
    await (await this.store()).checkPath();
  }

  async publish(tool: string, request: PublishRequest): Promise<ToolResponse> {
    const store = await this.store();
    const names = await store.allocate(shortName(tool));
    let rect: Rect | undefined;
    const { screenshot, screenshotError, stale, images, png } = await this.shoot(
      store,
      names.pngPath,
      (screen) => (rect = captureRect(request, screen)),
      [request.view, ...(request.appSwitch ? [request.appSwitch] : [])],
      request.includeImage,
    );
    const shotRect = screenshot ? rect : undefined;
    let decoded: Promise<ShotPixels | undefined> | undefined;
    const added = await request.written?.({
      file: names.txtPath,
      screenshot,
      screenshotError,
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
    const req: PublishRequest = added
      ? {
          ...request,
          did: added.did ?? request.did,
          error: added.error ?? request.error,
          extra: { ...request.extra, ...added.extra },
          answer: added.answer ?? request.answer,
          sections: [...(request.sections ?? []), ...(added.sections ?? [])],
        }
      : request;
    const rendered = renderTreeFile({
      tool,
      view: req.view,
      screenshot,
      screenshotError,
      capture: shotRect,
      diff: req.diff && req.before ? { diff: req.diff, before: req.before } : undefined,
      appSwitch: req.appSwitch,
      results: req.results,
      action: req.action,
      error: req.error,
      notes: stale ? [...(req.notes ?? []), stale.detail] : req.notes,
      windowIndex: req.windowIndex,
      sections: req.sections,
    });
    const tree = added?.appendix ? rendered + added.appendix.join('\n') + '\n' : rendered;
    await store.writeText(names.txtPath, tree);
    await store.prune();
    const basename = path.basename(names.txtPath);
    const input: SummaryInput = {
      ...this.visibleFacts(req, basename),
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
      appSwitch: req.appSwitch,
      results: req.results,
    };
    const { text, structured } = renderSummary(input);
    if (req.appSwitch) this.recordSwitch(req.appSwitch, basename);
    return {
      text,
      // Capped like the text: no field echoes an unbounded argument back.
      structured: capStructured({ ...structured, ...req.extra }),
      isError: Boolean(req.error),
      images: images.length > 0 ? images : undefined,
    };
  }

  async report(tool: string, req: ReportRequest): Promise<ToolResponse> {
    let file: string | undefined;
    let fileSize: number | undefined;
    let screenshot: string | undefined;
    let screenshotError: string | undefined;
    let did = req.did;
    let images: ToolResponse['images'] = [];
    if (req.listing) {
      const store = await this.store();
      const names = await store.allocate(shortName(tool));
      const shot = await this.shoot(
        store,
        names.pngPath,
        (screen) => ({ x: 0, y: 0, w: screen.w, h: screen.h }),
        [],
      );
      ({ screenshot, screenshotError, images } = shot);
      const stale = shot.stale;
      did = withNote(did, stale?.short);
      const listing = stale
        ? { ...req.listing, lines: [`# note: ${stale.detail}`, ...req.listing.lines] }
        : req.listing;
      const text = renderListingFile(tool, listing, screenshot, screenshotError);
      await store.writeText(names.txtPath, text);
      await store.prune();
      file = names.txtPath;
      fileSize = Buffer.byteLength(text);
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
    return {
      text,
      structured: capStructured({ ...structured, ...req.extra }),
      isError: Boolean(req.error),
      images: images.length > 0 ? images : undefined,
    };
  }

  /**
   * Pixels of `rect` with every password field on it filled: the fields of every app with
   * a window there, located now (`views` are the walks in hand, the fallback for their apps).
   */
  /**
   * The screenshot of a call: captured (unless screenshots are off), password fields
   * filled, written beside the tree file, and inline when asked; a failure is a reason,
   * never a lost tree.
   */
  private async shoot(
    store: ArtifactStore,
    pngPath: string,
    region: (screen: { w: number; h: number }) => Rect,
    views: SnapshotView[],
    includeImage = false,
  ): Promise<{
    screenshot?: string;
    screenshotError?: string;
    stale?: Redaction['stale'];
    images: NonNullable<ToolResponse['images']>;
    /** The PNG as written. */
    png?: Buffer;
  }> {
    if (this.config.screenshots === 'off') return { screenshotError: SCREENSHOTS_OFF, images: [] };
    try {
      const desktop = await this.desktop();
      const shot = await this.captureRedacted(desktop, region(await desktop.screenSize()), views);
      await store.writeBinary(pngPath, shot.png);
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
  }

  private async captureRedacted(
    desktop: Desktop,
    rect: Rect,
    views: SnapshotView[],
  ): Promise<{ png: Buffer; stale?: Redaction['stale'] }> {
    const [image, redaction] = await Promise.all([
      desktop.capture(rect),
      this.secureFields.locate(desktop, rect, views),
    ]);
    const png = await encodePng(image, {
      origin: { x: rect.x, y: rect.y },
      redact: redaction.frames,
    });
    return { png, stale: redaction.stale };
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

const SCREENSHOTS_OFF = 'screenshots are off (AXPAGE_SCREENSHOTS=off)';

/** A stale-redaction warning rides on the summary's one line of what was done. */
function withNote(did: string, note: string | undefined): string {
  return note ? `${did} (${note})` : did;
}

export function shortName(tool: string): string {
  return tool.replace(/^ax_/, '');
}
