/** ax_set_value's delivery: every value checked before anything is set. */
import { describe, expect, it } from 'vitest';
import { deliverSetValue } from '../../src/actions/index.js';
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

const COUNT = { count: { value: 5, min: 0, max: 10, step: 1 } };

describe('deliverSetValue on a spin button (editable text with a Value interface)', () => {
  it.each(['abc', '', '  ', '5 apples', 'NaN', 'Infinity'])(
    'refuses the non-number %j naming the range; nothing is set',
    async (value) => {
      const view = formView();
      const desktop = recordingDesktop(view, { ranges: COUNT });
      const err = await rejection(
        deliverSetValue(sceneOf(view, desktop), target(view, 'count'), value),
      );
      expect(err.code).toBe('bad_argument');
      expect(err.message).toBe(
        `'${value}' is not a number: [AXIncrementor] "Count" e6 takes a number in 0..10`,
      );
      expect(desktop.names()).toEqual(['readValue']);
    },
  );

  it('refuses a number outside the range; nothing is set', async () => {
    const view = formView();
    const desktop = recordingDesktop(view, { ranges: COUNT });
    const err = await rejection(
      deliverSetValue(sceneOf(view, desktop), target(view, 'count'), '11'),
    );
    expect(err.message).toBe(`11 is outside [AXIncrementor] "Count" e6's range 0..10`);
    expect(desktop.names()).toEqual(['readValue']);
  });

  it('sets a number in range through the Value interface and reads it back', async () => {
    const view = formView();
    const desktop = recordingDesktop(view, { ranges: COUNT });
    const done = await deliverSetValue(sceneOf(view, desktop), target(view, 'count'), '7');
    expect(desktop.calls[1]).toEqual({ name: 'setValue', args: ['count', 7] });
    expect(desktop.names()).not.toContain('setText');
    expect(done.did).toBe('Set [AXIncrementor] "Count" e6 to 7 (was 5)');
    expect(await done.probe?.()).toBe('landed');
  });
});

describe('deliverSetValue on other elements', () => {
  it('a check box state is parsed before the toggle is sent', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const err = await rejection(
      deliverSetValue(sceneOf(view, desktop), target(view, 'subscribe'), 'maybe'),
    );
    expect(err.message).toMatch(/not a check box state/);
    expect(desktop.calls).toEqual([]);
    const done = await deliverSetValue(sceneOf(view, desktop), target(view, 'subscribe'), 'true');
    expect(desktop.names()).toEqual(['doAction']);
    expect(await done.probe?.()).toBe('landed');
  });

  it('a text field gets its text set and read back', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const done = await deliverSetValue(sceneOf(view, desktop), target(view, 'name'), 'Grace');
    // The text before is read first: the undo journal's way back (the walk's value may be cut).
    expect(desktop.names()).toEqual(['readText', 'setText']);
    expect(await done.probe?.()).toBe('landed');
  });

  it('a disabled element is an error naming it disabled; nothing is set', async () => {
    const view = formView({ count: { flags: ['disabled', 'editable'] } });
    const desktop = recordingDesktop(view, { ranges: COUNT });
    const err = await rejection(
      deliverSetValue(sceneOf(view, desktop), target(view, 'count'), '7'),
    );
    expect(err.message).toBe('[AXIncrementor] "Count" e6 is disabled');
    expect(desktop.calls).toEqual([]);
  });
});
