import { describe, expect, it } from 'vitest';
import { carryRefs, identityKeys, matchElements } from '../../src/diff/index.js';
import { clone, indexOf, listWindow, node, range, snapshot } from './helpers/diff-fixtures.js';

describe('identityKeys', () => {
  it('uses the platform id when there is one', () => {
    const snap = listWindow({ rows: range(0, 3) });
    const keys = identityKeys(snap);
    expect(keys).toEqual(snap.elements.map((el) => el.id));
  });

  it('builds path signatures for id-less elements, unique even for same-named siblings', () => {
    const snap = snapshot([
      node('AXWindow', 'Confirm', {
        children: [
          node('AXButton', 'OK'),
          node('AXButton', 'OK'),
          node('AXStaticText', 'OK'),
          node('AXGroup', '', { children: [node('AXButton', 'OK')] }),
        ],
      }),
    ]);
    const keys = identityKeys(snap);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys[0]).toBe('sig:/AXWindow[0]"Confirm"');
    expect(keys[1]).toBe('sig:/AXWindow[0]"Confirm"/AXButton[0]"OK"');
    expect(keys[2]).toBe('sig:/AXWindow[0]"Confirm"/AXButton[1]"OK"');
    expect(keys[3]).toBe('sig:/AXWindow[0]"Confirm"/AXStaticText[0]"OK"');
    expect(keys[5]).toBe('sig:/AXWindow[0]"Confirm"/AXGroup[0]""/AXButton[0]"OK"');
  });

  it('does not let names run segments together', () => {
    const a = snapshot([node('AXGroup', 'a"/AXButton[0]"b')]);
    const b = snapshot([node('AXGroup', 'a', { children: [node('AXButton', 'b')] })]);
    expect(identityKeys(a)).not.toContain(identityKeys(b)[1]);
  });

  it('keeps long names short but distinct', () => {
    const long = 'x'.repeat(5000);
    const snap = snapshot([
      node('AXWindow', 'W', {
        children: [node('AXStaticText', `${long}1`), node('AXStaticText', `${long}2`)],
      }),
    ]);
    const keys = identityKeys(snap);
    expect(keys[1].length).toBeLessThan(120);
    expect(keys[1]).not.toBe(keys[2]);
  });

  it('keeps keys unique when a backend reports one id twice', () => {
    const snap = snapshot([
      node('AXWindow', 'W', {
        id: 'w',
        children: [node('AXButton', 'A', { id: 'x' }), node('AXButton', 'B', { id: 'x' })],
      }),
    ]);
    expect(identityKeys(snap)).toEqual(['w', 'x', 'x#2']);
  });
});

describe('matchElements', () => {
  it('maps every element of an identical snapshot to itself', () => {
    const before = listWindow({ rows: range(0, 50), cells: 3 });
    expect(Array.from(matchElements(before, clone(before)))).toEqual(
      range(0, before.elements.length),
    );
  });

  it('pairs a re-created duplicate with the nearest old sibling, not the first one', () => {
    // Five identical empty rows, all re-created; the first old row is gone.
    const rows = (ids: string[]) =>
      snapshot([
        node('AXWindow', 'W', {
          id: 'w',
          children: [
            node('AXList', 'L', {
              id: 'l',
              children: ids.map((id) => node('AXRow', '', { id })),
            }),
          ],
        }),
      ]);
    const before = rows(['a0', 'a1', 'a2', 'a3', 'a4']);
    const after = rows(['b0', 'b1', 'b2', 'b3']);
    // Old rows sit at 2..6; each new row takes the old row at its own place.
    expect(Array.from(matchElements(before, after))).toEqual([0, 1, 2, 3, 4, 5]);
    const shifted = rows(['a1', 'a2', 'b0', 'a4']);
    // Ids first (a1, a2, a4), then the one re-created row takes the old a3 it is nearest to.
    expect(Array.from(matchElements(before, shifted))).toEqual([0, 1, 3, 4, 5, 6]);
  });

  it('pairs thousands of identical re-created rows in n log n without losing any', () => {
    const n = 5000;
    // Every row reads "Row 1": one pool of n candidates for the second pass.
    const mk = (prefix: string, count: number) =>
      listWindow({ rows: new Array<number>(count).fill(1), rowId: (_, k) => `${prefix}${k}` });
    const before = mk('a', n);
    const after = mk('b', n - 1);
    const t0 = performance.now();
    const m = matchElements(before, after);
    const ms = performance.now() - t0;
    console.log(`matchElements: ${n} identical re-created rows paired in ${ms.toFixed(1)} ms`);
    // Each re-created row takes the old row at its own place; the last old row is left over.
    expect(Array.from(m)).toEqual(range(0, after.elements.length));
  });

  it('does not pair content under a parent that has no match', () => {
    const before = snapshot([
      node('AXWindow', 'W', {
        id: 'w',
        children: [
          node('AXGroup', 'G1', { id: 'g1', children: [node('AXButton', 'OK', { id: 'b1' })] }),
        ],
      }),
    ]);
    const after = snapshot([
      node('AXWindow', 'W', {
        id: 'w',
        children: [
          node('AXGroup', 'G2', { id: 'g2', children: [node('AXButton', 'OK', { id: 'b2' })] }),
        ],
      }),
    ]);
    expect(Array.from(matchElements(before, after))).toEqual([0, -1, -1]);
  });

  it('does not pair re-created elements whose value changed', () => {
    const before = snapshot([
      node('AXWindow', 'W', {
        id: 'w',
        children: [node('AXTextField', 'N', { id: 't1', value: 'a' })],
      }),
    ]);
    const after = snapshot([
      node('AXWindow', 'W', {
        id: 'w',
        children: [node('AXTextField', 'N', { id: 't2', value: 'b' })],
      }),
    ]);
    expect(Array.from(matchElements(before, after))).toEqual([0, -1]);
    after.elements[1].value = 'a';
    expect(Array.from(matchElements(before, after))).toEqual([0, 1]);
  });

  it('is one-to-one', () => {
    const before = listWindow({ rows: range(0, 40), cells: 2, rowId: () => '' });
    const after = listWindow({
      rows: [...range(10, 40), ...range(0, 10)],
      cells: 2,
      rowId: () => '',
    });
    const m = Array.from(matchElements(before, after));
    const used = m.filter((j) => j >= 0);
    expect(new Set(used).size).toBe(used.length);
    expect(m[indexOf(after, 'Row 3', 'AXRow')]).toBe(indexOf(before, 'Row 3', 'AXRow'));
  });
});

describe('carryRefs', () => {
  it('keeps refs of matched elements and mints refs for new ones', () => {
    let next = 10;
    const refs = carryRefs(Int32Array.from([2, -1, 0, -1]), ['e1', 'e2', 'e3'], () => `e${next++}`);
    expect(refs).toEqual(['e3', 'e10', 'e1', 'e11']);
  });

  it('carries refs across a scroll that re-created rows', () => {
    const before = listWindow({ rows: range(0, 10), rowId: (k) => `a${k}` });
    const after = listWindow({ rows: range(2, 12), rowId: (k) => `b${k}` });
    const beforeRefs = before.elements.map((_, i) => `e${i + 1}`);
    let next = 100;
    const refs = carryRefs(matchElements(before, after), beforeRefs, () => `e${next++}`);
    const rowRef = (snap: typeof before, r: string[], name: string) =>
      r[indexOf(snap, name, 'AXRow')];
    expect(rowRef(after, refs, 'Row 5')).toBe(rowRef(before, beforeRefs, 'Row 5'));
    expect(rowRef(after, refs, 'Row 11')).toBe('e101');
    expect(refs[0]).toBe('e1');
  });
});
