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

  it('keeps what is on screen below a page tab that is not showing, with the tab (mousepad)', () => {
    const snap = buildSnapshot([
      {
        role: 'AXWindow',
        name: 'Mousepad',
        frame: [320, 150, 640, 500],
        window: { active: true },
        children: [
          {
            role: 'AXTabGroup',
            name: 'Tabs',
            frame: [320, 218, 640, 427],
            children: [
              {
                role: 'AXRadioButton',
                nativeRole: 'page tab',
                name: 'Page tab',
                flags: ['offscreen', 'selected'],
                children: [
                  {
                    role: 'AXScrollArea',
                    name: 'Pane',
                    frame: [320, 218, 640, 427],
                    children: [
                      { role: 'AXTextArea', name: 'Text', frame: [321, 219, 638, 425] },
                      { role: 'AXScrollBar', name: 'Hidden bar', flags: OFF },
                    ],
                  },
                ],
              },
            ],
          },
          {
            role: 'AXToolbar',
            name: 'Toolbar',
            flags: OFF,
            children: [{ role: 'AXButton', name: 'New', flags: OFF }],
          },
        ],
      },
    ]);
    const { snapshot, dropped } = dropHidden(snap);
    expect(names(snapshot)).toEqual(['Mousepad', 'Tabs', 'Page tab', 'Pane', 'Text']);
    expect(dropped).toBe(3);
    expect(parentNames(snapshot)['Text']).toBe('Pane');
  });

  it('drops the pages of a notebook that are not selected, even with frames at the shown rect', () => {
    const page = (n: number, shown: boolean): Spec => ({
      role: 'AXRadioButton',
      nativeRole: 'page tab',
      name: `Tab ${n}`,
      frame: [20 + 60 * n, 100, 50, 30],
      flags: shown ? ['selected'] : [],
      children: [
        {
          role: 'AXGroup',
          name: `Content ${n}`,
          frame: [10, 130, 400, 300],
          flags: shown ? [] : OFF,
          children: [{ role: 'AXButton', name: `Button ${n}`, frame: [30, 150, 80, 30] }],
        },
      ],
    });
    const snap = buildSnapshot([
      {
        role: 'AXWindow',
        name: 'Main',
        frame: [0, 0, 800, 600],
        window: { active: true },
        children: [{ role: 'AXTabGroup', name: 'Tabs', children: [page(1, true), page(2, false)] }],
      },
    ]);
    const { snapshot } = dropHidden(snap);
    expect(names(snapshot)).toEqual(['Main', 'Tabs', 'Tab 1', 'Content 1', 'Button 1', 'Tab 2']);
  });

  it('keeps the items of an open menu and drops those of closed ones', () => {
    const snap = buildSnapshot([
      {
        role: 'AXWindow',
        name: 'W',
        frame: [0, 0, 400, 300],
        window: { active: true },
        children: [
          {
            role: 'AXMenuBar',
            name: 'Bar',
            frame: [0, 20, 400, 25],
            children: [
              {
                role: 'AXMenu',
                name: 'File',
                frame: [0, 20, 40, 25],
                children: [{ role: 'AXMenuItem', name: 'Open', frame: [0, 45, 300, 25] }],
              },
              {
                role: 'AXMenu',
                name: 'Edit',
                frame: [40, 20, 40, 25],
                children: [{ role: 'AXMenuItem', name: 'Undo', flags: OFF }],
              },
            ],
          },
        ],
      },
    ]);
    expect(names(dropHidden(snap).snapshot)).toEqual(['W', 'Bar', 'File', 'Open', 'Edit']);
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
      if (next() < 0.2) spec.frame = [Math.floor(next() * 500), Math.floor(next() * 500), 40, 20];
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
      // What a reader expects, written recursively: an unmapped window goes with all it
      // holds; below it, an element stays when it has a frame, or when neither it nor an
      // ancestor says "not showing" (rows and cells, and what is below them, do not
      // count their own flag), or when something below it stays. Random frames here
      // never coincide with a sibling's, so no page is stacked.
      const kids = before.elements.map(() => [] as number[]);
      before.elements.forEach((el, i) => {
        if (el.parent >= 0) kids[el.parent].push(i);
      });
      const expectKept = (i: number, unshownAbove: boolean, itemAbove: boolean): boolean => {
        const el = before.elements[i];
        const item = itemAbove || ['AXRow', 'AXCell', 'AXOutlineRow'].includes(el.role);
        const off = el.flags.includes('offscreen');
        const unshown = unshownAbove || (off && !item);
        const below = kids[i].map((k) => expectKept(k, unshown, item));
        const self = el.frame !== undefined || !unshown;
        const kept = self || below.some(Boolean);
        expect(keptNames.has(el.name), `element ${el.name}`).toBe(kept);
        return kept;
      };
      before.elements.forEach((el, i) => {
        if (el.parent >= 0) return;
        if (el.flags.includes('offscreen')) {
          const all = [i];
          for (let k = 0; k < all.length; k++) all.push(...kids[all[k]]);
          for (const k of all) expect(keptNames.has(before.elements[k].name)).toBe(false);
        } else {
          expectKept(i, false, false);
        }
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
