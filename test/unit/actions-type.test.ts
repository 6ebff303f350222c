/** Typing delivery against a recording fake Desktop. */
import { describe, expect, it } from 'vitest';
import { deliverType } from '../../src/actions/index.js';
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

describe('deliverType in the background', () => {
  it('replaces the text with clear_first and reads it back', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const done = await deliverType(sceneOf(view, desktop), {
      target: target(view, 'name'),
      text: 'Grace',
      clearFirst: true,
    });
    expect(desktop.names()).toEqual(['readText', 'setText']);
    expect(desktop.text.get('name')).toBe('Grace');
    expect(done.did).toBe('Typed 5 chars into [AXTextField] "Name" e2 (replaced)');
    expect(await done.probe?.()).toBe('landed');
  });

  it('appends at the end and reads back the whole new text', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const done = await deliverType(sceneOf(view, desktop), {
      target: target(view, 'name'),
      text: ' L',
      clearFirst: false,
    });
    expect(desktop.calls[1]).toEqual({ name: 'insertText', args: ['name', 2, -1] });
    expect(desktop.text.get('name')).toBe('Ada L');
    expect(await done.probe?.()).toBe('landed');
  });

  it('reads "absent" when the app did not take the text', async () => {
    const view = formView();
    const desktop = recordingDesktop(view, { ignoresText: true });
    const done = await deliverType(sceneOf(view, desktop), {
      target: target(view, 'name'),
      text: 'x',
      clearFirst: true,
    });
    expect(await done.probe?.()).toBe('absent');
  });

  it('a password field is never read: its effect is unreadable, not a no-op', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const done = await deliverType(sceneOf(view, desktop), {
      target: target(view, 'password'),
      text: 'secret',
      clearFirst: true,
    });
    expect(desktop.names()).toEqual(['setText']);
    expect(await done.probe?.()).toBe('unreadable');
  });

  it.each([
    ['a control character', 'ab\u0007c', 'U+0007 at index 2'],
    ['a lone surrogate', 'x\ud800', 'U+D800 at index 1'],
    ['a lone low surrogate', '\udc00', 'U+DC00 at index 0'],
  ])(
    'refuses %s before clear_first empties the field: nothing is sent',
    async (_what, text, where) => {
      const view = formView();
      const desktop = recordingDesktop(view);
      const err = await rejection(
        deliverType(sceneOf(view, desktop), {
          target: target(view, 'name'),
          text,
          clearFirst: true,
        }),
      );
      expect(err.code).toBe('bad_argument');
      expect(err.message).toContain(where);
      expect(desktop.calls).toEqual([]);
      expect(desktop.text.get('name')).toBe('Ada');
    },
  );

  it('types emoji, newlines and tabs (they can be typed)', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    await deliverType(sceneOf(view, desktop), {
      target: target(view, 'email'),
      text: 'a😀\tb\n',
      clearFirst: true,
    });
    expect(desktop.text.get('email')).toBe('a😀\tb\n');
  });

  it('a disabled field is an error naming it disabled, and nothing is sent', async () => {
    const view = formView({ email: { flags: ['disabled', 'editable'] } });
    const desktop = recordingDesktop(view);
    const err = await rejection(
      deliverType(sceneOf(view, desktop), {
        target: target(view, 'email'),
        text: 'x',
        clearFirst: true,
      }),
    );
    expect(err.message).toBe('[AXTextField] "Email" e3 is disabled');
    expect(err.details?.escalation).toBeUndefined();
    expect(desktop.calls).toEqual([]);
  });
});

describe('deliverType without a named field', () => {
  it('types into the focused element', async () => {
    const view = formView({ email: { flags: ['enabled', 'editable', 'focused'] } });
    const desktop = recordingDesktop(view);
    const done = await deliverType(sceneOf(view, desktop), { text: 'x', clearFirst: true });
    expect(desktop.calls[1]).toEqual({ name: 'setText', args: ['email', 1] });
    expect(done.did).toBe('Typed 1 chars into [AXTextField] "Email" e3 (replaced)');
  });

  it('with no focus, types into the one editable field and says so', async () => {
    const view = formView({
      email: { flags: ['enabled'] },
      password: { flags: ['enabled'] },
      count: { flags: ['enabled'] },
    });
    const desktop = recordingDesktop(view);
    const done = await deliverType(sceneOf(view, desktop), { text: 'x', clearFirst: false });
    expect(desktop.calls[1].name).toBe('insertText');
    expect(desktop.calls[1].args[0]).toBe('name');
    expect(done.did).toBe('Typed 1 chars into [AXTextField] "Name" e2 (the only editable field)');
  });

  it('with several editable fields and no focus, lists them and sends nothing', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const err = await rejection(
      deliverType(sceneOf(view, desktop), { text: 'x', clearFirst: true }),
    );
    expect(err.message).toContain('4 editable fields are showing');
    expect(err.message).toContain('[AXTextField] "Name" e2 at (100,60)');
    expect(err.message).toContain('[AXTextField] "Email" e3 at (100,100)');
    expect(err.details?.candidates).toHaveLength(4);
    expect(desktop.calls).toEqual([]);
  });

  it('with no editable field and no focus, background typing escalates and sends nothing', async () => {
    const view = formView({
      name: { flags: ['enabled'] },
      email: { flags: ['enabled'] },
      password: { flags: ['enabled'] },
      count: { flags: ['enabled'] },
    });
    const desktop = recordingDesktop(view);
    const err = await rejection(
      deliverType(sceneOf(view, desktop), { text: 'x', clearFirst: true }),
    );
    expect(err.details?.escalation).toMatchObject({ recommended: 'foreground' });
    expect(desktop.calls).toEqual([]);
  });
});

describe('deliverType in the foreground', () => {
  it('fronts the app, focuses the field, clears it, then types', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const done = await deliverType(sceneOf(view, desktop), {
      target: target(view, 'email'),
      text: 'A@b.C',
      clearFirst: true,
      mode: 'foreground',
    });
    expect(desktop.names()).toEqual([
      'readText',
      'activate',
      'hasFocus',
      'focusElement',
      'hasFocus',
      'pressKey',
      'pressKey',
      // Read back empty before anything is typed.
      'readText',
      'typeText',
    ]);
    expect(desktop.calls[5].args).toEqual(['ctrl+a']);
    expect(desktop.calls[6].args).toEqual(['BackSpace']);
    expect(done.did).toMatch(/with key events \(cleared first\)$/);
    expect(done.restore).toBeDefined();
  });

  it('where the window takes ctrl+a, selects the text through accessibility and deletes it', async () => {
    const view = formView({ email: { value: 'old@example.org' } });
    const desktop = recordingDesktop(view, { takesSelectAll: true });
    const done = await deliverType(sceneOf(view, desktop), {
      target: target(view, 'email'),
      text: 'A@b.C',
      clearFirst: true,
      mode: 'foreground',
    });
    expect(desktop.names()).toContain('setTextPlace');
    expect(desktop.text.get('email')).toBe('A@b.C');
    expect(done.did).toMatch(/\(cleared first\)$/);
  });

  it('else with Home and shift+End', async () => {
    const view = formView({ email: { value: 'old@example.org' } });
    const desktop = recordingDesktop(view, { takesSelectAll: 'keys-only' });
    await deliverType(sceneOf(view, desktop), {
      target: target(view, 'email'),
      text: 'A@b.C',
      clearFirst: true,
      mode: 'foreground',
    });
    const keys = desktop.calls.filter((c) => c.name === 'pressKey').map((c) => c.args[0]);
    expect(keys).toEqual(['ctrl+a', 'BackSpace', 'Home', 'shift+End', 'BackSpace']);
    expect(desktop.text.get('email')).toBe('A@b.C');
  });

  it('a field that will not empty: an error, and nothing typed', async () => {
    const view = formView({ email: { value: 'old@example.org' } });
    const desktop = recordingDesktop(view, { keepsText: true });
    const err = await rejection(
      deliverType(sceneOf(view, desktop), {
        target: target(view, 'email'),
        text: 'A@b.C',
        clearFirst: true,
        mode: 'foreground',
      }),
    );
    expect(err.message).toMatch(/could not be cleared .*it still reads '.+', so nothing was typed/);
    expect(desktop.names()).not.toContain('typeText');
  });

  it('when the field never takes the focus: nothing typed, previous window put back', async () => {
    const view = formView();
    const desktop = recordingDesktop(view, { unfocusable: ['email'] });
    const err = await rejection(
      deliverType(sceneOf(view, desktop), {
        target: target(view, 'email'),
        text: 'x',
        clearFirst: true,
        mode: 'foreground',
      }),
    );
    expect(err.message).toMatch(/did not take the keyboard focus/);
    expect(desktop.names()).not.toContain('typeText');
    expect(desktop.names()).not.toContain('pressKey');
    expect(desktop.names().at(-1)).toBe('restore');
  });
});
