/**
 * Checks that run before the first side effect, so that a bad argument never leaves a
 * half-done action behind (a field emptied, a click sent, then the key refused).
 */
import type { Rect } from '../model/element.js';
import type { Desktop, KeyCombo } from '../platform/desktop.js';
import { AxError } from '../errors.js';
import type { ActionTarget } from './types.js';

/** A disabled element takes no input: that is the answer, not a no-op to escalate. */
export function assertEnabled(target: ActionTarget): void {
  if (target.element?.flags.includes('disabled')) {
    throw new AxError(
      'action_failed',
      `${target.label} is disabled`,
      'Nothing was sent. Do what the app needs to enable it first (fill in the fields it depends on), or wait for it: ax_wait_for with query "enabled:true" and its ref',
      { disabled: target.ref ?? target.label },
    );
  }
}

/**
 * Points and rectangles must lie on the screen: clamping would click somewhere else. With
 * `element` (its label), the point is where the action aims at that element: the error says
 * the element lies off the screen, not that the caller passed a bad point.
 */
export async function assertOnScreen(
  desktop: Desktop,
  where: { x: number; y: number } | Rect,
  element?: string,
): Promise<void> {
  const screen = await desktop.screenSize();
  const inside = (x: number, y: number): boolean =>
    x >= 0 && y >= 0 && x < screen.w && y < screen.h;
  const size = `${screen.w}x${screen.h}`;
  const range = `x in 0..${screen.w - 1}, y in 0..${screen.h - 1}`;
  if ('w' in where) {
    const { x, y, w, h } = where;
    if (!inside(x, y) || !inside(x + w - 1, y + h - 1)) {
      throw new AxError(
        'bad_argument',
        `the rectangle (${x},${y} ${w}x${h}) reaches off the screen (${size})`,
        `Pass a rectangle inside the screen (${range})`,
      );
    }
    return;
  }
  if (!inside(where.x, where.y) && element !== undefined) {
    throw new AxError(
      'action_failed',
      `${element} lies off the screen (${size}): the point it would be pressed at, (${where.x},${where.y}), is not on it`,
      'Bring it onto the screen first: move or resize its window (ax_key_press with the window manager\'s keys, or the app\'s own controls), or scroll it into view; or act on it in the background (delivery_mode "background")',
    );
  }
  if (!inside(where.x, where.y)) {
    throw new AxError(
      'bad_argument',
      `(${where.x},${where.y}) is off the screen (${size})`,
      `Pass a point on the screen (${range}), in points from the top-left corner`,
    );
  }
}

/** Code points that cannot be typed: lone surrogates and control characters but \n, \r, \t. */
export function untypeable(text: string): { index: number; code: string } | undefined {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const code = `U+${unit.toString(16).toUpperCase().padStart(4, '0')}`;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return { index: i, code };
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) return { index: i, code };
    if (unit === 0x0a || unit === 0x0d || unit === 0x09) continue;
    if (unit < 0x20 || (unit >= 0x7f && unit < 0xa0)) return { index: i, code };
  }
  return undefined;
}

export function assertTypeable(text: string): void {
  const bad = untypeable(text);
  if (bad) {
    throw new AxError(
      'bad_argument',
      `the text has a character that cannot be typed (${bad.code} at index ${bad.index}); nothing was typed or cleared`,
      'Remove it; send keys such as Escape or ctrl+a with `key` (ax_key_press), and \\n, \\t for Return and Tab',
    );
  }
}

/** The backend must be able to press the key, checked before anything is sent. */
export function assertKnownKey(desktop: Desktop, combo: KeyCombo): void {
  if (!desktop.knowsKey(combo.key)) {
    throw new AxError(
      'bad_argument',
      `'${combo.key}' is not a key name this desktop knows; nothing was sent`,
      'Use a key name like Return, Escape, Tab, BackSpace, Up, Page_Down, F5, or a single character',
    );
  }
  // Its click would land wherever the pointer is, past every check a click gets (a
  // show-password toggle, a denied app's window).
  if (desktop.keyKind(combo.key) === 'pointer') {
    throw new AxError(
      'bad_argument',
      `'${combo.key}' clicks or moves the pointer, or turns on the keypad keys that do (mouse keys), so no tool sends it; nothing was sent`,
      'Click with ax_click or ax_click_at, which check what they press',
    );
  }
}
