/**
 * Safe mode's guard on password fields for the delivery functions (its rules are in
 * src/actions/password-guard.ts), and the one answer to "is this element a password
 * field" that every input route asks.
 */
import type { Element } from '../model/element.js';
import type { PasswordGuard } from '../actions/index.js';
import type { Policy } from '../guard/policy.js';
import type { Desktop } from '../platform/desktop.js';
import { AxError } from '../errors.js';
import { scaledByLoad } from '../model/timeout.js';
import { isSecure } from '../tree/index.js';
import { withOverrides } from './desktop-view.js';
import { holds, windowAt, windowStack } from '../actions/window-stack.js';

/** Today: the element says it is secure (its role is a password field's). */
export function isPasswordField(el: Element): boolean {
  return isSecure(el);
}

/** The guard for one action, or none when the policy lets input reach password fields. */
export function passwordGuardOf(
  policy: Policy,
  lastField?: () => Pick<Element, 'id' | 'flags'> | undefined,
): PasswordGuard | undefined {
  // Asked, not re-derived from the settings: the policy alone says what safe mode refuses.
  if (!policy.secureTypingRefusal('a password field')) return undefined;
  return {
    isPasswordField,
    // The policy does not change within a call: it refuses here as it did above.
    refusal: (label) => policy.secureTypingRefusal(label) as AxError,
    lastField,
  };
}

/** How long the fields under a point may take to be located, at least and at most. */
const LOOKUP_MS = 400;
const LOOKUP_MAX_MS = 4000;

/**
 * Safe mode's last check on a pointer press (a click, a drag's two ends), whatever the call
 * aimed at: the password fields of every app with a window at the point, located now,
 * including fields an app has revealed since (the desktop remembers them). A press on one
 * may land on an icon inside it that shows its text, which no element may stand for (and a
 * point given with one app can land on another app's window, or on a field made since the
 * walk). An app that cannot be read there, or a password prompt without accessibility,
 * counts as a field under the point: the press is refused.
 */
export function pointerOffPasswordFields(
  desktop: Desktop,
  policy: Policy,
  pid: number,
  entered: () => readonly number[] = () => [],
): Desktop {
  if (!policy.secureTypingRefusal('a password field')) return desktop;
  const check = async (points: Array<{ x: number; y: number }>): Promise<void> => {
    const stack = await windowStack(desktop);
    for (const p of points) {
      const scan = await desktop.secureFieldFrames(
        { x: p.x, y: p.y, w: 1, h: 1 },
        scaledByLoad(LOOKUP_MS, LOOKUP_MAX_MS),
      );
      const on = scan.fresh.find((a) => a.frames.some((f) => holds(f, p)));
      const unread = scan.failed[0];
      const prompt = scan.prompts?.find((w) => holds(w.frame, p));
      if (!on && !unread && !prompt) continue;
      const owner = on?.pid ?? unread?.pid ?? prompt?.pid;
      const what = on
        ? 'a password field'
        : unread
          ? `a window whose password fields could not be located (${unread.reason})`
          : 'a password prompt';
      throw new AxError(
        'blocked',
        `the point (${p.x},${p.y}) is on ${what}${owner ? ` of pid ${owner}` : ''}, and this server runs in safe mode: a pointer press there may land on an icon inside that shows a password's text, so nothing was pressed`,
        'Aim elsewhere, or give the field the keyboard focus with ax_click in the background (delivery_mode "background") or Tab',
      );
    }
    for (const p of points) {
      // The rules on reveal controls read this app's tree: a press on another app's window
      // (a popup over it, a window in front) would be judged by nothing.
      const top = windowAt(stack, p);
      const owner = top && (top.hostPid ?? top.pid);
      if (top && owner === pid && top.pid !== pid && !entered().includes(top.pid as number)) {
        // Another process's window inside this app's (a plug) whose tree the walk did not
        // enter: nothing says what is there.
        throw new AxError(
          'blocked',
          `the point (${p.x},${p.y}) is on a window that ${top.pid === null ? 'another process' : `another process (pid ${top.pid})`} draws inside this app's window, whose controls this server does not read (no accessibility, or its app is denied), and this server runs in safe mode: nothing was pressed`,
          'Aim at a part of the window the app itself draws',
        );
      }
      if (!top || owner === pid) continue;
      throw new AxError(
        'blocked',
        `the point (${p.x},${p.y}) is on a window of ${owner === null ? 'a process that cannot be told' : `another app (pid ${owner})`}, not of the app this call is on (pid ${pid}), and this server runs in safe mode: what is there (a control that shows a password?) was not read, so nothing was pressed`,
        owner === null
          ? 'Aim at a window of the app this call is on'
          : `Call again with app ${owner} to press there (its controls are read then), or aim at a window of pid ${pid}`,
      );
    }
  };
  return withOverrides(desktop, {
    click: async (x, y, button, count) => {
      await check([{ x, y }]);
      return desktop.click(x, y, button, count);
    },
    drag: async (from, to, durationMs, signal) => {
      await check([from, to]);
      return desktop.drag(from, to, durationMs, signal);
    },
  });
}
