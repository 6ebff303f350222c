/** The tree diff between two snapshots of one app: added, removed, modified (incl. moved). */
import type { Modification, TreeDiff } from '../model/diff.js';
import type { Snapshot } from '../model/element.js';
import { compareElements } from './compare.js';
import { matchElements } from './match.js';

/**
 * Added and modified come in after-snapshot order, removed in before-snapshot order, so
 * the same change always prints the same way. A scrolled element is one `moved`
 * modification (position only), never a removed+added pair.
 */
export function diffSnapshots(
  before: Snapshot,
  after: Snapshot,
  /** The matching of `after` against `before`, when the caller already made it. */
  matchOf: Int32Array = matchElements(before, after),
): TreeDiff {
  const kept = new Uint8Array(before.elements.length);
  const added: number[] = [];
  const modified: Modification[] = [];
  for (let i = 0; i < matchOf.length; i++) {
    const j = matchOf[i];
    if (j === -1) {
      added.push(i);
      continue;
    }
    kept[j] = 1;
    const { changes, moved } = compareElements(before.elements[j], after.elements[i]);
    if (changes.length > 0) modified.push({ before: j, after: i, changes, moved });
  }
  const removed: number[] = [];
  for (let j = 0; j < kept.length; j++) if (!kept[j]) removed.push(j);
  return { added, removed, modified, matchOf };
}
