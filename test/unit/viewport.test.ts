import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/model/element.js';
import {
  captureRect,
  computeVisibility,
  findBlockingDialog,
  intersect,
} from '../../src/viewport/index.js';
import { SCREEN, buildSnapshot, element, viewOf, type Spec } from './helpers/synthetic.js';

/** Visible flags by element name, for readable assertions. */
function visibleByName(
  s: Snapshot,
  screen = SCREEN,
  windowIndex?: number,
): Record<string, boolean> {
  const { visible } = computeVisibility(s, screen, { windowIndex });
  const out: Record<string, boolean> = {};
  s.elements.forEach((el, i) => {
    if (el.name) out[el.name] = visible[i];
  });
  return out;
}

function win(
  name: string,
  frame: Spec['frame'],
  children: Spec[],
  extra: Spec['window'] = {},
): Spec {
  return { role: 'AXWindow', nativeRole: 'frame', name, frame, window: extra, children };
}

describe('intersect', () => {
  it('returns the overlap, and null for touching or disjoint rects', () => {
    expect(intersect({ x: 0, y: 0, w: 10, h: 10 }, { x: 5, y: 5, w: 10, h: 10 })).toEqual({
      x: 5,
      y: 5,
      w: 5,
      h: 5,
    });
    expect(intersect({ x: 0, y: 0, w: 10, h: 10 }, { x: 10, y: 0, w: 5, h: 5 })).toBeNull();
  });
});

describe('computeVisibility: frames, window and screen', () => {
  const s = buildSnapshot([
    win(
      'Main',
      [100, 100, 400, 300],
      [
        { role: 'AXButton', name: 'inside', frame: [120, 120, 80, 30] },
        { role: 'AXButton', name: 'partly-left', frame: [60, 150, 80, 30] },
        { role: 'AXButton', name: 'outside-window', frame: [600, 150, 80, 30] },
        { role: 'AXButton', name: 'zero-size', frame: [150, 150, 0, 30] },
        { role: 'AXButton', name: 'no-frame' },
        {
          role: 'AXButton',
          name: 'offscreen-flag',
          frame: [150, 200, 50, 20],
          flags: ['offscreen'],
        },
        { role: 'AXButton', name: 'touching-edge', frame: [500, 150, 40, 20] },
      ],
      { active: true },
    ),
  ]);

  it('counts an element whose frame overlaps the window even when its top-left is outside', () => {
    const v = visibleByName(s);
    expect(v['inside']).toBe(true);
    expect(v['partly-left']).toBe(true);
  });

  it('rejects elements outside the window, without area or without frame', () => {
    const v = visibleByName(s);
    expect(v['outside-window']).toBe(false);
    expect(v['zero-size']).toBe(false);
    expect(v['no-frame']).toBe(false);
    expect(v['touching-edge']).toBe(false);
    expect(v['Main']).toBe(true);
  });

  it('lets the frame decide over a "not showing" flag when nothing else shows at that rect', () => {
    expect(visibleByName(s)['offscreen-flag']).toBe(true);
  });

  it('clips the window to the screen', () => {
    const t = buildSnapshot([
      win(
        'Hanging',
        [1200, 700, 400, 300],
        [
          { role: 'AXButton', name: 'on-screen', frame: [1210, 710, 50, 20] },
          { role: 'AXButton', name: 'off-screen', frame: [1300, 710, 50, 20] },
          { role: 'AXButton', name: 'below-screen', frame: [1210, 900, 50, 20] },
        ],
        { active: true },
      ),
    ]);
    const v = visibleByName(t);
    expect(v['on-screen']).toBe(true);
    expect(v['off-screen']).toBe(false);
    expect(v['below-screen']).toBe(false);
    expect(computeVisibility(t, SCREEN).viewport).toEqual({ x: 1200, y: 700, w: 80, h: 100 });
  });

  it('reports the active window clipped to the screen as the viewport', () => {
    const t = buildSnapshot([
      win('Back', [0, 0, 300, 300], []),
      win('Front', [-50, 20, 600, 400], [], { active: true }),
    ]);
    const r = computeVisibility(t, SCREEN);
    expect(r.viewport).toEqual({ x: 0, y: 20, w: 550, h: 400 });
    expect(r.dialog).toBeNull();
    // A window named by the caller wins over the active one.
    expect(computeVisibility(t, SCREEN, { windowIndex: 0 }).viewport).toEqual({
      x: 0,
      y: 0,
      w: 300,
      h: 300,
    });
  });

  it('falls back to the screen when there is no window', () => {
    const t = buildSnapshot([{ role: 'AXGroup', name: 'loose', frame: [10, 10, 10, 10] }]);
    const r = computeVisibility(t, SCREEN);
    expect(r.viewport).toEqual(SCREEN);
    expect(r.visible).toEqual([true]);
  });
});

describe('computeVisibility: scroll areas', () => {
  const s = buildSnapshot([
    win(
      'Main',
      [0, 0, 800, 600],
      [
        {
          role: 'AXScrollArea',
          name: 'scroller',
          frame: [0, 100, 400, 200],
          children: [
            {
              role: 'AXTable',
              name: 'table',
              frame: [0, -900, 400, 3000],
              children: [
                { role: 'AXCell', name: 'row-above', frame: [0, 60, 400, 20] },
                { role: 'AXCell', name: 'row-straddling', frame: [0, 90, 400, 20] },
                { role: 'AXCell', name: 'row-in', frame: [0, 150, 400, 20] },
                { role: 'AXCell', name: 'row-below', frame: [0, 320, 400, 20] },
              ],
            },
          ],
        },
        { role: 'AXButton', name: 'below-scroller', frame: [0, 320, 100, 20] },
      ],
      { active: true },
    ),
  ]);

  it('hides rows scrolled out of the scroll area though they lie inside the window', () => {
    const v = visibleByName(s);
    expect(v['row-above']).toBe(false);
    expect(v['row-straddling']).toBe(true);
    expect(v['row-in']).toBe(true);
    expect(v['row-below']).toBe(false);
    // The scroll area clips only its own content.
    expect(v['below-scroller']).toBe(true);
  });

  it('does not clip by a content-sized table frame', () => {
    const v = visibleByName(s);
    expect(v['table']).toBe(true);
  });

  it('intersects nested scroll areas', () => {
    const t = buildSnapshot([
      win(
        'Main',
        [0, 0, 800, 600],
        [
          {
            role: 'AXScrollArea',
            name: 'outer',
            frame: [0, 0, 300, 300],
            children: [
              {
                role: 'AXScrollArea',
                name: 'inner',
                frame: [200, 0, 300, 300],
                children: [
                  { role: 'AXButton', name: 'in-both', frame: [210, 10, 50, 20] },
                  { role: 'AXButton', name: 'in-inner-only', frame: [350, 10, 50, 20] },
                ],
              },
            ],
          },
        ],
        { active: true },
      ),
    ]);
    const v = visibleByName(t);
    expect(v['in-both']).toBe(true);
    expect(v['in-inner-only']).toBe(false);
  });

  it('clips web content by its web area, and scroll panes by native role', () => {
    const t = buildSnapshot([
      win(
        'Browser',
        [0, 0, 800, 600],
        [
          {
            role: 'AXWebArea',
            name: 'page',
            frame: [0, 80, 800, 400],
            children: [
              { role: 'AXLink', name: 'above-fold', frame: [10, 100, 50, 20] },
              { role: 'AXLink', name: 'below-fold', frame: [10, 500, 50, 20] },
            ],
          },
          {
            role: 'AXGroup',
            nativeRole: 'scroll pane',
            name: 'pane',
            frame: [0, 480, 100, 50],
            children: [{ role: 'AXButton', name: 'pane-out', frame: [10, 540, 30, 20] }],
          },
        ],
        { active: true },
      ),
    ]);
    const v = visibleByName(t);
    expect(v['above-fold']).toBe(true);
    expect(v['below-fold']).toBe(false);
    expect(v['pane-out']).toBe(false);
  });

  it('shows a popup menu that extends past its small window', () => {
    const t = buildSnapshot([
      win(
        'Small',
        [0, 0, 200, 100],
        [
          {
            role: 'AXMenuButton',
            name: 'File',
            frame: [0, 0, 50, 20],
            children: [
              {
                role: 'AXMenu',
                name: 'file-menu',
                frame: [0, 20, 150, 400],
                children: [{ role: 'AXMenuItem', name: 'Quit', frame: [0, 380, 150, 20] }],
              },
            ],
          },
        ],
        { active: true },
      ),
    ]);
    expect(visibleByName(t)['Quit']).toBe(true);
  });
});

describe('computeVisibility: geometry decides, "not showing" only where it cannot', () => {
  const OFF: Spec['flags'] = ['offscreen'];

  it('shows a text area on screen below a page tab that is not showing (mousepad, one document)', () => {
    const t = buildSnapshot([
      win(
        'Editor',
        [320, 150, 640, 500],
        [
          {
            role: 'AXTabGroup',
            nativeRole: 'page tab list',
            frame: [320, 218, 640, 427],
            children: [
              {
                role: 'AXRadioButton',
                nativeRole: 'page tab',
                name: 'tab',
                flags: ['offscreen', 'selected'],
                children: [
                  {
                    role: 'AXScrollArea',
                    nativeRole: 'scroll pane',
                    name: 'pane',
                    frame: [320, 218, 640, 427],
                    children: [{ role: 'AXTextArea', name: 'text', frame: [321, 219, 638, 425] }],
                  },
                ],
              },
            ],
          },
          // A hidden toolbar: no frames, not showing.
          {
            role: 'AXToolbar',
            name: 'toolbar',
            flags: OFF,
            children: [{ role: 'AXButton', name: 'New', flags: OFF }],
          },
        ],
        { active: true },
      ),
    ]);
    const v = visibleByName(t);
    expect(v['text']).toBe(true);
    expect(v['pane']).toBe(true);
    // The tab has no frame: geometry cannot decide, so its own flag does.
    expect(v['tab']).toBe(false);
    expect(v['toolbar']).toBe(false);
    expect(v['New']).toBe(false);
  });

  it('hides the pages of a notebook that are not selected though their frames match the shown one', () => {
    const page = (n: number, shown: boolean): Spec => ({
      role: 'AXRadioButton',
      nativeRole: 'page tab',
      name: `tab ${n}`,
      frame: [20 + n * 60, 100, 50, 30],
      flags: shown ? ['selected'] : [],
      children: [
        {
          role: 'AXGroup',
          name: `content ${n}`,
          frame: [10, 130, 400, 300],
          flags: shown ? [] : OFF,
          children: [
            {
              role: 'AXButton',
              name: `button ${n}`,
              frame: [30, 150, 80, 30],
              flags: shown ? [] : OFF,
            },
          ],
        },
      ],
    });
    const t = buildSnapshot([
      win(
        'Main',
        [0, 0, 800, 600],
        [
          {
            role: 'AXTabGroup',
            frame: [10, 100, 400, 330],
            children: [page(1, false), page(2, true), page(3, false)],
          },
        ],
        { active: true },
      ),
    ]);
    const v = visibleByName(t);
    expect(v['button 2']).toBe(true);
    expect(v['content 2']).toBe(true);
    expect(v['button 1']).toBe(false);
    expect(v['button 3']).toBe(false);
    expect(v['content 1']).toBe(false);
    // The tabs themselves are on screen and showing.
    expect(v['tab 1']).toBe(true);
    expect(v['tab 3']).toBe(true);
  });

  it('hides a not-showing page stacked at the rect of a showing sibling (a stack)', () => {
    const t = buildSnapshot([
      win(
        'Main',
        [0, 0, 800, 600],
        [
          {
            role: 'AXGroup',
            name: 'stack',
            frame: [0, 50, 800, 550],
            children: [
              {
                role: 'AXGroup',
                name: 'shown page',
                frame: [0, 50, 800, 550],
                children: [{ role: 'AXButton', name: 'A', frame: [10, 60, 80, 30] }],
              },
              {
                role: 'AXGroup',
                name: 'stacked page',
                frame: [0, 50, 800, 550],
                flags: OFF,
                children: [{ role: 'AXButton', name: 'B', frame: [10, 60, 80, 30] }],
              },
              // Not showing, but nothing else is drawn at its rect: the frame decides.
              { role: 'AXButton', name: 'C', frame: [500, 500, 80, 30], flags: OFF },
            ],
          },
        ],
        { active: true },
      ),
    ]);
    const v = visibleByName(t);
    expect(v['A']).toBe(true);
    expect(v['B']).toBe(false);
    expect(v['stacked page']).toBe(false);
    expect(v['C']).toBe(true);
  });

  it('hides an unmapped window with its subtree, whatever frames it kept', () => {
    const t = buildSnapshot([
      win('Main', [0, 0, 800, 600], [{ role: 'AXButton', name: 'M', frame: [10, 10, 80, 30] }], {
        active: true,
      }),
      {
        ...win(
          'Gone',
          [100, 100, 300, 200],
          [{ role: 'AXButton', name: 'G', frame: [110, 110, 80, 30] }],
        ),
        flags: OFF,
      },
    ]);
    const v = visibleByName(t);
    expect(v['M']).toBe(true);
    expect(v['Gone']).toBe(false);
    expect(v['G']).toBe(false);
  });

  it('shows the items of a menu opened from a menu bar below the menu title, not clipped to it', () => {
    const menu = (name: string, x: number, open: boolean): Spec => ({
      role: 'AXMenu',
      nativeRole: 'menu',
      name,
      frame: [x, 20, 40, 25],
      children: ['One', 'Two'].map((item, k) => ({
        role: 'AXMenuItem',
        name: `${name} ${item}`,
        ...(open ? { frame: [x, 45 + k * 25, 300, 25] as [number, number, number, number] } : {}),
        flags: open ? [] : OFF,
      })),
    });
    const t = buildSnapshot([
      win(
        'Editor',
        [0, 0, 400, 60],
        [
          {
            role: 'AXMenuBar',
            frame: [0, 20, 400, 25],
            children: [menu('File', 0, true), menu('Edit', 40, false)],
          },
        ],
        { active: true },
      ),
    ]);
    const v = visibleByName(t);
    expect(v['File One']).toBe(true);
    // Below the small window's bottom edge: a popup is drawn over whatever is there.
    expect(v['File Two']).toBe(true);
    expect(v['Edit One']).toBe(false);
  });

  it('still clips by geometry below a not-showing ancestor: outside the window is not visible', () => {
    const t = buildSnapshot([
      win(
        'Main',
        [0, 0, 400, 300],
        [
          {
            role: 'AXGroup',
            name: 'unshown',
            flags: OFF,
            children: [
              { role: 'AXButton', name: 'in', frame: [10, 10, 50, 20] },
              { role: 'AXButton', name: 'out', frame: [500, 10, 50, 20] },
              { role: 'AXButton', name: 'frameless' },
            ],
          },
        ],
        { active: true },
      ),
    ]);
    const v = visibleByName(t);
    expect(v['in']).toBe(true);
    expect(v['out']).toBe(false);
    expect(v['frameless']).toBe(false);
  });
});

describe("computeVisibility: a combo box's list", () => {
  const combo = (list: Spec): Snapshot =>
    buildSnapshot([
      win(
        'Settings',
        [400, 30, 700, 520],
        [
          {
            role: 'AXComboBox',
            name: 'combo',
            frame: [469, 109, 84, 22],
            flags: ['collapsed'],
            children: [list],
          },
        ],
      ),
    ]);
  const rows: Spec[] = [
    { role: 'AXRow', name: 'Windows', frame: [0, 0, 707, 22] },
    { role: 'AXRow', name: 'Fusion', frame: [0, 22, 707, 22] },
  ];

  it('closed (not showing, no frame: Qt 6): its rows are not visible', () => {
    const v = visibleByName(
      combo({ role: 'AXList', name: 'list', flags: ['offscreen'], children: rows }),
    );
    expect(v).toMatchObject({ combo: true, list: false, Windows: false, Fusion: false });
  });

  it('open (a popup of its own, beyond the window): its rows are visible', () => {
    const open = rows.map((r, k) => ({
      ...r,
      frame: [469, 131 + 22 * k, 84, 22] as Spec['frame'],
    }));
    const v = visibleByName(
      combo({ role: 'AXList', name: 'list', frame: [469, 131, 84, 44], children: open }),
    );
    expect(v).toMatchObject({ list: true, Windows: true, Fusion: true });
  });
});

describe('findBlockingDialog', () => {
  const main = (active: boolean) => win('Main', [0, 0, 800, 600], [], { active });
  const dialog = (name: string, opts: { modal?: boolean; active?: boolean }) =>
    ({
      role: 'AXDialog',
      nativeRole: 'dialog',
      name,
      frame: [200, 150, 300, 200],
      window: { dialog: true, ...opts },
    }) as Spec;

  it('returns null when there is no dialog', () => {
    expect(findBlockingDialog(buildSnapshot([main(true)]))).toBeNull();
  });

  it('returns a modal dialog even when the main window claims to be active', () => {
    const s = buildSnapshot([main(true), dialog('Confirm', { modal: true })]);
    expect(findBlockingDialog(s)?.title).toBe('Confirm');
  });

  it('prefers a modal dialog over an active non-modal one, and the active one among modals', () => {
    const s = buildSnapshot([
      main(false),
      dialog('Palette', { active: true }),
      dialog('Modal A', { modal: true }),
      dialog('Modal B', { modal: true, active: true }),
    ]);
    expect(findBlockingDialog(s)?.title).toBe('Modal B');
    const t = buildSnapshot([
      main(false),
      dialog('Palette', { active: true }),
      dialog('M', { modal: true }),
    ]);
    expect(findBlockingDialog(t)?.title).toBe('M');
  });

  it('takes a non-modal dialog only when it is active and the main window is not', () => {
    expect(
      findBlockingDialog(buildSnapshot([main(false), dialog('Font', { active: true })]))?.title,
    ).toBe('Font');
    expect(
      findBlockingDialog(buildSnapshot([main(true), dialog('Font', { active: false })])),
    ).toBeNull();
    expect(
      findBlockingDialog(buildSnapshot([main(false), dialog('Font', { active: false })])),
    ).toBeNull();
  });

  it('scopes to a dialog the caller targets, and judges activity against the target window', () => {
    const s = buildSnapshot([
      main(false),
      win('Other', [0, 0, 10, 10], [], { active: true }),
      dialog('Font', { active: true }),
    ]);
    // With no target, an active normal window means the user is not in the dialog.
    expect(findBlockingDialog(s)).toBeNull();
    // Targeting Main (inactive) while the dialog is active: the dialog blocks it.
    expect(findBlockingDialog(s, 0)?.title).toBe('Font');
    expect(findBlockingDialog(s, s.windows[2].index)?.title).toBe('Font');
  });

  it('treats an app that is only a dialog (zenity) as scoped to it', () => {
    expect(findBlockingDialog(buildSnapshot([dialog('Question', { active: true })]))?.title).toBe(
      'Question',
    );
  });

  it('ignores windows whose element index does not exist', () => {
    const s = buildSnapshot([main(true)]);
    s.windows.push({
      index: 99,
      title: 'ghost',
      role: 'AXDialog',
      modal: true,
      dialog: true,
      active: true,
    });
    expect(findBlockingDialog(s)).toBeNull();
  });
});

describe('computeVisibility: modal dialog scoping', () => {
  const s = buildSnapshot([
    win(
      'Main',
      [0, 0, 800, 600],
      [
        { role: 'AXButton', name: 'behind', frame: [250, 200, 80, 30] },
        { role: 'AXButton', name: 'elsewhere', frame: [10, 10, 80, 30] },
      ],
      { active: false },
    ),
    {
      role: 'AXDialog',
      nativeRole: 'alert',
      name: 'Really quit?',
      frame: [200, 150, 300, 200],
      window: { dialog: true, modal: true, active: true },
      children: [
        { role: 'AXButton', name: 'OK', frame: [400, 300, 80, 30] },
        { role: 'AXButton', name: 'spills-out', frame: [480, 330, 80, 30] },
        { role: 'AXButton', name: 'outside-dialog', frame: [600, 400, 80, 30] },
      ],
    },
  ]);

  it('makes the dialog the viewport and hides every other window', () => {
    const r = computeVisibility(s, SCREEN);
    expect(r.dialog?.title).toBe('Really quit?');
    expect(r.viewport).toEqual({ x: 200, y: 150, w: 300, h: 200 });
    const v = visibleByName(s);
    expect(v['behind']).toBe(false);
    expect(v['elsewhere']).toBe(false);
    expect(v['Main']).toBe(false);
    expect(v['OK']).toBe(true);
    expect(v['spills-out']).toBe(true);
    expect(v['outside-dialog']).toBe(false);
  });

  it('scopes to a sheet nested inside its window (macOS)', () => {
    const t = buildSnapshot([
      win(
        'Doc',
        [0, 0, 800, 600],
        [
          { role: 'AXButton', name: 'toolbar', frame: [10, 10, 50, 20] },
          {
            role: 'AXSheet',
            name: 'Save',
            frame: [200, 0, 400, 200],
            children: [{ role: 'AXButton', name: 'Save-btn', frame: [500, 150, 60, 20] }],
          },
        ],
        { active: true },
      ),
    ]);
    t.windows.push({
      index: 2,
      title: 'Save',
      role: 'AXSheet',
      frame: t.elements[2].frame,
      modal: true,
      dialog: true,
      active: false,
    });
    const r = computeVisibility(t, SCREEN);
    expect(r.dialog?.title).toBe('Save');
    const v = visibleByName(t);
    expect(v['toolbar']).toBe(false);
    expect(v['Save-btn']).toBe(true);
  });
});

describe('computeVisibility: robustness', () => {
  it('handles parents listed after children and parent cycles without hanging', () => {
    const w = element({ role: 'AXWindow', name: 'W', frame: { x: 0, y: 0, w: 100, h: 100 } });
    const child = element({
      role: 'AXButton',
      name: 'c',
      parent: 2,
      frame: { x: 10, y: 10, w: 10, h: 10 },
    });
    const mid = element({
      role: 'AXScrollArea',
      name: 'm',
      parent: 0,
      frame: { x: 0, y: 0, w: 50, h: 50 },
    });
    const loopA = element({
      role: 'AXButton',
      name: 'a',
      parent: 4,
      frame: { x: 1, y: 1, w: 5, h: 5 },
    });
    const loopB = element({
      role: 'AXButton',
      name: 'b',
      parent: 3,
      frame: { x: 1, y: 1, w: 5, h: 5 },
    });
    const s: Snapshot = {
      ...buildSnapshot([]),
      elements: [w, child, mid, loopA, loopB],
      windows: [
        {
          index: 0,
          title: 'W',
          role: 'AXWindow',
          frame: w.frame,
          modal: false,
          dialog: false,
          active: true,
        },
      ],
    };
    const r = computeVisibility(s, SCREEN);
    expect(r.visible).toHaveLength(5);
    expect(r.visible[1]).toBe(true);
    // Moving the child out of its scroll area (but inside the window) hides it: the order did not matter.
    child.frame = { x: 60, y: 60, w: 10, h: 10 };
    expect(computeVisibility(s, SCREEN).visible[1]).toBe(false);
  });

  it('is fast on a large flat tree', () => {
    const kids: Spec[] = [];
    for (let i = 0; i < 20000; i++)
      kids.push({ role: 'AXCell', name: `c${i}`, frame: [0, i * 20, 100, 20] });
    const s = buildSnapshot([
      win(
        'W',
        [0, 0, 800, 600],
        [{ role: 'AXScrollArea', frame: [0, 0, 800, 600], children: kids }],
        {
          active: true,
        },
      ),
    ]);
    // How long it takes is the bench's business (no timed assertions); a quadratic pass
    // over 20,000 children would still show here as a test that never ends.
    const r = computeVisibility(s, SCREEN);
    expect(r.visible.filter(Boolean).length).toBe(2 + 30);
  });
});

describe('captureRect: popups in context', () => {
  const screen = { w: 1280, h: 800 };
  const combo = (popupFrame: [number, number, number, number]) =>
    buildSnapshot([
      {
        role: 'AXWindow',
        nativeRole: 'window',
        name: '',
        frame: popupFrame,
        window: { active: true },
        children: [
          {
            role: 'AXMenu',
            nativeRole: 'menu',
            frame: popupFrame,
            children: [
              {
                role: 'AXMenuItem',
                name: 'Middle',
                frame: [popupFrame[0], popupFrame[1] + 4, popupFrame[2], 29],
              },
            ],
          },
        ],
      },
      win(
        'Factory',
        [100, 100, 600, 400],
        [{ role: 'AXComboBox', name: 'combo', frame: [134, 281, 118, 34] }],
      ),
    ]);

  it('reports the app window, not the popup that took the focus, as the viewport', () => {
    const view = viewOf(combo([134, 253, 118, 95]));
    expect(view.viewport).toEqual({ x: 100, y: 100, w: 600, h: 400 });
    // The popup's items are visible: they are on screen in a surface of their own.
    expect(view.visible[view.snapshot.elements.findIndex((e) => e.name === 'Middle')]).toBe(true);
    expect(captureRect({ view }, screen)).toEqual({ x: 100, y: 100, w: 600, h: 400 });
  });

  it('grows the region to a popup reaching past the window, clipped to the screen', () => {
    const view = viewOf(combo([650, 450, 200, 500]));
    expect(captureRect({ view }, screen)).toEqual({ x: 100, y: 100, w: 750, h: 700 });
  });

  it('takes in a menu bar menu drawn below its window', () => {
    const t = buildSnapshot([
      win(
        'Small',
        [10, 10, 300, 80],
        [
          {
            role: 'AXMenuBar',
            frame: [10, 30, 300, 25],
            children: [
              {
                role: 'AXMenu',
                nativeRole: 'menu',
                name: 'File',
                frame: [10, 30, 40, 25],
                children: [
                  { role: 'AXMenuItem', name: 'New', frame: [10, 55, 250, 25] },
                  { role: 'AXMenuItem', name: 'Quit', frame: [10, 180, 250, 25] },
                ],
              },
              {
                role: 'AXMenu',
                nativeRole: 'menu',
                name: 'Edit',
                frame: [50, 30, 40, 25],
                children: [{ role: 'AXMenuItem', name: 'Undo', flags: ['offscreen'] }],
              },
            ],
          },
        ],
        { active: true },
      ),
    ]);
    expect(captureRect({ view: viewOf(t) }, screen)).toEqual({ x: 10, y: 10, w: 300, h: 195 });
  });

  it('keeps an explicit region or window as asked, and falls back to the screen off it', () => {
    const view = viewOf(combo([650, 450, 200, 500]));
    expect(captureRect({ view, capture: { rect: { x: 5, y: 6, w: 7, h: 8 } } }, screen)).toEqual({
      x: 5,
      y: 6,
      w: 7,
      h: 8,
    });
    expect(captureRect({ view, capture: { windowIndex: 1 } }, screen)).toEqual({
      x: 100,
      y: 100,
      w: 600,
      h: 400,
    });
    expect(
      captureRect({ view, capture: { rect: { x: 2000, y: 0, w: 10, h: 10 } } }, screen),
    ).toEqual({
      x: 0,
      y: 0,
      w: 1280,
      h: 800,
    });
  });

  it('uses the view of the app that came to the front, and its dialog', () => {
    const view = viewOf(combo([650, 450, 200, 500]));
    const other = viewOf(
      buildSnapshot([
        win('Main', [0, 0, 900, 700], []),
        {
          role: 'AXDialog',
          nativeRole: 'dialog',
          name: 'Ask',
          frame: [300, 200, 200, 100],
          window: { dialog: true, modal: true },
        },
      ]),
    );
    expect(captureRect({ view, appSwitch: other }, screen)).toEqual({
      x: 300,
      y: 200,
      w: 200,
      h: 100,
    });
  });
});
