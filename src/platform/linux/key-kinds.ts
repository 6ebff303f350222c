/**
 * What a key does by itself in GTK, Qt and browsers: the keys safe mode lets reach a
 * password field (they move or leave it, never put text in it). Compared by keysym, so
 * that every name of a key (Page_Up and Prior, KP_Enter) gets the same answer.
 *
 * The keypad's navigation keys (KP_Home, KP_Left, KP_Page_Up...) are none of these: X
 * sends the keypad key's keycode, and with Num Lock on (a state any earlier key press may
 * have toggled) the app reads its digit, KP_7 for KP_Home, and types it. So they count as
 * keys that may type; the main block's arrows and Home do the same job whatever the locks.
 * KP_Tab goes with them (a layout that has it puts it on the keypad); KP_Enter stays: its
 * key types nothing under any lock.
 *
 * The keysyms of XKB's mouse keys (Pointer_Button1, Pointer_EnableKeys, Pointer_Left...)
 * click or move the pointer, or make the keypad do it (KP_Begin clicks); Num_Lock counts
 * with them, since Shift+Num_Lock is Pointer_EnableKeys in the standard keypad map.
 *
 * Keys are XKB keysyms under X11 and Wayland alike, resolved here without a display
 * (keysyms.ts), so the answer is the same before any session opens.
 */
import type { KeyKind } from '../desktop.js';
import { keysymValue } from './keysyms.js';

const KINDS: ReadonlyArray<[KeyKind, readonly string[]]> = [
  ['focus', ['Tab', 'ISO_Left_Tab']],
  ['caret', ['Left', 'Right', 'Up', 'Down', 'Home', 'End', 'Prior', 'Next']],
  ['cancel', ['Escape']],
  ['activate', ['Return', 'KP_Enter', 'ISO_Enter']],
];

/** The keysyms Pointer_Left (0xfee0) to Pointer_Drag5 (0xfefd), and Num_Lock (see above). */
const POINTER_KEYSYMS = { first: 0xfee0, last: 0xfefd };
const NUM_LOCK = 0xff7f;

let byKeysym: Map<number, KeyKind> | undefined;

function table(): Map<number, KeyKind> {
  byKeysym ??= new Map(
    KINDS.flatMap(([kind, names]) => names.map((n) => [keysymValue(n) as number, kind])),
  );
  return byKeysym;
}

export function keyKindOf(key: string): KeyKind {
  const sym = keysymValue(key);
  if (sym === null) return 'other';
  if ((sym >= POINTER_KEYSYMS.first && sym <= POINTER_KEYSYMS.last) || sym === NUM_LOCK) {
    return 'pointer';
  }
  return table().get(sym) ?? 'other';
}
