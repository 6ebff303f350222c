import { describe, expect, it } from 'vitest';
import type { Flag } from '../../src/model/element.js';
import { transientFlags } from '../../src/model/transient.js';

const el = (role: string, ...flags: Flag[]) => ({ role, flags });

describe('transientFlags', () => {
  it('a plain push button held down is pressed only for the moment', () => {
    expect(transientFlags(el('AXButton', 'enabled', 'pressed'))).toEqual(['pressed']);
  });

  it('a toggle’s pressed is its state: it stays', () => {
    expect(transientFlags(el('AXCheckBox', 'enabled', 'pressed'))).toEqual([]);
    expect(transientFlags(el('AXButton', 'checked', 'pressed'))).toEqual([]);
  });

  it('an element not pressed has none', () => {
    expect(transientFlags(el('AXButton', 'enabled', 'focused'))).toEqual([]);
  });
});
