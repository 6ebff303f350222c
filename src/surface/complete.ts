/**
 * Completion values: what the client typed so far picks among candidates. A prefix match
 * comes first, then a match anywhere (case-insensitive), each in the candidates' order,
 * without duplicates. (The SDK sends the first 100 and says how many there are.)
 */
export function completeFrom(candidates: Iterable<string>, typed: string | undefined): string[] {
  const want = (typed ?? '').trim().toLowerCase();
  const prefix: string[] = [];
  const inside: string[] = [];
  const seen = new Set<string>();
  for (const value of candidates) {
    if (value === '' || seen.has(value)) continue;
    seen.add(value);
    const lower = value.toLowerCase();
    if (lower.startsWith(want)) prefix.push(value);
    else if (lower.includes(want)) inside.push(value);
  }
  return [...prefix, ...inside];
}
