/**
 * Whose pixels are where: the windows on screen front to back, each with the process that
 * draws it. The listed windows (with their decorations) are not all: popups no window
 * manager manages (menus, tooltips, prompts) are drawn above them, and a window may hold
 * another process's window (an XEmbed plug), drawn in front of its host. A pointer event
 * at a point reaches the first window that holds it.
 */
import type { Rect } from '../model/element.js';
import type { Desktop, DesktopWindow } from '../platform/desktop.js';

export interface StackedWindow {
  /** Its process; null when the window system cannot say. */
  pid: number | null;
  /** What it covers on screen (a listed window's decorations too). */
  area: Rect;
  /** For a window drawn inside another (a plug): the pid of the window it is in. */
  hostPid?: number;
  /** What kind: a window the window manager lists, a popup, or a plug. */
  kind: 'listed' | 'popup' | 'plug';
}

/** The windows front to back: popups, then each listed window after the plugs in it. */
export async function windowStack(
  desktop: Desktop,
  listed?: readonly DesktopWindow[],
): Promise<StackedWindow[]> {
  const windows = listed ?? (await desktop.listWindows());
  const popups = (await desktop.popupWindows?.()) ?? [];
  // A popup of a known process can hold plugs too: asked about with the listed windows.
  const popupHosts: DesktopWindow[] = popups.flatMap((p) =>
    p.pid === null ? [] : [{ id: p.id, pid: p.pid, title: '', frame: p.frame, active: false }],
  );
  const embedded = (await desktop.embeddedWindows?.([...popupHosts, ...windows])) ?? [];
  const plugsIn = (id: number | undefined, pid: number | null): StackedWindow[] =>
    embedded
      .filter((e) => e.host === id && e.pid !== pid)
      // Listed outermost first, each level bottom to top: the deepest, topmost is in front.
      .reverse()
      .map((e): StackedWindow => ({
        pid: e.pid,
        area: e.frame,
        kind: 'plug',
        ...(pid === null ? {} : { hostPid: pid }),
      }));
  return [
    ...popups.flatMap((p): StackedWindow[] => [
      ...plugsIn(p.id, p.pid),
      { pid: p.pid, area: p.frame, kind: 'popup' },
    ]),
    ...windows.flatMap((w): StackedWindow[] => [
      ...plugsIn(w.id, w.pid),
      { pid: w.pid, area: w.outer ?? w.frame, kind: 'listed' },
    ]),
  ];
}

/** The first window holding the point, front to back; undefined: none does. */
export function windowAt(
  stack: readonly StackedWindow[],
  p: { x: number; y: number },
): StackedWindow | undefined {
  return stack.find((w) => holds(w.area, p));
}

export const holds = (f: Rect, p: { x: number; y: number }): boolean =>
  p.x >= f.x && p.y >= f.y && p.x < f.x + f.w && p.y < f.y + f.h;
