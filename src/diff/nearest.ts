/**
 * A sorted list of positions from which the one nearest to a query is taken, each at
 * most once. Two union-find arrays skip taken entries, so n takes cost about O(n log n)
 * even when thousands of identical rows share one list.
 */
export class NearestPool {
  private readonly positions: number[] = [];
  private readonly items: number[] = [];
  /** right[k]: the next untaken slot at or after k (slot `length` = none). */
  private right?: Int32Array;
  /** left[k + 1]: one past the previous untaken slot at or before k (0 = none). */
  private left?: Int32Array;
  private remaining = 0;

  /** Positions must be added in ascending order. */
  add(position: number, item: number): void {
    this.positions.push(position);
    this.items.push(item);
    this.remaining++;
  }

  /** Takes the untaken item whose position is nearest (ties go to the earlier one), or -1. */
  take(position: number): number {
    if (this.remaining === 0) return -1;
    const n = this.positions.length;
    if (n === 1) {
      this.remaining = 0;
      return this.items[0];
    }
    if (!this.right || !this.left) {
      this.right = Int32Array.from({ length: n + 1 }, (_, k) => k);
      this.left = Int32Array.from({ length: n + 1 }, (_, k) => k);
    }
    const k = this.lowerBound(position);
    const r = find(this.right, k);
    const l = find(this.left, k) - 1;
    let slot: number;
    if (r >= n) slot = l;
    else if (l < 0) slot = r;
    else slot = position - this.positions[l] <= this.positions[r] - position ? l : r;
    this.right[slot] = slot + 1;
    this.left[slot + 1] = slot;
    this.remaining--;
    return this.items[slot];
  }

  private lowerBound(position: number): number {
    let lo = 0;
    let hi = this.positions.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.positions[mid] < position) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Union-find root with path halving. */
function find(links: Int32Array, k: number): number {
  while (links[k] !== k) {
    links[k] = links[links[k]];
    k = links[k];
  }
  return k;
}
