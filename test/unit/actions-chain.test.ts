/** Chained steps: each waits for the one before, reports its own effect, validates first. */
import { describe, expect, it } from 'vitest';
import {
  assertKnownKey,
  deliverChain,
  deliverClick,
  deliverDrag,
  deliverKey,
  deliverType,
} from '../../src/actions/index.js';
import { AxError } from '../../src/errors.js';
import { formView, recordingDesktop, sceneOf, target } from './helpers/recording-desktop.js';

describe('deliverChain', () => {
  it('types, waits until the text reads back and the app is quiet, then presses the key', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const scene = sceneOf(view, desktop);
    const done = await deliverChain(scene, [
      () =>
        deliverType(scene, { target: target(view, 'name'), text: 'report.txt', clearFirst: true }),
      // As ax_type sends it: to the field typed into.
      () =>
        deliverKey(
          scene,
          { key: 'Return', modifiers: [] },
          { target: target(view, 'name'), afterText: true },
        ),
    ]);
    expect(desktop.names()).toEqual([
      'readText',
      'setText',
      'readText', // the read-back
      'settle', // change events quiet
      'activate',
      'hasFocus', // not yet in the field: text went in through accessibility
      'focusElement',
      'hasFocus',
      'pressKey', // End: the key goes after the text
      'readElement', // the field watched for the key's effect
      'readText',
      'pressKey',
    ]);
    expect(desktop.calls.filter((c) => c.name === 'pressKey').map((c) => c.args)).toEqual([
      ['End'],
      ['Return'],
    ]);
    expect(done.did).toBe(
      'Typed 10 chars into [AXTextField] "Name" e2 (replaced) (confirmed), then pressed Return in [AXTextField] "Name" e2',
    );
    expect(done.route).toBe('ax+xtest');
    expect(done.delivery).toBe('foreground');
    // The verdict reads the last step: a key has no read-back of its own.
    expect(done.probe).toBeUndefined();
  });

  it('says so when a step did not read back before the next one went', async () => {
    const view = formView();
    const desktop = recordingDesktop(view, { ignoresText: true });
    const scene = sceneOf(view, desktop);
    const done = await deliverChain(scene, [
      () => deliverType(scene, { target: target(view, 'name'), text: 'x', clearFirst: true }),
      () => deliverKey(scene, { key: 'Tab', modifiers: [] }),
    ]);
    expect(done.did).toMatch(/\(did not read back\), then pressed Tab \(no element said/);
  });

  it('a later step failing is reported with the earlier steps, and restore is kept', async () => {
    const view = formView();
    const desktop = recordingDesktop(view, { failing: { typeText: 'keyboard gone' } });
    const scene = sceneOf(view, desktop);
    const done = await deliverChain(scene, [
      () =>
        deliverClick(scene, {
          target: target(view, 'name'),
          clickType: 'single',
          mode: 'foreground',
        }),
      () =>
        deliverType(scene, {
          target: { label: 'the focused element' },
          text: 'x',
          clearFirst: false,
          mode: 'foreground',
        }),
    ]);
    expect(done.error).toBe('a later step failed: keyboard gone');
    expect(done.did).toMatch(/^Clicked \[AXTextField\] "Name" e2 at/);
    expect(done.restore).toBeDefined();
  });

  it('the first step failing fails the call', async () => {
    const view = formView({ submit: { flags: ['disabled'] } });
    const desktop = recordingDesktop(view);
    const scene = sceneOf(view, desktop);
    await expect(
      deliverChain(scene, [
        () => deliverClick(scene, { target: target(view, 'submit'), clickType: 'single' }),
        () => deliverKey(scene, { key: 'Return', modifiers: [] }),
      ]),
    ).rejects.toThrow('is disabled');
    expect(desktop.calls).toEqual([]);
  });
});

describe('keys', () => {
  it('an unknown key is refused before anything is sent', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    expect(() => assertKnownKey(desktop, { key: 'NoSuchKey', modifiers: [] })).toThrow(AxError);
    await expect(
      deliverKey(sceneOf(view, desktop), { key: 'NoSuchKey', modifiers: ['ctrl'] }),
    ).rejects.toThrow(/'NoSuchKey' is not a key name this desktop knows/);
    expect(desktop.calls).toEqual([]);
  });

  it('a combo is shown once: ctrl+c, not ctrl+ctrl+c', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const done = await deliverKey(sceneOf(view, desktop), { key: 'c', modifiers: ['ctrl'] });
    expect(done.did).toBe('Pressed ctrl+c (no element said it had the keyboard focus)');
    expect(desktop.names()).toEqual(['activate', 'pressKey']);
  });
});

describe('deliverDrag', () => {
  it('refuses a disabled source and an off-screen end before fronting anything', async () => {
    const view = formView({ subscribe: { flags: ['disabled'] } });
    const desktop = recordingDesktop(view);
    const scene = sceneOf(view, desktop);
    await expect(
      deliverDrag(scene, {
        from: target(view, 'subscribe'),
        to: target(view, 'submit'),
        durationMs: 10,
      }),
    ).rejects.toThrow('[AXCheckBox] "Subscribe" e5 is disabled');
    await expect(
      deliverDrag(scene, {
        from: target(view, 'submit'),
        to: { point: { x: 5000, y: 5 }, label: '(5000,5)' },
        durationMs: 10,
      }),
    ).rejects.toThrow('(5000,5) is off the screen (1280x800)');
    expect(desktop.names().filter((n) => n !== 'screenSize')).toEqual([]);
  });
});
