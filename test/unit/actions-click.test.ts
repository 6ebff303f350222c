/** Click delivery against a recording fake Desktop: what is sent, in which order, or nothing. */
import { describe, expect, it } from 'vitest';
import { deliverClick } from '../../src/actions/index.js';
import { AxError } from '../../src/errors.js';
import type { Flag } from '../../src/model/element.js';
import { formView, recordingDesktop, sceneOf, target } from './helpers/recording-desktop.js';
import { buildSnapshot, viewOf } from './helpers/synthetic.js';

async function rejection(p: Promise<unknown>): Promise<AxError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AxError);
  return err as AxError;
}

const SIDE_EFFECTS = ['doAction', 'click', 'activate', 'setText', 'typeText', 'pressKey'];

describe('deliverClick', () => {
  it('presses the element through accessibility in the background, reading it first', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const done = await deliverClick(sceneOf(view, desktop), {
      target: target(view, 'subscribe'),
      clickType: 'single',
    });
    // A check box is read, and its look taken (its pixels), before it is pressed.
    expect(desktop.names()).toEqual(['readElement', 'screenSize', 'capture', 'doAction']);
    expect(desktop.calls[3].args).toEqual(['subscribe', 'click']);
    expect(done.did).toBe(`Clicked [AXCheckBox] "Subscribe" e5 (action 'click')`);
    expect(done.delivery).toBe('background');
    // The check box's own state changed: that is evidence the click landed.
    expect(await done.touched?.()).toBe(true);
  });

  it('a disabled target is an error naming it disabled, and nothing is sent', async () => {
    const view = formView({ submit: { flags: ['disabled', 'focusable'] } });
    const desktop = recordingDesktop(view);
    for (const mode of ['background', 'foreground'] as const) {
      const err = await rejection(
        deliverClick(sceneOf(view, desktop), {
          target: target(view, 'submit'),
          clickType: 'single',
          mode,
        }),
      );
      expect(err.message).toBe('[AXButton] "Submit" e7 is disabled');
      expect(err.details?.escalation).toBeUndefined();
    }
    expect(desktop.names().filter((n) => SIDE_EFFECTS.includes(n))).toEqual([]);
  });

  it('a point on a disabled element is refused too', async () => {
    const view = formView({ submit: { flags: ['disabled'] } });
    const desktop = recordingDesktop(view);
    const err = await rejection(
      deliverClick(sceneOf(view, desktop), {
        target: { point: { x: 140, y: 275 }, label: '(140,275)' },
        clickType: 'single',
        mode: 'foreground',
      }),
    );
    expect(err.message).toMatch(/\(140,275\) \(\[AXButton\] "Submit"\) is disabled/);
    expect(desktop.names().filter((n) => SIDE_EFFECTS.includes(n))).toEqual([]);
  });

  it('an off-screen point is an error naming the screen size, never clamped', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    for (const mode of ['background', 'foreground'] as const) {
      const err = await rejection(
        deliverClick(sceneOf(view, desktop), {
          target: { point: { x: 99999, y: 10 }, label: '(99999,10)' },
          clickType: 'single',
          mode,
        }),
      );
      expect(err.code).toBe('bad_argument');
      expect(err.message).toBe('(99999,10) is off the screen (1280x800)');
    }
    const negative = await rejection(
      deliverClick(sceneOf(view, desktop), {
        target: { point: { x: 10, y: -1 }, label: '(10,-1)' },
        clickType: 'single',
        mode: 'foreground',
      }),
    );
    expect(negative.message).toMatch(/off the screen/);
    expect(desktop.names()).toEqual(['screenSize', 'screenSize', 'screenSize']);
  });

  it('an element whose click point is off the screen is said to lie off it, not called a bad point', async () => {
    const view = formView({ submit: { frame: [1300, 260, 80, 30] } });
    const desktop = recordingDesktop(view);
    const err = await rejection(
      deliverClick(sceneOf(view, desktop), {
        target: target(view, 'submit'),
        clickType: 'single',
        mode: 'foreground',
      }),
    );
    expect(err.message).toMatch(/^\[AXButton\] "Submit" \S+ lies off the screen \(1280x800\)/);
    expect(err.hint).not.toMatch(/Pass a point/);
    expect(desktop.names().filter((n) => SIDE_EFFECTS.includes(n))).toEqual([]);
  });

  it('a rectangle reaching off the screen is an error, though its centre is on it', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const err = await rejection(
      deliverClick(sceneOf(view, desktop), {
        target: { point: { x: 1270, y: 100 }, label: '(1270,100)' },
        clickType: 'single',
        mode: 'foreground',
        rect: { x: 1240, y: 90, w: 60, h: 20 },
      }),
    );
    expect(err.message).toBe('the rectangle (1240,90 60x20) reaches off the screen (1280x800)');
    expect(desktop.names()).toEqual(['screenSize']);
  });

  it('a double click cannot be done in the background: escalation, nothing sent', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const err = await rejection(
      deliverClick(sceneOf(view, desktop), {
        target: target(view, 'submit'),
        clickType: 'double',
      }),
    );
    expect(err.details?.escalation).toMatchObject({ recommended: 'foreground' });
    expect(desktop.names()).toEqual([]);
  });

  it('a foreground click fronts the app, clicks the centre, and hands back the restore', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const done = await deliverClick(sceneOf(view, desktop), {
      target: target(view, 'submit'),
      clickType: 'right',
      mode: 'foreground',
    });
    expect(desktop.names()).toEqual(['screenSize', 'readElement', 'activate', 'click']);
    expect(desktop.calls[3].args).toEqual([140, 275, 'right', 1]);
    await done.restore?.();
    expect(desktop.names().at(-1)).toBe('restore');
  });

  it('puts the previous window back when the click fails after fronting', async () => {
    const view = formView();
    const desktop = recordingDesktop(view, { failing: { click: 'XTest refused' } });
    await expect(
      deliverClick(sceneOf(view, desktop), {
        target: target(view, 'submit'),
        clickType: 'single',
        mode: 'foreground',
      }),
    ).rejects.toThrow('XTest refused');
    expect(desktop.names().slice(-3)).toEqual(['activate', 'click', 'restore']);
  });
});

describe('deliverClick on a point', () => {
  it('names the element under the point once, with the point', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const done = await deliverClick(sceneOf(view, desktop), {
      target: { point: { x: 140, y: 275 }, label: '(140,275)' },
      clickType: 'single',
      mode: 'foreground',
    });
    expect(done.did).toBe('Clicked (140,275) ([AXButton] "Submit")');
    expect(desktop.names()).toEqual(['screenSize', 'readElement', 'activate', 'click']);
  });
});

describe('deliverClick on rows, tabs and expanders', () => {
  /** A window with a list of two rows (a label in each) and a tree expander with its arrow. */
  const navView = () =>
    viewOf(
      buildSnapshot([
        {
          role: 'AXWindow',
          name: 'Nav',
          id: 'win',
          frame: [0, 0, 600, 400],
          flags: ['active'],
          window: { active: true },
          children: [
            {
              role: 'AXList',
              nativeRole: 'list',
              name: 'Fruit list',
              id: 'list',
              frame: [10, 10, 200, 100],
              flags: ['enabled'],
              children: ['Apple', 'Banana'].map((name, k) => ({
                role: 'AXRow',
                nativeRole: 'list item',
                name,
                id: `row-${name}`,
                frame: [10, 10 + 30 * k, 200, 28] as [number, number, number, number],
                flags: ['enabled', 'focusable'] as Flag[],
                children: [
                  {
                    role: 'AXStaticText',
                    nativeRole: 'label',
                    name,
                    id: `label-${name}`,
                    frame: [16, 16 + 30 * k, 100, 16] as [number, number, number, number],
                    flags: ['enabled'] as Flag[],
                  },
                ],
              })),
            },
            {
              role: 'AXGroup',
              nativeRole: 'panel',
              name: 'Fruit',
              id: 'expander',
              frame: [300, 10, 200, 24],
              flags: ['enabled', 'collapsed'],
              actions: ['listitem.toggle-expand', 'listitem.collapse', 'listitem.expand'],
              children: [
                {
                  role: 'AXButton',
                  nativeRole: 'push button',
                  name: 'Expand',
                  id: 'arrow',
                  frame: [300, 10, 16, 24],
                  flags: ['enabled'],
                },
              ],
            },
          ],
        },
      ]),
    );

  it('selects a row through its list, and the selection reads back', async () => {
    const view = navView();
    const desktop = recordingDesktop(view);
    const done = await deliverClick(sceneOf(view, desktop), {
      target: target(view, 'row-Banana'),
      clickType: 'single',
    });
    expect(desktop.names()).toEqual(['readElement', 'selectElement']);
    expect(desktop.calls[1].args).toEqual(['row-Banana']);
    expect(done.did).toBe(
      `Clicked [AXRow] "Banana" e5: selected it through its list's selection (selected only, not activated as Enter would)`,
    );
    expect(done.route).toBe('ax-select');
    expect(await done.probe?.()).toBe('landed');
  });

  it('a row its list does not select: escalation to the foreground, nothing else sent', async () => {
    const view = navView();
    const desktop = recordingDesktop(view, { unselectable: ['row-Banana'] });
    const err = await rejection(
      deliverClick(sceneOf(view, desktop), {
        target: target(view, 'row-Banana'),
        clickType: 'single',
      }),
    );
    expect(err.message).toBe(
      'cannot click in the background: [AXRow] "Banana" e5 offers no action of its own, and its container did not select it',
    );
    expect(err.details?.escalation).toMatchObject({ recommended: 'foreground' });
    expect(err.hint).toMatch(/^Retry with delivery_mode: "foreground"/);
    expect(desktop.names().filter((n) => SIDE_EFFECTS.includes(n))).toEqual([]);
  });

  it("a row's label, which has no action, selects its row as the pointer would", async () => {
    const view = navView();
    const desktop = recordingDesktop(view);
    const done = await deliverClick(sceneOf(view, desktop), {
      target: target(view, 'label-Banana'),
      clickType: 'single',
    });
    expect(desktop.names()).toContain('selectElement');
    expect(desktop.calls.find((c) => c.name === 'selectElement')?.args).toEqual(['row-Banana']);
    expect(done.did).toMatch(
      /^Clicked .*"Banana".*, in \[AXRow\] "Banana" e5: selected it through its list's selection/,
    );
    expect(done.route).toBe('ax-select');
  });

  it('in the foreground, an expander is clicked on its arrow, a row at its centre', async () => {
    const view = navView();
    const desktop = recordingDesktop(view);
    const done = await deliverClick(sceneOf(view, desktop), {
      target: target(view, 'expander'),
      clickType: 'single',
      mode: 'foreground',
    });
    expect(desktop.calls.find((c) => c.name === 'click')?.args).toEqual([308, 22, 'left', 1]);
    expect(done.did).toBe('Clicked [AXGroup] "Fruit" e7 at (308,22) on its [AXButton] "Expand" e8');
    const row = await deliverClick(sceneOf(view, desktop), {
      target: target(view, 'row-Banana'),
      clickType: 'single',
      mode: 'foreground',
    });
    expect(desktop.calls.filter((c) => c.name === 'click')[1].args).toEqual([110, 54, 'left', 1]);
    expect(row.did).toBe('Clicked [AXRow] "Banana" e5 at (110,54)');
  });

  it("an expander's arrow runs the expander's action, watched on the expander", async () => {
    const view = navView();
    const desktop = recordingDesktop(view);
    const done = await deliverClick(sceneOf(view, desktop), {
      target: target(view, 'arrow'),
      clickType: 'single',
    });
    expect(desktop.calls.map((c) => [c.name, ...c.args])).toEqual([
      ['readElement', 'expander'],
      ['doAction', 'expander', 'listitem.toggle-expand'],
    ]);
    expect(done.did).toBe(
      `Clicked [AXButton] "Expand" e8 (its [AXGroup] "Fruit"'s action 'listitem.toggle-expand')`,
    );
  });
});
