/**
 * sway's GET_TREE reply as windows, on trees recorded from a headless sway 1.7 (the
 * session of src/desktop/sway.ts's recipe, docs/wayland.md):
 * - tree-tiled-floating-popup.json: the GTK3 form fixture and a GTK3 "Popup Host" tiled
 *   side by side (the host focused, its combo's popup list open on screen), the states
 *   fixture floating over both;
 * - tree-two-floating-second-workspace.json: the form tiled alone, a second form and the
 *   states fixture floating (states focused, so raised), the popup host moved to
 *   workspace 2 (hidden).
 * Plus small inline trees for what those do not show: fullscreen, hidden tabs, bad input.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

import {
  focusedWindow,
  windowsFromTree,
  type SwayNode,
} from '../../src/platform/linux/wayland/sway-tree.js';

const fixture = (name: string): unknown =>
  JSON.parse(
    fs.readFileSync(new URL(`./fixtures/sway/${name}.json`, import.meta.url), 'utf8'),
  ) as unknown;

describe('windowsFromTree on recorded trees', () => {
  it('lists each window with pid, title, app_id and its content rect on screen', () => {
    const windows = windowsFromTree(fixture('tree-tiled-floating-popup'));
    expect(windows.map((w) => w.title)).toEqual(['Fixture States', 'Popup Host', 'Fixture Form']);
    const form = windows.find((w) => w.title === 'Fixture Form');
    expect(form).toMatchObject({
      id: 6,
      pid: 2604,
      appId: 'form.py',
      shell: 'xdg_shell',
      // rect (0,25 640x775) + window_rect (2,0 636x773)
      rect: { x: 2, y: 25, w: 636, h: 773 },
      // the title bar (deco_rect 0,0 640x25) above rect
      frame: { x: 0, y: 0, w: 640, h: 800 },
      focused: false,
      visible: true,
      floating: false,
      fullscreen: false,
      workspace: '1',
      output: 'HEADLESS-1',
    });
    const states = windows.find((w) => w.title === 'Fixture States');
    expect(states).toMatchObject({
      pid: 2606,
      appId: 'states.py',
      rect: { x: 410, y: 120, w: 460, h: 560 },
      frame: { x: 408, y: 95, w: 464, h: 587 },
      floating: true,
      focused: false,
    });
  });

  it('puts a floating window above the focused tiled one, then tiled by focus', () => {
    // The screenshot of this session shows the states window drawn over the focused host.
    const windows = windowsFromTree(fixture('tree-tiled-floating-popup'));
    expect(windows[0]).toMatchObject({ title: 'Fixture States', floating: true });
    expect(windows[1]).toMatchObject({ title: 'Popup Host', focused: true });
    expect(focusedWindow(windows)?.pid).toBe(2678);
  });

  it('has no entry for an xdg popup: sway does not put them in the tree', () => {
    // A combo's list was open on screen when this tree was recorded: three views only.
    const windows = windowsFromTree(fixture('tree-tiled-floating-popup'));
    expect(windows).toHaveLength(3);
    expect(windows.every((w) => w.settled)).toBe(true);
    expect(new Set(windows.map((w) => w.pid))).toEqual(new Set([2604, 2606, 2678]));
  });

  it('orders floating windows topmost first and hidden workspaces last', () => {
    const windows = windowsFromTree(fixture('tree-two-floating-second-workspace'));
    expect(windows.map((w) => [w.title, w.pid, w.visible, w.workspace])).toEqual([
      // Focusing a floating window raised it to the end of floating_nodes: on top.
      ['Fixture States', 2606, true, '1'],
      ['Fixture Form', 2955, true, '1'],
      ['Fixture Form', 2604, true, '1'],
      ['Popup Host', 2678, false, '2'],
    ]);
    expect(windows[0].focused).toBe(true);
    // A floating window may reach past the output: the rect is what sway says.
    expect(windows[1].rect).toEqual({ x: 102, y: 525, w: 296, h: 290 });
  });
});

/** A view node with the fields sway always sends. */
function view(
  id: number,
  pid: number,
  rect: [number, number, number, number],
  extra = {},
): SwayNode {
  return {
    id,
    type: 'con',
    name: `w${id}`,
    pid,
    app_id: `app${id}`,
    shell: 'xdg_shell',
    rect: { x: rect[0], y: rect[1], width: rect[2], height: rect[3] },
    window_rect: { x: 0, y: 0, width: rect[2], height: rect[3] },
    deco_rect: { x: 0, y: 0, width: 0, height: 0 },
    focused: false,
    visible: true,
    fullscreen_mode: 0,
    focus: [],
    nodes: [],
    floating_nodes: [],
    ...extra,
  };
}

function root(workspace: Partial<SwayNode>): SwayNode {
  const r = { x: 0, y: 0, width: 1280, height: 800 };
  return {
    id: 1,
    type: 'root',
    rect: r,
    focus: [3],
    nodes: [
      {
        id: 3,
        type: 'output',
        name: 'HEADLESS-1',
        rect: r,
        focus: [4],
        nodes: [{ id: 4, type: 'workspace', name: '1', rect: r, nodes: [], ...workspace }],
      },
    ],
  };
}

describe('windowsFromTree on made-up trees', () => {
  it('puts a fullscreen window before floating ones', () => {
    const tree = root({
      focus: [10, 11],
      nodes: [view(10, 100, [0, 0, 1280, 800], { fullscreen_mode: 1, focused: true })],
      floating_nodes: [view(11, 101, [100, 100, 200, 200])],
    });
    expect(windowsFromTree(tree).map((w) => w.id)).toEqual([10, 11]);
  });

  it('follows focus lists through nested splits and keeps hidden tabs after shown ones', () => {
    const tabs: SwayNode = {
      id: 20,
      type: 'con',
      rect: { x: 640, y: 0, width: 640, height: 800 },
      layout: 'tabbed',
      focus: [22, 21],
      nodes: [
        view(21, 201, [640, 25, 640, 775], { visible: false }),
        view(22, 202, [640, 25, 640, 775]),
      ],
    } as SwayNode;
    const tree = root({
      focus: [20, 10],
      nodes: [view(10, 100, [0, 0, 640, 800]), tabs],
    });
    expect(windowsFromTree(tree).map((w) => [w.id, w.visible])).toEqual([
      [22, true],
      [10, true],
      [21, false],
    ]);
  });

  it('tells a window whose layout is in flight from a settled one', () => {
    // As measured: a new window listed before its first layout is drawn (border none, no
    // title bar, window_rect already laid out with its 2 px border), then settled.
    const fresh = view(5, 100, [0, 0, 1280, 800], {
      border: 'none',
      current_border_width: 0,
      window_rect: { x: 2, y: 0, width: 1276, height: 773 },
    });
    const drawn = view(5, 100, [0, 25, 1280, 775], {
      border: 'normal',
      current_border_width: 2,
      deco_rect: { x: 0, y: 0, width: 1280, height: 25 },
      window_rect: { x: 2, y: 0, width: 1276, height: 773 },
    });
    const [before] = windowsFromTree(root({ nodes: [fresh] }));
    const [after] = windowsFromTree(root({ nodes: [drawn] }));
    expect(before).toMatchObject({ settled: false, rect: { x: 2, y: 0 } });
    expect(after).toMatchObject({ settled: true, rect: { x: 2, y: 25 } });
    // Fullscreen: no border drawn whatever the width says.
    const full = view(5, 100, [0, 0, 1280, 800], { fullscreen_mode: 1, current_border_width: 2 });
    expect(windowsFromTree(root({ nodes: [full] }))[0].settled).toBe(true);
  });

  it('takes an Xwayland window’s class as its app id', () => {
    const tree = root({
      nodes: [
        view(10, 100, [0, 0, 640, 800], {
          app_id: null,
          shell: 'xwayland',
          window_properties: { class: 'XTerm' },
        }),
      ],
    });
    expect(windowsFromTree(tree)[0]).toMatchObject({ appId: 'XTerm', shell: 'xwayland' });
  });

  it('lists nothing for an empty workspace', () => {
    expect(windowsFromTree(root({}))).toEqual([]);
  });

  it('rejects what is not a GET_TREE reply, saying what is wrong', () => {
    expect(() => windowsFromTree(null)).toThrow(/not a sway GET_TREE reply.*id and type/);
    expect(() => windowsFromTree([{ success: true }])).toThrow(/not a sway GET_TREE reply/);
    expect(() =>
      windowsFromTree({ id: 3, type: 'output', rect: { x: 0, y: 0, width: 1, height: 1 } }),
    ).toThrow(/the top node is a output, not the root/);
    expect(() => windowsFromTree({ id: 1, type: 'root', rect: {} })).toThrow(/rect has no numeric/);
    const noPid = root({ nodes: [view(10, 100, [0, 0, 1, 1], { pid: undefined })] });
    expect(() => windowsFromTree(noPid)).toThrow(/window 10 has no pid/);
    const noInner = root({ nodes: [view(10, 100, [0, 0, 1, 1], { window_rect: undefined })] });
    expect(() => windowsFromTree(noInner)).toThrow(/window 10 window_rect/);
    const badNodes = root({ nodes: 'x' as unknown as SwayNode[] });
    expect(() => windowsFromTree(badNodes)).toThrow(/nodes of node 4 is not a list/);
  });
});
