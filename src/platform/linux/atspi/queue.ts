/**
 * A bounded, prioritized call queue for one walk. At most `limit` D-Bus calls are in
 * flight (a 3,000-row table would otherwise put ~20,000 calls and their replies in memory
 * at once), and queued calls start in tree order: the priority is the element's position
 * key (sibling indices from the root), so when a cap or the time budget stops the walk,
 * what was read is close to a depth-first prefix: the elements that come first in the
 * tree file, in the windows that matter most.
 *
 * Two lanes. Structure calls (an element's basics, a container's children) decide what
 * else to ask; bulk calls (frames, texts, action names) decide nothing. An app answers in
 * the order it receives, so a structure call sent behind a hundred frames waits for all of
 * them, and the next level of the tree waits for it. Queued structure calls start before
 * queued bulk ones; bulk calls can also be held while structure calls are under way, for
 * at most `bulkHoldMs` at a time. That hold is off by default (BULK_HOLD_MS 0): measured on
 * the GTK 3 demos it gained nothing clear, and it cost elements when an app died mid-walk
 * (frames held back while the read that killed it went out: nothing complete to keep).
 */

/** Position key: a shorter key that is a prefix of another sorts first (parent before child). */
export type Priority = readonly number[];

/** Longest a bulk call waits for structure calls to finish before it goes out anyway. */
export const BULK_HOLD_MS = 0;

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

/**
 * Tasks by priority: a binary heap, beside a plain run of tasks that were pushed in
 * priority order (a big table queues its cells in tree order: an append costs one
 * comparison where the heap cost a dozen). The next task is the earlier of the two heads.
 */
class PriorityList {
  private readonly heap: Task[] = [];
  private run: Task[] = [];
  private head = 0;

  get size(): number {
    return this.heap.length + this.run.length - this.head;
  }

  push(task: Task): void {
    const run = this.run;
    if (run.length === this.head || !before(task, run[run.length - 1])) run.push(task);
    else this.pushHeap(task);
  }

  /** The earliest task; only when size > 0. */
  shift(): Task {
    const run = this.run;
    const fromRun =
      run.length > this.head && (this.heap.length === 0 || before(run[this.head], this.heap[0]));
    if (!fromRun) return this.popHeap();
    const task = run[this.head++];
    if (this.head === run.length) {
      this.run = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > run.length) {
      this.run = run.slice(this.head); // drop the taken head now and then
      this.head = 0;
    }
    return task;
  }

  /** Empties the list, returning what it held. */
  drain(): Task[] {
    const all = [...this.heap.splice(0), ...this.run.slice(this.head)];
    this.run = [];
    this.head = 0;
    return all;
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

  private popHeap(): Task {
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

export class CallQueue {
  private readonly structure = new PriorityList();
  private readonly bulk = new PriorityList();
  private inFlight = 0;
  private structureInFlight = 0;
  /** When the oldest held bulk call was held (performance.now()), or -1 when none is. */
  private heldSince = -1;
  private holdTimer: NodeJS.Timeout | null = null;
  private seq = 0;
  private stopReason: string | null = null;

  constructor(
    readonly limit = 256,
    readonly bulkHoldMs = BULK_HOLD_MS,
  ) {}

  get stopped(): boolean {
    return this.stopReason !== null;
  }

  /**
   * Runs `fn` when a slot is free and nothing of higher priority waits. `structure`: the
   * call's answer decides what else to ask (see the lanes above).
   */
  run<T>(priority: Priority, fn: () => Promise<T>, structure = false): Promise<T> {
    if (this.stopReason !== null) return Promise.reject(new WalkStopped(this.stopReason));
    if (this.canStartNow(structure)) {
      // A free slot and nobody waiting: start now, without a task and a wrapper promise
      // (most calls of a small walk take this path).
      this.inFlight++;
      if (structure) this.structureInFlight++;
      let p: Promise<T>;
      try {
        p = fn();
      } catch (err) {
        p = Promise.reject(err);
      }
      p.then(
        structure ? this.structureSettled : this.settled,
        structure ? this.structureSettled : this.settled,
      );
      return p;
    }
    // One task object and one promise per queued call: a 3,000-row table queues thousands,
    // and their garbage was a good part of the walk's CPU.
    return new Promise<T>((resolve, reject) => {
      const task: Task = {
        priority,
        seq: this.seq++,
        fn,
        resolve: resolve as (value: unknown) => void,
        reject,
      };
      if (structure) this.structure.push(task);
      else this.holdBulk(task);
      this.pump();
    });
  }

  /**
   * Calls `begin` when its turn comes in priority order and a slot is free, or `cancel` if
   * the queue stops first. A walk defers an element's reads this way instead of queueing
   * them: their calls, promises and closures then exist only once they can be sent (a
   * 3,000-row table otherwise holds thousands of each for the whole walk, and the garbage
   * collector copied them again and again). It waits in the structure lane: the element's
   * first reads are its basics.
   */
  defer(priority: Priority, begin: () => void, cancel: (err: unknown) => void): void {
    if (this.stopReason !== null) {
      cancel(new WalkStopped(this.stopReason));
      return;
    }
    if (this.canStartNow(true)) {
      begin();
      return;
    }
    this.structure.push({ priority, seq: this.seq++, begin, resolve: noop, reject: cancel });
    this.pump();
  }

  /** Rejects everything queued (calls in flight finish on their own) and refuses new work. */
  stop(reason: string): void {
    if (this.stopReason !== null) return;
    this.stopReason = reason;
    this.clearHold();
    const err = new WalkStopped(reason);
    for (const t of [...this.structure.drain(), ...this.bulk.drain()]) t.reject(err);
  }

  private canStartNow(structure: boolean): boolean {
    if (this.inFlight >= this.limit || this.structure.size > 0) return false;
    return structure || (this.bulk.size === 0 && this.bulkMayGo());
  }

  /** Bulk calls go out when no structure call is under way, or after BULK_HOLD_MS held. */
  private bulkMayGo(): boolean {
    if (this.bulkHoldMs <= 0 || this.structureInFlight === 0) return true;
    return this.heldSince >= 0 && performance.now() - this.heldSince >= this.bulkHoldMs;
  }

  private holdBulk(task: Task): void {
    this.bulk.push(task);
    if (this.heldSince < 0) {
      this.heldSince = performance.now();
      this.holdTimer = setTimeout(() => {
        this.holdTimer = null;
        this.pump();
      }, this.bulkHoldMs);
      this.holdTimer.unref();
    }
  }

  private clearHold(): void {
    this.heldSince = -1;
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = null;
  }

  private readonly settled = (): void => {
    this.inFlight--;
    this.pump();
  };

  private readonly structureSettled = (): void => {
    this.structureInFlight--;
    this.settled();
  };

  private pump(): void {
    while (this.inFlight < this.limit && this.stopReason === null) {
      if (this.structure.size > 0) {
        this.start(this.structure.shift(), true);
      } else if (this.bulk.size > 0 && this.bulkMayGo()) {
        this.start(this.bulk.shift(), false);
        if (this.bulk.size === 0) this.clearHold();
      } else {
        break;
      }
    }
  }

  private start(task: Task, structure: boolean): void {
    if (task.begin) {
      task.begin();
      return;
    }
    this.inFlight++;
    if (structure) this.structureInFlight++;
    const done = structure ? this.structureSettled : this.settled;
    let p: Promise<unknown>;
    try {
      p = task.fn!();
    } catch (err) {
      p = Promise.reject(err);
    }
    p.then(
      (value) => {
        task.resolve(value);
        done();
      },
      (err: unknown) => {
        task.reject(err);
        done();
      },
    );
  }
}

const noop = (): void => undefined;

/** In place: a destructuring swap allocates an array per step. */
function swap(h: Task[], i: number, j: number): void {
  const t = h[i];
  h[i] = h[j];
  h[j] = t;
}
