/** Carrying element refs from one snapshot to the next along the diff's matching. */

/**
 * Refs for the after-snapshot: a matched element keeps its before-ref, so a ref names
 * the same element across calls; an unmatched one gets a freshly minted ref.
 */
export function carryRefs(
  matchOf: Int32Array,
  beforeRefs: readonly string[],
  mint: () => string,
): string[] {
  const refs = new Array<string>(matchOf.length);
  for (let i = 0; i < matchOf.length; i++) {
    const j = matchOf[i];
    const carried = j >= 0 ? beforeRefs[j] : undefined;
    refs[i] = carried ?? mint();
  }
  return refs;
}
