import { describe, expect, it } from 'vitest';
import type { Element } from '../../src/model/element.js';
import { showsText } from '../../src/pipeline/selection-owner.js';

function el(extra: Partial<Element>): Element {
  return {
    id: 'x',
    parent: -1,
    depth: 0,
    role: 'AXStaticText',
    nativeRole: 'label',
    name: '',
    flags: ['enabled'],
    actions: [],
    childCount: 0,
    ...extra,
  };
}

describe('showsText: whether what a copy holds is on screen in the app', () => {
  const app = [
    el({ name: 'Bank' }),
    el({ name: 'alice' }),
    el({ role: 'AXTextArea', value: 'first line\nsecond   line with  spaces\nthird' }),
    el({ name: 'Help', description: 'Opens the manual' }),
    // A password field's value is withheld by the walk: only its name is there.
    el({ role: 'AXSecureTextField', name: 'Password' }),
  ];

  it.each([
    ['a cell', 'Bank'],
    ['part of a label', 'lic'],
    ['a selection across lines of a text', 'line\nsecond line with spaces'],
    ['lines broken and spaced otherwise', '  first line \r\n\r\nthird'],
    ['a description', 'Opens the manual'],
    ['nothing but whitespace', ' \n\t'],
  ])('%s: shown', (_what, text) => {
    expect(showsText(app, text)).toBe(true);
  });

  it.each([
    ['a password the app never shows', 'Zq7-door-secret'],
    ['one line shown, one not', 'Bank\nZq7-door-secret'],
    ['text spanning two elements as one line', 'Bank alice'],
  ])('%s: not shown', (_what, text) => {
    expect(showsText(app, text)).toBe(false);
  });

  it('an app showing nothing shows no text', () => {
    expect(showsText([], 'anything')).toBe(false);
  });
});
