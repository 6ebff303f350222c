/**
 * The last stage of every tool call: screenshot → PNG, tree file, summary. The two
 * files share one basename in the artifact directory; the summary points at both.
 * A screenshot failure never loses the tree: the summary says why the PNG is missing.
 */
import type { Config } from '../config.js';
import type { Rect } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import type { TreeDiff } from '../model/diff.js';
import type { Desktop } from '../platform/desktop.js';
import { ArtifactStore, encodePng, resolveArtifactDir } from '../capture/index.js';
import { renderTreeFile } from '../tree/index.js';
import { renderListingFile } from './listing.js';
import { renderSummary, type SummaryInput } from '../summary/index.js';
import { describeError } from '../errors.js';
import { captureRect, secureFrames } from '../viewport/index.js';
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
}

export interface ReportRequest {
  did: string;
  error?: string;
  extra?: Record<string, unknown>;
  /** Lines written to a file (with a full-screen screenshot), for lists that can be long. */
  listing?: { title: string; lines: string[] };
}

export class Publisher {
  private storePromise?: Promise<ArtifactStore>;

  constructor(
    private readonly desktop: () => Promise<Desktop>,
    private readonly config: Config,
  ) {}

  private store(): Promise<ArtifactStore> {
    this.storePromise ??= ArtifactStore.open({ dir: resolveArtifactDir() }).catch(
      (err: unknown) => {
        this.storePromise = undefined;
        throw err;
      },
    );
    return this.storePromise;
  }

  async publish(tool: string, req: PublishRequest): Promise<ToolResponse> {
    const store = await this.store();
    const names = await store.allocate(shortName(tool));
    const images: ToolResponse['images'] = [];
    let screenshot: string | undefined;
    let screenshotError: string | undefined;
    if (!this.config.screenshots) {
      screenshotError = 'screenshots are off (AXPAGE_SCREENSHOTS=0)';
    } else {
      try {
        const desktop = await this.desktop();
        const rect = captureRect(req, await desktop.screenSize());
        const image = await desktop.capture(rect);
        const png = await encodePng(image, {
          origin: { x: rect.x, y: rect.y },
          redact: secureFrames(req.view).concat(req.appSwitch ? secureFrames(req.appSwitch) : []),
        });
        await store.writeBinary(names.pngPath, png);
        screenshot = names.pngPath;
        if (req.includeImage) images.push({ data: png.toString('base64'), mimeType: 'image/png' });
      } catch (err) {
        screenshotError = `capture failed: ${describeError(err).message}`;
      }
    }
    const tree = renderTreeFile({
      tool,
      view: req.view,
      screenshot,
      screenshotError,
      diff: req.diff && req.before ? { diff: req.diff, before: req.before } : undefined,
      appSwitch: req.appSwitch,
      results: req.results,
      action: req.action,
      error: req.error,
      notes: req.notes,
    });
    await store.writeText(names.txtPath, tree);
    await store.prune();
    const input: SummaryInput = {
      status: req.error ? 'error' : 'success',
      tool,
      view: req.view,
      file: names.txtPath,
      fileSize: Buffer.byteLength(tree),
      screenshot,
      screenshotError,
      error: req.error,
      did: req.did,
      diff: req.diff && req.before ? { diff: req.diff, before: req.before } : undefined,
      action: req.action,
      appSwitch: req.appSwitch,
      results: req.results,
    };
    const { text, structured } = renderSummary(input);
    return {
      text,
      structured: { ...structured, ...req.extra },
      isError: Boolean(req.error),
      images: images.length > 0 ? images : undefined,
    };
  }

  async report(tool: string, req: ReportRequest): Promise<ToolResponse> {
    let file: string | undefined;
    let fileSize: number | undefined;
    let screenshot: string | undefined;
    let screenshotError: string | undefined;
    if (req.listing) {
      const store = await this.store();
      const names = await store.allocate(shortName(tool));
      try {
        const desktop = await this.desktop();
        const size = await desktop.screenSize();
        const png = await encodePng(await desktop.capture({ x: 0, y: 0, w: size.w, h: size.h }), {
          origin: { x: 0, y: 0 },
        });
        await store.writeBinary(names.pngPath, png);
        screenshot = names.pngPath;
      } catch (err) {
        screenshotError = `capture failed: ${describeError(err).message}`;
      }
      const text = renderListingFile(tool, req.listing, screenshot, screenshotError);
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
      did: req.did,
    });
    return { text, structured: { ...structured, ...req.extra }, isError: Boolean(req.error) };
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
      structured: {
        ...structured,
        error_code: code,
        ...(details ? { error_details: details } : {}),
      },
      isError: true,
    };
  }
}

export function shortName(tool: string): string {
  return tool.replace(/^ax_/, '');
}
