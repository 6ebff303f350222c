import { describe, expect, it } from 'vitest';
import type { Element, Snapshot } from '../../src/model/element.js';
import type { Desktop, SecureFieldScan } from '../../src/platform/desktop.js';
import { SecretFields, keepingSecrets } from '../../src/pipeline/secret-fields.js';

const SECRET = 'opensesame-42';

function field(id: string, secure: boolean, value?: string): Element {
  return {
    id,
    parent: -1,
    depth: 0,
    role: 'AXTextField',
    nativeRole: secure ? 'password text' : 'text',
    name: value === undefined ? 'Passphrase' : `Passphrase ${value}`,
    value,
    flags: secure ? ['secure'] : ['editable'],
    actions: [],
    childCount: 0,
  };
}

function walk(pid: number, ...elements: Element[]): Snapshot {
  return {
    pid,
    app: 'app',
    elements,
    windows: [],
    truncated: null,
    elapsedMs: 1,
    takenAt: 0,
    method: 'test',
  };
}

describe('SecretFields', () => {
  it('a field seen once as a password field stays one after its app reveals it', () => {
    const fields = new SecretFields();
    fields.keep(walk(7, field(':1.5/a/1', true)));
    const revealed = fields.keep(
      walk(7, field(':1.5/a/1', false, SECRET), field(':1.5/a/2', false, 'hi')),
    );
    const [kept, other] = revealed.elements;
    expect(kept.flags).toContain('secure');
    expect(kept.value).toBeUndefined();
    expect(JSON.stringify(kept)).not.toContain(SECRET);
    expect(kept.name).toBe('Passphrase •••');
    expect(other.value).toBe('hi');
    expect(fields.isSecretField(7, { id: ':1.5/a/1', flags: [] })).toBe(true);
    expect(fields.isSecretField(7, { id: ':1.5/a/2', flags: [] })).toBe(false);
    expect(fields.isSecretField(8, { id: ':1.5/a/1', flags: [] })).toBe(false);
    expect(fields.isSecretField(8, { id: 'x', flags: ['secure'] })).toBe(true);
  });

  it('a field never seen as one is plain text; an app that exited is forgotten', () => {
    const fields = new SecretFields();
    expect(fields.keep(walk(7, field(':1.5/a/1', false, SECRET))).elements[0].value).toBe(SECRET);
    fields.learn(7, [':1.5/a/1', '']);
    expect(fields.remembered()).toEqual(new Map([[7, [':1.5/a/1']]]));
    fields.forget(7);
    expect(fields.has(':1.5/a/1')).toBe(false);
  });
});

describe('keepingSecrets', () => {
  it('never reads a remembered field, masks fresh reads, and hands its ids to the lookup', async () => {
    const fields = new SecretFields();
    const asked: string[] = [];
    let remembered: ReadonlyMap<number, readonly string[]> | undefined;
    const inner = {
      platform: 'test',
      snapshot: async () => walk(7, field(':1.5/a/1', true)),
      readText: async (id: string) => {
        asked.push(id);
        return SECRET;
      },
      readElement: async (id: string) => field(id, false, SECRET),
      secureFieldFrames: async (
        _r: unknown,
        _t: number,
        _s: unknown,
        ids?: ReadonlyMap<number, readonly string[]>,
      ): Promise<SecureFieldScan> => {
        remembered = ids;
        return { fresh: [{ pid: 9, frames: [], ids: [':1.9/p/3'] }], failed: [] };
      },
    } as unknown as Desktop;
    const desktop = keepingSecrets(inner, fields);
    expect(desktop.platform).toBe('test');
    await desktop.snapshot(7, {} as never);
    expect(await desktop.readText(':1.5/a/1')).toBeUndefined();
    expect(asked).toEqual([]);
    expect(await desktop.readText(':1.5/a/9')).toBe(SECRET);
    expect((await desktop.readElement(':1.5/a/1')).value).toBeUndefined();
    await desktop.secureFieldFrames({ x: 0, y: 0, w: 1, h: 1 }, 100);
    expect(remembered).toEqual(new Map([[7, [':1.5/a/1']]]));
    expect(fields.has(':1.9/p/3')).toBe(true);
  });
});

describe('SecretFields kept in a store', () => {
  /** A store shared by two "servers", as the file on one desktop is. */
  function sharedStore() {
    const held = new Map<number, Set<string>>();
    let version = 0;
    const seenBy = new WeakMap<object, number>();
    return (owner: object) => ({
      loadIfChanged() {
        if (seenBy.get(owner) === version) return null;
        seenBy.set(owner, version);
        return new Map([...held].map(([pid, ids]) => [pid, [...ids]]));
      },
      save(byPid: ReadonlyMap<number, Iterable<string>>) {
        for (const [pid, ids] of byPid) {
          const known = held.get(pid) ?? new Set<string>();
          for (const id of ids) known.add(id);
          held.set(pid, known);
        }
        version++;
        seenBy.set(owner, version);
      },
    });
  }

  it('a field the first memory saw as a password field is one to the next memory', () => {
    const store = sharedStore();
    const first = new SecretFields();
    first.persistIn(store(first));
    first.keep(walk(7, field(':1.5/a/1', true)));
    const second = new SecretFields();
    second.persistIn(store(second));
    const revealed = second.keep(walk(7, field(':1.5/a/1', false, SECRET)));
    expect(revealed.elements[0].flags).toContain('secure');
    expect(JSON.stringify(revealed)).not.toContain(SECRET);
  });

  it('ids learned by another memory after start are taken in at the next look', () => {
    const store = sharedStore();
    const first = new SecretFields();
    const second = new SecretFields();
    first.persistIn(store(first));
    second.persistIn(store(second));
    first.learn(7, [':1.5/a/1']);
    expect(second.has(':1.5/a/1')).toBe(true);
  });

  it('a failing store leaves the memory whole and is reported, saves and loads apart', () => {
    const errors: Array<[string, string]> = [];
    const fields = new SecretFields();
    const broken = {
      loadIfChanged: () => {
        throw new Error('unreadable');
      },
      save: () => {
        throw new Error('disk full');
      },
    };
    fields.persistIn(broken, (err, op) => errors.push([op, (err as Error).message]));
    fields.learn(7, [':1.5/a/1']);
    expect(fields.has(':1.5/a/1')).toBe(true);
    expect(errors).toContainEqual(['save', 'disk full']);
    expect(errors).toContainEqual(['load', 'unreadable']);
  });

  it('ids a save failed to keep are saved again at the next look', () => {
    const saved: Array<[number, string[]]> = [];
    let failing = true;
    const errors: unknown[] = [];
    const fields = new SecretFields();
    fields.persistIn(
      {
        loadIfChanged: () => null,
        save(byPid) {
          if (failing) throw new Error('no room');
          for (const [pid, ids] of byPid) saved.push([pid, [...ids]]);
        },
      },
      (err) => errors.push(err),
    );
    fields.learn(7, ['a']);
    expect(errors).toHaveLength(1);
    failing = false;
    expect(fields.has('a')).toBe(true);
    expect(saved).toEqual([[7, ['a']]]);
    fields.has('a');
    expect(saved).toHaveLength(1);
  });

  it('touches the store only once the memory is used', () => {
    let used = 0;
    const fields = new SecretFields();
    fields.persistIn({
      loadIfChanged: () => {
        used++;
        return null;
      },
      save: () => {
        used++;
      },
    });
    expect(used).toBe(0);
    fields.has('a');
    expect(used).toBe(1);
  });
});
