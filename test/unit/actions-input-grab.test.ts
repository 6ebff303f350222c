/**
 * Foreground input while another client holds the keyboard or pointer grabbed: refused
 * before the app is fronted, nothing sent (the recording fake's calls show it); background
 * delivery sends no input events and goes on.
 */
import { describe, expect, it } from 'vitest';
import { deliverClick, deliverKey, deliverType } from '../../src/actions/index.js';
import { AxError } from '../../src/errors.js';
import { formView, recordingDesktop, sceneOf, target } from './helpers/recording-desktop.js';

async function refusal(p: Promise<unknown>): Promise<AxError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AxError);
  return err as AxError;
}

describe('a grab held by another client', () => {
  it('a key, text and a click are refused with nothing fronted or sent', async () => {
    for (const grabbed of ['keyboard', 'pointer'] as const) {
      const view = formView();
      const desktop = recordingDesktop(view, { grabbed });
      const scene = sceneOf(view, desktop);
      const name = target(view, 'name');
      const key = await refusal(deliverKey(scene, { key: 'x', modifiers: [] }));
      expect(key.message).toBe(
        `another window holds the ${grabbed} (a password prompt?): nothing was sent, since X would deliver it there`,
      );
      await refusal(
        deliverType(scene, { target: name, text: 'QQ', clearFirst: false, mode: 'foreground' }),
      );
      await refusal(deliverClick(scene, { target: name, clickType: 'single', mode: 'foreground' }));
      const sent = ['activate', 'focusElement', 'click', 'pressKey', 'typeText'];
      expect(desktop.names().filter((n) => sent.includes(n))).toEqual([]);
    }
  });

  it('background typing sends no input events and goes on', async () => {
    const view = formView();
    const desktop = recordingDesktop(view, { grabbed: 'keyboard' });
    const done = await deliverType(sceneOf(view, desktop), {
      target: target(view, 'name'),
      text: 'x',
      clearFirst: false,
    });
    expect(done.delivery).toBe('background');
  });
});
