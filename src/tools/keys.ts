/**
 * Key names as agents write them ("enter", "esc", "pagedown", "A", "F5") mapped to X
 * keysym names. Single characters keep their case: "A" is shift+a, "a" is a. Names
 * that are not in the table pass through as keysym names; the backend rejects unknown
 * ones with a clear error, so a typo never becomes a silent no-op.
 */
import type { KeyCombo } from '../platform/desktop.js';
import { AxError } from '../errors.js';
import { untypeable } from '../actions/index.js';

const ALIASES: Record<string, string> = {
  enter: 'Return',
  return: 'Return',
  ret: 'Return',
  esc: 'Escape',
  escape: 'Escape',
  tab: 'Tab',
  space: 'space',
  spacebar: 'space',
  backspace: 'BackSpace',
  bksp: 'BackSpace',
  delete: 'Delete',
  del: 'Delete',
  forwarddelete: 'Delete',
  insert: 'Insert',
  ins: 'Insert',
  home: 'Home',
  end: 'End',
  pageup: 'Page_Up',
  page_up: 'Page_Up',
  pgup: 'Page_Up',
  pagedown: 'Page_Down',
  page_down: 'Page_Down',
  pgdn: 'Page_Down',
  up: 'Up',
  down: 'Down',
  left: 'Left',
  right: 'Right',
  arrowup: 'Up',
  arrowdown: 'Down',
  arrowleft: 'Left',
  arrowright: 'Right',
  menu: 'Menu',
  contextmenu: 'Menu',
  capslock: 'Caps_Lock',
  printscreen: 'Print',
  print: 'Print',
  pause: 'Pause',
  numlock: 'Num_Lock',
  scrolllock: 'Scroll_Lock',
};

const MODIFIERS = new Set(['ctrl', 'shift', 'alt', 'super', 'cmd', 'opt']);
const MODIFIER_ALIASES: Record<string, KeyCombo['modifiers'][number]> = {
  control: 'ctrl',
  ctl: 'ctrl',
  option: 'opt',
  meta: 'super',
  win: 'super',
  command: 'cmd',
};

export function normalizeKeyName(name: string): string {
  if ([...name].length === 1) {
    // A lone surrogate would be sent as U+FFFD, a control character has no key to type it.
    if (untypeable(name)) {
      const code = `U+${name.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
      throw new AxError(
        'bad_argument',
        `${code} is not a key that can be pressed (a lone surrogate or a control character)`,
        'Use a key name like Return, Tab, Escape, BackSpace, or one printable character',
      );
    }
    return name;
  }
  const lower = name.toLowerCase();
  // Own keys only: "constructor" or "__proto__" must not find Object.prototype members.
  if (Object.hasOwn(ALIASES, lower)) return ALIASES[lower];
  const f = /^f([1-9]|[12][0-9]|3[0-5])$/i.exec(name);
  if (f) return `F${f[1]}`;
  if (/^[A-Za-z0-9_]+$/.test(name)) return name;
  throw new AxError(
    'bad_argument',
    `'${name}' is not a key name`,
    'Use a single character, or a name like Return, Escape, Tab, BackSpace, Up, Page_Down, F5 (X keysym names work too)',
  );
}

/**
 * Parse a key and its modifiers. Accepts "ctrl+s" style combos in `key` as well as
 * separate modifiers.
 */
export function parseKeyCombo(key: string, modifiers: string[]): KeyCombo {
  const { parts, main } = splitCombo(key);
  if (main === '')
    throw new AxError(
      'bad_argument',
      `'${key}' has no key after its modifiers`,
      'Write e.g. "ctrl+s"',
    );
  const mods: KeyCombo['modifiers'] = [];
  for (const raw of [...parts, ...modifiers]) {
    const m = raw.toLowerCase();
    const mod = (MODIFIER_ALIASES[m] ?? m) as KeyCombo['modifiers'][number];
    if (!MODIFIERS.has(mod)) {
      throw new AxError(
        'bad_argument',
        `'${raw}' is not a modifier`,
        'Modifiers: ctrl, shift, alt, super (cmd), opt (alt)',
      );
    }
    if (!mods.includes(mod)) mods.push(mod);
  }
  return { key: normalizeKeyName(main), modifiers: mods };
}

/** "ctrl+s" → ctrl and s; a lone "+" is the plus key, and so is the last "+" of "ctrl++". */
function splitCombo(key: string): { parts: string[]; main: string } {
  if (key.length <= 1 || !key.includes('+')) return { parts: [], main: key };
  if (key.endsWith('++')) {
    const prefix = key.slice(0, -2);
    return { parts: prefix === '' ? [] : prefix.split('+'), main: '+' };
  }
  const parts = key.split('+');
  const main = parts.pop() ?? '';
  return { parts, main };
}
