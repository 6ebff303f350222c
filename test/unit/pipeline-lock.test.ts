import { describe, expect, it } from 'vitest';
import { KeyedLock } from '../../src/pipeline/lock.js';

/** A promise with its resolver, to hold a task open until the test lets it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Lets every queued microtask and one macrotask turn run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

describe('KeyedLock', () => {
  it('runs tasks on one key one after another, in call order, never interleaved', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const task = (name: string, turns: number) => async () => {
      log.push(`start ${name}`);
      for (let t = 0; t < turns; t++) await settle();
      log.push(`end ${name}`);
      return name;
    };
    // The first task takes the longest: without the lock the others would finish first.
    const results = await Promise.all([
      lock.run(1, task('a', 5)),
      lock.run(1, task('b', 1)),
      lock.run(1, task('c', 3)),
    ]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('does not start a queued task before the running one ends', async () => {
    const lock = new KeyedLock();
    const first = gate();
    let secondStarted = false;
    const p1 = lock.run('app', () => first.promise);
    const p2 = lock.run('app', async () => {
      secondStarted = true;
    });
    await settle();
    await settle();
    expect(secondStarted).toBe(false);
    first.open();
    await Promise.all([p1, p2]);
    expect(secondStarted).toBe(true);
  });

  it('runs different keys at the same time', async () => {
    const lock = new KeyedLock();
    const a = gate();
    const log: string[] = [];
    const pa = lock.run(100, async () => {
      log.push('start 100');
      await a.promise;
      log.push('end 100');
    });
    // Key 200 finishes while key 100 is still held open.
    await lock.run(200, async () => {
      log.push('start 200');
      log.push('end 200');
    });
    expect(log).toEqual(['start 100', 'start 200', 'end 200']);
    a.open();
    await pa;
    expect(log).toEqual(['start 100', 'start 200', 'end 200', 'end 100']);
  });

  it('treats a number key and a string key as different keys', async () => {
    const lock = new KeyedLock();
    const held = gate();
    const p = lock.run(5, () => held.promise);
    let ran = false;
    await lock.run('5', async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    held.open();
    await p;
  });

  it('keeps going after a task rejects, and gives each caller its own outcome', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const failing = lock.run(1, async () => {
      log.push('start bad');
      await settle();
      log.push('end bad');
      throw new Error('boom');
    });
    const after = lock.run(1, async () => {
      log.push('start good');
      return 42;
    });
    await expect(failing).rejects.toThrow('boom');
    await expect(after).resolves.toBe(42);
    expect(log).toEqual(['start bad', 'end bad', 'start good']);
  });

  it('keeps going after a task throws synchronously', async () => {
    const lock = new KeyedLock();
    const bad = lock.run(1, () => {
      throw new Error('sync boom');
    });
    await expect(bad).rejects.toThrow('sync boom');
    await expect(lock.run(1, async () => 'ok')).resolves.toBe('ok');
  });

  it('serializes a long chain with overlapping calls and no task ever runs twice', async () => {
    const lock = new KeyedLock();
    let running = 0;
    let maxRunning = 0;
    const order: number[] = [];
    const calls = Array.from({ length: 40 }, (_, k) =>
      lock.run('k', async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        for (let t = 0; t < k % 3; t++) await settle();
        order.push(k);
        running--;
        if (k % 7 === 0) throw new Error(`fail ${k}`);
        return k;
      }),
    );
    const outcomes = await Promise.allSettled(calls);
    expect(maxRunning).toBe(1);
    expect(order).toEqual(Array.from({ length: 40 }, (_, k) => k));
    outcomes.forEach((o, k) => {
      expect(o.status).toBe(k % 7 === 0 ? 'rejected' : 'fulfilled');
    });
  });
});
