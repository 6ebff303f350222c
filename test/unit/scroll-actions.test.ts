/**
 * Which element a background scroll moves by its own scroll action (Chromium's web
 * documents offer scrollDown/scrollUp/... and no scroll bar with a value).
 */
import { describe, expect, it } from 'vitest';
import { scrollActionName, scrollActionTarget } from '../../src/actions/scroll-actions.js';
import { buildSnapshot, viewOf } from './helpers/synthetic.js';

const SCROLLS = ['doDefault', 'scrollDown', 'scrollUp'];

function browser() {
  return viewOf(
    buildSnapshot([
      {
        role: 'AXWindow',
        name: 'page - Chromium',
        frame: [0, 0, 1000, 700],
        window: { active: true },
        children: [
          // A small scrollable box and the whole document; the document is larger.
          {
            role: 'AXWebArea',
            name: 'page',
            frame: [0, 100, 1000, 600],
            actions: SCROLLS,
            children: [
              { role: 'AXButton', name: 'Go', frame: [10, 120, 50, 20], actions: ['press'] },
              {
                role: 'AXGroup',
                name: 'box',
                frame: [10, 200, 200, 100],
                actions: SCROLLS,
                children: [{ role: 'AXStaticText', name: 'inside', frame: [12, 210, 50, 20] }],
              },
            ],
          },
        ],
      },
    ]),
  );
}

const indexOf = (view: ReturnType<typeof browser>, name: string): number =>
  view.snapshot.elements.findIndex((e) => e.name === name);

describe('scrollActionTarget', () => {
  it('takes the largest visible element offering the action when no target is named', () => {
    const view = browser();
    expect(scrollActionTarget(view, undefined, 'down')).toBe(indexOf(view, 'page'));
  });

  it("takes the target's nearest ancestor that offers the action", () => {
    const view = browser();
    expect(scrollActionTarget(view, indexOf(view, 'inside'), 'up')).toBe(indexOf(view, 'box'));
    expect(scrollActionTarget(view, indexOf(view, 'Go'), 'down')).toBe(indexOf(view, 'page'));
  });

  it('finds nothing when no element offers that direction', () => {
    const view = browser();
    expect(scrollActionTarget(view, undefined, 'left')).toBeUndefined();
    expect(scrollActionName('left')).toBe('scrollLeft');
  });
});
