/**
 * Pairs the elements of two snapshots of one app. Never by screen position: a scrolled
 * or reflowed element keeps its identity and is reported as moved, not removed+added.
 */
import type { Element, Snapshot } from '../model/element.js';
import { identityKeys } from './identity.js';
import { NearestPool } from './nearest.js';

/** Position of each element among its parent's children (top-levels count among themselves). */
function siblingPositions(elements: readonly Element[]): Int32Array {
  const positions = new Int32Array(elements.length);
  const counts = new Int32Array(elements.length + 1);
  for (let i = 0; i < elements.length; i++) {
    const p = parentOf(elements, i);
    positions[i] = counts[p + 1]++;
  }
  return positions;
}

/** The parent index, or -1 for top-levels and for malformed links (parents come first). */
function parentOf(elements: readonly Element[], i: number): number {
  const p = elements[i].parent;
  return p >= 0 && p < i ? p : -1;
}

/** What a re-created but unchanged element shares with its old self, under a given parent. */
function contentKey(parentBefore: number, el: Element): string {
  return `${parentBefore}\u0000${el.role}\u0000${el.name}\u0000${el.value ?? ''}`;
}

/**
 * For each after-element, the index of the same element in `before`, or -1.
 *
 * Pass 1 pairs equal identity keys (platform id or path signature). Pass 2 is for apps
 * that re-create accessibles (GTK rows on scroll, re-renders): a still-unpaired element
 * is paired with an unpaired before-element under the same (already paired) parent with
 * the same role, name and value, the nearest sibling position winning. Walking in tree
 * order lets whole re-created subtrees pair from the top down. O(n log n) overall.
 */
export function matchElements(before: Snapshot, after: Snapshot): Int32Array {
  const b = before.elements;
  const a = after.elements;
  const matchOf = new Int32Array(a.length).fill(-1);
  const taken = new Uint8Array(b.length);

  const byKey = new Map<string, number>();
  identityKeys(before).forEach((key, j) => byKey.set(key, j));
  const afterKeys = identityKeys(after);
  let unpaired = 0;
  for (let i = 0; i < a.length; i++) {
    const j = byKey.get(afterKeys[i]);
    if (j === undefined) {
      unpaired++;
      continue;
    }
    matchOf[i] = j;
    taken[j] = 1;
  }
  if (unpaired === 0) return matchOf;

  const pools = new Map<string, NearestPool>();
  const beforePos = siblingPositions(b);
  for (let j = 0; j < b.length; j++) {
    if (taken[j]) continue;
    const key = contentKey(parentOf(b, j), b[j]);
    let pool = pools.get(key);
    if (!pool) pools.set(key, (pool = new NearestPool()));
    pool.add(beforePos[j], j);
  }
  if (pools.size === 0) return matchOf;

  const afterPos = siblingPositions(a);
  for (let i = 0; i < a.length; i++) {
    if (matchOf[i] !== -1) continue;
    const p = parentOf(a, i);
    const parentBefore = p === -1 ? -1 : matchOf[p];
    // An unpaired parent has no old children to pair with.
    if (p !== -1 && parentBefore === -1) continue;
    const pool = pools.get(contentKey(parentBefore, a[i]));
    if (!pool) continue;
    const j = pool.take(afterPos[i]);
    if (j !== -1) matchOf[i] = j;
  }
  return matchOf;
}
