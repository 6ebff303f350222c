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

describe('clickRouteOf: rows, tabs and expanders', () => {
  const native = (role: string, nativeRole: string, actions: string[] = [], flags: Flag[] = []) =>
    element({ role, nativeRole, actions, flags: ['enabled', ...flags] });

  it('a row or tab with no action is chosen through its container', () => {
    // GTK4 list box / list view rows, a column view's rows, notebook tabs; GTK3 alike.
    expect(clickRouteOf(native('AXRow', 'list item'))).toEqual({ via: 'select' });
    expect(clickRouteOf(native('AXRow', 'table row'))).toEqual({ via: 'select' });
    expect(clickRouteOf(native('AXRadioButton', 'page tab'))).toEqual({ via: 'select' });
    // A tab that is a button (GTK4's stack switcher) is pressed; a label is nothing.
    expect(clickRouteOf(native('AXRadioButton', 'page tab', ['click']))).toEqual({
      via: 'action',
      action: 'click',
    });
    expect(clickRouteOf(native('AXStaticText', 'label'))).toEqual({ via: 'none' });
    // Qt's row that offers only SetFocus keeps its focus route.
    expect(clickRouteOf(native('AXRow', 'list item', ['SetFocus']))).toEqual({ via: 'focus' });
  });

  it("GTK4's tree expander toggles, and its arrow runs the expander's action", () => {
    const actions = ['listitem.toggle-expand', 'listitem.collapse', 'listitem.expand'];
    const expander = native('AXGroup', 'panel', actions, ['collapsed']);
    expect(clickRouteOf(expander)).toEqual({ via: 'action', action: 'listitem.toggle-expand' });
    const arrow = native('AXButton', 'push button');
    expect(clickRouteOf(arrow, expander)).toEqual({
      via: 'action',
      action: 'listitem.toggle-expand',
      on: 'parent',
    });
    // Without such a parent, a button with no action has no route.
    expect(clickRouteOf(arrow, native('AXGroup', 'panel'))).toEqual({ via: 'none' });
    expect(clickRouteOf(arrow)).toEqual({ via: 'none' });
    // The expander's label is not its arrow.
    expect(clickRouteOf(native('AXStaticText', 'label'), expander)).toEqual({ via: 'none' });
    // A leaf's expander lists the actions, which do nothing: no route.
    const leaf = native('AXGroup', 'panel', actions);
    expect(clickRouteOf(leaf)).toEqual({ via: 'none' });
    expect(clickRouteOf(arrow, leaf)).toEqual({ via: 'none' });
  });
});
