import { describe, expect, it } from 'vitest';
import type { Element, Snapshot } from '../../src/model/element.js';
import {
  MAX_TRAIT_NAME,
  sameSpot,
  succeeds,
  takesText,
  traitNameOf,
  traitsIn,
  type FieldTraits,
} from '../../src/model/field-succession.js';

/** A password field as Firefox showed it, before the page turned it to plain text. */
const seen: FieldTraits = {
  name: 'Account password',
  frame: { x: 159, y: 116, w: 368, h: 33 },
  spot: { x: 159, y: 12, w: 368, h: 33 },
  parent: ':1.3/p/70',
  window: ':1.3/w/1',
};

describe('sameSpot', () => {
  it('is the same place when the frames share half their union', () => {
    const a = { x: 0, y: 0, w: 100, h: 30 };
    expect(sameSpot(a, { ...a })).toBe(true);
    expect(sameSpot(a, { x: 1, y: 1, w: 101, h: 29 })).toBe(true);
    expect(sameSpot(a, { x: 60, y: 0, w: 100, h: 30 })).toBe(false);
    // A big box around a small one is not its place.
    expect(sameSpot(a, { x: 0, y: 0, w: 400, h: 300 })).toBe(false);
  });

  it('is no place without two frames with an area', () => {
    const a = { x: 0, y: 0, w: 100, h: 30 };
    expect(sameSpot(a, undefined)).toBe(false);
    expect(sameSpot(undefined, undefined)).toBe(false);
    expect(sameSpot(a, { x: 0, y: 0, w: 0, h: 30 })).toBe(false);
    expect(sameSpot({ x: 0, y: 0, w: 0, h: 0 }, { x: 0, y: 0, w: 0, h: 0 })).toBe(false);
  });
});

describe('succeeds', () => {
  it('knows the field a page turned to plain text (new id, same name, parent and place)', () => {
    expect(succeeds({ ...seen }, seen)).toBe(true);
  });

  it('knows it by its name and parent after its window moved', () => {
    const moved = { ...seen, frame: { x: 459, y: 316, w: 368, h: 33 } };
    expect(succeeds(moved, seen)).toBe(true);
  });

  it('knows it by its name and window when the page built its container anew too', () => {
    expect(succeeds({ ...seen, parent: ':1.3/p/900', frame: undefined }, seen)).toBe(true);
  });

  it('knows it by its name and place when nothing else is known', () => {
    expect(
      succeeds({ name: seen.name, frame: seen.frame }, { name: seen.name, frame: seen.frame }),
    ).toBe(true);
  });

  it('knows it by its parent and place when the page renamed it as it showed it', () => {
    expect(succeeds({ ...seen, name: 'Account password (shown)' }, seen)).toBe(true);
  });

  it('is not a field with another name elsewhere in the same container', () => {
    const other = { ...seen, name: 'User name', frame: { x: 159, y: 70, w: 368, h: 33 } };
    other.spot = { x: 159, y: -34, w: 368, h: 33 };
    expect(succeeds(other, seen)).toBe(false);
  });

  it('is not a field with another name in the same place of another container', () => {
    expect(succeeds({ ...seen, name: 'Search', parent: ':1.3/p/5' }, seen)).toBe(false);
  });

  it('is not a field with the same name in another window and place', () => {
    const elsewhere = {
      name: seen.name,
      frame: { x: 700, y: 500, w: 368, h: 33 },
      spot: { x: 10, y: 10, w: 368, h: 33 },
      parent: ':1.3/p/800',
      window: ':1.3/w/2',
    };
    expect(succeeds(elsewhere, seen)).toBe(false);
  });

  it('an empty name tells nothing', () => {
    const unnamed = { ...seen, name: undefined };
    const elsewhere = { frame: { x: 700, y: 500, w: 10, h: 10 }, window: seen.window };
    expect(succeeds(elsewhere, unnamed)).toBe(false);
    expect(succeeds({ ...unnamed }, unnamed)).toBe(true);
  });
});

describe('takesText', () => {
  const el = (role: string, flags: Element['flags'] = []) => ({ role, flags });
  it('is a text field, a text area or anything editable', () => {
    expect(takesText(el('AXTextField'))).toBe(true);
    expect(takesText(el('AXTextArea'))).toBe(true);
    expect(takesText(el('AXIncrementor', ['editable']))).toBe(true);
    expect(takesText(el('AXButton'))).toBe(false);
    expect(takesText(el('AXStaticText'))).toBe(false);
  });
});

describe('traitsIn', () => {
  function element(
    id: string,
    parent: number,
    depth: number,
    extra: Partial<Element> = {},
  ): Element {
    return {
      id,
      parent,
      depth,
      role: 'AXGroup',
      nativeRole: 'panel',
      name: '',
      flags: [],
      actions: [],
      childCount: 0,
      ...extra,
    };
  }

  it('names the parent and window, and places the field on screen and in its window', () => {
    const snapshot: Snapshot = {
      pid: 7,
      app: 'Firefox',
      elements: [
        element('w', -1, 0, { frame: { x: 100, y: 50, w: 800, h: 600 } }),
        element('p', 0, 1),
        element('f', 1, 2, {
          role: 'AXTextField',
          name: 'Account password',
          frame: { x: 259, y: 166, w: 368, h: 33 },
        }),
      ],
      windows: [],
      truncated: null,
      elapsedMs: 1,
      takenAt: 0,
      method: 'test',
    };
    expect(traitsIn(snapshot, 2)).toEqual({
      name: 'Account password',
      frame: { x: 259, y: 166, w: 368, h: 33 },
      spot: { x: 159, y: 116, w: 368, h: 33 },
      parent: 'p',
      window: 'w',
    });
    expect(traitsIn(snapshot, 0)).toEqual({ frame: { x: 100, y: 50, w: 800, h: 600 } });
  });

  it('keeps no text of the field in its name, and keeps a name short', () => {
    expect(traitNameOf({ name: '  Account password ' })).toBe('Account password');
    expect(traitNameOf({ name: 'Pin 4711-secret', value: '4711-secret' })).toBe('Pin •••');
    expect(traitNameOf({ name: 'x'.repeat(500) })).toHaveLength(MAX_TRAIT_NAME);
    expect(traitNameOf({ name: ' ' })).toBeUndefined();
  });
});
