/**
 * The AT-SPI role table and its mapping to the AX vocabulary, checked against libatspi's
 * own numbering where the system has it (gir1.2-atspi-2.0 through /usr/bin/python3) and
 * against the decisions documented in roles.ts.
 */

import { systemAtspiList } from './helpers/libatspi.js';
import { describe, expect, it } from 'vitest';
import { found, itNeeding } from '../e2e/helpers/needs.js';

import {
  allAxRoles,
  ATSPI_ROLES,
  axRole,
  DIALOG_ROLES,
  hasMapping,
  ROLE,
  roleName,
} from '../../src/platform/linux/roles.js';

function systemRoleNames(): string[] | null {
  return systemAtspiList(
    '[Atspi.role_get_name(Atspi.Role(i)) for i in range(int(Atspi.Role.LAST_DEFINED))]',
  );
}

describe('AT-SPI role table', () => {
  it('has the 130 roles of libatspi 2.46 in enum order', () => {
    expect(ATSPI_ROLES).toHaveLength(130);
    expect(ATSPI_ROLES[0]).toBe('invalid');
    expect(ATSPI_ROLES[ROLE.PUSH_BUTTON]).toBe('push button');
    expect(ATSPI_ROLES[ROLE.FRAME]).toBe('frame');
    expect(ATSPI_ROLES[ROLE.PASSWORD_TEXT]).toBe('password text');
    expect(ATSPI_ROLES[ROLE.TEXT]).toBe('text');
    expect(ATSPI_ROLES[ROLE.ENTRY]).toBe('entry');
    expect(ATSPI_ROLES[ROLE.APPLICATION]).toBe('application');
    expect(ATSPI_ROLES[129]).toBe('push button menu');
    expect(new Set(ATSPI_ROLES).size).toBe(ATSPI_ROLES.length);
  });

  const system = systemRoleNames();
  itNeeding(
    [found('libatspi through python3-gi', 'gir1.2-atspi-2.0', system !== null)],
    'matches the system libatspi numbering name for name',
    () => {
      // A newer libatspi may append roles; the ones we know must keep their numbers.
      expect(system!.slice(0, ATSPI_ROLES.length)).toEqual([...ATSPI_ROLES]);
    },
  );

  it('names unknown role numbers stably', () => {
    expect(roleName(43)).toBe('push button');
    expect(roleName(500)).toBe('role 500');
  });
});

describe('role mapping to AX names', () => {
  it('maps every native role to an AX role', () => {
    for (const r of ATSPI_ROLES) {
      expect(hasMapping(r), r).toBe(true);
      expect(axRole(r), r).toMatch(/^AX[A-Z][A-Za-z]+$/);
    }
    expect(axRole('not a role')).toBe('AXUnknown');
  });

  it.each([
    ['push button', 'AXButton'],
    ['check box', 'AXCheckBox'],
    ['toggle button', 'AXCheckBox'],
    ['radio button', 'AXRadioButton'],
    ['password text', 'AXTextField'],
    ['entry', 'AXTextField'],
    ['label', 'AXStaticText'],
    ['static', 'AXStaticText'],
    ['menu bar', 'AXMenuBar'],
    ['menu item', 'AXMenuItem'],
    ['check menu item', 'AXMenuItem'],
    ['radio menu item', 'AXMenuItem'],
    ['combo box', 'AXComboBox'],
    ['list', 'AXList'],
    ['list box', 'AXList'],
    ['list item', 'AXRow'],
    ['table', 'AXTable'],
    ['table cell', 'AXCell'],
    ['table row', 'AXRow'],
    ['table column header', 'AXButton'],
    ['tree table', 'AXOutline'],
    ['tree', 'AXOutline'],
    ['tree item', 'AXRow'],
    ['scroll pane', 'AXScrollArea'],
    ['scroll bar', 'AXScrollBar'],
    ['slider', 'AXSlider'],
    ['spin button', 'AXIncrementor'],
    ['page tab list', 'AXTabGroup'],
    ['page tab', 'AXRadioButton'],
    ['panel', 'AXGroup'],
    ['filler', 'AXGroup'],
    ['image', 'AXImage'],
    ['icon', 'AXImage'],
    ['link', 'AXLink'],
    ['progress bar', 'AXProgressIndicator'],
    ['separator', 'AXSeparator'],
    ['tool bar', 'AXToolbar'],
    ['heading', 'AXHeading'],
    ['application', 'AXApplication'],
    ['unknown', 'AXUnknown'],
    ['document web', 'AXWebArea'],
    ['level bar', 'AXLevelIndicator'],
  ])('%s → %s', (native, ax) => {
    expect(axRole(native)).toBe(ax);
  });

  it('multi-line text is a text area, single-line a text field', () => {
    expect(axRole('text', { multiLine: true })).toBe('AXTextArea');
    expect(axRole('text', { multiLine: false })).toBe('AXTextField');
    expect(axRole('entry', { multiLine: true })).toBe('AXTextArea');
  });

  it('an expandable toggle button (GtkExpander) is a disclosure triangle', () => {
    expect(axRole('toggle button', { expandable: true })).toBe('AXDisclosureTriangle');
  });

  it('a menu is a menu-bar item under a menu bar, an item under a menu, else a menu', () => {
    expect(axRole('menu', { parentRole: 'menu bar' })).toBe('AXMenuBarItem');
    expect(axRole('menu', { parentRole: 'menu' })).toBe('AXMenuItem');
    expect(axRole('menu', { parentRole: 'combo box' })).toBe('AXMenu');
    // GTK 3's popover: a modal panel hung from its window; any other panel is a group.
    expect(axRole('panel', { modal: true, parentRole: 'frame' })).toBe('AXPopover');
    expect(axRole('panel', { modal: false, parentRole: 'frame' })).toBe('AXGroup');
    expect(axRole('panel', { modal: true, parentRole: 'filler' })).toBe('AXGroup');
    expect(axRole('menu')).toBe('AXMenu');
  });

  it('top-level dialogs: modal → AXSheet, not modal → AXWindow; inside a window → AXGroup', () => {
    for (const d of DIALOG_ROLES) {
      expect(axRole(d, { topLevel: true, modal: true })).toBe('AXSheet');
      expect(axRole(d, { topLevel: true, modal: false })).toBe('AXWindow');
      expect(axRole(d, { topLevel: false, modal: true })).toBe('AXGroup');
    }
  });

  it('every other top-level is a window (a Qt filler too), a tool tip a help tag', () => {
    expect(axRole('frame', { topLevel: true })).toBe('AXWindow');
    expect(axRole('window', { topLevel: true })).toBe('AXWindow');
    expect(axRole('filler', { topLevel: true })).toBe('AXWindow');
    expect(axRole('tool tip', { topLevel: true })).toBe('AXHelpTag');
    // A frame role inside a window (rare) still reads as a window.
    expect(axRole('frame')).toBe('AXWindow');
  });

  it('lists every AX role it can produce', () => {
    const produced = new Set<string>();
    for (const r of ATSPI_ROLES) {
      for (const topLevel of [false, true]) {
        for (const modal of [false, true]) {
          for (const multiLine of [false, true]) {
            for (const parentRole of [undefined, 'menu bar', 'menu', 'frame']) {
              produced.add(
                axRole(r, { topLevel, modal, multiLine, parentRole, expandable: multiLine }),
              );
            }
          }
        }
      }
    }
    expect([...produced].sort()).toEqual([...allAxRoles()].sort());
  });
});
