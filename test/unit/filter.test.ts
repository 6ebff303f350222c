import { describe, expect, it } from 'vitest';
import type { Flag, Snapshot } from '../../src/model/element.js';
import { dropHidden } from '../../src/model/filter.js';
import { buildSnapshot, rng, type Spec } from './helpers/synthetic.js';

const OFF: Flag[] = ['offscreen'];

/** Element names in order, for readable expectations. */
function names(snap: Snapshot): string[] {
  return snap.elements.map((e) => e.name);
}

/** Each element's parent by name ('' for top-levels): checks the remapped indices. */
function parentNames(snap: Snapshot): Record<string, string> {
  const out: Record<string, string> = {};
  for (const el of snap.elements)
    out[el.name] = el.parent >= 0 ? snap.elements[el.parent].name : '';
  return out;
}

function notebook(): Snapshot {
  return buildSnapshot([
    {
      role: 'AXWindow',
      name: 'Main',
      window: { active: true },
      children: [
        { role: 'AXButton', name: 'Before' },
        {
          role: 'AXTabGroup',
          name: 'Tabs',
          children: [
            {
              role: 'AXGroup',
              name: 'Page 1',
              children: [{ role: 'AXCheckBox', name: 'Shown check' }],
            },
            {
              role: 'AXGroup',
              name: 'Page 2',
              flags: OFF,
              children: [
                {
                  role: 'AXGroup',
                  name: 'Inner',
                  children: [{ role: 'AXButton', name: 'Deep hidden' }],
                },
                { role: 'AXTextField', name: 'Hidden field' },
              ],
            },
          ],
        },
        { role: 'AXButton', name: 'After' },
      ],
    },
    {
      role: 'AXWindow',
      name: 'Unmapped',
      flags: OFF,
      window: {},
      children: [{ role: 'AXButton', name: 'Gone' }],
    },
    {
      role: 'AXDialog',
      name: 'Prefs',
      window: { dialog: true },
      children: [{ role: 'AXButton', name: 'Close' }],
    },
  ]);
}

describe('dropHidden', () => {
  it('drops a hidden subtree with all its descendants and counts them', () => {
    const { snapshot, dropped } = dropHidden(notebook());
    expect(names(snapshot)).toEqual([
      'Main',
      'Before',
      'Tabs',
      'Page 1',
      'Shown check',
      'After',
      'Prefs',
      'Close',
    ]);
    // Page 2, Inner, Deep hidden, Hidden field; Unmapped and Gone.
    expect(dropped).toBe(6);
  });

  it('remaps parent indices to the kept list and keeps depths', () => {
    const before = notebook();
    const { snapshot } = dropHidden(before);
    expect(parentNames(snapshot)).toEqual({
      Main: '',
      Before: 'Main',
      Tabs: 'Main',
      'Page 1': 'Tabs',
      'Shown check': 'Page 1',
      After: 'Main',
      Prefs: '',
      Close: 'Prefs',
    });
    for (const el of snapshot.elements) {
      const original = before.elements.find((e) => e.name === el.name);
      expect(el.depth).toBe(original?.depth);
      expect(el.id).toBe(original?.id);
    }
  });

  it('remaps windows to their new indices and drops hidden windows', () => {
    const before = notebook();
    expect(before.windows.map((w) => [w.title, w.index])).toEqual([
      ['Main', 0],
      ['Unmapped', 10],
      ['Prefs', 12],
    ]);
    const { snapshot } = dropHidden(before);
    expect(snapshot.windows.map((w) => [w.title, w.index])).toEqual([
      ['Main', 0],
      ['Prefs', 6],
    ]);
    for (const w of snapshot.windows) expect(snapshot.elements[w.index].name).toBe(w.title);
    expect(snapshot.windows[1].dialog).toBe(true);
  });

  it('keeps offscreen rows and cells with everything under them', () => {
    const snap = buildSnapshot([
      {
        role: 'AXWindow',
        name: 'Files',
        window: { active: true },
        children: [
          {
            role: 'AXTable',
            name: 'List',
            children: [
              {
                role: 'AXRow',
                name: 'Row shown',
                children: [{ role: 'AXCell', name: 'Cell shown' }],
              },
              {
                role: 'AXRow',
                name: 'Row scrolled',
                flags: OFF,
                children: [
                  {
                    role: 'AXCell',
                    name: 'Cell scrolled',
                    flags: OFF,
                    children: [
                      { role: 'AXStaticText', name: 'Text in cell', flags: OFF },
                      {
                        role: 'AXGroup',
                        name: 'Group in cell',
                        flags: OFF,
                        children: [{ role: 'AXButton', name: 'Button deep', flags: OFF }],
                      },
                    ],
                  },
                ],
              },
              {
                role: 'AXOutlineRow',
                name: 'Outline scrolled',
                flags: OFF,
                children: [{ role: 'AXStaticText', name: 'Outline text', flags: OFF }],
              },
              { role: 'AXCell', name: 'Loose cell', flags: OFF },
            ],
          },
          { role: 'AXButton', name: 'Offscreen button', flags: OFF },
        ],
      },
    ]);
    const { snapshot, dropped } = dropHidden(snap);
    expect(dropped).toBe(1);
    expect(names(snapshot)).not.toContain('Offscreen button');
    expect(names(snapshot)).toEqual(names(snap).filter((n) => n !== 'Offscreen button'));
    expect(parentNames(snapshot)['Button deep']).toBe('Group in cell');
    expect(parentNames(snapshot)['Outline text']).toBe('Outline scrolled');
    // Kept elements keep their flags: the tree file still says they are offscreen.
    expect(snapshot.elements.find((e) => e.name === 'Row scrolled')?.flags).toContain('offscreen');
  });

  it('drops rows under a hidden container: the container hides them all', () => {
    const snap = buildSnapshot([
      {
        role: 'AXWindow',
        name: 'W',
        children: [
          {
            role: 'AXGroup',
            name: 'Hidden page',
            flags: OFF,
            children: [
              {
                role: 'AXTable',
                name: 'T',
                children: [{ role: 'AXRow', name: 'R', children: [{ role: 'AXCell', name: 'C' }] }],
              },
            ],
          },
        ],
      },
    ]);
    const { snapshot, dropped } = dropHidden(snap);
    expect(names(snapshot)).toEqual(['W']);
    expect(dropped).toBe(4);
  });

  it('changes nothing when nothing is hidden, and never mutates its input', () => {
    const snap = notebook();
    const frozen = structuredClone(snap);
    dropHidden(snap);
    expect(snap).toEqual(frozen);

    const clean = buildSnapshot([
      { role: 'AXWindow', name: 'A', window: {}, children: [{ role: 'AXButton', name: 'B' }] },
    ]);
    const { snapshot, dropped } = dropHidden(clean);
    expect(dropped).toBe(0);
    expect(snapshot.elements).toEqual(clean.elements);
    expect(snapshot.windows).toEqual(clean.windows);
    // The rest of the snapshot passes through.
    expect({ ...snapshot, elements: [], windows: [] }).toEqual({
      ...clean,
      elements: [],
      windows: [],
    });
  });

  it('keeps the invariants on random trees', () => {
    const next = rng(99);
    const roles = ['AXGroup', 'AXButton', 'AXRow', 'AXCell', 'AXStaticText', 'AXTable'];
    let counter = 0;
    const make = (depth: number): Spec => {
      const spec: Spec = {
        role: roles[Math.floor(next() * roles.length)],
        name: `n${counter++}`,
        flags: next() < 0.25 ? OFF : [],
      };
      if (depth < 4) {
        const kids = Math.floor(next() * 4);
        spec.children = Array.from({ length: kids }, () => make(depth + 1));
      }
      return spec;
    };
    for (let round = 0; round < 50; round++) {
      const tops = Array.from({ length: 1 + Math.floor(next() * 3) }, () => ({
        ...make(0),
        window: {},
      }));
      const before = buildSnapshot(tops);
      const { snapshot: after, dropped } = dropHidden(before);
      expect(after.elements.length + dropped).toBe(before.elements.length);

      const byName = new Map(before.elements.map((e, i) => [e.name, i]));
      const keptNames = new Set(names(after));
      // What a reader expects: an element stays iff its parent stayed and it is not
      // offscreen, unless it is a row/cell or sits below a kept one.
      const underItem = new Array<boolean>(before.elements.length).fill(false);
      before.elements.forEach((el, i) => {
        const parentKept = el.parent < 0 || keptNames.has(before.elements[el.parent].name);
        const item =
          ['AXRow', 'AXCell', 'AXOutlineRow'].includes(el.role) ||
          (el.parent >= 0 && underItem[el.parent]);
        const expected = parentKept && (item || !el.flags.includes('offscreen'));
        if (expected && item) underItem[i] = true;
        expect(keptNames.has(el.name), `element ${el.name}`).toBe(expected);
      });
      after.elements.forEach((el, i) => {
        const original = before.elements[byName.get(el.name) as number];
        expect(el.parent).toBeLessThan(i);
        const expectedParent = original.parent < 0 ? '' : before.elements[original.parent].name;
        expect(el.parent < 0 ? '' : after.elements[el.parent].name).toBe(expectedParent);
      });
      expect(after.windows.map((w) => after.elements[w.index].name)).toEqual(
        before.windows.map((w) => before.elements[w.index].name).filter((n) => keptNames.has(n)),
      );
    }
  });
});
