/**
 * Safe mode's guard on password fields, against a recording fake Desktop: what is refused,
 * that a refusal sends nothing (the fake's calls show it), and the pure rules on data.
 */
import { describe, expect, it } from 'vitest';
import {
  deliverClick,
  deliverDrag,
  deliverKey,
  deliverSetValue,
  deliverType,
  guardClickFollowUps,
  isRevealToggle,
  keyIsHarmless,
} from '../../src/actions/index.js';
import type { Element, Flag } from '../../src/model/element.js';
import type { KeyCombo, KeyKind } from '../../src/platform/desktop.js';
import { AxError } from '../../src/errors.js';
import { Policy, DEFAULT_POLICY } from '../../src/guard/policy.js';
import { passwordGuardOf } from '../../src/pipeline/password-field.js';
import {
  formView,
  recordingDesktop,
  sceneOf,
  target,
  type RecordingDesktop,
} from './helpers/recording-desktop.js';
import { buildSnapshot, viewOf, type Spec } from './helpers/synthetic.js';

const guard = passwordGuardOf(new Policy({ ...DEFAULT_POLICY, mode: 'safe' }))!;

async function refusal(p: Promise<unknown>): Promise<AxError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AxError);
  return err as AxError;
}

const combo = (key: string, ...modifiers: KeyCombo['modifiers']): KeyCombo => ({ key, modifiers });

/** The form with a "Show password" check box beside its password field; `focused` has the focus. */
function loginView(focused?: string) {
  const overrides: Record<string, Partial<Spec>> = { subscribe: { name: 'Show password' } };
  if (focused) {
    const el = formView().snapshot.elements.find((e) => e.id === focused)!;
    overrides[focused] = { ...overrides[focused], flags: [...el.flags, 'focused'] };
  }
  return formView(overrides);
}

function guarded(view = loginView()) {
  const desktop: RecordingDesktop = recordingDesktop(view, { keys: ['Return', 'Tab', 'space'] });
  return { desktop, scene: { ...sceneOf(view, desktop), passwordGuard: guard } };
}

describe('the keys that reach a password field', () => {
  // Name, what the platform says the key does, the combo, harmless in a field, on a toggle.
  const cases: Array<[string, KeyKind, KeyCombo, boolean, boolean]> = [
    ['Tab', 'focus', combo('Tab'), true, true],
    ['Shift+Tab', 'focus', combo('Tab', 'shift'), true, true],
    ['Ctrl+Left', 'caret', combo('Left', 'ctrl'), true, true],
    ['Escape', 'cancel', combo('Escape'), true, true],
    ['Return', 'activate', combo('Return'), true, false],
    ['a letter', 'other', combo('a'), false, false],
    ['a shifted letter', 'other', combo('a', 'shift'), false, false],
    ['Ctrl+V', 'other', combo('v', 'ctrl'), false, false],
    ['Shift+Insert', 'other', combo('Insert', 'shift'), false, false],
    ['Space', 'other', combo('space'), false, false],
    ['BackSpace', 'other', combo('BackSpace'), false, false],
    ['Alt+Down (a shortcut)', 'caret', combo('Down', 'alt'), false, false],
  ];
  it.each(cases)(
    '%s (%s): reaches a field %s, a reveal toggle %s',
    (_n, kind, c, field, toggle) => {
      expect(keyIsHarmless(kind, c, 'field')).toBe(field);
      expect(keyIsHarmless(kind, c, 'toggle')).toBe(toggle);
    },
  );
});

describe('reveal toggles', () => {
  const isPw = (e: Element) => e.flags.includes('secure');
  const indexOf = (view: ReturnType<typeof formView>, id: string) =>
    view.snapshot.elements.findIndex((e) => e.id === id);

  it('a check box saying show, reveal or visible beside a password field is one', () => {
    for (const name of ['Show password', 'Reveal', 'Password visible', 'Show passphrase']) {
      const view = formView({ subscribe: { name } });
      expect(isRevealToggle(view.snapshot.elements, indexOf(view, 'subscribe'), isPw)).toBe(true);
    }
  });

  it('a toggle, radio button or push button whose name says reveal, in any language, is one', () => {
    const els = (o: Parameters<typeof formView>[0]) => formView(o).snapshot.elements;
    const at = indexOf(formView(), 'subscribe');
    const cases: Array<[string, string, Flag[]]> = [
      ['Show password', 'AXButton', []],
      ['Passwort anzeigen', 'AXCheckBox', []],
      ['Peek', 'AXToggleButton', []],
      ['Display characters', 'AXCheckBox', []],
      ['Plain text', 'AXCheckBox', []],
      ['Clear', 'AXRadioButton', []],
      ['Hide password', 'AXCheckBox', ['checked']],
      ['Afficher le mot de passe', 'AXSwitch', []],
      ['Näytä salasana', 'AXCheckBox', []],
      ['Показать пароль', 'AXCheckBox', []],
      ['显示密码', 'AXCheckBox', []],
    ];
    for (const [name, role, flags] of cases) {
      const view = els({ subscribe: { name, role, flags } });
      expect(isRevealToggle(view, at, isPw), name).toBe(true);
    }
  });

  it('a link, an eye, a clickable span saying reveal is one; a menu opener is not', () => {
    const els = (o: Parameters<typeof formView>[0]) => formView(o).snapshot.elements;
    const at = indexOf(formView(), 'subscribe');
    const cases: Array<[string, string, string[], boolean]> = [
      ['eye', 'AXLink', ['jump'], true],
      ['View password', 'AXButton', ['press'], true],
      ['👁', 'AXButton', ['press'], true],
      ['Show', 'AXStaticText', ['click'], true],
      ['Forgot your password?', 'AXLink', ['jump'], false],
      ['View', 'AXMenuBarItem', ['click'], false],
      ['Name', 'AXStaticText', [], false],
    ];
    for (const [name, role, actions, reveal] of cases) {
      expect(isRevealToggle(els({ subscribe: { name, role, actions } }), at, isPw), name).toBe(
        reveal,
      );
    }
  });

  it('a menu item saying show, toggle or characters is one, unless checked', () => {
    const els = (o: Parameters<typeof formView>[0]) => formView(o).snapshot.elements;
    const at = indexOf(formView(), 'subscribe');
    for (const name of ['Show Password', 'Toggle Characters', 'Reveal']) {
      expect(isRevealToggle(els({ subscribe: { name, role: 'AXMenuItem' } }), at, isPw), name).toBe(
        true,
      );
    }
    const item = (name: string, flags: Flag[] = []) =>
      isRevealToggle(els({ subscribe: { name, role: 'AXMenuItem', flags } }), at, isPw);
    expect(item('Show Password', ['checked'])).toBe(false);
    expect(item('Open…')).toBe(false);
  });

  it('is not one when checked, named otherwise, or with no password field', () => {
    const els = (o: Parameters<typeof formView>[0]) => formView(o).snapshot.elements;
    const at = indexOf(formView(), 'subscribe');
    expect(isRevealToggle(els({ subscribe: { name: 'Subscribe' } }), at, isPw)).toBe(false);
    const checked = els({ subscribe: { name: 'Show password', flags: ['checked'] } });
    expect(isRevealToggle(checked, at, isPw)).toBe(false);
    const button = els({ subscribe: { name: 'Log in', role: 'AXButton' } });
    expect(isRevealToggle(button, at, isPw)).toBe(false);
    const version = els({ subscribe: { name: 'Version history', role: 'AXButton' } });
    expect(isRevealToggle(version, at, isPw)).toBe(false);
    const plain = els({ subscribe: { name: 'Show password' }, password: { flags: [] } });
    expect(isRevealToggle(plain, at, isPw)).toBe(false);
  });

  it('beside a password field, any toggle and an unnamed push button are ones; farther, not', () => {
    const row = (id: string, extra: Spec[]): Spec => ({
      role: 'AXPanel',
      id,
      children: [{ role: 'AXTextField', id: `${id}-pw`, flags: ['secure', 'editable'] }, ...extra],
    });
    const view = viewOf(
      buildSnapshot([
        {
          role: 'AXWindow',
          id: 'w',
          window: {},
          children: [
            {
              role: 'AXPanel',
              id: 'form',
              children: [
                row('r1', [{ role: 'AXCheckBox', id: 'remember', name: 'Remember me' }]),
                row('r2', [{ role: 'AXButton', id: 'icon', name: '' }]),
                row('r3', [
                  {
                    role: 'AXPanel',
                    id: 'radios',
                    children: [{ role: 'AXRadioButton', id: 'mode', name: 'Second' }],
                  },
                ]),
                { role: 'AXButton', id: 'login', name: 'Log in' },
              ],
            },
            {
              role: 'AXPanel',
              id: 'footer',
              children: [
                {
                  role: 'AXPanel',
                  id: 'inner',
                  children: [{ role: 'AXCheckBox', id: 'far', name: 'Subscribe' }],
                },
              ],
            },
          ],
        },
      ]),
    );
    const at = (id: string) => isRevealToggle(view.snapshot.elements, indexOf(view, id), isPw);
    expect([at('remember'), at('icon'), at('mode')]).toEqual([true, true, true]);
    expect([at('login'), at('far')]).toEqual([false, false]);
  });

  it('in another window than the password field, a toggle is one by its name only', () => {
    const twoWindows = (name: string) =>
      viewOf(
        buildSnapshot([
          {
            role: 'AXWindow',
            id: 'w1',
            window: {},
            children: [{ role: 'AXTextField', id: 'pw', flags: ['secure', 'editable'] }],
          },
          {
            role: 'AXWindow',
            id: 'w2',
            window: {},
            children: [{ role: 'AXCheckBox', id: 'show', name }],
          },
        ]),
      );
    // An options window may hold the reveal toggle; the price: "Show hidden files" too.
    for (const [name, reveal] of [
      ['Show password', true],
      ['Show hidden files', true],
      ['Subscribe', false],
    ] as const) {
      const view = twoWindows(name);
      expect(isRevealToggle(view.snapshot.elements, indexOf(view, 'show'), isPw), name).toBe(
        reveal,
      );
    }
  });
});

describe('keys go by what has the focus as they are sent', () => {
  it('a letter with the password field focused is refused after fronting, nothing pressed', async () => {
    const { desktop, scene } = guarded(loginView('password'));
    const err = await refusal(deliverKey(scene, combo('a')));
    expect(err.code).toBe('blocked');
    expect(err.message).toMatch(/"Password" e\d+, which has the focus, is a password field/);
    expect(err.message).toContain('a was not sent');
    expect(desktop.names()).not.toContain('pressKey');
    expect(desktop.names()[0]).toBe('activate');
    expect(desktop.names().at(-1)).toBe('restore');
  });

  it('the focus read now counts, not the view: a field focused since the walk', async () => {
    const view = loginView();
    const desktop = recordingDesktop(view);
    await desktop.focusElement('password');
    await refusal(
      deliverKey({ ...sceneOf(view, desktop), passwordGuard: guard }, combo('v', 'ctrl')),
    );
    expect(desktop.names()).not.toContain('pressKey');
  });

  it('Tab and Return reach the focused password field; a letter reaches another field', async () => {
    for (const key of ['Tab', 'Return']) {
      const { desktop, scene } = guarded(loginView('password'));
      await deliverKey(scene, combo(key));
      expect(desktop.calls.filter((c) => c.name === 'pressKey')).toEqual([
        { name: 'pressKey', args: [key] },
      ]);
    }
    const { desktop, scene } = guarded(loginView('name'));
    await deliverKey(scene, combo('a'));
    expect(desktop.names()).toContain('pressKey');
  });

  it('Space on a focused reveal toggle, and an Alt shortcut beside one, are refused', async () => {
    const { desktop, scene } = guarded(loginView('subscribe'));
    const err = await refusal(deliverKey(scene, combo('space')));
    expect(err.message).toMatch(/"Show password" e\d+, which has the focus, would show/);
    const alt = await refusal(deliverKey(guarded(loginView('name')).scene, combo('s', 'alt')));
    expect(alt.message).toMatch(/a mnemonic may press a control that shows it/);
    expect(desktop.names()).not.toContain('pressKey');
  });

  it('fails closed when the window never says it is active: the focus is not known', async () => {
    const view = loginView('name');
    const win = view.snapshot.elements.findIndex((e) => e.id === 'win');
    view.snapshot.elements[win] = { ...view.snapshot.elements[win], flags: [] };
    const desktop = recordingDesktop(view);
    const err = await refusal(
      deliverKey({ ...sceneOf(view, desktop), passwordGuard: guard }, combo('a')),
    );
    expect(err.message).toContain('its window is not yet active');
    expect(desktop.names()).not.toContain('pressKey');
  });

  it('without the guard (full mode) the focus is read only to name it', async () => {
    const view = loginView('password');
    const desktop = recordingDesktop(view);
    const done = await deliverKey(sceneOf(view, desktop), combo('a'));
    expect(desktop.names()).toEqual(['activate', 'hasFocus', 'readElement', 'pressKey']);
    expect(done.did).toMatch(/^Pressed a in \[AXTextField\] "Password"/);
  });

  it('text to whatever has the focus is refused when the field has it', async () => {
    const { desktop, scene } = guarded(loginView('password'));
    // As ax_click passes it after a real click: no element, the text goes to the focus.
    const focused = { label: 'the focused element' };
    await refusal(
      deliverType(scene, { target: focused, text: 'x', clearFirst: false, mode: 'foreground' }),
    );
    expect(desktop.names()).not.toContain('typeText');
  });
});

describe('presses and named targets', () => {
  it('a click, a set value or a drag on the reveal toggle sends nothing', async () => {
    const { desktop, scene } = guarded();
    const toggle = target(scene.view, 'subscribe');
    for (const mode of ['background', 'foreground'] as const) {
      await refusal(deliverClick(scene, { target: toggle, clickType: 'single', mode }));
    }
    // A point over it: the element under the point is what is pressed.
    await refusal(
      deliverClick(scene, {
        target: { point: toggle.point, label: '(150,195)' },
        clickType: 'single',
        mode: 'foreground',
      }),
    );
    await refusal(deliverSetValue(scene, toggle, 'true'));
    await refusal(
      deliverDrag(scene, { from: toggle, to: target(scene.view, 'name'), durationMs: 10 }),
    );
    expect(desktop.names().filter((n) => n !== 'screenSize')).toEqual([]);
  });

  it('a pointer press on the password field is refused; through accessibility it takes the focus', async () => {
    const { desktop, scene } = guarded();
    const field = target(scene.view, 'password');
    const err = await refusal(
      deliverClick(scene, { target: field, clickType: 'single', mode: 'foreground' }),
    );
    expect(err.message).toContain('a pointer press on it may land on an icon inside');
    await refusal(
      deliverClick(scene, {
        target: { point: field.point, label: 'the point' },
        clickType: 'single',
        mode: 'foreground',
      }),
    );
    expect(desktop.names().filter((n) => n !== 'screenSize')).toEqual([]);
    await deliverClick(scene, { target: field, clickType: 'single', mode: 'background' });
    expect(desktop.names()).toContain('focusElement');
  });

  it('a drop on the password field and a right click on it are refused', async () => {
    const { desktop, scene } = guarded();
    const field = target(scene.view, 'password');
    await refusal(
      deliverDrag(scene, { from: target(scene.view, 'name'), to: field, durationMs: 1 }),
    );
    const right = await refusal(
      deliverClick(scene, { target: field, clickType: 'right', mode: 'foreground' }),
    );
    expect(right.message).toContain('its context menu pastes');
    expect(desktop.names()).not.toContain('drag');
    expect(desktop.names()).not.toContain('click');
  });

  it('a field the app has made a password field since the walk is refused (read now)', async () => {
    const walked = formView({ password: { flags: ['enabled', 'editable', 'focusable'] } });
    const desktop = recordingDesktop(formView());
    const scene = { ...sceneOf(walked, desktop), passwordGuard: guard };
    const field = target(walked, 'password');
    await refusal(deliverType(scene, { target: field, text: 'x', clearFirst: true }));
    await refusal(deliverSetValue(scene, field, 'x'));
    expect(desktop.names()).toEqual(['readElement', 'readElement']);
  });

  it('a click with text or a typing key on the password field is refused before the click', async () => {
    const { desktop, scene } = guarded();
    const field = target(scene.view, 'password');
    const err = await refusal(guardClickFollowUps(scene, field, 'x', undefined));
    expect(err.message).toContain('nothing was clicked');
    await refusal(guardClickFollowUps(scene, field, undefined, combo('a')));
    // Return after a click on it only submits: allowed.
    await guardClickFollowUps(scene, field, undefined, combo('Return'));
    expect(desktop.names()).not.toContain('click');
    expect(desktop.names()).not.toContain('doAction');
  });
});

describe('keys that click the pointer', () => {
  it('are sent by no tool, in any mode: refused before anything', async () => {
    for (const key of ['Pointer_Button1', 'Num_Lock']) {
      const view = loginView('name');
      const desktop = recordingDesktop(view, { keys: [key] });
      const err = await refusal(deliverKey(sceneOf(view, desktop), combo(key)));
      expect(err.code).toBe('bad_argument');
      expect(err.message).toContain('clicks or moves the pointer');
      expect(desktop.names()).toEqual([]);
    }
  });
});

describe('text that moves the focus as it is typed', () => {
  it('a Tab anywhere in the text is refused whole, in both deliveries and after a click', async () => {
    const { desktop, scene } = guarded();
    const name = target(scene.view, 'name');
    for (const mode of ['background', 'foreground'] as const) {
      const err = await refusal(
        deliverType(scene, { target: name, text: 'ab\tSECRET', clearFirst: false, mode }),
      );
      expect(err.code).toBe('blocked');
      expect(err.message).toMatch(/holds a Tab, which moves the keyboard focus/);
      expect(err.hint).toMatch(/press Tab with ax_key_press/);
    }
    await refusal(guardClickFollowUps(scene, name, 'gh\tSECRET', undefined));
    expect(desktop.names()).toEqual([]);
  });

  it('a line break is refused beside a password field, typed where there is none', async () => {
    const { desktop, scene } = guarded();
    const name = target(scene.view, 'name');
    const err = await refusal(
      deliverType(scene, { target: name, text: 'ef\nSECRET', clearFirst: false }),
    );
    expect(err.message).toMatch(/line break, typed as Return/);
    expect(desktop.names()).toEqual([]);
    const plain = formView({ password: { flags: ['enabled', 'editable', 'focusable'] } });
    const free = recordingDesktop(plain);
    const done = await deliverType(
      { ...sceneOf(plain, free), passwordGuard: guard },
      { target: target(plain, 'name'), text: 'two\nlines', clearFirst: false },
    );
    expect(done.did).toMatch(/^Typed 9 chars/);
  });

  it('full mode types a Tab as it is', async () => {
    const view = loginView();
    const desktop = recordingDesktop(view);
    const name = target(view, 'name');
    await deliverType(sceneOf(view, desktop), {
      target: name,
      text: 'a\tb',
      clearFirst: false,
      mode: 'foreground',
    });
    expect(desktop.names()).toContain('typeText');
  });
});

describe('the guard follows the policy', () => {
  it('safe mode has one; full mode and --allow-secure-typing have none', () => {
    const guardFor = (s: Partial<typeof DEFAULT_POLICY>) =>
      passwordGuardOf(new Policy({ ...DEFAULT_POLICY, ...s }));
    expect(guardFor({ mode: 'safe' })).toBeDefined();
    expect(guardFor({ mode: 'full' })).toBeUndefined();
    expect(guardFor({ mode: 'safe', allowSecureTyping: true })).toBeUndefined();
    const err = guard.refusal('[AXTextField] "PIN"');
    expect(err.message).toMatch(/"PIN" is a password field, and this server runs in safe mode/);
  });
});
