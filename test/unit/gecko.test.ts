/** Gecko's pure helpers: the text users see, and whether the shown page is in a walk. */
import { describe, expect, it } from 'vitest';
import type { Element } from '../../src/model/element.js';
import {
  childrenLiveOnly,
  pagePending,
  visibleText,
} from '../../src/platform/linux/atspi/gecko.js';

describe('visibleText', () => {
  it("drops Gecko's U+FEFF after characters beyond the BMP, and only there", () => {
    expect(visibleText('Hi 😀\uFEFF and 𝔘\uFEFF𝔫\uFEFF')).toBe('Hi 😀 and 𝔘𝔫');
    expect(visibleText('a\uFEFFb')).toBe('a\uFEFFb');
  });

  it('drops the placeholders hypertext puts for child elements', () => {
    expect(visibleText('\uFFFC\uFFFC')).toBe('');
    expect(visibleText('Status: \uFFFC')).toBe('Status: ');
  });
});

let n = 0;
function el(nativeRole: string, parent: number, extra: Partial<Element> = {}): Element {
  return {
    id: `:1.1/${n++}`,
    parent,
    depth: 0,
    role: 'AXGroup',
    nativeRole,
    name: '',
    flags: ['enabled'],
    actions: [],
    childCount: 0,
    ...extra,
  };
}

describe('pagePending', () => {
  const chrome = [el('frame', -1, { childCount: 1 }), el('scroll pane', 0, { childCount: 1 })];

  it('says the page is not attached while the shown frame has no document', () => {
    expect(pagePending([...chrome, el('internal frame', 1)])).toMatch(/not attached/);
  });

  it('says the page is loading while its document is empty or not showing', () => {
    const frame = el('internal frame', 1, { childCount: 1 });
    expect(pagePending([...chrome, frame, el('document web', 2)])).toMatch(/loading/);
    const hidden = el('document web', 2, { childCount: 3, flags: ['enabled', 'offscreen'] });
    expect(pagePending([...chrome, frame, hidden])).toMatch(/loading/);
  });

  it('is satisfied by a shown document with content, and ignores hidden tabs', () => {
    const frame = el('internal frame', 1, { childCount: 1 });
    expect(pagePending([...chrome, frame, el('document web', 2, { childCount: 4 })])).toBeNull();
    const hiddenTab = el('internal frame', 1, { flags: ['enabled', 'offscreen'] });
    expect(pagePending([...chrome, hiddenTab])).toBeNull();
  });

  it('does not wait for an empty iframe inside a page', () => {
    expect(
      pagePending([el('document web', -1, { childCount: 1 }), el('internal frame', 0)]),
    ).toBeNull();
  });
});

describe('childrenLiveOnly', () => {
  it('lists internal frames live (role 28), nothing else', () => {
    expect(childrenLiveOnly(28)).toBe(true);
    expect(childrenLiveOnly(95)).toBe(false);
  });
});
