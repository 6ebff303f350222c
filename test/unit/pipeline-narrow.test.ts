import { describe, expect, it } from 'vitest';
import type { Flag } from '../../src/model/element.js';
import { dropHidden } from '../../src/model/filter.js';
import { RefRegistry } from '../../src/pipeline/refs.js';
import { ViewCache } from '../../src/pipeline/views.js';
import { computeVisibility } from '../../src/viewport/index.js';
import { buildSnapshot } from './helpers/synthetic.js';

const OFF: Flag[] = ['offscreen'];
const SCREEN = { w: 1280, h: 800 };
const at = (x: number, y: number): [number, number, number, number] => [x, y, 100, 20];

/** A window with a shown and a hidden page, and an unmapped window. */
function app() {
  return buildSnapshot(
    [
      {
        role: 'AXWindow',
        name: 'Main',
        frame: [0, 0, 600, 400],
        window: { active: true },
        children: [
          { role: 'AXButton', name: 'Before', frame: at(10, 10) },
          {
            role: 'AXTabGroup',
            name: 'Tabs',
            frame: [0, 40, 600, 300],
            children: [
              {
                role: 'AXGroup',
                name: 'Page 1',
                children: [{ role: 'AXCheckBox', name: 'Shown', frame: at(20, 60) }],
              },
              {
                role: 'AXGroup',
                name: 'Page 2',
                flags: OFF,
                children: [{ role: 'AXTextField', name: 'Hidden field' }],
              },
            ],
          },
          { role: 'AXButton', name: 'After', frame: at(10, 360) },
        ],
      },
      {
        role: 'AXWindow',
        name: 'Unmapped',
        flags: OFF,
        window: {},
        children: [{ role: 'AXButton', name: 'Gone' }],
      },
    ],
    { pid: 42 },
  );
}

describe('dropHidden kept indices and ViewCache.narrow', () => {
  it('kept maps each element left to its index in the whole tree', () => {
    const whole = app();
    const { snapshot, dropped, kept } = dropHidden(whole);
    expect(dropped).toBeGreaterThan(0);
    expect(kept).toHaveLength(snapshot.elements.length);
    snapshot.elements.forEach((el, j) => {
      const { parent: _p, ...rest } = whole.elements[kept[j]];
      const { parent: _q, ...mine } = el;
      expect(mine).toEqual(rest);
      if (el.parent >= 0) expect(kept[el.parent]).toBe(whole.elements[kept[j]].parent);
    });
  });

  it('narrows a presented view: the same refs as the whole view, visibility of the narrowed tree', () => {
    const cache = new ViewCache(new RefRegistry());
    const whole = app();
    const full = cache.present(whole, SCREEN, 'ax_get_tree');
    const { snapshot, kept } = dropHidden(whole);
    const view = cache.narrow(full, snapshot, kept, SCREEN);
    expect(view.refs).toEqual(Array.from(kept, (i) => full.refs[i]));
    const vis = computeVisibility(snapshot, { x: 0, y: 0, ...SCREEN });
    expect(view.visible).toEqual(vis.visible);
    expect(view.viewport).toEqual(vis.viewport);
    expect(view.snapshotId).not.toBe(full.snapshotId);
    // The app's current view stays the whole one.
    expect(cache.last(42)).toBe(full);
    // What presenting the narrowed tree again gave: the same refs, without keying it again.
    const again = cache.present(snapshot, SCREEN, 'ax_get_tree', true);
    expect(again.refs).toEqual(view.refs);
    expect(again.visible).toEqual(view.visible);
  });
});
