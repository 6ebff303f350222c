/**
 * The window system cannot say who holds a grab: one held while the app's own menu is on
 * top is taken for the app's (grabbedInput). Where a wrong guess would send keys to a
 * password prompt or a denied app, it is taken so only when nothing else could hold it:
 * in safe mode, no other app with a mapped window (on screen or off it) shows a password
 * field, a secret prompt or a window without accessibility (whose fields nothing can
 * locate); with a deny list, no denied app shows a window.
 */
import type { Rect } from '../model/element.js';
import type { Desktop } from '../platform/desktop.js';
import { intersect } from '../viewport/geometry.js';
import { scaledByLoad } from '../model/timeout.js';
import { withOverrides } from './desktop-view.js';
import { windowStack } from '../actions/window-stack.js';
import type { DeniedApps } from './denied.js';

export interface GrabRules {
  safe: boolean;
  denied: DeniedApps;
}

/** How long the fields of the other apps may take to be located, at least and at most. */
const LOOKUP_MS = 400;
const LOOKUP_MAX_MS = 4000;
/** Off screen too: a prompt that grabs the keyboard takes keys wherever its window lies. */
const EVERYWHERE = { x: -(2 ** 20), y: -(2 ** 20), w: 2 ** 21, h: 2 ** 21 };

export function strictGrabs(desktop: Desktop, rules: GrabRules): Desktop {
  if ((!rules.safe && !rules.denied.active) || !desktop.anyGrab) return desktop;
  return withOverrides(desktop, {
    grabbedInput: async (pid) => {
      const held = await desktop.grabbedInput(pid);
      if (held) return held;
      const any = await desktop.anyGrab!();
      if (!any) return undefined;
      return (await othersMayHold(desktop, rules, pid)) ? any : undefined;
    },
  });
}

async function othersMayHold(desktop: Desktop, rules: GrabRules, pid: number): Promise<boolean> {
  if (rules.denied.active) {
    const others = (await windowStack(desktop)).flatMap((w) =>
      w.pid !== null && w.pid !== pid ? [w.pid] : [],
    );
    if ((await rules.denied.deniedPids(desktop, others)).size > 0) return true;
  }
  if (!rules.safe) return false;
  const scan = await desktop.secureFieldFrames(EVERYWHERE, scaledByLoad(LOOKUP_MS, LOOKUP_MAX_MS), [
    pid,
  ]);
  // Off screen, only what says it asks for a secret counts (a password field, a prompt's
  // title or class): toolkits keep tiny helper windows out there that nothing reads.
  const { w, h } = await desktop.screenSize();
  const onScreen = (r: Rect) => intersect(r, { x: 0, y: 0, w, h }) !== null;
  return (
    scan.fresh.some((a) => a.pid !== pid && a.frames.length > 0) ||
    scan.failed.some((a) => a.pid !== pid && (a.windows?.some(onScreen) ?? true)) ||
    (scan.prompts ?? []).some((p) => p.pid !== pid) ||
    (scan.inaccessible ?? []).some((p) => p.pid !== pid && onScreen(p.frame))
  );
}
