/**
 * Which way a click goes through AT-SPI, by role, states and the actions each toolkit
 * offers (the table in docs/click-routes.md): text takers are focused, never "activate"d.
 */
import { describe, expect, it } from 'vitest';
import { clickRouteOf, clickSpotOf } from '../../src/platform/linux/click-routes.js';
import { dropDownButton, noteClickContext } from '../../src/platform/linux/atspi/click-context.js';
import { detectGtk4 } from '../../src/platform/linux/atspi/gtk4.js';
import type { Element, Flag, Snapshot } from '../../src/model/element.js';
import { element } from './helpers/synthetic.js';

const snapshotOf = (elements: Element[]): Snapshot => ({
  pid: 1,
  app: 'app',
  elements,
  windows: [],
  truncated: null,
  elapsedMs: 0,
  takenAt: 0,
  method: 'test',
});

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

  it("a GTK3 tree view's cell is focused (its row selected), never activated as a double click is", () => {
    const cell = (actions: string[], flags: Flag[] = []) =>
      clickRouteOf(native('AXCell', 'table cell', actions, flags));
    expect(cell(['activate'])).toEqual({
      via: 'focus',
      effect: expect.stringMatching(/selects its row/),
    });
    // The expander column's cell still expands; an editable cell still edits.
    expect(cell(['expand or contract', 'activate'], ['collapsed'])).toEqual({
      via: 'action',
      action: 'expand or contract',
    });
    expect(cell(['edit', 'activate'], ['editable'])).toEqual({ via: 'action', action: 'edit' });
    // A cell with a press of its own (a check box's toggle) is pressed.
    expect(cell(['toggle', 'activate'])).toEqual({ via: 'action', action: 'toggle' });
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

describe('clickRouteOf: tree rows that expand, combo box lists, drop-downs', () => {
  const at = (
    id: string,
    nativeRole: string,
    actions: string[] = [],
    flags: Flag[] = [],
    parent = -1,
    depth = 0,
  ) =>
    element({
      id,
      role: 'AXGroup',
      nativeRole,
      actions,
      flags: ['enabled', ...flags],
      parent,
      depth,
    });
  const walked = (elements: Element[], toolkit: { qt?: boolean; gtk4?: boolean }): Element[] => {
    noteClickContext(snapshotOf(elements), toolkit);
    return elements;
  };

  it("GTK3's expandable tree cell expands or collapses, not activates", () => {
    const actions = ['expand or contract', 'edit', 'activate'];
    expect(clickRouteOf(at(':1.3/cell', 'table cell', actions, ['collapsed']))).toEqual({
      via: 'action',
      action: 'expand or contract',
    });
    // A cell with nothing to expand is focused (its row selected), not activated.
    expect(clickRouteOf(at(':1.3/leaf', 'table cell', ['edit', 'activate']))).toMatchObject({
      via: 'focus',
    });
  });

  it('a Qt tree row that can expand has no route: its Toggle only selects it', () => {
    const [tree, cell, leaf] = walked(
      [
        at(':1.4/tree', 'tree'),
        at(':1.4/europe', 'table cell', ['Toggle'], ['collapsed'], 0, 1),
        at(':1.4/paris', 'table cell', ['Toggle'], [], 0, 1),
      ],
      { qt: true },
    );
    const route = clickRouteOf(cell, tree);
    expect(route.via).toBe('none');
    expect(route.via === 'none' && route.why).toMatch(/no action that expands/);
    // A row with nothing to expand is selected by its Toggle, as a click on it does.
    expect(clickRouteOf(leaf, tree)).toEqual({ via: 'action', action: 'Toggle' });
  });

  it("a Qt radio or check button's Toggle is taken with a caveat: it sends no click", () => {
    const [, radio, check, button] = walked(
      [
        at(':1.6/group', 'panel'),
        at(':1.6/rad', 'radio button', ['Toggle', 'SetFocus'], [], 0, 1),
        at(':1.6/hyp', 'check box', ['Toggle', 'SetFocus'], [], 0, 1),
        at(':1.6/ok', 'push button', ['Press', 'SetFocus'], [], 0, 1),
      ],
      { qt: true },
    );
    for (const checkable of [radio, check]) {
      expect(clickRouteOf(checkable)).toMatchObject({
        via: 'action',
        action: 'Toggle',
        caveat: /sends no click/,
      });
    }
    expect(clickRouteOf(button)).toEqual({ via: 'action', action: 'Press' });
    // GTK's toggle action on a check box is its click: no caveat.
    expect(clickRouteOf(at(':1.7/gtk', 'check box', ['click']))).toEqual({
      via: 'action',
      action: 'click',
    });
  });

  it("a row of a combo box's list that would only be selected there has no route", () => {
    // Qt: the combo box's list, its items' Toggle.
    const [, qtList, qtItem] = walked(
      [
        at(':1.5/combo', 'combo box', ['ShowMenu', 'Press']),
        at(':1.5/list', 'list', [], [], 0, 1),
        at(':1.5/green', 'list item', ['Toggle'], [], 1, 2),
      ],
      { qt: true },
    );
    expect(clickRouteOf(qtItem, qtList)).toMatchObject({ via: 'none', why: /combo box.s list/ });
    // GTK4: the drop-down's list in its popover, rows with no action.
    const [, , , gtkList, gtkRow] = walked(
      [
        at(':1.6/dd', 'combo box'),
        at(':1.6/button', 'push button', ['click'], [], 0, 1),
        at(':1.6/popover', 'filler', [], [], 0, 1),
        at(':1.6/list', 'list', [], [], 2, 2),
        at(':1.6/green', 'list item', [], [], 3, 3),
      ],
      { gtk4: true },
    );
    expect(clickRouteOf(gtkRow, gtkList)).toMatchObject({ via: 'none', why: /combo box.s list/ });
    // A list that is no combo box's keeps selecting its rows.
    const [plainList, plainRow] = walked(
      [at(':1.6/fruits', 'list'), at(':1.6/apple', 'list item', [], [], 0, 1)],
      { gtk4: true },
    );
    expect(clickRouteOf(plainRow, plainList)).toEqual({ via: 'select' });
    // GTK3's combo box items are menu items whose click chooses them.
    const [, gtk3Menu, gtk3Item] = walked(
      [
        at(':1.7/combo', 'combo box', ['press']),
        at(':1.7/menu', 'menu', [], [], 0, 1),
        at(':1.7/green', 'menu item', ['click'], [], 1, 2),
      ],
      {},
    );
    expect(clickRouteOf(gtk3Item, gtk3Menu)).toEqual({ via: 'action', action: 'click' });
  });

  it("GTK4's drop-down, which has no action, is clicked through its button", () => {
    const [dd] = walked(
      [at(':1.8/dd', 'combo box'), at(':1.8/button', 'push button', ['Click'], [], 0, 1)],
      { gtk4: true },
    );
    expect(clickRouteOf(dd)).toEqual({ via: 'action', action: 'click' });
    expect(dropDownButton(':1.8/dd')).toBe(':1.8/button');
    // Another toolkit's combo box with no action has no such route.
    const [other] = walked(
      [at(':1.9/dd', 'combo box'), at(':1.9/button', 'push button', ['click'], [], 0, 1)],
      {},
    );
    expect(clickRouteOf(other)).toEqual({ via: 'none' });
  });
});

describe("clickRouteOf: GTK 4's popover menu bar", () => {
  it('has no route to open a menu, and says why', async () => {
    // The app on :1.11 says it is GTK 4.8.
    const call = async (
      _dest: string,
      _path: string,
      _iface: string,
      _m: string,
      _s?: string,
      body?: unknown[],
    ) => [{ value: body?.[1] === 'ToolkitName' ? 'GTK' : '4.8.3' }];
    expect(await detectGtk4(call, { bus: ':1.11', path: '/', pid: 1, name: 'app' })).toBe(true);
    const bar = element({ id: ':1.11/bar', role: 'AXMenuBar', nativeRole: 'menu bar' });
    const file = element({
      id: ':1.11/file',
      role: 'AXMenuItem',
      nativeRole: 'menu item',
      parent: 0,
    });
    expect(clickRouteOf(file, bar)).toMatchObject({ via: 'none', why: /GTK 4's popover menu bar/ });
    // Another toolkit's menu with no action has no reason to give.
    const other = element({
      id: ':1.12/file',
      role: 'AXMenuItem',
      nativeRole: 'menu item',
      parent: 0,
    });
    expect(clickRouteOf(other, bar)).toEqual({ via: 'none' });
  });
});

describe('clickSpotOf: the expander arrow a tree row draws beside its cell', () => {
  const cell = (id: string, actions: string[], flags: Flag[], x = 471) =>
    element({
      id,
      role: 'AXCell',
      nativeRole: 'table cell',
      actions,
      flags: ['enabled', ...flags],
      frame: { x, y: 239, w: 276, h: 21 },
    });
  const tree = element({
    id: ':1.20/tree',
    role: 'AXOutline',
    nativeRole: 'tree table',
    frame: { x: 431, y: 213, w: 318, h: 90 },
  });

  it("GTK3's: 30 px left of the cell it reports, mid-height", () => {
    const europe = cell(':1.20/europe', ['expand or contract', 'edit', 'activate'], ['collapsed']);
    expect(clickSpotOf(europe, tree)).toEqual({ x: 441, y: 249, part: 'expander arrow' });
    // A cell with nothing to expand, or no frame: aimed at as usual.
    expect(clickSpotOf(cell(':1.20/paris', ['edit', 'activate'], []), tree)).toBeUndefined();
    // A spot left of the tree is no arrow of it.
    expect(
      clickSpotOf(europe, { ...tree, frame: { x: 460, y: 213, w: 318, h: 90 } }),
    ).toBeUndefined();
  });

  it("Qt's: in the indentation just left of the cell", () => {
    const [qtTree, europe] = [
      element({
        id: ':1.21/tree',
        role: 'AXOutline',
        nativeRole: 'tree',
        frame: { x: 404, y: 196, w: 348, h: 100 },
      }),
      cell(':1.21/europe', ['Toggle'], ['collapsed'], 425),
    ];
    noteClickContext(snapshotOf([qtTree, { ...europe, parent: 0, depth: 1 }]), { qt: true });
    expect(clickSpotOf(europe, qtTree)).toEqual({ x: 415, y: 249, part: 'expander arrow' });
    // The same cell in an app not known to be Qt: no spot.
    expect(clickSpotOf({ ...europe, id: ':1.22/europe' }, qtTree)).toBeUndefined();
  });
});
