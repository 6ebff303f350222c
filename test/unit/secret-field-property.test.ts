import { describe, expect, it } from 'vitest';
import {
  SecretFieldProperty,
  decodeSecretFields,
  encodeSecretFields,
  mergeSecretFields,
  type StartOf,
} from '../../src/platform/linux/secret-field-property.js';
import type { RootProperty } from '../../src/platform/linux/x11.js';

/** Fields known by their ids only. */
const ids = (...list: string[]) => list.map((id) => ({ id }));

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
    const merged = mergeSecretFields(
      before,
      new Map([[8, ids(':1.9/x/2')]]),
      processes({ 8: 200 }),
    );
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
        [7, ids('a', 'c', '')],
        [10, ids('not-running')],
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

  it('keeps what identifies each field besides its id, and what a save gives replaces it', () => {
    const now = processes({ 7: 100 });
    const seen = {
      id: 'a',
      name: 'Account password',
      frame: { x: 159, y: 116, w: 368, h: 33 },
      spot: { x: 159, y: 12, w: 368, h: 33 },
      parent: 'p',
      window: 'w',
    };
    const merged = mergeSecretFields(new Map(), new Map([[7, [seen, { id: 'b' }]]]), now);
    const entries = decodeSecretFields(encodeSecretFields(merged), now);
    const { id: _a, ...traits } = seen;
    expect(entries).toEqual(new Map([[7, { start: 100, ids: ['a', 'b'], traits: { a: traits } }]]));
    const moved = { id: 'a', frame: { x: 459, y: 316, w: 368, h: 33 } };
    const again = mergeSecretFields(entries, new Map([[7, [moved]]]), now);
    expect(again.get(7)?.traits?.a).toEqual({ ...traits, frame: moved.frame });
  });

  it('drops what is not well formed of the traits, and caps a name', () => {
    const now = processes({ 7: 100 });
    const entries = decodeSecretFields(
      text({
        7: {
          start: 100,
          ids: ['a', 'b', 'c'],
          traits: {
            a: { name: 'n'.repeat(500), frame: { x: 1, y: 2, w: 'wide', h: 4 }, parent: 5 },
            b: 'Account password',
            gone: { name: 'not one of the ids' },
          },
        },
      }),
      now,
    );
    expect(entries.get(7)).toEqual({
      start: 100,
      ids: ['a', 'b', 'c'],
      traits: { a: { name: 'n'.repeat(120) } },
    });
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
    first.save(new Map([[7, ids('a')]]));
    first.save(new Map([[7, ids('b')]]));
    const second = new SecretFieldProperty(open, now);
    expect(second.loadIfChanged()).toEqual(new Map([[7, ids('a', 'b')]]));
    expect(second.loadIfChanged()).toBeNull();
    first.save(new Map([[8, ids('c')]]));
    expect(second.loadIfChanged()).toEqual(
      new Map([
        [7, ids('a', 'b')],
        [8, ids('c')],
      ]),
    );
  });

  it("a server that saves still takes in the others' ids its save kept", () => {
    const { open } = sharedProperty();
    const first = new SecretFieldProperty(open, now);
    const second = new SecretFieldProperty(open, now);
    expect(second.loadIfChanged()).toEqual(new Map());
    first.save(new Map([[7, ids('a')]]));
    second.save(new Map([[8, ids('b')]]));
    expect(second.loadIfChanged()).toEqual(
      new Map([
        [7, ids('a')],
        [8, ids('b')],
      ]),
    );
  });

  it('hands over each field with what identifies it besides its id', () => {
    const { open } = sharedProperty();
    const field = { id: 'a', name: 'Vault password', frame: { x: 1, y: 2, w: 3, h: 4 } };
    new SecretFieldProperty(open, now).save(new Map([[7, [field]]]));
    expect(new SecretFieldProperty(open, now).loadIfChanged()).toEqual(new Map([[7, [field]]]));
  });

  it('writes nothing when a save adds nothing', () => {
    const { open, state } = sharedProperty();
    const store = new SecretFieldProperty(open, now);
    store.save(new Map([[7, ids('a')]]));
    store.save(new Map([[7, ids('a')]]));
    expect(state.writes).toBe(1);
  });

  it('a save that cannot be made throws, never returns as if it were kept', () => {
    const { open, state } = sharedProperty();
    state.fail = new Error('X error: BadAlloc (insufficient resources for operation)');
    const store = new SecretFieldProperty(open, now);
    expect(() => store.save(new Map([[7, ids('a')]]))).toThrow(/BadAlloc/);
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
