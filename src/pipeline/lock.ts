/**
 * Serializes work per key (an app's pid): calls on one app run one after another so
 * that nothing interleaves inside one response; calls on different apps run at once.
 */
export class KeyedLock {
  private readonly tails = new Map<string | number, Promise<unknown>>();

  run<T>(key: string | number, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
