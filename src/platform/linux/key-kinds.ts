/**
 * What an X key does by itself in GTK, Qt and browsers: the keys safe mode lets reach a
 * password field (they move or leave it, never put text in it). Compared by keysym, so
 * that every name of a key (Page_Up and Prior, KP_Enter) gets the same answer.
 */
import type { KeyKind } from '../desktop.js';
import { keysymOf } from './x11.js';

const KINDS: ReadonlyArray<[KeyKind, readonly string[]]> = [
  ['focus', ['Tab', 'ISO_Left_Tab', 'KP_Tab']],
  [
    'caret',
    [
      'Left',
      'Right',
      'Up',
      'Down',
      'Home',
      'End',
      'Prior',
      'Next',
      'KP_Left',
      'KP_Right',
      'KP_Up',
      'KP_Down',
      'KP_Home',
      'KP_End',
      'KP_Prior',
      'KP_Next',
    ],
  ],
  ['cancel', ['Escape']],
  ['activate', ['Return', 'KP_Enter', 'ISO_Enter']],
];

let byKeysym: Map<number, KeyKind> | undefined;

function table(): Map<number, KeyKind> {
  byKeysym ??= new Map(KINDS.flatMap(([kind, names]) => names.map((n) => [keysymOf(n), kind])));
  return byKeysym;
}

export function keyKindOf(key: string): KeyKind {
  let sym: number;
  try {
    sym = keysymOf(key);
  } catch {
    return 'other';
  }
  return table().get(sym) ?? 'other';
}
