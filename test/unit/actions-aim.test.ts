/**
 * Aiming keys: the focus moved to the target and checked before the key goes, a click to
 * focus only inside a text field (never on a spin button's arrows, never on a button),
 * and the verdict's evidence taken from the element that had the focus.
 */
import { describe, expect, it } from 'vitest';
import { clickPoint, focusHolder } from '../../src/actions/aim.js';
import { deliverKey, landsInPlace } from '../../src/actions/index.js';
import type { AxError } from '../../src/errors.js';
import { formView, recordingDesktop, sceneOf, target } from './helpers/recording-desktop.js';
import { buildSnapshot, element, rect, viewOf } from './helpers/synthetic.js';

const key = (k: string, ...modifiers: Array<'ctrl' | 'shift' | 'alt'>) => ({ key: k, modifiers });

describe('clickPoint: where a click focuses without doing anything else', () => {
  it('a text field: left of its centre, clear of the icons kept on the right', () => {
    const el = element({ role: 'AXTextField', frame: rect(100, 60, 200, 30), flags: ['editable'] });
    expect(clickPoint(el)).toEqual({ x: 150, y: 75 });
  });

  it('a spin button: near its left edge, never its centre (the arrows may be there)', () => {
    const el = element({
      role: 'AXIncrementor',
      frame: rect(100, 220, 100, 30),
      flags: ['editable'],
    });
    const p = clickPoint(el);
    expect(p).toEqual({ x: 108, y: 235 });
  });

  it('a text area: top left, where its text starts', () => {
    const el = element({
      role: 'AXTextArea',
      frame: rect(0, 0, 300, 200),
      flags: ['editable', 'multiline'],
    });
    expect(clickPoint(el)).toEqual({ x: 8, y: 8 });
  });

  it('nothing that is not a text field: a click would press it', () => {
    expect(clickPoint(element({ role: 'AXButton', frame: rect(0, 0, 80, 30) }))).toBeUndefined();
    expect(clickPoint(element({ role: 'AXTextField', flags: ['editable'] }))).toBeUndefined();
  });
});

describe('focusHolder', () => {
  it('a combo box that takes no focus itself is focused through its one entry', () => {
    const view = viewOf(
      buildSnapshot([
        {
          role: 'AXWindow',
          name: 'W',
          id: 'win',
          frame: [0, 0, 400, 300],
          window: { active: true },
          children: [
            {
              role: 'AXComboBox',
              name: 'Flavour',
              id: 'combo',
              frame: [10, 10, 200, 30],
              flags: ['enabled'],
              children: [
                {
                  role: 'AXTextField',
                  name: 'Flavour',
                  id: 'entry',
                  frame: [10, 10, 170, 30],
                  flags: ['enabled', 'editable', 'focusable'],
                },
                { role: 'AXMenu', id: 'menu', flags: ['enabled'] },
              ],
            },
          ],
        },
      ]),
    );
    const scene = sceneOf(view, recordingDesktop(view));
    expect(focusHolder(scene, target(view, 'combo')).element.id).toBe('entry');
  });

  it('the target when it takes focus; a window is not replaced by one of its many fields', () => {
    const view = formView();
    const scene = sceneOf(view, recordingDesktop(view));
    expect(focusHolder(scene, target(view, 'name')).element.id).toBe('name');
    expect(focusHolder(scene, target(view, 'win')).element.id).toBe('win');
  });
});

describe('deliverKey aimed at an element', () => {
  it('moves the focus there, checks it, then sends the key, named in the summary', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const done = await deliverKey(sceneOf(view, desktop), key('Tab'), {
      target: target(view, 'email'),
    });
    const names = desktop.names();
    expect(names.indexOf('focusElement')).toBeLessThan(names.lastIndexOf('hasFocus'));
    expect(names.lastIndexOf('hasFocus')).toBeLessThan(names.indexOf('pressKey'));
    expect(done.did).toBe('Pressed Tab in [AXTextField] "Email" e3');
    // No text came before the key: the caret stays where the user left it.
    expect(desktop.calls.filter((c) => c.name === 'pressKey').map((c) => c.args)).toEqual([
      ['Tab'],
    ]);
  });

  it('refuses when the element does not take the focus: no key sent, window put back', async () => {
    const view = formView();
    const desktop = recordingDesktop(view, { unfocusable: ['submit'] });
    const err = (await deliverKey(sceneOf(view, desktop), key('Return'), {
      target: target(view, 'submit'),
    }).catch((e: unknown) => e)) as AxError;
    expect(err.message).toBe(
      '[AXButton] "Submit" e7 did not take the keyboard focus, so Return was not sent',
    );
    // A button is never clicked to focus it: the click would press it.
    expect(desktop.names()).not.toContain('click');
    expect(desktop.names()).not.toContain('pressKey');
    expect(desktop.names().at(-1)).toBe('restore');
  });

  it('a disabled target is refused before anything is sent', async () => {
    const view = formView({ email: { flags: ['disabled', 'editable'] } });
    const desktop = recordingDesktop(view);
    await expect(
      deliverKey(sceneOf(view, desktop), key('a'), { target: target(view, 'email') }),
    ).rejects.toThrow('is disabled');
    expect(desktop.calls).toEqual([]);
  });

  it('reads back "landed" only when the focused element changed', async () => {
    const view = formView({ name: { flags: ['enabled', 'editable', 'focusable', 'focused'] } });
    const desktop = recordingDesktop(view);
    const done = await deliverKey(sceneOf(view, desktop), key('a'));
    expect(done.did).toBe('Pressed a in [AXTextField] "Name" e2');
    // The fake's key press types nothing: the field is unchanged, so the key did nothing there.
    expect(await done.probe?.()).toBe('absent');
    desktop.text.set('name', 'Adaa');
    expect(await done.probe?.()).toBe('landed');
  });
});

describe('landsInPlace: whose change shows that a key landed', () => {
  it('characters, arrows and Tab show on the focused element', () => {
    expect(landsInPlace('other', key('a'))).toBe(true);
    expect(landsInPlace('caret', key('Down'))).toBe(true);
    expect(landsInPlace('focus', key('Tab', 'shift'))).toBe(true);
  });

  it('a caret key with Ctrl still moves the caret in the focused element', () => {
    expect(landsInPlace('caret', key('Home', 'ctrl'))).toBe(true);
    expect(landsInPlace('caret', key('End', 'ctrl', 'shift'))).toBe(true);
    expect(landsInPlace('caret', key('Left', 'alt'))).toBe(false);
  });

  it('Return, Escape, Space and shortcuts drive something else as well', () => {
    expect(landsInPlace('activate', key('Return'))).toBe(false);
    expect(landsInPlace('cancel', key('Escape'))).toBe(false);
    expect(landsInPlace('other', key('space'))).toBe(false);
    expect(landsInPlace('other', key('s', 'ctrl'))).toBe(false);
  });
});

describe('safe mode and aimed keys', () => {
  it('a key that may type, aimed at a password field, is refused before the focus moves', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const scene = {
      ...sceneOf(view, desktop),
      passwordGuard: {
        isPasswordField: (el: { flags: string[] }) => el.flags.includes('secure'),
        refusal: (label: string) => new Error(`${label} is a password field`) as AxError,
      },
    };
    await expect(deliverKey(scene, key('a'), { target: target(view, 'password') })).rejects.toThrow(
      'is a password field',
    );
    expect(desktop.names()).not.toContain('activate');
    expect(desktop.names()).not.toContain('focusElement');
  });
});
