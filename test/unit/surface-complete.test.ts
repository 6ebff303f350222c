/** Completion filtering and the re-announcement filter of tree subscriptions. */
import { describe, expect, it } from 'vitest';
import { completeFrom } from '../../src/surface/complete.js';
import { isReannouncement } from '../../src/surface/reannounce.js';
import type { SnapshotView } from '../../src/model/view.js';
import { node, snapshot } from './helpers/diff-fixtures.js';

describe('completeFrom', () => {
  const apps = ['galculator', 'gedit', 'Mousepad', 'Untitled 1 - Mousepad', 'gedit'];

  it('offers prefix matches first, then matches inside, case-insensitively, once each', () => {
    expect(completeFrom(apps, 'g')).toEqual(['galculator', 'gedit']);
    expect(completeFrom(apps, 'mouse')).toEqual(['Mousepad', 'Untitled 1 - Mousepad']);
    expect(completeFrom(apps, 'GALC')).toEqual(['galculator']);
  });

  it('offers everything for nothing typed, and nothing for no match', () => {
    expect(completeFrom(apps, '')).toEqual([
      'galculator',
      'gedit',
      'Mousepad',
      'Untitled 1 - Mousepad',
    ]);
    expect(completeFrom(apps, undefined)).toHaveLength(4);
    expect(completeFrom(apps, 'zzz')).toEqual([]);
  });

  it('skips empty names', () => {
    expect(completeFrom(['', 'x'], '')).toEqual(['x']);
  });
});

describe('isReannouncement', () => {
  const view = {
    snapshot: snapshot([
      node('AXWindow', 'W', {
        id: 'w',
        children: [
          node('AXCheckBox', 'Bold', { id: 'c', flags: ['checked'] }),
          node('AXCheckBox', 'Hidden', { id: 'h', flags: ['offscreen'] }),
        ],
      }),
    ]),
  } as unknown as SnapshotView;

  it('is a state the last view already shows, or one of a hidden element', () => {
    expect(isReannouncement(view, { elementId: 'c', flag: 'checked', on: true })).toBe(true);
    expect(isReannouncement(view, { elementId: 'h', flag: 'checked', on: true })).toBe(true);
  });

  it('is not a state that differs, a structural change, an unknown element or no view', () => {
    expect(isReannouncement(view, { elementId: 'c', flag: 'checked', on: false })).toBe(false);
    expect(isReannouncement(view, { elementId: 'c' })).toBe(false);
    expect(isReannouncement(view, { elementId: 'x', flag: 'checked', on: true })).toBe(false);
    expect(isReannouncement(undefined, { elementId: 'c', flag: 'checked', on: true })).toBe(false);
  });
});
