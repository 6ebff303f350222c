/**
 * AT-SPI state sets → the model's flags. A state set travels as `au`: two 32-bit words,
 * bit n of the set is AtspiStateType n (libatspi 2.46, atspi-constants.h).
 */
import type { Flag } from '../../../model/element.js';
import { CHECKABLE_ROLES, SECURE_ROLES } from '../roles.js';

/** AtspiStateType, index = bit number. */
export const ATSPI_STATES: readonly string[] = [
  'invalid',
  'active',
  'armed',
  'busy',
  'checked',
  'collapsed',
  'defunct',
  'editable',
  'enabled',
  'expandable',
  'expanded',
  'focusable',
  'focused',
  'has-tooltip',
  'horizontal',
  'iconified',
  'modal',
  'multi-line',
  'multiselectable',
  'opaque',
  'pressed',
  'resizable',
  'selectable',
  'selected',
  'sensitive',
  'showing',
  'single-line',
  'stale',
  'transient',
  'vertical',
  'visible',
  'manages-descendants',
  'indeterminate',
  'required',
  'truncated',
  'animated',
  'invalid-entry',
  'supports-autocompletion',
  'selectable-text',
  'is-default',
  'visited',
  'checkable',
  'has-popup',
  'read-only',
];

/** Bit numbers of the states this backend reads. */
export const STATE = {
  ACTIVE: 1,
  CHECKED: 4,
  COLLAPSED: 5,
  DEFUNCT: 6,
  EDITABLE: 7,
  ENABLED: 8,
  EXPANDABLE: 9,
  EXPANDED: 10,
  FOCUSABLE: 11,
  FOCUSED: 12,
  MODAL: 16,
  MULTI_LINE: 17,
  PRESSED: 20,
  SELECTED: 23,
  SENSITIVE: 24,
  SHOWING: 25,
  VISIBLE: 30,
  MANAGES_DESCENDANTS: 31,
  INDETERMINATE: 32,
  CHECKABLE: 41,
  READ_ONLY: 43,
} as const;

/** A decoded state set; cheap to test bits on. */
export type StateBits = readonly number[];

export function hasState(bits: StateBits, state: number): boolean {
  const word = bits[state >> 5] ?? 0;
  return ((word >>> (state & 31)) & 1) === 1;
}

/** State names, in bit order (for element details and debugging). */
export function stateNames(bits: StateBits): string[] {
  const out: string[] = [];
  for (let w = 0; w < bits.length; w++) {
    for (let b = 0; b < 32; b++) {
      if (((bits[w] >>> b) & 1) === 1) out.push(ATSPI_STATES[w * 32 + b] ?? `state ${w * 32 + b}`);
    }
  }
  return out;
}

/** Bits for a list of state names (tests build state sets this way). */
export function stateBits(names: readonly string[]): number[] {
  const bits = [0, 0];
  for (const name of names) {
    const n = ATSPI_STATES.indexOf(name);
    if (n < 0) throw new Error(`unknown AT-SPI state "${name}"`);
    bits[n >> 5] = (bits[n >> 5] | (1 << (n & 31))) >>> 0;
  }
  return bits;
}

/**
 * The model's flags for an element, in FLAG_ORDER. `visible` is left to the viewport.
 * - enabled: ENABLED or SENSITIVE (GTK sets both; some toolkits only one); else disabled.
 * - mixed: INDETERMINATE on a checkable element only (a pulsing progress bar is also
 *   "indeterminate", which is not a check state).
 * - collapsed: COLLAPSED, or EXPANDABLE without EXPANDED (GTK3 never sets COLLAPSED).
 * - secure: the password role; its value is never read.
 * - offscreen: not SHOWING or not VISIBLE (unmapped, scrolled out, hidden page).
 */
export function flagsFor(nativeRole: string, bits: StateBits): Flag[] {
  const has = (s: number): boolean => hasState(bits, s);
  const flags: Flag[] = [];
  if (has(STATE.ENABLED) || has(STATE.SENSITIVE)) flags.push('enabled');
  else flags.push('disabled');
  if (has(STATE.FOCUSED)) flags.push('focused');
  if (has(STATE.FOCUSABLE)) flags.push('focusable');
  if (has(STATE.SELECTED)) flags.push('selected');
  if (has(STATE.CHECKED)) flags.push('checked');
  if (
    has(STATE.INDETERMINATE) &&
    (has(STATE.CHECKABLE) || CHECKABLE_ROLES.has(nativeRole)) &&
    !has(STATE.CHECKED)
  ) {
    flags.push('mixed');
  }
  if (has(STATE.PRESSED)) flags.push('pressed');
  if (has(STATE.EXPANDED)) flags.push('expanded');
  else if (has(STATE.COLLAPSED) || has(STATE.EXPANDABLE)) flags.push('collapsed');
  if (has(STATE.EDITABLE)) flags.push('editable');
  if (has(STATE.READ_ONLY)) flags.push('readonly');
  if (has(STATE.MULTI_LINE)) flags.push('multiline');
  if (has(STATE.MODAL)) flags.push('modal');
  if (has(STATE.ACTIVE)) flags.push('active');
  if (SECURE_ROLES.has(nativeRole)) flags.push('secure');
  if (!has(STATE.SHOWING) || !has(STATE.VISIBLE)) flags.push('offscreen');
  return flags;
}
