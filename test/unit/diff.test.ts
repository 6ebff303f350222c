import { describe, expect, it } from 'vitest';
import { diffSnapshots } from '../../src/diff/index.js';
import { clone, indexOf, listWindow, node, range, snapshot } from './helpers/diff-fixtures.js';

function dialog(withIds: boolean) {
  const id = (s: string) => (withIds ? `:1.9/${s}` : '');
  return snapshot([
    node('AXWindow', 'Settings', {
      id: id('win'),
      frame: { x: 0, y: 0, w: 400, h: 300 },
      children: [
        node('AXTextField', 'Name', {
          id: id('name'),
          value: 'Hello',
          frame: { x: 10, y: 10, w: 200, h: 24 },
          flags: ['enabled', 'focusable', 'editable'],
          actions: ['activate'],
        }),
        node('AXCheckBox', 'Wrap lines', {
          id: id('wrap'),
          frame: { x: 10, y: 40, w: 120, h: 20 },
          flags: ['enabled', 'focusable'],
          actions: ['click'],
        }),
        node('AXButton', 'Cancel', { id: id('cancel'), frame: { x: 200, y: 250, w: 80, h: 30 } }),
        node('AXButton', 'OK', { id: id('ok'), frame: { x: 300, y: 250, w: 80, h: 30 } }),
      ],
    }),
  ]);
}

describe('diffSnapshots', () => {
  it.each([true, false])('finds nothing between identical snapshots (ids: %s)', (ids) => {
    const before = dialog(ids);
    const d = diffSnapshots(before, clone(before));
    expect(d.added).toEqual([]);
    expect(d.removed).toEqual([]);
    expect(d.modified).toEqual([]);
    expect(Array.from(d.matchOf)).toEqual(range(0, before.elements.length));
  });

  it.each([true, false])('reports a value change as old -> new strings (ids: %s)', (ids) => {
    const before = dialog(ids);
    const after = clone(before);
    const i = indexOf(after, 'Name');
    after.elements[i].value = 'Hello world';
    const d = diffSnapshots(before, after);
    expect(d.added).toEqual([]);
    expect(d.removed).toEqual([]);
    expect(d.modified).toEqual([
      {
        before: i,
        after: i,
        changes: [{ field: 'value', old: 'Hello', new: 'Hello world' }],
        moved: false,
      },
    ]);
  });

  it('reports a checked flag as a flags change, rendered in flag order', () => {
    const before = dialog(true);
    const after = clone(before);
    const i = indexOf(after, 'Wrap lines');
    after.elements[i].flags = ['checked', 'enabled', 'focusable'];
    const d = diffSnapshots(before, after);
    expect(d.modified).toHaveLength(1);
    expect(d.modified[0].after).toBe(i);
    expect(d.modified[0].changes).toEqual([
      { field: 'flags', old: 'enabled focusable', new: 'enabled focusable checked' },
    ]);
    expect(d.modified[0].moved).toBe(false);
  });

  it('compares flags and actions as sets', () => {
    const before = dialog(true);
    const after = clone(before);
    const i = indexOf(after, 'Name');
    after.elements[i].flags = ['editable', 'focusable', 'enabled', 'enabled'];
    after.elements[i].actions = ['activate'];
    expect(diffSnapshots(before, after).modified).toEqual([]);
    after.elements[i].actions = ['activate', 'click'];
    expect(diffSnapshots(before, after).modified[0].changes).toEqual([
      { field: 'actions', old: 'activate', new: 'activate click' },
    ]);
  });

  it('treats an undefined and an empty value or description as the same', () => {
    const before = dialog(true);
    const after = clone(before);
    const i = indexOf(after, 'OK');
    after.elements[i].value = '';
    after.elements[i].description = '';
    expect(diffSnapshots(before, after).modified).toEqual([]);
  });

  it.each([true, false])('reports one element added and one removed (ids: %s)', (ids) => {
    const before = dialog(ids);
    const after = snapshot([
      node('AXWindow', 'Settings', {
        id: ids ? ':1.9/win' : '',
        frame: { x: 0, y: 0, w: 400, h: 300 },
        children: [
          node('AXTextField', 'Name', {
            id: ids ? ':1.9/name' : '',
            value: 'Hello',
            frame: { x: 10, y: 10, w: 200, h: 24 },
            flags: ['enabled', 'focusable', 'editable'],
            actions: ['activate'],
          }),
          node('AXStaticText', 'Saved', { id: ids ? ':1.9/saved' : '' }),
          node('AXCheckBox', 'Wrap lines', {
            id: ids ? ':1.9/wrap' : '',
            frame: { x: 10, y: 40, w: 120, h: 20 },
            flags: ['enabled', 'focusable'],
            actions: ['click'],
          }),
          node('AXButton', 'OK', {
            id: ids ? ':1.9/ok' : '',
            frame: { x: 300, y: 250, w: 80, h: 30 },
          }),
        ],
      }),
    ]);
    const d = diffSnapshots(before, after);
    expect(d.added).toEqual([indexOf(after, 'Saved')]);
    expect(d.removed).toEqual([indexOf(before, 'Cancel')]);
    expect(d.modified).toEqual([]);
    expect(d.matchOf[indexOf(after, 'OK')]).toBe(indexOf(before, 'OK'));
  });

  it('reports a scroll of 200 rows as 200 moved, not removed+added', () => {
    const before = listWindow({ rows: range(0, 200), top: 100 });
    const after = listWindow({ rows: range(0, 200), top: 40 });
    const d = diffSnapshots(before, after);
    expect(d.added).toEqual([]);
    expect(d.removed).toEqual([]);
    expect(d.modified).toHaveLength(200);
    for (const m of d.modified) {
      expect(m.moved).toBe(true);
      expect(m.before).toBe(m.after);
      expect(after.elements[m.after].role).toBe('AXRow');
      expect(m.changes).toHaveLength(1);
      expect(m.changes[0].field).toBe('frame');
    }
    const first = d.modified[0];
    expect(first.changes[0]).toEqual({ field: 'frame', old: '10,100 400x20', new: '10,40 400x20' });
  });

  it('reports a scroll of id-less rows as moved too (signatures carry no position)', () => {
    const before = listWindow({ rows: range(0, 200), top: 100, rowId: () => '', cells: 2 });
    const after = listWindow({ rows: range(0, 200), top: 40, rowId: () => '', cells: 2 });
    const d = diffSnapshots(before, after);
    expect(d.added).toEqual([]);
    expect(d.removed).toEqual([]);
    expect(d.modified).toHaveLength(600);
    expect(d.modified.every((m) => m.moved)).toBe(true);
  });

  it('reports a resize as a frame change that is not moved', () => {
    const before = dialog(true);
    const after = clone(before);
    const i = indexOf(after, 'Name');
    after.elements[i].frame = { x: 10, y: 10, w: 260, h: 24 };
    const d = diffSnapshots(before, after);
    expect(d.modified).toHaveLength(1);
    expect(d.modified[0].moved).toBe(false);
    expect(d.modified[0].changes).toEqual([
      { field: 'frame', old: '10,10 200x24', new: '10,10 260x24' },
    ]);
  });

  it('does not call it moved when the position changed along with something else', () => {
    const before = dialog(true);
    const after = clone(before);
    const i = indexOf(after, 'Name');
    after.elements[i].frame = { x: 10, y: 70, w: 200, h: 24 };
    after.elements[i].value = 'Bye';
    const m = diffSnapshots(before, after).modified;
    expect(m).toHaveLength(1);
    expect(m[0].moved).toBe(false);
    expect(m[0].changes.map((c) => c.field)).toEqual(['value', 'frame']);
  });

  it('ignores frame jitter below one point, and reports a frame appearing', () => {
    const before = dialog(true);
    const after = clone(before);
    const i = indexOf(after, 'Name');
    after.elements[i].frame = { x: 10.4, y: 9.3, w: 200.9, h: 24 };
    expect(diffSnapshots(before, after).modified).toEqual([]);
    const j = indexOf(after, 'OK');
    after.elements[j].frame = undefined;
    const m = diffSnapshots(before, after).modified;
    expect(m).toHaveLength(1);
    expect(m[0].changes).toEqual([{ field: 'frame', old: '300,250 80x30', new: 'none' }]);
    expect(m[0].moved).toBe(false);
  });

  it('keeps two id-less "OK" buttons apart: changing one gives exactly one modification', () => {
    const make = (secondEnabled: boolean) =>
      snapshot([
        node('AXWindow', 'Confirm', {
          children: [
            node('AXGroup', 'Top', {
              children: [node('AXButton', 'OK', { flags: ['enabled'] })],
            }),
            node('AXButton', 'OK', { flags: ['enabled'] }),
            node('AXButton', 'OK', { flags: secondEnabled ? ['enabled'] : ['disabled'] }),
          ],
        }),
      ]);
    const before = make(true);
    const after = make(false);
    const d = diffSnapshots(before, after);
    expect(d.added).toEqual([]);
    expect(d.removed).toEqual([]);
    expect(d.modified).toEqual([
      {
        before: 4,
        after: 4,
        changes: [{ field: 'flags', old: 'enabled', new: 'disabled' }],
        moved: false,
      },
    ]);
  });

  it('matches id-less elements after an unrelated insertion before them', () => {
    const items = (names: string[]) =>
      snapshot([
        node('AXWindow', 'Editor', {
          children: [
            node('AXToolbar', '', {
              children: names.map((n) => node('AXButton', n, { actions: ['click'] })),
            }),
            node('AXTextArea', 'Body', { value: 'text' }),
          ],
        }),
      ]);
    const before = items(['Open', 'Save', 'Save', 'Close']);
    // A new button before all of them, and another "Save" ahead of the two existing ones.
    const after = items(['New', 'Save', 'Open', 'Save', 'Save', 'Close']);
    const d = diffSnapshots(before, after);
    expect(d.removed).toEqual([]);
    expect(d.added).toHaveLength(2);
    expect(d.modified).toEqual([]);
    expect(d.matchOf[indexOf(after, 'New')]).toBe(-1);
    expect(d.matchOf[indexOf(after, 'Open')]).toBe(indexOf(before, 'Open'));
    expect(d.matchOf[indexOf(after, 'Close')]).toBe(indexOf(before, 'Close'));
    expect(d.matchOf[indexOf(after, 'Body')]).toBe(indexOf(before, 'Body'));
  });

  it('pairs re-created rows (new ids, same content) after a scroll instead of removed+added', () => {
    // Rows 0..19 visible; after scrolling by 5 rows GTK re-creates every row with new ids.
    const before = listWindow({ rows: range(0, 20), rowId: (k) => `:1.5/a/${k}`, cells: 3 });
    const after = listWindow({ rows: range(5, 25), rowId: (k) => `:1.5/b/${k}`, cells: 3 });
    const d = diffSnapshots(before, after);
    // Rows 0..4 left (4 elements each), rows 20..24 came in.
    expect(d.removed.map((j) => before.elements[j].name)).toEqual(
      range(0, 5).flatMap((k) => [`Row ${k}`, `Row ${k}`, 'Done', 'Open']),
    );
    expect(d.added.map((i) => after.elements[i].name)).toEqual(
      range(20, 25).flatMap((k) => [`Row ${k}`, `Row ${k}`, 'Done', 'Open']),
    );
    // Rows 5..19 and their cells are the same elements, moved up by 5 rows.
    expect(d.modified).toHaveLength(15 * 4);
    for (const m of d.modified) {
      expect(m.moved).toBe(true);
      expect(m.changes[0].old).toMatch(/,\d+ /);
      const row = (e: number, snap: typeof before) => {
        const el = snap.elements[e];
        return el.role === 'AXRow' ? el.name : snap.elements[el.parent].name;
      };
      expect(row(m.after, after)).toBe(row(m.before, before));
    }
  });

  it('does not pair on position alone: a different element in the same place is -/+', () => {
    const before = snapshot([
      node('AXWindow', 'W', {
        id: 'w',
        children: [node('AXButton', 'Play', { id: 'b1', frame: { x: 5, y: 5, w: 50, h: 20 } })],
      }),
    ]);
    const after = snapshot([
      node('AXWindow', 'W', {
        id: 'w',
        children: [node('AXButton', 'Stop', { id: 'b2', frame: { x: 5, y: 5, w: 50, h: 20 } })],
      }),
    ]);
    const d = diffSnapshots(before, after);
    expect(d.added).toEqual([1]);
    expect(d.removed).toEqual([1]);
    expect(d.modified).toEqual([]);
  });

  it('follows ids, not positions, when two elements swap places', () => {
    const before = dialog(true);
    const after = clone(before);
    const c = indexOf(after, 'Cancel');
    const o = indexOf(after, 'OK');
    [after.elements[c].frame, after.elements[o].frame] = [
      after.elements[o].frame,
      after.elements[c].frame,
    ];
    const d = diffSnapshots(before, after);
    expect(d.modified.map((m) => [m.before, m.after, m.moved])).toEqual([
      [c, c, true],
      [o, o, true],
    ]);
  });

  it('reports a name and role change on the same identity in a fixed field order', () => {
    const before = dialog(true);
    const after = clone(before);
    const i = indexOf(after, 'OK');
    after.elements[i].role = 'AXMenuButton';
    after.elements[i].name = 'OK…';
    after.elements[i].description = 'Confirm';
    const m = diffSnapshots(before, after).modified;
    expect(m).toHaveLength(1);
    expect(m[0].changes).toEqual([
      { field: 'role', old: 'AXButton', new: 'AXMenuButton' },
      { field: 'name', old: 'OK', new: 'OK…' },
      { field: 'description', old: '', new: 'Confirm' },
    ]);
  });

  it('lists added and modified by after index and removed by before index', () => {
    const before = listWindow({ rows: range(0, 30) });
    const rows = [...range(0, 30)].filter((k) => k % 3 !== 0);
    rows.splice(4, 0, 100, 101);
    rows.push(102);
    const after = listWindow({ rows });
    after.elements.forEach((el) => {
      if (el.name === 'Row 7' || el.name === 'Row 2') el.flags = ['selected'];
    });
    const d = diffSnapshots(before, after);
    const sorted = (xs: number[]) => [...xs].sort((p, q) => p - q);
    expect(d.added).toEqual(sorted(d.added));
    expect(d.added).toHaveLength(3);
    expect(d.removed).toEqual(sorted(d.removed));
    expect(d.removed).toHaveLength(10);
    const afters = d.modified.map((m) => m.after);
    expect(afters).toEqual(sorted(afters));
    expect(diffSnapshots(before, after)).toEqual(d);
  });
});
