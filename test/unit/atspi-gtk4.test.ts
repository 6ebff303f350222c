/**
 * The GTK4 corrections on data: toolkit detection, SHOWING from VISIBLE, window placement
 * inside the CSD margin, and the name and action clean-up.
 */
import { describe, expect, it } from 'vitest';
import type { Element, Snapshot } from '../../src/model/element.js';
import {
  gtk4Actions,
  gtk4States,
  gtk4TopLevelStates,
  hideStackPages,
  isGtk4Toolkit,
  isTypeName,
  markWindowRelative,
  matchWindow,
  noteUnconfirmedWindows,
  placeGtk4Windows,
  tidyGtk4,
  nameRowsByLabel,
  nameTabsByLabel,
  windowOrigin,
} from '../../src/platform/linux/atspi/gtk4.js';
import { hasState, STATE, stateBits } from '../../src/platform/linux/atspi/states.js';

function el(over: Partial<Element> & { name: string; nativeRole: string }): Element {
  return {
    id: ':1.9/a',
    parent: -1,
    depth: 0,
    role: 'AXGroup',
    flags: [],
    actions: [],
    childCount: 0,
    ...over,
  };
}

function snap(elements: Element[], pid = 42): Snapshot {
  return {
    pid,
    app: 'calc',
    elements,
    windows: [
      {
        index: 0,
        title: 'Calculator',
        role: 'AXWindow',
        modal: false,
        dialog: false,
        active: true,
        frame: elements[0].frame,
      },
    ],
    truncated: null,
    elapsedMs: 1,
    takenAt: 0,
    method: 'atspi-walk',
  };
}

describe('GTK4 toolkit detection', () => {
  it('is GTK with a 4.x version only', () => {
    expect(isGtk4Toolkit('GTK', '4.8.3')).toBe(true);
    expect(isGtk4Toolkit('GTK', '3.24.38')).toBe(false);
    expect(isGtk4Toolkit('Qt', '4.8')).toBe(false);
    expect(isGtk4Toolkit('GTK', undefined)).toBe(false);
  });
});

describe('gtk4States', () => {
  const visible = stateBits(['visible', 'sensitive']);
  it('adds SHOWING to a VISIBLE element whose parent shows', () => {
    const out = gtk4States(visible, true);
    expect(hasState(out, STATE.SHOWING)).toBe(true);
    expect(hasState(out, STATE.VISIBLE)).toBe(true);
    expect(hasState(visible, STATE.SHOWING)).toBe(false); // the input is not changed
  });
  it('leaves hidden elements and children of hidden parents as they are', () => {
    expect(hasState(gtk4States(visible, false), STATE.SHOWING)).toBe(false);
    expect(hasState(gtk4States(stateBits(['sensitive']), true), STATE.SHOWING)).toBe(false);
  });
});

describe('windowOrigin', () => {
  const win = { title: 'Calculator', frame: { x: 0, y: 0, w: 355, h: 498 } };
  it('centres the window widget in its X11 window (the CSD margin is even)', () => {
    const natives = [{ pid: 1, title: 'Calculator', x: 457, y: 164, w: 365, h: 508, mapped: true }];
    expect(windowOrigin(win, natives)).toEqual({ x: 462, y: 169 });
  });
  it('picks by title among several, and gives up when nothing decides', () => {
    const a = { pid: 1, title: 'Other', x: 0, y: 0, w: 400, h: 600, mapped: true };
    const b = { pid: 1, title: 'Calculator', x: 100, y: 50, w: 355, h: 498, mapped: true };
    expect(windowOrigin(win, [a, b])).toEqual({ x: 100, y: 50 });
    expect(windowOrigin({ ...win, title: '' }, [a, b])).toBeUndefined();
    expect(windowOrigin(win, [{ ...b, mapped: false }])).toBeUndefined();
  });
});

describe('placeGtk4Windows', () => {
  const natives = () => [
    { pid: 42, title: 'Calculator', x: 457, y: 164, w: 365, h: 508, mapped: true },
    { pid: 7, title: 'Calculator', x: 0, y: 0, w: 365, h: 508, mapped: true },
  ];
  const elements = () => [
    el({ name: 'Calculator', nativeRole: 'frame', frame: { x: 0, y: 0, w: 355, h: 498 } }),
    el({
      name: '7',
      nativeRole: 'push button',
      parent: 0,
      depth: 1,
      frame: { x: 16, y: 300, w: 55, h: 40 },
    }),
  ];
  it('moves marked snapshots to the screen, the window info too', () => {
    const s = snap(elements());
    markWindowRelative(s);
    placeGtk4Windows(s, natives);
    expect(s.elements[1].frame).toEqual({ x: 478, y: 469, w: 55, h: 40 });
    expect(s.windows[0].frame).toEqual({ x: 462, y: 169, w: 355, h: 498 });
  });
  it('leaves unmarked snapshots alone, and places a marked one only once', () => {
    const s = snap(elements());
    placeGtk4Windows(s, natives);
    expect(s.elements[1].frame).toEqual({ x: 16, y: 300, w: 55, h: 40 });
    markWindowRelative(s);
    placeGtk4Windows(s, natives);
    placeGtk4Windows(s, natives);
    expect(s.elements[1].frame?.x).toBe(478);
  });
  it('drops frames it cannot place rather than keep window-relative ones', () => {
    const s = snap(elements(), 99);
    markWindowRelative(s);
    placeGtk4Windows(s, natives);
    expect(s.elements.every((e) => e.frame === undefined)).toBe(true);
  });
});

describe('GTK4 dialogs: shown by their X window', () => {
  // gtk4-widget-factory with its About dialog open (xwininfo, pyatspi): GTK 4.8 gives the
  // dialog (a "filler") neither SHOWING nor ACTIVE, and its frame relative to itself.
  const main = {
    window: 0x600004,
    pid: 42,
    title: 'GTK Widget Factory',
    x: 0,
    y: 0,
    w: 1342,
    h: 800,
    mapped: true,
    active: false,
    transientFor: null,
    type: 'normal',
  };
  const about = {
    window: 0x600231,
    pid: 42,
    title: 'About GTK Widget Factory',
    x: 414,
    y: 210,
    w: 514,
    h: 379,
    mapped: true,
    active: true,
    transientFor: 0x600004,
    type: 'dialog',
  };
  const factory = () => {
    const s = snap([
      el({
        name: 'GTK Widget Factory',
        nativeRole: 'frame',
        frame: { x: 0, y: 0, w: 1332, h: 790 },
      }),
      el({
        id: ':1.9/about',
        name: 'About GTK Widget Factory',
        nativeRole: 'filler',
        role: 'AXWindow',
        flags: ['enabled', 'modal'],
        frame: { x: 0, y: 0, w: 504, h: 369 },
      }),
      el({
        id: ':1.9/credits',
        name: 'Credits',
        nativeRole: 'radio button',
        parent: 1,
        depth: 1,
        frame: { x: 202, y: 10, w: 100, h: 24 },
      }),
    ]);
    s.windows = [
      { ...s.windows[0], title: 'GTK Widget Factory', active: false },
      {
        index: 1,
        title: 'About GTK Widget Factory',
        role: 'AXWindow',
        modal: true,
        dialog: false,
        active: false,
        frame: s.elements[1].frame,
      },
    ];
    markWindowRelative(s);
    noteUnconfirmedWindows(s, [1]);
    return s;
  };

  it('reads a visible top-level GTK does not say shows as shown, for the window system to confirm', () => {
    const dialog = gtk4TopLevelStates(stateBits(['visible', 'modal', 'sensitive']));
    expect(dialog.unconfirmed).toBe(true);
    expect(hasState(dialog.states, STATE.SHOWING)).toBe(true);
    const window = gtk4TopLevelStates(stateBits(['visible', 'showing']));
    expect(window.unconfirmed).toBe(false);
    const hidden = gtk4TopLevelStates(stateBits(['sensitive']));
    expect(hidden.unconfirmed).toBe(false);
    expect(hasState(hidden.states, STATE.SHOWING)).toBe(false);
  });

  it('places the dialog by its own X window, active and a dialog as the window system says', () => {
    const s = factory();
    placeGtk4Windows(s, () => [about, main]);
    expect(s.windows[1].frame).toEqual({ x: 419, y: 215, w: 504, h: 369 });
    expect(s.elements[2].frame).toEqual({ x: 621, y: 225, w: 100, h: 24 });
    expect(s.windows[1]).toMatchObject({ active: true, dialog: true });
    expect(s.windows[1].unplaced).toBeUndefined();
    expect(s.elements[1].flags).toContain('active');
    expect(s.elements[2].flags).not.toContain('offscreen');
  });

  it('hides a dialog whose X window is unmapped', () => {
    const s = factory();
    placeGtk4Windows(s, () => [{ ...about, mapped: false, active: false }, main]);
    expect(s.elements[1].flags).toContain('offscreen');
    expect(s.elements[2].flags).toContain('offscreen');
    expect(s.elements[2].frame).toBeUndefined();
    expect(s.windows[1].frame).toBeUndefined();
    expect(s.windows[1].unplaced).toBeUndefined();
  });

  it('says so when no X window matches, and guesses no place', () => {
    const s = factory();
    placeGtk4Windows(s, () => [main]);
    expect(s.windows[1].unplaced).toMatch(
      /no window of its process titled "About GTK Widget Factory"/,
    );
    expect(s.elements[2].frame).toBeUndefined();
    expect(s.elements[2].flags).toContain('offscreen');
    const cannot = factory();
    placeGtk4Windows(cannot, () => {
      throw new Error('no display');
    });
    expect(cannot.windows[1].unplaced).toMatch(/could not be asked/);
  });

  it('takes the shown, transient, newest of several X windows of its title', () => {
    const win = { title: 'About GTK Widget Factory', frame: { x: 0, y: 0, w: 504, h: 369 } };
    const older = { ...about, window: 0x600100 };
    const hidden = { ...about, window: 0x600400, mapped: false };
    expect(matchWindow(win, [older, about, hidden], 1)).toEqual({ box: about });
    const plain = { ...about, window: 0x600500, transientFor: null };
    expect(matchWindow(win, [plain, older], 1)).toEqual({ box: older });
    // Two accessible windows of that title as well: which is which cannot be told.
    expect(matchWindow(win, [older, about], 2)).toHaveProperty('unmatched');
    expect(matchWindow({ ...win, title: '' }, [about], 1)).toHaveProperty('unmatched');
    // An X window too small to hold the widget is not its window.
    expect(matchWindow(win, [{ ...about, w: 300 }], 1)).toHaveProperty('unmatched');
  });
});

describe('popovers', () => {
  it('places a subtree GTK4 reports at its parent origin, outside it, by its popup window', () => {
    const s = snap([
      el({ name: 'Calculator', nativeRole: 'frame', frame: { x: 0, y: 0, w: 355, h: 498 } }),
      el({
        name: 'menu',
        nativeRole: 'push button',
        parent: 0,
        depth: 1,
        frame: { x: 201, y: 6, w: 34, h: 34 },
      }),
      el({
        name: '',
        nativeRole: 'menu',
        parent: 1,
        depth: 2,
        frame: { x: 201, y: 6, w: 285, h: 418 },
      }),
      el({
        name: 'Fixed',
        nativeRole: 'radio menu item',
        parent: 2,
        depth: 3,
        frame: { x: 243, y: 46, w: 201, h: 32 },
      }),
    ]);
    markWindowRelative(s);
    const popup = { pid: 42, title: '', x: 538, y: 188, w: 285, h: 418, mapped: true };
    // Another app's popup of the same size, in front: not this app's menu.
    const other = { ...popup, pid: 77, x: 10, y: 10 };
    placeGtk4Windows(
      s,
      () => [{ pid: 42, title: 'Calculator', x: 457, y: 164, w: 365, h: 508, mapped: true }],
      () => [other, popup],
    );
    expect(s.elements[1].frame).toEqual({ x: 663, y: 175, w: 34, h: 34 });
    expect(s.elements[2].frame).toEqual({ x: 538, y: 188, w: 285, h: 418 });
    expect(s.elements[3].frame).toEqual({ x: 580, y: 228, w: 201, h: 32 });
  });

  // A drop-down's popover (gtk4_matrix.py's "Colour", measured on its pixels): GTK4 puts it
  // at the drop-down's origin moved by its top margin (6 px), and its popup window is that
  // margin taller than it, 3 px left of the drop-down and just below it.
  const dropDown = () => {
    const s = snap([
      el({ name: 'Matrix', nativeRole: 'frame', frame: { x: 0, y: 0, w: 720, h: 560 } }),
      el({
        name: 'Colour',
        nativeRole: 'combo box',
        parent: 0,
        depth: 1,
        frame: { x: 77, y: 356, w: 297, h: 34 },
      }),
      el({
        name: 'GtkPopover',
        nativeRole: 'filler',
        parent: 1,
        depth: 2,
        actions: ['default.activate'],
        frame: { x: 77, y: 362, w: 303, h: 120 },
      }),
      el({
        name: 'Green',
        nativeRole: 'list item',
        parent: 2,
        depth: 3,
        frame: { x: 89, y: 413, w: 279, h: 16 },
      }),
    ]);
    tidyGtk4(s);
    markWindowRelative(s);
    return s;
  };
  const main = { pid: 42, title: 'Calculator', x: 280, y: 127, w: 720, h: 560, mapped: true };

  it("places a popover at its parent's origin plus its margin by its popup window, the nearest one", () => {
    const s = dropDown();
    const far = { pid: null, title: '', x: 900, y: 700, w: 303, h: 126, mapped: true };
    const popup = { pid: null, title: '', x: 354, y: 515, w: 303, h: 126, mapped: true };
    placeGtk4Windows(
      s,
      () => [main],
      () => [far, popup],
    );
    expect(s.elements[1].frame).toEqual({ x: 357, y: 483, w: 297, h: 34 });
    expect(s.elements[2].frame).toEqual({ x: 354, y: 521, w: 303, h: 120 });
    expect(s.elements[3].frame).toEqual({ x: 366, y: 572, w: 279, h: 16 });
  });

  it('leaves a popover on its window when no popup window fits it', () => {
    const s = dropDown();
    // Too small for the popover and its margin; and one far from the drop-down.
    const small = { pid: null, title: '', x: 354, y: 515, w: 303, h: 120, mapped: true };
    const far = { pid: null, title: '', x: 900, y: 700, w: 303, h: 126, mapped: true };
    placeGtk4Windows(
      s,
      () => [main],
      () => [small, far],
    );
    expect(s.elements[2].frame).toEqual({ x: 357, y: 489, w: 303, h: 120 });
  });
});

describe('GTK4 stack pages', () => {
  const F = { x: 0, y: 40, w: 420, h: 260 };
  const tree = (selected: 'Front page' | 'Back page'): Element[] => [
    el({ name: 'Pages', nativeRole: 'frame', frame: { x: 0, y: 0, w: 420, h: 300 } }),
    el({ name: '', nativeRole: 'page tab list', parent: 0, depth: 1 }),
    el({
      name: 'Front page',
      nativeRole: 'page tab',
      parent: 1,
      depth: 2,
      flags: selected === 'Front page' ? ['selected'] : [],
    }),
    el({
      name: 'Back page',
      nativeRole: 'page tab',
      parent: 1,
      depth: 2,
      flags: selected === 'Back page' ? ['selected'] : [],
    }),
    el({ name: '', nativeRole: 'panel', parent: 0, depth: 1, frame: F }),
    el({ name: 'Front page', nativeRole: 'panel', parent: 4, depth: 2 }),
    el({ name: '', nativeRole: 'panel', parent: 5, depth: 3, frame: F }),
    el({
      name: 'Front check',
      nativeRole: 'check box',
      parent: 6,
      depth: 4,
      frame: { x: 4, y: 44, w: 95, h: 16 },
    }),
    el({ name: 'Back page', nativeRole: 'panel', parent: 4, depth: 2 }),
    el({ name: 'Back button', nativeRole: 'push button', parent: 8, depth: 3, frame: F }),
    el({ name: 'After', nativeRole: 'label', parent: 0, depth: 1, frame: F }),
  ];

  it('leaves the page of a tab not selected not showing, frameless, with all below it', () => {
    const elements = tree('Back page');
    hideStackPages(elements);
    const hidden = elements.flatMap((e, i) => (e.flags.includes('offscreen') ? [i] : []));
    expect(hidden).toEqual([5, 6, 7]);
    expect(hidden.every((i) => elements[i].frame === undefined)).toBe(true);
    expect(elements[9].frame).toEqual(F);
    expect(elements[10].flags).toEqual([]);
  });

  it('the page in front, and pages no selected tab names, keep their frames', () => {
    const front = tree('Front page');
    hideStackPages(front);
    expect(front.flatMap((e, i) => (e.flags.includes('offscreen') ? [i] : []))).toEqual([8, 9]);
    const none = tree('Back page');
    for (const e of none) e.flags = [];
    hideStackPages(none);
    expect(none.some((e) => e.flags.includes('offscreen'))).toBe(false);
  });
});

describe('GTK4 names and actions', () => {
  it('tells type names from text', () => {
    expect(isTypeName('GtkButton', 'push button')).toBe(true);
    expect(isTypeName('AdwGizmo', 'filler')).toBe(true);
    expect(isTypeName('HistoryView', 'filler')).toBe(true);
    expect(isTypeName('HistoryView', 'label')).toBe(false);
    expect(isTypeName('Undo', 'push button')).toBe(false);
    expect(isTypeName('Save As', 'push button')).toBe(false);
  });
  it('keeps activations, drops GAction group entries', () => {
    expect(gtk4Actions(['click', 'clipboard.copy', 'menu.popup', 'win.close'])).toEqual(['click']);
    // The tree expander's own actions are its activation.
    expect(
      gtk4Actions(['listitem.toggle-expand', 'listitem.collapse', 'listitem.expand', 'win.close']),
    ).toEqual(['listitem.toggle-expand', 'listitem.collapse', 'listitem.expand']);
  });
  it('names unnamed rows by the text of their labels', () => {
    const elements = [
      el({ name: 'Fruit list', nativeRole: 'list', role: 'AXList' }),
      el({ name: '', nativeRole: 'list item', role: 'AXRow', parent: 0, depth: 1 }),
      el({ name: 'Banana', nativeRole: 'label', parent: 1, depth: 2 }),
      // A tree row: the label is in the expander, beside its arrow.
      el({ name: '', nativeRole: 'list item', role: 'AXRow', parent: 0, depth: 1 }),
      el({ name: 'Fruit', nativeRole: 'panel', parent: 3, depth: 2 }),
      el({ name: 'Expand', nativeRole: 'push button', parent: 4, depth: 3 }),
      el({ name: 'Fruit', nativeRole: 'label', parent: 4, depth: 3 }),
      // A column view row: one label per cell.
      el({ name: '', nativeRole: 'table row', role: 'AXRow', parent: 0, depth: 1 }),
      el({ name: '', nativeRole: 'table cell', parent: 7, depth: 2 }),
      el({ name: 'Mars', nativeRole: 'label', parent: 8, depth: 3 }),
      el({ name: '', nativeRole: 'table cell', parent: 7, depth: 2 }),
      el({ name: '2', nativeRole: 'label', parent: 10, depth: 3 }),
      // A named row keeps its name; a row with no label stays unnamed.
      el({ name: 'Kept', nativeRole: 'list item', role: 'AXRow', parent: 0, depth: 1 }),
      el({ name: 'Other', nativeRole: 'label', parent: 12, depth: 2 }),
      el({ name: '', nativeRole: 'list item', role: 'AXRow', parent: 0, depth: 1 }),
    ];
    nameRowsByLabel(elements);
    expect([1, 3, 7, 12, 14].map((i) => elements[i].name)).toEqual([
      'Banana',
      'Fruit',
      'Mars 2',
      'Kept',
      '',
    ]);
  });
  it('undoubles a label name, names a type-named button by its label, cleans actions', () => {
    const s = snap([
      el({ name: 'Calculator', nativeRole: 'frame', actions: ['win.close', 'default.activate'] }),
      el({ name: '7 7', nativeRole: 'push button', parent: 0, depth: 1, actions: ['click'] }),
      el({ name: '7', nativeRole: 'label', parent: 1, depth: 2, actions: ['clipboard.copy'] }),
      el({ name: 'GtkButton', nativeRole: 'push button', parent: 0, depth: 1, actions: ['click'] }),
      el({ name: 'π', nativeRole: 'label', parent: 3, depth: 2 }),
      el({ name: 'Bora Bora', nativeRole: 'push button', parent: 0, depth: 1 }),
      el({ name: 'AdwGizmo', nativeRole: 'filler', parent: 0, depth: 1 }),
    ]);
    tidyGtk4(s);
    expect(s.elements.map((e) => e.name)).toEqual([
      'Calculator',
      '7',
      '7',
      'π',
      'π',
      'Bora Bora',
      '',
    ]);
    expect(s.elements.map((e) => e.actions.join())).toEqual(['', 'click', '', 'click', '', '', '']);
  });
  it('names tabs that all share one name by their labels, and leaves named tabs alone', () => {
    const tab = (name: string, parent: number) =>
      el({ name, nativeRole: 'page tab', role: 'AXRadioButton', parent, depth: 2 });
    const label = (name: string, parent: number) =>
      el({ name, nativeRole: 'label', role: 'AXStaticText', parent, depth: 3 });
    const elements = [
      el({ name: 'Window', nativeRole: 'frame' }),
      el({ name: 'Tab list', nativeRole: 'page tab list', parent: 0, depth: 1 }),
      tab('Tab', 1),
      label('Sunset', 2),
      tab('Tab', 1),
      label('NYC', 4),
      el({ name: 'Tab list', nativeRole: 'page tab list', parent: 0, depth: 1 }),
      tab('General', 6),
      label('General', 7),
      tab('Tab', 6),
      label('Advanced', 9),
      // A lone tab with the name every tab of the first list shares takes its label too.
      el({ name: 'Tab list', nativeRole: 'page tab list', parent: 0, depth: 1 }),
      tab('Tab', 11),
      label('Only', 12),
      // A lone tab with a name of its own keeps it.
      el({ name: 'Tab list', nativeRole: 'page tab list', parent: 0, depth: 1 }),
      tab('Mine', 14),
      label('Label', 15),
    ];
    nameTabsByLabel(elements);
    expect(elements.map((e) => e.name)).toEqual([
      'Window',
      'Tab list',
      'Sunset',
      'Sunset',
      'NYC',
      'NYC',
      'Tab list',
      'General',
      'General',
      'Tab',
      'Advanced',
      'Tab list',
      'Only',
      'Only',
      'Tab list',
      'Mine',
      'Label',
    ]);
  });
});
