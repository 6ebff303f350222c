import { describe, expect, it } from 'vitest';
import { RefRegistry, isRef } from '../../src/pipeline/refs.js';
import { axError } from './helpers/pipeline-fixtures.js';

const ORIGIN = { pid: 100, snapshotId: 's1', tool: 'ax_get_tree' };

describe('isRef', () => {
  it.each(['e1', 'e42', 'e1000000', ' e7 ', 'e7\n'])('accepts %j', (text) => {
    expect(isRef(text)).toBe(true);
  });

  it.each(['', 'e', 'e0', 'e01', 'E5', 'e-1', 'e1.5', 'e42x', 'xe42', '42', 'e 42', 'button:e42'])(
    'rejects %j',
    (text) => {
      expect(isRef(text)).toBe(false);
    },
  );
});

describe('RefRegistry', () => {
  it('mints e1, e2, ... in order, never reusing one', () => {
    const reg = new RefRegistry();
    const refs = Array.from({ length: 50 }, (_, k) => reg.mint({ ...ORIGIN, snapshotId: `s${k}` }));
    expect(refs.slice(0, 3)).toEqual(['e1', 'e2', 'e3']);
    expect(new Set(refs).size).toBe(50);
    expect(refs.every(isRef)).toBe(true);
  });

  it('remembers where each ref came from, across apps', () => {
    const reg = new RefRegistry();
    const a = reg.mint({ pid: 100, snapshotId: 's1', tool: 'ax_get_tree' });
    const b = reg.mint({ pid: 200, snapshotId: 's2', tool: 'ax_find' });
    expect(reg.originOf(a)).toEqual({ pid: 100, snapshotId: 's1', tool: 'ax_get_tree' });
    expect(reg.originOf(b)).toEqual({ pid: 200, snapshotId: 's2', tool: 'ax_find' });
    // Surrounding spaces are tolerated, as agents paste them.
    expect(reg.originOf(` ${b} `).pid).toBe(200);
  });

  it('keeps registries apart: a ref is only known to the session that issued it', () => {
    const one = new RefRegistry();
    const two = new RefRegistry();
    one.mint(ORIGIN);
    one.mint(ORIGIN);
    expect(two.mint({ ...ORIGIN, pid: 7 })).toBe('e1');
    expect(one.originOf('e1').pid).toBe(100);
    expect(axError(() => two.originOf('e2'), 'unknown_ref').message).toContain('e2');
  });

  it.each(['42', 'button', 'e0', 'E3', ''])(
    'rejects the malformed ref %j as bad_argument',
    (bad) => {
      const reg = new RefRegistry();
      reg.mint(ORIGIN);
      const err = axError(() => reg.originOf(bad), 'bad_argument');
      expect(err.message).toBe(`'${bad}' is not an element ref (refs look like e42)`);
      expect(err.hint).toMatch(/query/);
    },
  );

  it('rejects a ref it never issued, naming the highest one so far', () => {
    const reg = new RefRegistry();
    for (let k = 0; k < 3; k++) reg.mint(ORIGIN);
    const err = axError(() => reg.originOf('e9'), 'unknown_ref');
    expect(err.message).toBe(
      'ref e9 was never issued by this server session (the highest so far is e3)',
    );
    expect(err.hint).toMatch(/restart/);
    const empty = axError(() => new RefRegistry().originOf('e1'), 'unknown_ref');
    expect(empty.message).toContain('the highest so far is e0');
  });
});

describe('RefRegistry sightings', () => {
  it('remembers what each ref named when a view last held it', () => {
    const reg = new RefRegistry();
    const a = reg.mint(ORIGIN);
    const b = reg.mint(ORIGIN);
    const el = (name: string) => ({
      id: name,
      parent: -1,
      depth: 0,
      role: 'AXButton',
      nativeRole: 'push button',
      name,
      flags: [],
      actions: [],
      childCount: 0,
    });
    const view = (snapshotId: string, names: string[]) =>
      ({
        snapshot: { elements: names.map(el) },
        snapshotId,
        refs: [a, b].slice(0, names.length),
      }) as unknown as Parameters<RefRegistry['noteSeen']>[0];
    expect(reg.lastSeen(a).element).toBeUndefined();
    reg.noteSeen(view('s1', ['Start', 'Help']));
    reg.noteSeen(view('s2', ['Stop']));
    expect(reg.lastSeen(a)).toMatchObject({ ...ORIGIN, seenIn: 's2', element: { name: 'Stop' } });
    expect(reg.lastSeen(` ${b} `)).toMatchObject({ seenIn: 's1', element: { name: 'Help' } });
    expect(axError(() => reg.lastSeen('e99'), 'unknown_ref').message).toContain('e99');
  });
});
