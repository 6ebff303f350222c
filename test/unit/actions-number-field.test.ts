/**
 * Text typed into a spin button: checked as a number in its range before anything is
 * typed, committed after (GTK: its "activate" action; else Return in the field in the
 * foreground), its value reported.
 */
import { describe, expect, it } from 'vitest';
import { deliverType } from '../../src/actions/index.js';
import { formView, recordingDesktop, sceneOf, target } from './helpers/recording-desktop.js';

const ranges = { count: { value: 5, min: 0, max: 10, step: 1 } };

describe('typing into a spin button', () => {
  it('in the background: the text, then its activate action, then the value read back', async () => {
    const view = formView({ count: { actions: ['activate'] } });
    const desktop = recordingDesktop(view, { ranges });
    const scene = sceneOf(view, desktop);
    // The fake does not turn text into a value: the summary says it did not follow.
    const done = await deliverType(scene, {
      target: target(view, 'count'),
      text: '7',
      clearFirst: true,
    });
    const names = desktop.names();
    expect(names.indexOf('setText')).toBeLessThan(names.indexOf('doAction'));
    expect(desktop.calls.find((c) => c.name === 'doAction')?.args).toEqual(['count', 'activate']);
    expect(done.did).toMatch(/committed: value 5 → 5 \(not 7\)$/);
    expect(await done.probe?.()).toBe('absent');
  });

  it('in the background without a commit action: its value is set to the number typed', async () => {
    const view = formView();
    const desktop = recordingDesktop(view, { ranges: structuredClone(ranges) });
    const done = await deliverType(sceneOf(view, desktop), {
      target: target(view, 'count'),
      text: '7',
      clearFirst: true,
    });
    expect(done.did).toMatch(/committed \(its value set to the number typed\): value 5 → 7$/);
    expect(desktop.calls.find((c) => c.name === 'setValue')?.args).toEqual(['count', 7]);
    expect(desktop.names()).not.toContain('pressKey');
  });

  it('in the foreground without a commit action: Return in the field', async () => {
    const view = formView();
    const desktop = recordingDesktop(view, { ranges });
    await deliverType(sceneOf(view, desktop), {
      target: target(view, 'count'),
      text: '7',
      clearFirst: true,
      mode: 'foreground',
    });
    const keys = desktop.calls.filter((c) => c.name === 'pressKey').map((c) => c.args[0]);
    expect(keys.at(-1)).toBe('Return');
    expect(desktop.names().indexOf('typeText')).toBeLessThan(
      desktop.names().lastIndexOf('pressKey'),
    );
  });

  it("in a dialog's field: Tab commits it, not Return (which would press the default button)", async () => {
    const view = formView();
    view.snapshot.windows[0].dialog = true;
    const desktop = recordingDesktop(view, { ranges });
    const done = await deliverType(sceneOf(view, desktop), {
      target: target(view, 'count'),
      text: '7',
      clearFirst: true,
      mode: 'foreground',
    });
    const keys = desktop.calls.filter((c) => c.name === 'pressKey').map((c) => c.args[0]);
    expect(keys.at(-1)).toBe('Tab');
    expect(keys).not.toContain('Return');
    expect(done.did).toMatch(
      /committed with Tab \(Return would press the dialog's default button\)/,
    );
  });

  for (const mode of ['background', 'foreground'] as const) {
    it(`${mode}, in a dialog's field with an activate action: not activated (its default button would take it)`, async () => {
      const view = formView({ count: { actions: ['activate'] } });
      view.snapshot.windows[0].dialog = true;
      const desktop = recordingDesktop(view, { ranges: structuredClone(ranges) });
      const done = await deliverType(sceneOf(view, desktop), {
        target: target(view, 'count'),
        text: '7',
        clearFirst: true,
        mode,
      });
      expect(desktop.names()).not.toContain('doAction');
      if (mode === 'foreground') {
        const keys = desktop.calls.filter((c) => c.name === 'pressKey').map((c) => c.args[0]);
        expect(keys.at(-1)).toBe('Tab');
        expect(done.did).toMatch(
          /committed with Tab \(Enter would press the dialog's default button\)/,
        );
      } else {
        expect(desktop.calls.find((c) => c.name === 'setValue')?.args).toEqual(['count', 7]);
        expect(done.did).toMatch(/its value set to the number typed: Enter would press/);
      }
    });
  }

  it('a field gone with its window after the commit: the value is unreadable, not "not N"', async () => {
    const view = formView();
    const desktop = recordingDesktop(view, { ranges: structuredClone(ranges) });
    const press = desktop.pressKey.bind(desktop);
    desktop.pressKey = async (combo) => {
      await press(combo);
      if (combo.key !== 'Return') return;
      // The key closed the window: the field is gone.
      desktop.readValue = () => Promise.reject(new Error('gone'));
      desktop.readElement = () => Promise.reject(new Error('gone'));
    };
    const done = await deliverType(sceneOf(view, desktop), {
      target: target(view, 'count'),
      text: '7',
      clearFirst: true,
      mode: 'foreground',
    });
    expect(done.did).toMatch(/value 5 → unreadable \(.* is gone, its window closed/);
    expect(done.did).not.toMatch(/\(not 7\)/);
  });

  it('in the background, a spin button without editable text gets the number as its value', async () => {
    const view = formView({ count: { flags: ['enabled', 'focusable'] } });
    const desktop = recordingDesktop(view, { ranges });
    const done = await deliverType(sceneOf(view, desktop), {
      target: target(view, 'count'),
      text: '8',
      clearFirst: true,
    });
    expect(desktop.calls.find((c) => c.name === 'setValue')?.args).toEqual(['count', 8]);
    expect(desktop.names()).not.toContain('setText');
    expect(done.did).toMatch(/its value was set \(value 5 → 8\)$/);
    expect(await done.probe?.()).toBe('landed');
    expect(done.undo).toMatchObject({ kind: 'restore', previous: '5', what: 'value' });
  });

  it('text that is not a number goes as typed in the foreground, committed, and is reported as the app shows it', async () => {
    const view = formView();
    const desktop = recordingDesktop(view, { ranges: structuredClone(ranges) });
    const done = await deliverType(sceneOf(view, desktop), {
      target: target(view, 'count'),
      text: 'May',
      clearFirst: true,
      mode: 'foreground',
    });
    expect(desktop.names()).toContain('typeText');
    const keys = desktop.calls.filter((c) => c.name === 'pressKey').map((c) => c.args[0]);
    expect(keys.at(-1)).toBe('Return');
    // The value stays: the fake reads no text.
    expect(done.did).toMatch(/committed: value (\d+) → \1; its text reads 'May'$/);
  });

  it('text that is not a number, in the background without a commit action: refused before anything is sent', async () => {
    const view = formView();
    const desktop = recordingDesktop(view, { ranges });
    await expect(
      deliverType(sceneOf(view, desktop), {
        target: target(view, 'count'),
        text: '13:45',
        clearFirst: true,
      }),
    ).rejects.toThrow(/only when it is committed, on Return in the field/);
    expect(desktop.names()).not.toContain('setText');
    expect(desktop.names()).not.toContain('setValue');
  });

  it('a number out of its range is refused before anything is sent', async () => {
    const view = formView();
    const desktop = recordingDesktop(view, { ranges });
    const scene = sceneOf(view, desktop);
    for (const [text, clearFirst] of [
      ['', true],
      ['11', true],
      ['1', false], // "5" + "1" reads 51
    ] as const) {
      await expect(
        deliverType(scene, { target: target(view, 'count'), text, clearFirst }),
      ).rejects.toThrow(/takes a number in 0\.\.10/);
    }
    expect(desktop.names()).not.toContain('setText');
    expect(desktop.names()).not.toContain('insertText');
  });
});
