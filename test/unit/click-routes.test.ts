/**
 * Which way a click goes through AT-SPI, by role, states and the actions each toolkit
 * offers (the table in docs/click-routes.md): text takers are focused, never "activate"d.
 */
import { describe, expect, it } from 'vitest';
import { clickRouteOf } from '../../src/platform/linux/click-routes.js';
import type { Flag } from '../../src/model/element.js';
import { element } from './helpers/synthetic.js';

const el = (role: string, actions: string[], flags: Flag[] = []) =>
  element({ role, actions, flags: ['enabled', ...flags] });

describe('clickRouteOf', () => {
  it('elements that take text get the focus, whatever "activate" they offer', () => {
    // GTK3 entry, spin button, a combo box's entry; GTK4 text; Firefox input; Qt line edit.
    expect(clickRouteOf(el('AXTextField', ['activate'], ['editable']))).toEqual({ via: 'focus' });
    expect(clickRouteOf(el('AXIncrementor', ['activate'], ['editable']))).toEqual({
      via: 'focus',
    });
    expect(clickRouteOf(el('AXTextArea', [], ['editable', 'multiline']))).toEqual({
      via: 'focus',
    });
    expect(clickRouteOf(el('AXTextField', ['SetFocus'], ['editable']))).toEqual({
      via: 'focus',
    });
  });

  it('an editable table cell opens its editor', () => {
    expect(
      clickRouteOf(el('AXCell', ['expand or contract', 'edit', 'activate'], ['editable'])),
    ).toEqual({ via: 'action', action: 'edit' });
  });

  it('a read-only field is pressed like anything else', () => {
    expect(clickRouteOf(el('AXTextField', ['activate'], ['editable', 'readonly']))).toEqual({
      via: 'action',
      action: 'activate',
    });
  });

  it('buttons, check boxes, links, tabs, menus: the most specific press action', () => {
    expect(clickRouteOf(el('AXButton', ['activate', 'click']))).toEqual({
      via: 'action',
      action: 'click',
    });
    expect(clickRouteOf(el('AXCheckBox', ['Toggle', 'SetFocus']))).toEqual({
      via: 'action',
      action: 'Toggle',
    });
    expect(clickRouteOf(el('AXLink', ['jump']))).toEqual({ via: 'action', action: 'jump' });
    expect(clickRouteOf(el('AXMenuButton', ['ShowMenu']))).toEqual({
      via: 'action',
      action: 'ShowMenu',
    });
  });

  it("Firefox's <summary> offers expand: that is its click", () => {
    expect(clickRouteOf(el('AXDisclosureTriangle', ['expand']))).toEqual({
      via: 'action',
      action: 'expand',
    });
  });

  it('an element whose only action moves the focus is focused; none fits: none', () => {
    expect(clickRouteOf(el('AXGroup', ['SetFocus']))).toEqual({ via: 'focus' });
    expect(clickRouteOf(el('AXStaticText', []))).toEqual({ via: 'none' });
    expect(clickRouteOf(el('AXSlider', ['Increase', 'Decrease']))).toEqual({ via: 'none' });
  });
});
