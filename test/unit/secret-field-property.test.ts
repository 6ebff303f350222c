import { describe, expect, it } from 'vitest';
import {
  SecretFieldProperty,
  decodeSecretFields,
  encodeSecretFields,
  mergeSecretFields,
  type StartOf,
} from '../../src/platform/linux/secret-field-property.js';
import type { RootProperty } from '../../src/platform/linux/x11.js';

/** Processes as a table of pid → start time: a pid missing from it is gone. */
function processes(table: Record<number, number>): StartOf {
  return (pid) => table[pid];
}

function text(apps: Record<string, unknown>): string {
  return JSON.stringify({ version: 1, apps });
}

describe('the secret fields property, as data', () => {
  it('keeps an entry only while its pid runs with the start time recorded', () => {
    const now = processes({ 7: 100, 8: 200 });
    const entries = decodeSecretFields(
      text({
        7: { start: 100, ids: [':1.5/a/1'] },
        // pid 8 exited and another process got its pid: not its fields.
        8: { start: 150, ids: [':1.6/b/1'] },
        // pid 9 is gone.
        9: { start: 300, ids: [':1.7/c/1'] },
      }),
      now,
    );
    expect(entries).toEqual(new Map([[7, { start: 100, ids: [':1.5/a/1'] }]]));
  });

  it('gives a reused pid nothing of the process that had it before', () => {
    const before = decodeSecretFields(
      text({ 8: { start: 150, ids: [':1.6/b/1'] } }),
      processes({ 8: 150 }),
    );
    // pid 8 now belongs to a process started at 200.
    const merged = mergeSecretFields(before, new Map([[8, [':1.9/x/2']]]), processes({ 8: 200 }));
    expect(merged).toEqual(new Map([[8, { start: 200, ids: [':1.9/x/2'] }]]));
  });

  it("merges a process's new ids with what others saved, and drops the gone ones at a save", () => {
    const table = { 7: 100, 8: 200 };
    const saved = text({
      7: { start: 100, ids: ['a'] },
      8: { start: 200, ids: ['b'] },
      9: { start: 300, ids: ['gone'] },
    });
    const merged = mergeSecretFields(
      decodeSecretFields(saved, processes(table)),
      new Map([
        [7, ['a', 'c', '']],
        [10, ['not-running']],
      ]),
      processes(table),
    );
    expect(decodeSecretFields(encodeSecretFields(merged), processes(table))).toEqual(
      new Map([
        [7, { start: 100, ids: ['a', 'c'] }],
        [8, { start: 200, ids: ['b'] }],
      ]),
    );
  });

  it('reads anything else as nothing remembered', () => {
    const now = processes({ 7: 100 });
    for (const garbled of [
      '',
      '{"apps": [1, 2',
      'null',
      '{"apps": [[7, 1]]}',
      text({ 7: { start: '100', ids: ['a'] } }),
      text({ 7: { start: 100, ids: 'a' } }),
      text({ '-7': { start: 100, ids: ['a'] } }),
    ]) {
      expect(decodeSecretFields(garbled, now), garbled).toEqual(new Map());
    }
    expect(decodeSecretFields(text({ 7: { start: 100, ids: ['a', 3, ''] } }), now)).toEqual(
      new Map([[7, { start: 100, ids: ['a'] }]]),
    );
  });
});

/** One root property, as two connections (two servers) see it; updates run one at a time as under a grab. */
function sharedProperty() {
  const state = { bytes: null as Buffer | null, writes: 0, fail: undefined as Error | undefined };
  const open = (): RootProperty =>
    ({
      name: ':0',
      usable: true,
      read: () => state.bytes,
      update(fn: (current: Buffer | null) => Buffer | null | undefined) {
        if (state.fail) throw state.fail;
        const next = fn(state.bytes);
        if (next === undefined) return false;
        state.bytes = next;
        state.writes++;
        return true;
      },
      close() {},
    }) as RootProperty;
  return { state, open };
}

describe('SecretFieldProperty', () => {
  const now = processes({ 7: 100, 8: 200 });

  it('a second server gets what the first saved, and nothing again until it changes', () => {
    const { open } = sharedProperty();
    const first = new SecretFieldProperty(open, now);
    first.save(new Map([[7, ['a']]]));
    first.save(new Map([[7, ['b']]]));
    const second = new SecretFieldProperty(open, now);
    expect(second.loadIfChanged()).toEqual(new Map([[7, ['a', 'b']]]));
    expect(second.loadIfChanged()).toBeNull();
    first.save(new Map([[8, ['c']]]));
    expect(second.loadIfChanged()).toEqual(
      new Map([
        [7, ['a', 'b']],
        [8, ['c']],
      ]),
    );
  });

  it("a server that saves still takes in the others' ids its save kept", () => {
    const { open } = sharedProperty();
    const first = new SecretFieldProperty(open, now);
    const second = new SecretFieldProperty(open, now);
    expect(second.loadIfChanged()).toEqual(new Map());
    first.save(new Map([[7, ['a']]]));
    second.save(new Map([[8, ['b']]]));
    expect(second.loadIfChanged()).toEqual(
      new Map([
        [7, ['a']],
        [8, ['b']],
      ]),
    );
  });

  it('writes nothing when a save adds nothing', () => {
    const { open, state } = sharedProperty();
    const store = new SecretFieldProperty(open, now);
    store.save(new Map([[7, ['a']]]));
    store.save(new Map([[7, ['a']]]));
    expect(state.writes).toBe(1);
  });

  it('a save that cannot be made throws, never returns as if it were kept', () => {
    const { open, state } = sharedProperty();
    state.fail = new Error('X error: BadAlloc (insufficient resources for operation)');
    const store = new SecretFieldProperty(open, now);
    expect(() => store.save(new Map([[7, ['a']]]))).toThrow(/BadAlloc/);
    expect(state.bytes).toBeNull();
  });

  it('opens its connection again once the last one was lost', () => {
    const { state } = sharedProperty();
    let opened = 0;
    const conns: Array<{ usable: boolean }> = [];
    const store = new SecretFieldProperty(() => {
      opened++;
      const conn = {
        usable: true,
        read: () => state.bytes,
        update: () => false,
        close() {},
      };
      conns.push(conn);
      return conn as unknown as RootProperty;
    }, now);
    store.loadIfChanged();
    store.loadIfChanged();
    expect(opened).toBe(1);
    conns[0].usable = false;
    store.loadIfChanged();
    expect(opened).toBe(2);
  });
});
