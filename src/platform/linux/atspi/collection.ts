/**
 * Collection.GetMatches: an app finds its own elements by role and state, one round trip
 * however big its tree (where a walk would cost a call per element). GTK 3 and Firefox
 * have it; GTK 4 and Qt answer that they do not (NO_COLLECTION).
 */
import { withTimeout, type ObjectRef } from './bus.js';
import { STATE } from './states.js';
import type { CallFn } from './read.js';

const COLLECTION = 'org.a11y.atspi.Collection';
/** AtspiCollectionMatchType / AtspiCollectionSortOrder values. */
const MATCH_ALL = 1;
const MATCH_ANY = 2;
/** Anything else (0 is "invalid") makes the bridge answer with no matches at all. */
const SORT_CANONICAL = 1;

/**
 * How toolkits without the Collection interface refuse the call; Qt says UnknownObject
 * ("No such object path") for an interface it does not handle.
 */
export const NO_COLLECTION = /UnknownMethod|UnknownInterface|NotSupported|UnknownObject/;

/** A bitset of 32-bit words, as match rules carry roles and states. */
function bitset(values: readonly number[], words: number): number[] {
  const bits = new Array<number>(words).fill(0);
  // `|` keeps each word a signed 32-bit number, as D-Bus 'i' wants it.
  for (const v of values) bits[v >> 5] |= 1 << (v & 31);
  return bits;
}

/**
 * The match rule (aiia{ss}iaiiasib) for showing elements of any of the roles (showing: as a
 * walk reads frames only of showing elements, an element in a hidden window has no place).
 */
export function showingRule(roles: readonly number[]): unknown[] {
  return [
    bitset([STATE.SHOWING], 2),
    MATCH_ALL,
    {},
    MATCH_ALL,
    bitset(roles, 4),
    MATCH_ANY,
    [],
    MATCH_ALL,
    false,
  ];
}

/** The app's elements that match `rule`, by one Collection call within `timeoutMs`. */
export async function matching(
  call: CallFn,
  app: { bus: string; path: string },
  rule: unknown[],
  timeoutMs: number,
  what: string,
): Promise<ObjectRef[]> {
  const [matches] = await withTimeout(
    call(app.bus, app.path, COLLECTION, 'GetMatches', '(aiia{ss}iaiiasib)uib', [
      rule,
      SORT_CANONICAL,
      0,
      true,
    ]),
    timeoutMs,
    what,
  );
  return matches as ObjectRef[];
}
