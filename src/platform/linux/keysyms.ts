/**
 * Key names to keysyms without the X addon or a display: XKB's keysym names (X's, the
 * same on Wayland, where keymaps are XKB's too), a few friendly aliases, and single
 * characters. The X11 session resolves names through Xlib instead (x11.ts), which agrees
 * on every name here; the Wayland session and the key kinds use this.
 */
import { KEYSYM_TABLE } from './keysym-table.js';

/**
 * Friendly names for keys whose keysym names differ ("ctrl" → Control_L). Looked up
 * lowercased, only when the name is not a keysym name itself ("a" and "A" stay distinct).
 */
export const KEY_ALIASES: Readonly<Record<string, string>> = {
  ctrl: 'Control_L',
  control: 'Control_L',
  shift: 'Shift_L',
  alt: 'Alt_L',
  super: 'Super_L',
  meta: 'Meta_L',
  enter: 'Return',
  return: 'Return',
  esc: 'Escape',
  escape: 'Escape',
  tab: 'Tab',
  space: 'space',
  backspace: 'BackSpace',
  delete: 'Delete',
  del: 'Delete',
  insert: 'Insert',
  home: 'Home',
  end: 'End',
  pageup: 'Prior',
  pagedown: 'Next',
  up: 'Up',
  down: 'Down',
  left: 'Left',
  right: 'Right',
  menu: 'Menu',
};

let byName: Map<string, number> | undefined;

function table(): Map<string, number> {
  byName ??= new Map(
    KEYSYM_TABLE.split(' ').map((e) => {
      const at = e.indexOf('=');
      return [e.slice(0, at), parseInt(e.slice(at + 1), 16)];
    }),
  );
  return byName;
}

/**
 * The keysym a character types, as Xlib's rule has it: Latin-1 keysyms equal their code
 * points, the rest are 0x01000000 + the code point; line breaks and tab are Return and
 * Tab; other control characters and surrogates have none.
 */
export function keysymOfCodepoint(cp: number): number | null {
  if (cp === 0x0a || cp === 0x0d) return 0xff0d;
  if (cp === 0x09) return 0xff09;
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return null;
  if (cp < 0x100) return cp;
  if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return null;
  return 0x01000000 | cp;
}

/** A keysym name ("Return", "U20AC", "0xff0d") or one character; null when neither. */
function keysymOfExact(name: string): number | null {
  if (name === '') return null;
  const known = table().get(name);
  if (known !== undefined) return known;
  // Xlib's and XKB's numeric forms: U+ a code point in hex, or the keysym in hex.
  const u = /^U([0-9a-fA-F]{2,6})$/.exec(name);
  if (u) return keysymOfCodepoint(parseInt(u[1], 16));
  const hex = /^0x([0-9a-fA-F]{1,8})$/.exec(name);
  if (hex) return parseInt(hex[1], 16) || null;
  const chars = [...name];
  return chars.length === 1 ? keysymOfCodepoint(chars[0].codePointAt(0) as number) : null;
}

/** The keysym a key name means, or null for a name that is none. */
export function keysymValue(name: string): number | null {
  return keysymOfExact(name) ?? keysymOfExact(KEY_ALIASES[name.toLowerCase()] ?? '');
}

/** The keysym name a key name means ("pagedown" → "Next"), or null; characters stay as they are. */
export function keysymName(name: string): string | null {
  if (keysymValue(name) === null) return null;
  return table().has(name) || keysymOfExact(name) !== null
    ? name
    : (KEY_ALIASES[name.toLowerCase()] ?? null);
}
