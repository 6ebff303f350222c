/** Click delivery against a recording fake Desktop: what is sent, in which order, or nothing. */
import { describe, expect, it } from 'vitest';
import { deliverClick } from '../../src/actions/index.js';
import { AxError } from '../../src/errors.js';
import { formView, recordingDesktop, sceneOf, target } from './helpers/recording-desktop.js';

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
