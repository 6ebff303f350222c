/**
 * Turns the `app` argument every tool accepts (an app name, an alias from ax_connect,
 * a pid, or a window title) into one running app. Connecting first is never required.
 */
import type { AppInfo, Desktop, DesktopWindow } from '../platform/desktop.js';
import { AxError } from '../errors.js';

export interface ResolvedApp extends AppInfo {
  /** How the argument matched: pid, alias, name, command, name-contains, window-title, frontmost. */
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

  /**
   * The one app `app` names. An app that is not responding (hung, or stopped) is refused
   * here, before anything is asked of it or done to it: each call on it would otherwise
   * wait out the per-call timeout and could act on a window that cannot react.
   */
  async resolve(desktop: Desktop, app: string | number | undefined): Promise<ResolvedApp> {
    const hit = await this.find(desktop, app);
    if (hit.responding === false) throw notResponding(hit);
    return hit;
  }

  /**
   * A pid argument naming an app the backend already talks to, taken at its word (its
   * registered name, for the policy) with no call to it: an observation or action reads
   * the app right after anyway. Undefined for anything else (resolve it then).
   */
  async known(
    desktop: Desktop,
    app: string | number | undefined,
  ): Promise<{ pid: number; name: string } | undefined> {
    const pid = pidArgument(app);
    if (pid === undefined || !desktop.knownApp) return undefined;
    return (await desktop.knownApp(pid)) ?? undefined;
  }

  private async find(desktop: Desktop, app: string | number | undefined): Promise<ResolvedApp> {
    // A pid: that app alone (reading every app costs ~8 ms each, more for a frozen one).
    const pid = pidArgument(app);
    if (pid !== undefined) {
      // Not responding is the backend's liveness check speaking: refused without a listing.
      const one = await desktop.appByPid?.(pid);
      if (one) return { ...one, matchedBy: 'pid' };
    }
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
    // Tiers, best first: exact name, exact window title, part of a name, part of a
    // title. The first tier with one app decides; several in a tier are ambiguous.
    const lower = text.toLowerCase();
    let windowList: DesktopWindow[] | undefined;
    const windows = async (): Promise<DesktopWindow[]> =>
      (windowList ??= await desktop.listWindows());
    const exact = apps.filter((a) => a.name.toLowerCase() === lower);
    if (exact.length === 1) return { ...exact[0], matchedBy: 'name' };
    if (exact.length > 1) throw ambiguous(text, exact, await windows());
    // The command users start it with (firefox-esr for Firefox), before any window title:
    // a title can belong to another app (Firefox's crash reporter names Firefox).
    const byCommand = apps.filter((a) => a.command?.toLowerCase() === lower);
    if (byCommand.length === 1) return { ...byCommand[0], matchedBy: 'command' };
    if (byCommand.length > 1) throw ambiguous(text, byCommand, await windows());
    const reachable = (pids: number[]): AppInfo[] => apps.filter((a) => pids.includes(a.pid));
    const byTitle = uniquePids((await windows()).filter((w) => w.title.toLowerCase() === lower));
    if (byTitle.length === 1) return withMatch(apps, byTitle[0], 'window-title', text);
    if (reachable(byTitle).length > 1) throw ambiguous(text, reachable(byTitle), await windows());
    if (reachable(byTitle).length === 1) {
      return { ...reachable(byTitle)[0], matchedBy: 'window-title' };
    }
    const contains = apps.filter((a) => a.name.toLowerCase().includes(lower));
    if (contains.length === 1) return { ...contains[0], matchedBy: 'name-contains' };
    if (contains.length > 1) throw ambiguous(text, contains, await windows());
    const titleContains = uniquePids(
      (await windows()).filter((w) => w.title.toLowerCase().includes(lower)),
    );
    if (titleContains.length > 0) {
      // Windows of apps off the accessibility bus are no candidates: one reachable app
      // is the answer. With none, withMatch says why the window cannot be used.
      const onBus = reachable(titleContains);
      if (onBus.length > 1) throw ambiguous(text, onBus, await windows());
      return withMatch(apps, onBus[0]?.pid ?? titleContains[0], 'window-title', text);
    }
    throw new AxError(
      'app_not_found',
      `no running app matches '${text}' by name, alias or window title`,
      `Running: ${listNames(apps)}. Call ax_list_apps for pids`,
      { apps: apps.map(brief) },
    );
  }
}

/** The app is stopped, or left accessibility calls unanswered lately: say so, and what to do. */
export function notResponding(app: AppInfo): AxError {
  const who = `${app.name || 'the app'} (pid ${app.pid}) is not responding`;
  const meanwhile = 'ax_list_apps marks it "not responding" until it answers again';
  if (app.stopped) {
    return new AxError(
      'app_not_responding',
      `${who}: its process is stopped (SIGSTOP, or a debugger holds it)`,
      `Continue it (kill -CONT ${app.pid}, or let the debugger go on) and try again, or work with another app (${meanwhile})`,
      { pid: app.pid, stopped: true },
    );
  }
  return new AxError(
    'app_not_responding',
    `${who}: it left accessibility calls unanswered (it is busy or hung)`,
    `Wait and try again (${meanwhile}), or work with another app`,
    { pid: app.pid },
  );
}

/** The pid an app argument gives as a number, else undefined. */
function pidArgument(app: string | number | undefined): number | undefined {
  if (typeof app === 'number') return app;
  return typeof app === 'string' && /^\s*[0-9]+\s*$/.test(app) ? Number(app) : undefined;
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

/** Window titles shown per candidate before `+N more`. */
const TITLES_SHOWN = 2;

/** Several apps match: list each with its pid and window titles, the facts that tell them apart. */
function ambiguous(text: string, candidates: AppInfo[], windows: DesktopWindow[]): AxError {
  const listed = candidates.map((a) => ({
    name: a.name,
    pid: a.pid,
    windows: windows.filter((w) => w.pid === a.pid).map((w) => w.title),
  }));
  const shown = listed.map((c) => {
    const titles = c.windows.slice(0, TITLES_SHOWN).map((t) => JSON.stringify(t));
    const more = c.windows.length - titles.length;
    const w =
      c.windows.length === 0
        ? ', no windows'
        : `, window${c.windows.length > 1 ? 's' : ''} ${titles.join(', ')}${more > 0 ? ` +${more} more` : ''}`;
    return `${c.name} (pid ${c.pid}${w})`;
  });
  return new AxError(
    'app_ambiguous',
    `'${text}' matches ${candidates.length} apps: ${shown.join(', ')}`,
    `Pass the pid (app: ${candidates[0].pid}), or a window title only one of them has, or connect one with ax_connect and an alias`,
    { candidates: listed },
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
