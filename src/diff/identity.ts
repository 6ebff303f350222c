/**
 * Identity keys: what makes an element "the same element" across two snapshots.
 * The platform's own object identity when it has one, else a path signature built
 * from structure and names — never from screen position, which changes on scroll.
 */
import type { Element, Snapshot } from '../model/element.js';

/** Names longer than this are shortened in signatures so deep chains stay small. */
const NAME_CAP = 48;

/** Prefix that keeps path signatures apart from platform ids in one key space. */
export const SIGNATURE_PREFIX = 'sig:';

/** 32-bit FNV-1a, so a shortened name still tells apart names that share a prefix. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The name as it appears in a segment; JSON quoting makes segment boundaries unambiguous. */
function nameToken(name: string): string {
  if (name.length <= NAME_CAP) return JSON.stringify(name);
  return JSON.stringify(
    `${name.slice(0, NAME_CAP)}…${name.length.toString(36)}.${fnv1a(name).toString(36)}`,
  );
}

/**
 * Path signatures for every element: the chain of `role[ordinal]"name"` segments from
 * the top-level down. The ordinal counts earlier siblings with the same role AND name,
 * so two "OK" buttons differ (no sibling collisions), while inserting a sibling with
 * another role or name does not shift anyone's signature.
 */
export function pathSignatures(elements: readonly Element[]): string[] {
  const sigs = new Array<string>(elements.length);
  const ordinals = new Map<string, number>();
  for (let i = 0; i < elements.length; i++) {
    const el = elements[i];
    // Snapshots list parents before children; anything else is treated as a top-level.
    const parent = el.parent >= 0 && el.parent < i ? el.parent : -1;
    const slot = `${parent}\u0000${el.role}\u0000${el.name}`;
    const ordinal = ordinals.get(slot) ?? 0;
    ordinals.set(slot, ordinal + 1);
    const segment = `/${el.role}[${ordinal}]${nameToken(el.name)}`;
    sigs[i] = parent === -1 ? segment : sigs[parent] + segment;
  }
  return sigs;
}

/**
 * One key per element, unique within the snapshot: `Element.id` when non-empty, else
 * `sig:` + its path signature. A repeated key (a backend reporting one object twice)
 * gets a `#n` suffix, so callers can use the keys as map keys without losing entries.
 */
export function identityKeys(snapshot: Snapshot): string[] {
  const elements = snapshot.elements;
  const needSignatures = elements.some((el) => el.id === '');
  const sigs = needSignatures ? pathSignatures(elements) : undefined;
  const keys = new Array<string>(elements.length);
  const seen = new Set<string>();
  // Next suffix to try per repeated key, so many repeats stay linear.
  const nextSuffix = new Map<string, number>();
  for (let i = 0; i < elements.length; i++) {
    const id = elements[i].id;
    const base = id !== '' ? id : SIGNATURE_PREFIX + (sigs as string[])[i];
    let key = base;
    if (seen.has(key)) {
      let n = nextSuffix.get(base) ?? 2;
      while (seen.has(`${base}#${n}`)) n++;
      nextSuffix.set(base, n + 1);
      key = `${base}#${n}`;
    }
    seen.add(key);
    keys[i] = key;
  }
  return keys;
}
