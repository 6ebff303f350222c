import { describe, expect, it } from 'vitest';
import { diffSnapshots } from '../../src/diff/index.js';
import type { Flag } from '../../src/model/element.js';
import { collectStateChanges, renderSummary } from '../../src/summary/index.js';
import { buildSnapshot, viewOf, type Spec } from './helpers/synthetic.js';

/** A window with a popover (a "Dark Theme" item) and a closed menu with its twin. */
function app(twin: Flag[], otherHidden: Flag[] = []): Spec[] {
  return [
    {
      role: 'AXWindow',
      name: 'Factory',
      id: 'w',
      frame: [0, 0, 800, 600],
      window: { active: true },
      children: [
        {
          role: 'AXMenuBarItem',
          name: 'View',
          id: 'view',
          frame: [0, 0, 40, 20],
          children: [
            { role: 'AXMenuItem', name: '_Dark theme', id: 'twin', flags: ['offscreen', ...twin] },
            { role: 'AXMenuItem', name: 'Toolbar', id: 'tb', flags: ['offscreen', ...otherHidden] },
          ],
        },
        {
          role: 'AXPopover',
          id: 'pop',
          frame: [500, 40, 200, 100],
          children: [
            { role: 'AXCheckBox', name: 'Dark Theme', id: 'item', frame: [510, 60, 150, 26] },
          ],
        },
      ],
    },
  ];
}

function changes(beforeSpec: Spec[], afterSpec: Spec[], acted?: number) {
  const before = viewOf(buildSnapshot(beforeSpec));
  const after = viewOf(buildSnapshot(afterSpec));
  const diff = diffSnapshots(before.snapshot, after.snapshot);
  return { before, after, diff, acted };
}

describe('state changes on hidden elements', () => {
  const item = 5; // after the window, the menu bar item, its two items and the popover

  it('a hidden twin’s change is said of the element acted on, naming the twin', () => {
    const { before, after, diff } = changes(app([]), app(['checked']));
    expect(after.snapshot.elements[item].name).toBe('Dark Theme');
    const states = collectStateChanges(diff, before.snapshot, after.snapshot, after.refs, {
      beforeVisible: before.visible,
      afterVisible: after.visible,
      acted: item,
    });
    expect(states).toEqual([
      {
        role: 'AXCheckBox',
        label: 'Dark Theme',
        ref: `e${item + 1}`,
        changes: [{ old: 'unchecked', new: 'checked' }],
        twin: { role: 'AXMenuItem', ref: 'e3' },
      },
    ]);
    const { text } = renderSummary({
      status: 'success',
      view: after,
      diff: { diff, before },
      acted: item,
    });
    expect(text).toContain(
      `  [AXCheckBox] "Dark Theme" e${item + 1}: unchecked -> checked (read on its hidden twin [AXMenuItem] e3)`,
    );
  });

  it('other hidden changes come last, marked hidden', () => {
    const { before, after, diff } = changes(app([]), app([], ['checked']));
    const states = collectStateChanges(diff, before.snapshot, after.snapshot, after.refs, {
      beforeVisible: before.visible,
      afterVisible: after.visible,
      acted: item,
    });
    expect(states).toEqual([
      {
        role: 'AXMenuItem',
        label: 'Toolbar',
        ref: 'e4',
        changes: [{ old: 'unchecked', new: 'checked' }],
        hidden: true,
      },
    ]);
  });

  it('without the element acted on, a hidden change stays its own', () => {
    const { before, after, diff } = changes(app([]), app(['checked']));
    const states = collectStateChanges(diff, before.snapshot, after.snapshot, after.refs, {
      beforeVisible: before.visible,
      afterVisible: after.visible,
    });
    expect(states.map((s) => [s.label, s.hidden])).toEqual([['_Dark theme', true]]);
  });
});

describe('the element acted on', () => {
  /** A check box after three fields in tree order: checking it enables them. */
  function form(on: boolean): Spec[] {
    const field = (id: string, y: number): Spec => ({
      role: 'AXTextField',
      name: id,
      id,
      frame: [10, y, 100, 20],
      flags: on ? [] : ['disabled'],
    });
    return [
      {
        role: 'AXWindow',
        name: 'Prefs',
        id: 'w',
        frame: [0, 0, 400, 300],
        window: { active: true },
        children: [
          field('a', 10),
          field('b', 40),
          field('c', 70),
          {
            role: 'AXCheckBox',
            name: 'Show separator',
            id: 'sep',
            frame: [10, 100, 150, 20],
            flags: on ? ['checked'] : [],
          },
        ],
      },
    ];
  }

  it('has its own change listed first, before the changes it made elsewhere', () => {
    const { before, after, diff } = changes(form(false), form(true));
    const acted = after.snapshot.elements.findIndex((e) => e.name === 'Show separator');
    const states = collectStateChanges(diff, before.snapshot, after.snapshot, after.refs, {
      beforeVisible: before.visible,
      afterVisible: after.visible,
      acted,
    });
    expect(states.map((s) => s.label)).toEqual(['Show separator', 'a', 'b', 'c']);
    expect(states[0].changes).toEqual([{ old: 'unchecked', new: 'checked' }]);
  });
});
