/**
 * What completions offer, read live: the running apps' names and their window titles
 * (every tool's `app` takes either), and the refs this session handed out for an app.
 * A desktop that cannot be reached offers nothing rather than failing the completion.
 */
import type { Pipeline } from '../pipeline/pipeline.js';
import { completeFrom } from './complete.js';

export async function completeAppNames(pipeline: Pipeline, typed: string): Promise<string[]> {
  try {
    const desktop = await pipeline.desktop();
    const [all, listed] = await Promise.all([
      desktop.listApps(),
      desktop.listWindows().catch(() => []),
    ]);
    // Nothing of an app the deny list names is offered: not its name, not its titles.
    const { apps } = await pipeline.denied.visibleApps(desktop, all);
    const windows = await pipeline.denied.visibleWindows(desktop, listed);
    return completeFrom([...apps.map((a) => a.name), ...windows.map((w) => w.title)], typed);
  } catch {
    return [];
  }
}

/** Refs of the app's last view (this session's), or of every app seen when none is named. */
export async function completeRefs(
  pipeline: Pipeline,
  typed: string,
  app: string | undefined,
): Promise<string[]> {
  try {
    const desktop = await pipeline.desktop();
    const pids = app
      ? [(await pipeline.resolveApp(decodeSegment(app))).pid]
      : (await pipeline.denied.visibleApps(desktop, await desktop.listApps())).apps.map(
          (a) => a.pid,
        );
    const refs = pids.flatMap((pid) => pipeline.views.last(pid)?.refs ?? []);
    return completeFrom(refs, typed);
  } catch {
    return [];
  }
}

/** A URI template variable as the client sent it (percent-encoded when it has spaces). */
export function decodeSegment(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
