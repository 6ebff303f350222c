/**
 * The deny list is a property of pixels and processes, not only of app arguments: nothing
 * acts at a denied app's windows, no capture shows them, no listing names them.
 *
 * A window belongs to the app of its pid; an app is denied as checkApp judges it (by pid,
 * the name it registered, or what its executable is: a copy or link of a denied program, a
 * denied script run by its interpreter), and so is every process a denied app started,
 * while that app runs (a helper dialog of its own, under another name, shows its data).
 * A window covers its title bar and borders too. Every answer is taken fresh, at the moment it is needed
 * (a window listing, the apps' names): a denied app that opens a window now is hidden now.
 * With an empty deny list none of this asks the desktop anything.
 */
import type { Rect } from '../model/element.js';
import type {
  AppInfo,
  Desktop,
  DesktopWindow,
  GuardedOutcome,
  GuardedPointer,
  MouseButton,
  RawImage,
} from '../platform/desktop.js';
import type { JudgedAs, Policy } from '../guard/policy.js';
import { AxError } from '../errors.js';
import { withOverrides } from './desktop-view.js';
import { intersect } from '../viewport/geometry.js';
import { fillRegions, toPixelBox } from '../capture/redact.js';
import { windowAt, windowStack, type StackedWindow } from '../actions/window-stack.js';

/** How often a press is tried again when windows of newly seen apps keep coming to its point. */
const NEW_WINDOW_TRIES = 3;

/** The refusal of a press at a point on a denied app's window (never naming the app). */
function blockedAt(point: { x: number; y: number }, sent: number): AxError {
  return new AxError(
    'blocked',
    `the point (${point.x},${point.y}) is on a window of an app this server's policy blocks: ${sent > 0 ? `after ${sent} of the presses went to the window under it, the rest were not sent` : 'nothing was sent there'}`,
    'Pick a point on a window of the app you work with (bring its window to the front first if another covers it); the deny list is set by whoever runs the server (AXPAGE_DENY_APPS or --deny-apps)',
  );
}

/** How long a denied window's last places stay filled after it left them. */
const LINGER_MS = 2000;

export class DeniedApps {
  /** The places denied windows left lately, filled until `until` (see lingering). */
  private lately: { area: Rect; until: number }[] = [];
  /** The denied windows the last listing of a capture without one instant showed. */
  private deniedSeen?: string;
  /** When those last changed (mapped, unmapped, moved): see capture. */
  private deniedMovedAt = 0;

  constructor(private readonly policy: Policy) {}

  /** Whether there is a deny list at all. */
  get active(): boolean {
    return this.policy.settings.denyApps.length > 0;
  }

  /** Whether the app is denied. */
  denies(app: { pid: number; name: string }, as: JudgedAs = 'app'): boolean {
    return this.policy.denies(app, as);
  }

  /**
   * Which of `pids` belong to denied apps: by the process alone, else by the name the app
   * registered (the backend's own knowledge first, no call to the app; every app listed
   * only for pids it does not know), else by what it descends from (see inherited).
   * `owners`: the processes known to own windows now (a window listing the caller has).
   */
  async deniedPids(
    desktop: Desktop,
    pids: Iterable<number>,
    owners?: Iterable<number>,
  ): Promise<Set<number>> {
    const out = new Set<number>();
    if (!this.active) return out;
    const look = new Looks(desktop, undefined, owners);
    const unsure: number[] = [];
    const judged: number[] = [];
    await Promise.all(
      [...new Set(pids)].map(async (pid) => {
        if (this.denies({ pid, name: '' })) return void out.add(pid);
        const known = await look.app(pid);
        if (!known) unsure.push(pid);
        else if (this.denies(known)) out.add(pid);
        else judged.push(pid);
      }),
    );
    if (unsure.length > 0) {
      const names = new Map((await desktop.listApps()).map((a) => [a.pid, a.name]));
      look.listed(names);
      for (const pid of unsure) {
        const name = names.get(pid);
        if (name !== undefined && this.denies({ pid, name })) out.add(pid);
        else judged.push(pid);
      }
    }
    await Promise.all(
      judged.map(async (pid) => {
        if (await this.inherited(pid, look)) out.add(pid);
      }),
    );
    return out;
  }

  /**
   * Whether a process is denied by what it descends from, while that runs: the nearest of
   * its forebears that is a denied program or an allowed app decides (up to this server,
   * whose launches are its own). A helper a denied app (or a denied command-line program)
   * started shows its data: denied; so is what runs from a denied terminal. What an
   * allowed app started is that app's, whatever started the app. Programs that are neither
   * denied nor apps (on the accessibility bus or owning a window) pass the question on:
   * shells, launch scripts. Nothing is asked of the desktop unless some forebear is denied.
   */
  private async inherited(pid: number, look: Looks): Promise<boolean> {
    const forebears = this.policy.lineage(pid);
    if (forebears.length === 0) return false;
    const judged = await Promise.all(
      forebears.map(async (p) => {
        const app = await look.app(p);
        // An app is judged as one; a shell or launcher between, by what it runs.
        const denied = this.denies(app ?? { pid: p, name: '' }, app ? 'app' : 'process');
        return { pid: p, app, denied };
      }),
    );
    if (!judged.some((j) => j.denied)) return false;
    for (const j of judged) {
      if (j.denied) return true;
      if (j.app !== null || (await look.ownsWindow(j.pid))) return false;
    }
    return false;
  }

  /**
   * The parts of the screen that show a denied app's windows (filled in every capture):
   * each window with its title bar and borders, less the windows of other apps stacked over it, so an allowed
   * window in front stays as it is (a denied app maximized behind it would otherwise
   * blank every capture of it).
   */
  async windowFrames(desktop: Desktop): Promise<Rect[]> {
    if (!this.active) return [];
    const stack = await windowStack(desktop);
    const denied = await this.deniedPids(desktop, pidsOf(stack), pidsOf(stack));
    return shownParts(stack, (w) => w.pid !== null && denied.has(w.pid));
  }

  /**
   * Pixels of `rect` with every denied app's window filled. Where the desktop can read the
   * pixels and the windows on them as one instant, the windows are those of that instant:
   * a denied window that shows only for a moment is filled too, and so is a window whose
   * process cannot be told. Otherwise the windows listed right before the pixels are
   * filled (the caller fills those listed after). Any doubt fills the whole region.
   */
  async capture(desktop: Desktop, rect?: Rect): Promise<RawImage> {
    const stacked = await desktop.captureStacked?.(rect).catch(() => undefined);
    if (stacked) {
      const { image, origin } = stacked;
      const stack = [...stacked.windows].reverse().map((w) => ({ pid: w.pid, area: w.frame }));
      const left = stacked.earlier.map((w) => ({ pid: w.pid, area: w.frame }));
      const owners = pidsOf([...stack, ...left]);
      const areas = await this.deniedPids(desktop, owners, owners).then(
        (denied) => {
          const hide = (w: { pid: number | null }) => w.pid === null || denied.has(w.pid);
          return [...shownParts(stack, hide), ...this.lingering(left.filter(hide))];
        },
        () => [wholeOf(image, origin)],
      );
      return filled(image, origin, areas, FILL);
    }
    // No one instant: the windows are listed before and after the pixels, and a denied
    // window listed in either is filled where either put it. A denied window that mapped,
    // unmapped or moved lately (between the listings or since the last ones) may draw a
    // frame where no listing puts it (a first frame at the output's corner, a tile the
    // layout gave it for a moment): the pixels are then filled whole, until its windows
    // have kept still for LINGER_MS.
    const origin = rect
      ? { x: Math.max(0, Math.floor(rect.x)), y: Math.max(0, Math.floor(rect.y)) }
      : { x: 0, y: 0 };
    const before = await windowStack(desktop).catch(() => undefined);
    const image = await desktop.capture(rect);
    const after = before && (await windowStack(desktop).catch(() => undefined));
    const whole = [wholeOf(image, origin)];
    if (!before || !after) return filled(image, origin, whole, FILL);
    const owners = pidsOf([...before, ...after]);
    const denied = await this.deniedPids(desktop, owners, owners).catch(() => undefined);
    if (!denied) return filled(image, origin, whole, FILL);
    const hide = (w: { pid: number | null }) => w.pid !== null && denied.has(w.pid);
    const now = Date.now();
    for (const listing of [before, after]) {
      const seen = signature(listing.filter(hide));
      if (this.deniedSeen !== undefined && seen !== this.deniedSeen) this.deniedMovedAt = now;
      this.deniedSeen = seen;
    }
    if (now - this.deniedMovedAt < LINGER_MS) return filled(image, origin, whole, FILL);
    return filled(image, origin, [...shownParts(before, hide), ...shownParts(after, hide)], FILL);
  }

  /**
   * Where denied windows were lately (`left`: reported now), filled for a while after:
   * what a window drew stays on screen once it is gone, until the app of the window below
   * repaints there (tens of milliseconds, longer on a busy machine).
   */
  private lingering(left: readonly { area: Rect }[]): Rect[] {
    const now = Date.now();
    this.lately = [
      ...this.lately.filter((l) => l.until > now),
      ...left.map((l) => ({ area: l.area, until: now + LINGER_MS })),
    ];
    return this.lately.map((l) => l.area);
  }

  /**
   * Throws when the topmost window at any of the points belongs to a denied app: a pointer
   * event sent there would reach it, whichever app the call was about. One listing for all.
   * Returns the processes with windows on screen that are not denied: those a press may
   * reach.
   */
  async checkPoints(
    desktop: Desktop,
    points: ReadonlyArray<{ x: number; y: number }>,
  ): Promise<Set<number>> {
    if (!this.active) return new Set();
    const stack = await windowStack(desktop);
    const pids = pidsOf(stack);
    const denied = await this.deniedPids(desktop, pids, pids);
    for (const point of points) {
      const top = windowAt(stack, point);
      if (top?.pid != null && denied.has(top.pid)) throw blockedAt(point, 0);
    }
    return new Set(pids.filter((pid) => !denied.has(pid)));
  }

  /**
   * Sends pointer input once checkPoints found no denied window at its points, through the
   * desktop's guarded pointer where it has one: the window on top is checked again in the
   * instant of each press, so a denied window that shows there meanwhile (a popup flashing
   * over the point) never takes it. A window of an app that opened since is looked up and,
   * when allowed, the input is sent again, as long as none of it went out yet. A press a
   * window manager held back goes on to whatever is on top when it lets it go: a denied
   * window that showed at the point by then is reported (it may have taken the press).
   */
  private async pressing(
    desktop: Desktop,
    points: ReadonlyArray<{ x: number; y: number }>,
    guarded: (pointer: GuardedPointer) => Promise<GuardedOutcome>,
    plain: () => Promise<void>,
  ): Promise<void> {
    const allowed = await this.checkPoints(desktop, points);
    if (!desktop.guardedPointer) return plain();
    for (let attempt = 1; ; attempt++) {
      const { refused, lateWindowOf } = await guarded(desktop.guardedPointer(allowed));
      if (!refused) {
        if (
          lateWindowOf !== undefined &&
          (await this.deniedPids(desktop, [lateWindowOf])).has(lateWindowOf)
        ) {
          throw new AxError(
            'blocked',
            `the press went out, and a window of an app this server's policy blocks showed at the point before the press reached the app under it: the blocked app may have received it`,
            'Observe again (ax_get_tree or ax_screenshot) before the next step: the press may not have reached this app; the deny list is set by whoever runs the server (AXPAGE_DENY_APPS or --deny-apps)',
          );
        }
        return;
      }
      const denied = (await this.deniedPids(desktop, [refused.pid])).has(refused.pid);
      if (denied) throw blockedAt(refused.at, refused.sent);
      if (refused.sent > 0 || attempt >= NEW_WINDOW_TRIES) {
        throw new AxError(
          'action_failed',
          `a window of another app came to the point (${refused.at.x},${refused.at.y}) as the press was about to go there${refused.sent > 0 ? `, after ${refused.sent} of the presses went to the window under it` : ''}: ${refused.sent > 0 ? 'the rest were not sent' : 'nothing was sent'}`,
          'Observe again (ax_get_tree or ax_screenshot) to see what is on screen now, then aim again',
        );
      }
      allowed.add(refused.pid);
    }
  }
  /** Apps to list, and how many the deny list leaves out (never which). */
  async visibleApps<T extends Pick<AppInfo, 'pid' | 'name'>>(
    desktop: Desktop,
    apps: readonly T[],
  ): Promise<{
    apps: T[];
    leftOut: number;
  }> {
    if (!this.active) return { apps: [...apps], leftOut: 0 };
    const look = new Looks(desktop, new Map(apps.map((a) => [a.pid, a.name])));
    const hidden = await Promise.all(
      apps.map(async (a) => this.denies(a) || (await this.inherited(a.pid, look))),
    );
    const shown = apps.filter((_, i) => !hidden[i]);
    return { apps: shown, leftOut: apps.length - shown.length };
  }

  /** Windows to list: those of apps the deny list leaves out go (by their pids). */
  async visibleWindows(
    desktop: Desktop,
    windows: readonly DesktopWindow[],
  ): Promise<DesktopWindow[]> {
    const denied = await this.deniedPids(
      desktop,
      windows.map((w) => w.pid),
    );
    return windows.filter((w) => !denied.has(w.pid));
  }

  /**
   * The desktop as app arguments are resolved against it: denied apps and their windows
   * are not listed, and no lookup by pid finds them, so no match and no list of candidates
   * names them.
   */
  hideApps(desktop: Desktop): Desktop {
    if (!this.active) return desktop;
    const shown = async <T extends { pid: number; name: string }>(app: T | null) =>
      app && (this.denies(app) || (await this.inherited(app.pid, new Looks(desktop)))) ? null : app;
    const overrides: Partial<Desktop> = {
      listApps: async () => (await this.visibleApps(desktop, await desktop.listApps())).apps,
      listWindows: async (pid?: number) =>
        this.visibleWindows(desktop, await desktop.listWindows(pid)),
    };
    if (desktop.appByPid) {
      const byPid = desktop.appByPid.bind(desktop);
      overrides.appByPid = async (pid) => shown(await byPid(pid));
    }
    if (desktop.knownApp) {
      const known = desktop.knownApp.bind(desktop);
      overrides.knownApp = async (pid) => shown(await known(pid));
    }
    return withOverrides(desktop, overrides);
  }

  /**
   * The desktop whose walks never go into a denied app's tree plugged into another app's
   * window (an XEmbed plug): what it shows is the denied app's; and whose captures come
   * with the denied apps' windows filled (see capture).
   */
  keepOut(desktop: Desktop): Desktop {
    if (!this.active) return desktop;
    const enterApp = async (pid: number): Promise<boolean> =>
      !(await this.deniedPids(desktop, [pid])).has(pid);
    return withOverrides(desktop, {
      snapshot: (pid, options) => desktop.snapshot(pid, { ...options, enterApp }),
      capture: (rect) => this.capture(desktop, rect),
      // Its pixels are unfilled: every capture goes through capture above.
      captureStacked: undefined,
    });
  }

  /**
   * The desktop as the pointer actions of a call see it: a click, scroll or drag whose
   * point is on a denied app's window is refused before anything is sent, and a press is
   * never sent to a denied window that shows there meanwhile (see pressing).
   */
  guardPointer(desktop: Desktop): Desktop {
    if (!this.active) return desktop;
    const overrides: Partial<Desktop> = {
      click: (x: number, y: number, button: MouseButton, count: number) =>
        this.pressing(
          desktop,
          [{ x, y }],
          (pointer) => pointer.click(x, y, button, count),
          () => desktop.click(x, y, button, count),
        ),
      scroll: (x: number, y: number, dx: number, dy: number) =>
        this.pressing(
          desktop,
          [{ x, y }],
          (pointer) => pointer.scroll(x, y, dx, dy),
          () => desktop.scroll(x, y, dx, dy),
        ),
      drag: (from, to, durationMs, signal) =>
        this.pressing(
          desktop,
          [from, to],
          (pointer) => pointer.drag(from, to, durationMs, signal),
          () => desktop.drag(from, to, durationMs, signal),
        ),
    };
    return withOverrides(desktop, overrides);
  }
}

/**
 * The parts of the windows `hide` picks that show, front to back: each less the windows in
 * front of it that are not picked, so an allowed window in front stays as it is.
 */
export function shownParts<T extends { area: Rect }>(
  stack: readonly T[],
  hide: (w: T) => boolean,
): Rect[] {
  return stack.flatMap((w, i) =>
    hide(w)
      ? subtractRects(
          w.area,
          stack
            .slice(0, i)
            .filter((above) => !hide(above))
            .map((above) => above.area),
        )
      : [],
  );
}

/**
 * What a denied window is filled with: one fixed colour. A mean of the pixels around it
 * would carry the window's own colour wherever it drew outside the place it was listed at.
 */
const FILL = [128, 128, 128, 255] as const;

/** The image with `areas` (screen rects) filled in place, as a screenshot's redaction is. */
function filled(
  image: RawImage,
  origin: { x: number; y: number },
  areas: readonly Rect[],
  colour?: readonly number[],
): RawImage {
  const boxes = areas.flatMap((a) => toPixelBox(a, origin, 1, image.width, image.height) ?? []);
  if (boxes.length > 0) fillRegions(image, boxes, colour);
  return image;
}

/** The denied windows of a listing, as a string that changes when any maps, unmaps or moves. */
function signature(windows: readonly { pid: number | null; area: Rect }[]): string {
  return windows
    .map((w) => `${w.pid}@${w.area.x},${w.area.y},${w.area.w},${w.area.h}`)
    .sort()
    .join(';');
}

const wholeOf = (image: RawImage, origin: { x: number; y: number }): Rect => ({
  ...origin,
  w: image.width,
  h: image.height,
});

const pidsOf = (stack: readonly Pick<StackedWindow, 'pid'>[]): number[] =>
  stack.flatMap((w) => (w.pid === null ? [] : [w.pid]));

/** `base` less every rect of `cuts`, as disjoint rects (none when it is all covered). */
export function subtractRects(base: Rect, cuts: readonly Rect[]): Rect[] {
  let parts = [base];
  for (const c of cuts) {
    parts = parts.flatMap((p) => subtractOne(p, c));
    if (parts.length === 0) break;
  }
  return parts;
}

/** `p` less `c`: up to four bands (above, below, left, right of the overlap). */
function subtractOne(p: Rect, c: Rect): Rect[] {
  const o = intersect(p, c);
  if (!o) return [p];
  const out: Rect[] = [];
  if (o.y > p.y) out.push({ x: p.x, y: p.y, w: p.w, h: o.y - p.y });
  if (o.y + o.h < p.y + p.h) out.push({ x: p.x, y: o.y + o.h, w: p.w, h: p.y + p.h - o.y - o.h });
  if (o.x > p.x) out.push({ x: p.x, y: o.y, w: o.x - p.x, h: o.h });
  if (o.x + o.w < p.x + p.w) out.push({ x: o.x + o.w, y: o.y, w: p.x + p.w - o.x - o.w, h: o.h });
  return out;
}

/**
 * What the desktop says of processes, asked once per question within one judgement: the
 * app a pid registered on the accessibility bus (a listing's names where there is one, the
 * backend's own knowledge otherwise) and whether it owns a window.
 */
class Looks {
  private readonly apps = new Map<number, Promise<{ pid: number; name: string } | null>>();
  private owners?: Promise<Set<number>>;

  constructor(
    private readonly desktop: Desktop,
    private names?: ReadonlyMap<number, string>,
    owners?: Iterable<number>,
  ) {
    if (owners !== undefined) this.owners = Promise.resolve(new Set(owners));
  }

  /** A listing of every app on the bus: what it does not name is no app there. */
  listed(names: ReadonlyMap<number, string>): void {
    this.names = names;
  }

  app(pid: number): Promise<{ pid: number; name: string } | null> {
    if (this.names) {
      const name = this.names.get(pid);
      return Promise.resolve(name === undefined ? null : { pid, name });
    }
    let found = this.apps.get(pid);
    if (!found) {
      found = this.desktop.knownApp
        ? this.desktop.knownApp(pid).catch(() => null)
        : Promise.resolve(null);
      this.apps.set(pid, found);
    }
    return found;
  }

  async ownsWindow(pid: number): Promise<boolean> {
    this.owners ??= this.desktop
      .listWindows()
      .then((ws) => new Set(ws.map((w) => w.pid)))
      .catch(() => new Set<number>());
    return (await this.owners).has(pid);
  }
}
