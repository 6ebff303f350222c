/** The keys of `key:value` terms and what each one tests. */
import { FLAG_ORDER } from '../model/element.js';
import type { FlagKey, TextField } from './types.js';

/** Every element flag, plus `hidden` (not visible) and `interactive` (an actionable role). */
export const FLAG_KEYS: readonly FlagKey[] = [...FLAG_ORDER, 'hidden', 'interactive'];

export type KeyDef =
  | { kind: 'role' }
  | { kind: 'text'; field: TextField }
  | { kind: 'flag'; flag: FlagKey }
  | { kind: 'nth' };

/**
 * Key names, lower case. `text` and `label` are not keys: they are AT-SPI role names
 * (`[AXTextField (text)]`, `[AXStaticText (label)]`), so `label:Name` reads as a role.
 */
export const KEYS: ReadonlyMap<string, KeyDef> = new Map<string, KeyDef>([
  ['role', { kind: 'role' }],
  ['title', { kind: 'text', field: 'name' }],
  ['name', { kind: 'text', field: 'name' }],
  ['value', { kind: 'text', field: 'value' }],
  ['description', { kind: 'text', field: 'description' }],
  ['desc', { kind: 'text', field: 'description' }],
  ['identifier', { kind: 'text', field: 'identifier' }],
  ['id', { kind: 'text', field: 'identifier' }],
  ['index', { kind: 'nth' }],
  ['nth', { kind: 'nth' }],
  ...FLAG_KEYS.map((f): [string, KeyDef] => [f, { kind: 'flag', flag: f }]),
]);

export function keyDef(word: string): KeyDef | undefined {
  return KEYS.get(word.toLowerCase());
}

/** true/false and the usual spellings; null for anything else. */
export function parseBool(text: string): boolean | null {
  const t = text.trim().toLowerCase();
  if (['true', 'yes', 'on', '1'].includes(t)) return true;
  if (['false', 'no', 'off', '0'].includes(t)) return false;
  return null;
}
