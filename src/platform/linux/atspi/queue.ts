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
  /** A call: run when a slot is free; settles resolve/reject. */
  fn?: () => Promise<unknown>;
  /** A deferred start (see defer): called when its turn comes, takes no slot itself. */
  begin?: () => void;
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
  /**
   * Tasks pushed in priority order, first at `runHead`: a big table queues its cells' calls
   * in tree order, and an append here costs one comparison where the heap cost a dozen.
   * The next task is the earlier of this run's first and the heap's top.
   */
  private run_: Task[] = [];
  private runHead = 0;
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
    if (this.inFlight < this.limit && this.waiting === 0) {
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

  /**
   * Calls `begin` when its turn comes in priority order and a slot is free, or `cancel` if
   * the queue stops first. A walk defers an element's reads this way instead of queueing
   * them: their calls, promises and closures then exist only once they can be sent (a
   * 3,000-row table otherwise holds thousands of each for the whole walk, and the garbage
   * collector copied them again and again).
   */
  defer(priority: Priority, begin: () => void, cancel: (err: unknown) => void): void {
    if (this.stopReason !== null) {
      cancel(new WalkStopped(this.stopReason));
      return;
    }
    if (this.inFlight < this.limit && this.waiting === 0) {
      begin();
      return;
    }
    this.push({ priority, seq: this.seq++, begin, resolve: noop, reject: cancel });
    this.pump();
  }

  private readonly settled = (): void => {
    this.inFlight--;
    this.pump();
  };

  private start(task: Task): void {
    if (task.begin) {
      task.begin();
      return;
    }
    this.inFlight++;
    let p: Promise<unknown>;
    try {
      p = task.fn!();
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
    const queued = [...this.heap.splice(0), ...this.run_.slice(this.runHead)];
    this.run_ = [];
    this.runHead = 0;
    for (const t of queued) t.reject(err);
  }

  private get waiting(): number {
    return this.heap.length + this.run_.length - this.runHead;
  }

  private pump(): void {
    while (this.inFlight < this.limit && this.waiting > 0 && this.stopReason === null) {
      this.start(this.next());
    }
  }

  private push(task: Task): void {
    const run = this.run_;
    if (run.length === this.runHead || !before(task, run[run.length - 1])) {
      run.push(task);
      return;
    }
    this.pushHeap(task);
  }

  private next(): Task {
    const run = this.run_;
    if (
      run.length > this.runHead &&
      (this.heap.length === 0 || before(run[this.runHead], this.heap[0]))
    ) {
      const task = run[this.runHead++];
      if (this.runHead === run.length) {
        this.run_ = [];
        this.runHead = 0;
      } else if (this.runHead > 1024 && this.runHead * 2 > run.length) {
        this.run_ = run.slice(this.runHead); // drop the taken head now and then
        this.runHead = 0;
      }
      return task;
    }
    return this.pop();
  }

  private pushHeap(task: Task): void {
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

const noop = (): void => undefined;

/** In place: a destructuring swap allocates an array per step. */
function swap(h: Task[], i: number, j: number): void {
  const t = h[i];
  h[i] = h[j];
  h[j] = t;
}
