/**
 * The pure parts of the sway display session, on a tree recorded from a headless sway 1.7
 * (tree-tiled-floating-popup.json: the form and a popup host tiled side by side, the
 * states fixture floating over both), and which session an environment opens.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

import type { PlatformError } from '../../src/errors.js';
import { sessionKind } from '../../src/platform/linux/index.js';
import {
  desktopWindows,
  layoutBox,
  sessionWindows,
  SwaySession,
  windowsToClose,
} from '../../src/platform/linux/wayland/session.js';
import { windowsFromTree, type SwayWindow } from '../../src/platform/linux/wayland/sway-tree.js';
import {
  placeGtk4Windows,
  markWindowRelative,
  tidyGtk4,
  windowOrigin,
} from '../../src/platform/linux/atspi/gtk4.js';
import type { Element, Snapshot } from '../../src/model/element.js';

/** An element of a made-up snapshot: a top-level window unless `over` says otherwise. */
const el = (over: Partial<Element>): Element =>
  ({
    id: 'a/1',
    role: 'AXWindow',
    nativeRole: 'frame',
    name: '',
    flags: [],
    actions: [],
    depth: 0,
    parent: -1,
    ...over,
  }) as Element;

const recorded = (): SwayWindow[] =>
  windowsFromTree(
    JSON.parse(
      fs.readFileSync(
        new URL('./fixtures/sway/tree-tiled-floating-popup.json', import.meta.url),
        'utf8',
      ),
    ) as unknown,
  );

describe('the sway session’s windows', () => {
  it('lists content rects front to back, with the title bar and borders as the outer frame', () => {
    const ws = desktopWindows(recorded());
    expect(ws.map((w) => [w.pid, w.title, w.active])).toEqual([
      [2606, 'Fixture States', false],
      [2678, 'Popup Host', true],
      [2604, 'Fixture Form', false],
    ]);
    const form = ws.find((w) => w.pid === 2604)!;
    // rect (0,25) + window_rect (2,0): the app's pixels start there.
    expect(form.frame).toEqual({ x: 2, y: 25, w: 636, h: 773 });
    expect(form.id).toBe(6);
    expect(desktopWindows(recorded(), 2606).map((w) => w.title)).toEqual(['Fixture States']);
  });

  it('gives the AT-SPI half every window with its id, app_id and whether it is shown', () => {
    const [states] = sessionWindows(recorded());
    expect(states).toEqual({
      window: 5,
      pid: 2606,
      title: 'Fixture States',
      x: 410,
      y: 120,
      w: 460,
      h: 560,
      mapped: true,
      wmClass: 'states.py',
      wmInstance: null,
    });
  });

  it('asks a process’s tiled windows to close, not the floating ones (its dialogs)', () => {
    const ws = recorded();
    const dialog = { ...ws[0], id: 99, pid: 2604, floating: true };
    expect(windowsToClose([...ws, dialog], 2604).map((w) => w.id)).toEqual([6]);
    // All floating: no telling a dialog from a main window, so all are asked.
    expect(windowsToClose(ws, 2606).map((w) => w.id)).toEqual([5]);
    expect(windowsToClose(ws, 1)).toEqual([]);
  });

  it('takes the layout as the box around the active outputs', () => {
    const rect = (x: number, y: number, width: number, height: number) => ({ x, y, width, height });
    expect(layoutBox([{ active: true, rect: rect(0, 0, 1280, 800) }])).toEqual({
      x: 0,
      y: 0,
      w: 1280,
      h: 800,
    });
    expect(
      layoutBox([
        { active: true, rect: rect(0, 0, 1280, 800) },
        { active: true, rect: rect(1280, 0, 800, 600) },
        { active: false, rect: rect(5000, 0, 10, 10) },
      ]),
    ).toEqual({ x: 0, y: 0, w: 2080, h: 800 });
    expect(() => layoutBox([{ active: false, rect: rect(0, 0, 1, 1) }])).toThrow(
      /no active output/,
    );
  });
});

describe('which session an environment opens', () => {
  it('is sway with sway’s socket and a Wayland display and no X display, else X11', () => {
    expect(sessionKind({ SWAYSOCK: '/s', WAYLAND_DISPLAY: 'wayland-1' })).toBe('sway');
    expect(sessionKind({ SWAYSOCK: '/s', WAYLAND_DISPLAY: 'wayland-1', DISPLAY: ':1' })).toBe(
      'x11',
    );
    expect(sessionKind({ WAYLAND_DISPLAY: 'wayland-1' })).toBe('x11');
    expect(sessionKind({ DISPLAY: ':1' })).toBe('x11');
  });

  it('names what is missing before anything is asked of sway', () => {
    const problem = (env: NodeJS.ProcessEnv): PlatformError | undefined => {
      const s = new SwaySession(env);
      try {
        return s.problem();
      } finally {
        s.close();
      }
    };
    expect(problem({ WAYLAND_DISPLAY: 'w' })).toMatchObject({
      code: 'no_display',
      message: /SWAYSOCK is not set/,
    });
    expect(problem({ SWAYSOCK: '/nonexistent/sway.sock', WAYLAND_DISPLAY: 'w' })).toMatchObject({
      code: 'no_display',
      message: /does not exist/,
    });
    // A socket that exists (any file will do for this check), and no grim on PATH.
    const sock = new URL(import.meta.url).pathname;
    expect(problem({ SWAYSOCK: sock, WAYLAND_DISPLAY: 'w', PATH: '/nonexistent' })).toMatchObject({
      code: 'unsupported',
      message: /grim is not installed/,
    });
  });

  it('knows keys by keysym name and by character, without a display', () => {
    const s = new SwaySession({});
    expect(s.knowsKey('Page_Down')).toBe(true);
    expect(s.knowsKey('pagedown')).toBe(true);
    expect(s.knowsKey('é')).toBe(true);
    expect(s.knowsKey('no_such_key')).toBe(false);
    expect(s.keyKind('Tab')).toBe('focus');
    expect(s.keyKind('Return')).toBe('activate');
    expect(s.inputRoute).toBe('wlr-virtual-input');
    s.close();
  });
});

describe('placing frames on Wayland (content mode)', () => {
  const box = { pid: 1, title: 'Fixture Form', x: 2, y: 25, w: 1276, h: 773, mapped: true };

  it('puts a window’s frame at its content origin, and clips a wider one there', () => {
    const frame = { x: 0, y: 0, w: 1276, h: 773 };
    expect(windowOrigin({ title: 'Fixture Form', frame }, [box], 'content')).toEqual({
      x: 2,
      y: 25,
    });
    // gtk3-widget-factory: 1415 px wide in a 1276 px tile, drawn from the tile's left.
    const wide = { x: 0, y: 0, w: 1415, h: 773 };
    expect(windowOrigin({ title: 'Other', frame: wide }, [box], 'content')).toEqual({
      x: 2,
      y: 25,
    });
  });

  it('does not place a window smaller than every box of its app (a menu’s popup)', () => {
    const menu = { x: 0, y: 0, w: 200, h: 120 };
    expect(windowOrigin({ title: '', frame: menu }, [box], 'content')).toBeUndefined();
    // The X11 rule would have centred it in the app's window.
    expect(windowOrigin({ title: '', frame: menu }, [box], 'centred')).toBeDefined();
  });

  it('moves every element of a marked snapshot by its window’s origin', () => {
    const s = {
      pid: 1,
      app: 'form.py',
      elements: [
        el({ name: 'Fixture Form', frame: { x: 0, y: 0, w: 1276, h: 773 } }),
        el({
          id: 'a/2',
          role: 'AXButton',
          nativeRole: 'push button',
          name: 'Submit',
          depth: 1,
          parent: 0,
          frame: { x: 97, y: 214, w: 1163, h: 34 },
        }),
        el({ id: 'a/3', role: 'AXWindow', name: '', frame: { x: 0, y: 0, w: 200, h: 100 } }),
      ],
      windows: [
        { index: 0, title: 'Fixture Form', frame: { x: 0, y: 0, w: 1276, h: 773 } },
        { index: 2, title: '', frame: { x: 0, y: 0, w: 200, h: 100 } },
      ],
    } as unknown as Snapshot;
    markWindowRelative(s);
    placeGtk4Windows(
      s,
      () => [box],
      () => [],
      'content',
    );
    expect(s.elements[1].frame).toEqual({ x: 99, y: 239, w: 1163, h: 34 });
    expect(s.windows[0].frame).toEqual({ x: 2, y: 25, w: 1276, h: 773 });
    // A window that cannot be placed says so: no frame, not a guess.
    expect(s.elements[2].frame).toBeUndefined();
    expect(s.windows[1].frame).toBeUndefined();
  });

  it('leaves a GTK 4 popover and a GTK 3 menu’s items unplaced: their frames are the popup’s own', () => {
    const snapshot = (): Snapshot =>
      ({
        pid: 1,
        app: 'form.py',
        elements: [
          el({ name: 'Fixture Form', frame: { x: 0, y: 0, w: 1276, h: 773 } }),
          el({
            id: 'a/2',
            role: 'AXMenuButton',
            nativeRole: 'toggle button',
            name: 'Menu',
            depth: 1,
            parent: 0,
            frame: { x: 300, y: 10, w: 40, h: 26 },
          }),
          el({
            id: 'a/3',
            role: 'AXGroup',
            nativeRole: 'panel',
            actions: ['default.activate'],
            depth: 2,
            parent: 1,
            frame: { x: 310, y: 20, w: 160, h: 90 },
          }),
          el({
            id: 'a/4',
            role: 'AXMenuItem',
            nativeRole: 'menu item',
            name: 'Open',
            depth: 3,
            parent: 2,
            frame: { x: 316, y: 26, w: 148, h: 26 },
          }),
        ],
        windows: [{ index: 0, title: 'Fixture Form', frame: { x: 0, y: 0, w: 1276, h: 773 } }],
      }) as unknown as Snapshot;
    const placed = (mode: 'content' | 'centred'): Snapshot => {
      const s = snapshot();
      tidyGtk4(s);
      markWindowRelative(s);
      placeGtk4Windows(
        s,
        () => [box],
        () => [],
        mode,
      );
      return s;
    };
    const s = placed('content');
    expect(s.elements[1].frame).toEqual({ x: 302, y: 35, w: 40, h: 26 });
    // GTK 3: a menu bar's menu is placed (it is drawn in the window); its items are not.
    const gtk3 = snapshot();
    gtk3.elements[1] = { ...gtk3.elements[1], role: 'AXMenuBarItem', nativeRole: 'menu' };
    gtk3.elements[2] = {
      ...gtk3.elements[2],
      role: 'AXMenuItem',
      nativeRole: 'menu item',
      actions: [],
    };
    markWindowRelative(gtk3);
    placeGtk4Windows(
      gtk3,
      () => [box],
      () => [],
      'content',
    );
    expect(gtk3.elements[1].frame).toEqual({ x: 302, y: 35, w: 40, h: 26 });
    expect(gtk3.elements[2].frame).toBeUndefined();
    expect(gtk3.elements[3].frame).toBeUndefined();
    // Placed by the window, "Open" would be drawn beside the button: no frame, not a guess.
    expect(s.elements[2].frame).toBeUndefined();
    expect(s.elements[3].frame).toBeUndefined();
  });
});
