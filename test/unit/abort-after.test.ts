/**
 * A step's timeout fires even when nothing but the combined signal refers to it and the
 * garbage collector runs meanwhile (AbortSignal.any over AbortSignal.timeout does not, on
 * Node 20), and it stops when cleared.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { abortAfter } from '../../src/model/timeout.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Whether `signal` aborts within `ms`, with the collector run several times meanwhile. */
async function abortsWithin(signal: AbortSignal, ms: number): Promise<boolean> {
  const aborted = new Promise<boolean>((resolve) =>
    signal.addEventListener('abort', () => resolve(true), { once: true }),
  );
  for (let i = 0; i < 5; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  return Promise.race([aborted, new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
}

describe('abortAfter', () => {
  it('aborts after its time, though only the combined signal is kept', async () => {
    const parent = new AbortController();
    const { signal } = abortAfter(parent.signal, 50);
    expect(await abortsWithin(signal, 5000)).toBe(true);
  });

  it('aborts with its parent, and not at all once cleared', async () => {
    const parent = new AbortController();
    const first = abortAfter(parent.signal, 60_000);
    parent.abort();
    expect(first.signal.aborted).toBe(true);
    first.clear();
    const cleared = abortAfter(new AbortController().signal, 30);
    cleared.clear();
    expect(await abortsWithin(cleared.signal, 300)).toBe(false);
  });
});
