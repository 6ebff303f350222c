import { describe, expect, it } from 'vitest';
import type { Element, Snapshot } from '../../src/model/element.js';
import type { RememberedField } from '../../src/model/field-succession.js';
import type { Desktop, SecretFieldStore, SecureFieldScan } from '../../src/platform/desktop.js';
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
    expect(fields.remembered()).toEqual(new Map([[7, [{ id: ':1.5/a/1' }]]]));
    fields.forget(7);
    expect(fields.has(':1.5/a/1')).toBe(false);
  });
});

describe('keepingSecrets', () => {
  it('never reads a remembered field, masks fresh reads, and hands its ids to the lookup', async () => {
    const fields = new SecretFields();
    const asked: string[] = [];
    let remembered: ReadonlyMap<number, readonly RememberedField[]> | undefined;
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
        known?: ReadonlyMap<number, readonly RememberedField[]>,
      ): Promise<SecureFieldScan> => {
        remembered = known;
        return { fresh: [{ pid: 9, frames: [], fields: [{ id: ':1.9/p/3' }] }], failed: [] };
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
    expect(remembered).toEqual(new Map([[7, [{ id: ':1.5/a/1', name: 'Passphrase' }]]]));
    expect(fields.has(':1.9/p/3')).toBe(true);
  });
});

describe('SecretFields kept in a store', () => {
  /** A store shared by two "servers", as the file on one desktop is. */
  function sharedStore() {
    const held = new Map<number, Map<string, RememberedField>>();
    let version = 0;
    const seenBy = new WeakMap<object, number>();
    return (owner: object) => ({
      loadIfChanged() {
        if (seenBy.get(owner) === version) return null;
        seenBy.set(owner, version);
        return new Map([...held].map(([pid, known]) => [pid, [...known.values()]]));
      },
      save(byPid: ReadonlyMap<number, Iterable<RememberedField>>) {
        for (const [pid, fields] of byPid) {
          const known = held.get(pid) ?? new Map<string, RememberedField>();
          for (const f of fields) known.set(f.id, { ...known.get(f.id), ...f });
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
          for (const [pid, fields] of byPid) saved.push([pid, [...fields].map((f) => f.id)]);
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

describe('a remembered field its app builds anew', () => {
  /** A page in a window: a form (index 1) holding the elements given. */
  function page(pid: number, ...fields: Element[]): Snapshot {
    const win: Element = {
      ...field('win', false),
      role: 'AXWindow',
      nativeRole: 'frame',
      name: 'Sign in',
      flags: [],
      frame: { x: 0, y: 0, w: 1280, h: 800 },
    };
    delete win.value;
    const form: Element = { ...win, id: 'form', parent: 0, depth: 1, role: 'AXGroup', name: '' };
    delete form.frame;
    return walk(pid, win, form, ...fields.map((f) => ({ ...f, parent: 1, depth: 2 })));
  }

  /** A web password field, masked or shown, as the browser gives it. */
  function input(id: string, secure: boolean, extra: Partial<Element> = {}): Element {
    const el: Element = {
      ...field(id, secure, secure ? undefined : SECRET),
      nativeRole: secure ? 'password text' : 'entry',
      name: 'Account password',
      frame: { x: 159, y: 116, w: 368, h: 33 },
      ...extra,
    };
    if (secure) delete el.value;
    return el;
  }

  it('is a password field in the very walk that first shows it built anew', () => {
    const fields = new SecretFields();
    fields.keep(page(7, input(':1.3/a/72', true)));
    const shown = fields.keep(page(7, input(':1.3/a/147', false)));
    const f = shown.elements[2];
    expect(f.flags).toContain('secure');
    expect(f.value).toBeUndefined();
    expect(JSON.stringify(shown)).not.toContain(SECRET);
    expect(fields.has(':1.3/a/147')).toBe(true);
    expect(fields.has(':1.3/a/72')).toBe(true);
  });

  it('is known again in a window moved since, by its name and container', () => {
    const fields = new SecretFields();
    fields.keep(page(7, input(':1.3/a/72', true)));
    const moved = page(7, input(':1.3/a/147', false, { frame: { x: 559, y: 416, w: 368, h: 33 } }));
    moved.elements[0].frame = { x: 400, y: 300, w: 1280, h: 800 };
    expect(fields.keep(moved).elements[2].flags).toContain('secure');
  });

  it('leaves plain a field beside a remembered one that is still there', () => {
    const fields = new SecretFields();
    fields.keep(page(7, input(':1.3/a/72', true)));
    const both = fields.keep(
      page(7, input(':1.3/a/72', true), input(':1.3/a/80', false, { name: 'Account password' })),
    );
    expect(both.elements[3].value).toBe(SECRET);
    expect(fields.has(':1.3/a/80')).toBe(false);
  });

  it('leaves plain a field with another name elsewhere after the password field went', () => {
    const fields = new SecretFields();
    fields.keep(page(7, input(':1.3/a/72', true)));
    const other = input(':1.3/a/90', false, {
      name: 'Search',
      frame: { x: 159, y: 400, w: 368, h: 33 },
    });
    const after = fields.keep(page(7, other));
    expect(after.elements[2].value).toBe(SECRET);
    // Another app's field in that place is none of this app's.
    expect(fields.keep(page(8, input(':1.4/a/1', false))).elements[2].value).toBe(SECRET);
  });

  it('a fresh read of it is kept secret, and its text is never asked for', async () => {
    const fields = new SecretFields();
    const asked: string[] = [];
    const inner = {
      platform: 'test',
      snapshot: async () => page(7, input(':1.3/a/72', true)),
      readText: async (id: string) => {
        asked.push(id);
        return SECRET;
      },
      readElement: async (id: string) =>
        id === ':1.3/a/147'
          ? input(id, false)
          : input(id, false, { name: 'Search', frame: undefined }),
    } as unknown as Desktop;
    const desktop = keepingSecrets(inner, fields);
    await desktop.snapshot(7, {} as never);
    expect(await desktop.readText(':1.3/a/147')).toBeUndefined();
    expect(asked).toEqual([]);
    expect((await desktop.readElement(':1.3/a/147')).value).toBeUndefined();
    expect(fields.isSecretField(7, { id: ':1.3/a/147', flags: [] })).toBe(true);
    expect(await desktop.readText(':1.3/a/5')).toBe(SECRET);
  });

  it('another memory knows it by what the first saved, never by any text', () => {
    let saved = new Map<number, RememberedField[]>();
    const store = (): SecretFieldStore => ({
      loadIfChanged: () => saved,
      save(byPid) {
        saved = new Map([...byPid].map(([pid, f]) => [pid, [...f]]));
      },
    });
    const first = new SecretFields();
    first.persistIn(store());
    first.keep(page(7, input(':1.3/a/72', true)));
    expect(JSON.stringify([...saved])).toContain('Account password');
    const second = new SecretFields();
    second.persistIn(store());
    const shown = second.keep(page(7, input(':1.3/a/147', false)));
    expect(shown.elements[2].flags).toContain('secure');
    expect(JSON.stringify([...saved])).not.toContain(SECRET);
  });

  it('a lookup that found the field built anew hands it over to be learned', async () => {
    const fields = new SecretFields();
    fields.keep(page(7, input(':1.3/a/72', true)));
    let asked: ReadonlyMap<number, readonly RememberedField[]> | undefined;
    const inner = {
      platform: 'test',
      secureFieldFrames: async (
        _r: unknown,
        _t: number,
        _s: unknown,
        known?: ReadonlyMap<number, readonly RememberedField[]>,
      ): Promise<SecureFieldScan> => {
        asked = known;
        return { fresh: [{ pid: 7, frames: [], fields: [{ id: ':1.3/a/147' }] }], failed: [] };
      },
    } as unknown as Desktop;
    await keepingSecrets(inner, fields).secureFieldFrames({ x: 0, y: 0, w: 1, h: 1 }, 100);
    expect(asked?.get(7)).toEqual([
      {
        id: ':1.3/a/72',
        name: 'Account password',
        frame: { x: 159, y: 116, w: 368, h: 33 },
        spot: { x: 159, y: 116, w: 368, h: 33 },
        parent: 'form',
        window: 'win',
      },
    ]);
    expect(fields.has(':1.3/a/147')).toBe(true);
  });
});
