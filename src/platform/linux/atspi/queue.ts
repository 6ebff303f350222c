/**
 * A bounded, prioritized call queue for one walk. At most `limit` D-Bus calls are in
 * flight (a 3,000-row table would otherwise put ~20,000 calls and their replies in memory
 * at once), and queued calls start in tree order: the priority is the element's position
 * key (sibling indices from the root), so when a cap or the time budget stops the walk,
 * what was read is close to a depth-first prefix: the elements that come first in the
 * tree file, in the windows that matter most.
 */

/** Position key: a shorter key that is a prefix of another sorts first (parent before child). */
export type Priority = readonly number[];

export class WalkStopped extends Error {
  constructor(reason: string) {
    super(`walk stopped: ${reason}`);
    this.name = 'WalkStopped';
  }
}

interface Task {
  priority: Priority;
  seq: number;
  fn: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export function comparePriority(a: Priority, b: Priority): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] - b[i];
  }
  return a.length - b.length;
}

function before(a: Task, b: Task): boolean {
  const c = comparePriority(a.priority, b.priority);
  return c < 0 || (c === 0 && a.seq < b.seq);
}

export class CallQueue {
  private readonly heap: Task[] = [];
  private inFlight = 0;
  private seq = 0;
  private stopReason: string | null = null;

  constructor(readonly limit = 256) {}

  get stopped(): boolean {
    return this.stopReason !== null;
  }

  /** Runs `fn` when a slot is free and nothing of higher priority waits. */
  run<T>(priority: Priority, fn: () => Promise<T>): Promise<T> {
    if (this.stopReason !== null) return Promise.reject(new WalkStopped(this.stopReason));
    if (this.inFlight < this.limit && this.heap.length === 0) {
      // A free slot and nobody waiting: start now, without a task and a wrapper promise
      // (most calls of a small walk take this path).
      this.inFlight++;
      let p: Promise<T>;
      try {
        p = fn();
      } catch (err) {
        p = Promise.reject(err);
      }
      p.then(this.settled, this.settled);
      return p;
    }
    // One task object and one promise per queued call: a 3,000-row table queues thousands,
    // and their garbage was a good part of the walk's CPU.
    return new Promise<T>((resolve, reject) => {
      this.push({
        priority,
        seq: this.seq++,
        fn,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      this.pump();
    });
  }

  private readonly settled = (): void => {
    this.inFlight--;
    this.pump();
  };

  private start(task: Task): void {
    this.inFlight++;
    let p: Promise<unknown>;
    try {
      p = task.fn();
    } catch (err) {
      p = Promise.reject(err);
    }
    p.then(
      (value) => {
        task.resolve(value);
        this.settled();
      },
      (err: unknown) => {
        task.reject(err);
        this.settled();
      },
    );
  }

  /** Rejects everything queued (calls in flight finish on their own) and refuses new work. */
  stop(reason: string): void {
    if (this.stopReason !== null) return;
    this.stopReason = reason;
    const err = new WalkStopped(reason);
    for (const t of this.heap.splice(0)) t.reject(err);
  }

  private pump(): void {
    while (this.inFlight < this.limit && this.heap.length > 0 && this.stopReason === null) {
      this.start(this.pop());
    }
  }

  private push(task: Task): void {
    const h = this.heap;
    h.push(task);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i], h[p])) break;
      swap(h, i, p);
      i = p;
    }
  }

  private pop(): Task {
    const h = this.heap;
    const top = h[0];
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l], h[m])) m = l;
        if (r < h.length && before(h[r], h[m])) m = r;
        if (m === i) break;
        swap(h, i, m);
        i = m;
      }
    }
    return top;
  }
}

/** In place: a destructuring swap allocates an array per step. */
function swap(h: Task[], i: number, j: number): void {
  const t = h[i];
  h[i] = h[j];
  h[j] = t;
}
