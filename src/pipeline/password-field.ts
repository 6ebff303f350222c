/**
 * Safe mode's guard on password fields for the delivery functions (its rules are in
 * src/actions/password-guard.ts), and the one answer to "is this element a password
 * field" that every input route asks.
 */
import type { Element, Rect } from '../model/element.js';
import type { PasswordGuard } from '../actions/index.js';
import type { Policy } from '../guard/policy.js';
import type { Desktop } from '../platform/desktop.js';
import { AxError } from '../errors.js';
import { scaledByLoad } from '../model/timeout.js';
import { isSecure } from '../tree/index.js';
import { withOverrides } from './desktop-view.js';

/** Today: the element says it is secure (its role is a password field's). */
export function isPasswordField(el: Element): boolean {
  return isSecure(el);
}

/** The guard for one action, or none when the policy lets input reach password fields. */
export function passwordGuardOf(policy: Policy): PasswordGuard | undefined {
  // Asked, not re-derived from the settings: the policy alone says what safe mode refuses.
  if (!policy.secureTypingRefusal('a password field')) return undefined;
  return {
    isPasswordField,
    // The policy does not change within a call: it refuses here as it did above.
    refusal: (label) => policy.secureTypingRefusal(label) as AxError,
  };
}

/** How long the fields under a point may take to be located, at least and at most. */
const LOOKUP_MS = 400;
const LOOKUP_MAX_MS = 4000;

const holds = (f: Rect, p: { x: number; y: number }): boolean =>
  p.x >= f.x && p.y >= f.y && p.x < f.x + f.w && p.y < f.y + f.h;

/**
 * Safe mode's last check on a pointer press (a click, a drag's two ends), whatever the call
 * aimed at: the password fields of every app with a window at the point, located now,
 * including fields an app has revealed since (the desktop remembers them). A press on one
 * may land on an icon inside it that shows its text, which no element may stand for (and a
 * point given with one app can land on another app's window, or on a field made since the
 * walk). An app that cannot be read there, or a password prompt without accessibility,
 * counts as a field under the point: the press is refused.
 */
export function pointerOffPasswordFields(desktop: Desktop, policy: Policy): Desktop {
  if (!policy.secureTypingRefusal('a password field')) return desktop;
  const check = async (points: Array<{ x: number; y: number }>): Promise<void> => {
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
  };
  return withOverrides(desktop, {
    click: async (x, y, button, count) => {
      await check([{ x, y }]);
      return desktop.click(x, y, button, count);
    },
    drag: async (from, to, durationMs) => {
      await check([from, to]);
      return desktop.drag(from, to, durationMs);
    },
  });
}
