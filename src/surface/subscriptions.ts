/**
 * resources/subscribe, backed by real events only: the app list by the accessibility
 * registry's app add/remove events, an app's tree and windows by that app's change
 * events, the artifact index by files appearing in the artifact dir. Bursts are
 * debounced (debounce.ts); unsubscribing stops the watch, closing the session stops all.
 * Nothing is sent after a tool call unless one of these events says something changed.
 */
import { watch as watchDir } from 'node:fs';
import type { Pipeline } from '../pipeline/pipeline.js';
import { ensurePrivateDir, parseArtifactFile } from '../capture/index.js';
import { Debouncer } from './debounce.js';
import { isReannouncement } from './reannounce.js';
import { decodeSegment } from './candidates.js';
import { invalid, toMcpError } from './errors.js';
import { APPS_URI, ARTIFACTS_URI } from './resources.js';

type Stop = () => Promise<void>;

/** `axpage://app/<name>/tree` or `/windows`: the app's name as the URI spells it. */
const APP_RESOURCE = /^axpage:\/\/app\/([^/]+)\/(tree|windows)$/;

export const SUBSCRIBABLE = `${APPS_URI}, ${ARTIFACTS_URI}, axpage://app/{name}/tree, axpage://app/{name}/windows`;

export class Subscriptions {
  private readonly active = new Map<string, Promise<Stop>>();

  constructor(
    private readonly pipeline: Pipeline,
    private readonly artifactDir: string,
    private readonly updated: (uri: string) => void,
  ) {}

  /** Start watching what `uri` shows (once per URI); fails for a URI that cannot be watched. */
  async subscribe(uri: string): Promise<void> {
    let started = this.active.get(uri);
    if (!started) {
      started = this.start(uri);
      this.active.set(uri, started);
    }
    try {
      await started;
    } catch (err) {
      if (this.active.get(uri) === started) this.active.delete(uri);
      throw toMcpError(err);
    }
  }

  async unsubscribe(uri: string): Promise<void> {
    const started = this.active.get(uri);
    this.active.delete(uri);
    const stop = await started?.catch(() => undefined);
    await stop?.();
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.active.keys()].map((uri) => this.unsubscribe(uri)));
  }

  /** The URIs watched now (for tests and the status of a session). */
  watched(): string[] {
    return [...this.active.keys()];
  }

  private async start(uri: string): Promise<Stop> {
    const debouncer = new Debouncer(() => this.updated(uri));
    const withDebounce =
      (stop: Stop): Stop =>
      async () => {
        debouncer.stop();
        await stop();
      };
    if (uri === APPS_URI) {
      return withDebounce(
        await reopening(async (lost) =>
          (await this.pipeline.desktop()).watchApps((change) => {
            if (change.lost) lost();
            debouncer.poke();
          }),
        ),
      );
    }
    if (uri === ARTIFACTS_URI) {
      // Made here (0700, checked) when no call has written a pair yet.
      await ensurePrivateDir(this.artifactDir);
      return withDebounce(this.watchArtifacts(() => debouncer.poke()));
    }
    const m = APP_RESOURCE.exec(uri);
    if (!m) {
      throw invalid(`cannot subscribe to ${uri}: subscribable resources are ${SUBSCRIBABLE}`);
    }
    const app = await this.pipeline.resolveApp(decodeSegment(m[1]));
    const stop = await reopening(async (lost) =>
      (await this.pipeline.desktop()).watchChanges(app.pid, (change) => {
        if (change.lost) lost();
        else if (isReannouncement(this.pipeline.views.last(app.pid), change)) return;
        debouncer.poke();
      }),
    );
    return withDebounce(stop);
  }

  /** Files of pairs appearing or going (written, pruned) in the artifact dir. */
  private watchArtifacts(onChange: () => void): Stop {
    let watcher: ReturnType<typeof watchDir>;
    try {
      watcher = watchDir(this.artifactDir, { persistent: false }, (_event, name) => {
        if (name && parseArtifactFile(String(name)) !== null) onChange();
      });
    } catch (err) {
      throw invalid(`cannot watch the artifact dir ${this.artifactDir}: ${(err as Error).message}`);
    }
    watcher.on('error', () => undefined);
    return async () => watcher.close();
  }
}

/** Pause before watching again after a lost watch, and how often to try. */
export const REOPEN_DELAY_MS = 1000;
export const REOPEN_TRIES = 5;

/**
 * A watch that is opened again when the connection under it was lost (the accessibility
 * bus restarted): a subscription outlives the connection it started on.
 */
async function reopening(open: (lost: () => void) => Promise<Stop>): Promise<Stop> {
  let current: Stop | undefined;
  let ended = false;
  const lost = (): void => {
    if (ended || current === undefined) return;
    const old = current;
    current = undefined;
    void old().catch(() => undefined);
    const retry = (tries: number): void => {
      setTimeout(() => {
        if (ended) return;
        open(lost).then(
          (stop) => (ended ? void stop() : (current = stop)),
          () => (tries < REOPEN_TRIES ? retry(tries + 1) : undefined),
        );
      }, REOPEN_DELAY_MS).unref?.();
    };
    retry(1);
  };
  current = await open(lost);
  return async () => {
    ended = true;
    await current?.();
  };
}
