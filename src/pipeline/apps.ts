/**
 * Turns the `app` argument every tool accepts (an app name, an alias from ax_connect,
 * a pid, or a window title) into one running app. Connecting first is never required.
 */
import type { AppInfo, Desktop, DesktopWindow } from '../platform/desktop.js';
import { AxError } from '../errors.js';

export interface ResolvedApp extends AppInfo {
  /** How the argument matched: pid, alias, name, name-contains, window-title, frontmost. */
  matchedBy: string;
}

export class AppDirectory {
  private readonly aliases = new Map<string, number>();

  setAlias(alias: string, pid: number): void {
    this.aliases.set(alias.toLowerCase(), pid);
  }

  aliasOf(pid: number): string | undefined {
    for (const [alias, p] of this.aliases) if (p === pid) return alias;
    return undefined;
  }

  async resolve(desktop: Desktop, app: string | number | undefined): Promise<ResolvedApp> {
    const apps = await desktop.listApps();
    if (app === undefined || (typeof app === 'string' && app.trim() === '')) {
      const front = await desktop.frontmost();
      const hit = front && apps.find((a) => a.pid === front.pid);
      if (hit) return { ...hit, matchedBy: 'frontmost' };
      throw new AxError(
        'bad_argument',
        'no app given and no app is frontmost',
        `Pass app (a name, pid or alias). Running: ${listNames(apps)}`,
      );
    }
    const text = String(app).trim();
    if (/^[0-9]+$/.test(text)) {
      const pid = Number(text);
      const hit = apps.find((a) => a.pid === pid);
      if (hit) return { ...hit, matchedBy: 'pid' };
      throw new AxError(
        'app_not_found',
        `no accessible app has pid ${pid}`,
        `It may have exited or not expose accessibility. Running: ${listNames(apps)}`,
        { apps: apps.map(brief) },
      );
    }
    const aliased = this.aliases.get(text.toLowerCase());
    if (aliased !== undefined) {
      const hit = apps.find((a) => a.pid === aliased);
      if (hit) return { ...hit, matchedBy: 'alias' };
      throw new AxError(
        'app_not_found',
        `alias '${text}' pointed at pid ${aliased}, which is no longer running`,
        'Connect again with ax_connect',
      );
    }
    const lower = text.toLowerCase();
    const exact = apps.filter((a) => a.name.toLowerCase() === lower);
    if (exact.length === 1) return { ...exact[0], matchedBy: 'name' };
    if (exact.length > 1) throw ambiguous(text, exact);
    const windows = await desktop.listWindows();
    const byTitle = uniquePids(windows.filter((w) => w.title.toLowerCase() === lower));
    if (byTitle.length === 1) return withMatch(apps, byTitle[0], 'window-title', text);
    const contains = apps.filter((a) => a.name.toLowerCase().includes(lower));
    if (contains.length === 1) return { ...contains[0], matchedBy: 'name-contains' };
    if (contains.length > 1) throw ambiguous(text, contains);
    const titleContains = uniquePids(windows.filter((w) => w.title.toLowerCase().includes(lower)));
    if (titleContains.length > 0) {
      // Windows of apps off the accessibility bus are no candidates: one reachable app
      // is the answer. With none, withMatch says why the window cannot be used.
      const reachable = titleContains.filter((pid) => apps.some((a) => a.pid === pid));
      if (reachable.length > 1) {
        throw ambiguous(
          text,
          apps.filter((a) => reachable.includes(a.pid)),
        );
      }
      return withMatch(apps, reachable[0] ?? titleContains[0], 'window-title', text);
    }
    throw new AxError(
      'app_not_found',
      `no running app matches '${text}' by name, alias or window title`,
      `Running: ${listNames(apps)}. Call ax_list_apps for pids`,
      { apps: apps.map(brief) },
    );
  }
}

function uniquePids(windows: DesktopWindow[]): number[] {
  return [...new Set(windows.map((w) => w.pid))];
}

function withMatch(apps: AppInfo[], pid: number, how: string, text: string): ResolvedApp {
  const hit = apps.find((a) => a.pid === pid);
  if (!hit) {
    throw new AxError(
      'app_not_found',
      `the window '${text}' belongs to pid ${pid}, which does not expose accessibility`,
      'Check that its toolkit has accessibility on (GTK: NO_AT_BRIDGE unset; Qt: QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1)',
    );
  }
  return { ...hit, matchedBy: how };
}

function ambiguous(text: string, candidates: AppInfo[]): AxError {
  return new AxError(
    'app_ambiguous',
    `'${text}' matches ${candidates.length} apps: ${candidates.map((a) => `${a.name} (pid ${a.pid})`).join(', ')}`,
    'Pass the pid instead, or connect one with ax_connect and an alias',
    { candidates: candidates.map(brief) },
  );
}

function brief(a: AppInfo): { name: string; pid: number } {
  return { name: a.name, pid: a.pid };
}

function listNames(apps: AppInfo[]): string {
  if (apps.length === 0) return 'none';
  const shown = apps.slice(0, 8).map((a) => `${a.name} (${a.pid})`);
  return apps.length > 8 ? `${shown.join(', ')} and ${apps.length - 8} more` : shown.join(', ');
}
