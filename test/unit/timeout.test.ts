/** withTimeout: the one bounded wait that the bus calls and the artifact dir share. */
import { describe, expect, it } from 'vitest';
import { withTimeout } from '../../src/model/timeout.js';

describe('withTimeout', () => {
  it('gives the result of an operation that finishes', async () => {
    await expect(withTimeout(Promise.resolve(7), 10_000, () => new Error('late'))).resolves.toBe(7);
  });

  it("passes on the operation's own failure", async () => {
    const op = Promise.reject(new Error('EACCES'));
    await expect(withTimeout(op, 10_000, () => new Error('late'))).rejects.toThrow('EACCES');
  });

  it('rejects with the caller’s error when the operation never ends', async () => {
    const never = new Promise<number>(() => undefined);
    await expect(withTimeout(never, 5, () => new Error('mkdir hung'))).rejects.toThrow(
      'mkdir hung',
    );
  });

  it('absorbs a rejection that comes after the bound (no unhandled rejection)', async () => {
    let fail!: (err: Error) => void;
    const op = new Promise<number>((_, reject) => (fail = reject));
    await expect(withTimeout(op, 5, () => new Error('bound'))).rejects.toThrow('bound');
    fail(new Error('too late'));
    await new Promise((resolve) => setImmediate(resolve));
  });
});
