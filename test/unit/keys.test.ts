import { describe, expect, it } from 'vitest';
import { normalizeKeyName, parseKeyCombo } from '../../src/tools/keys.js';
import { keyLabel } from '../../src/actions/index.js';
import { axError } from './helpers/pipeline-fixtures.js';

describe('normalizeKeyName', () => {
  it.each([
    ['enter', 'Return'],
    ['Enter', 'Return'],
    ['RETURN', 'Return'],
    ['esc', 'Escape'],
    ['Escape', 'Escape'],
    ['tab', 'Tab'],
    ['space', 'space'],
    ['backspace', 'BackSpace'],
    ['del', 'Delete'],
    ['forwarddelete', 'Delete'],
    ['pagedown', 'Page_Down'],
    ['PageUp', 'Page_Up'],
    ['pgdn', 'Page_Down'],
    ['arrowleft', 'Left'],
    ['up', 'Up'],
    ['home', 'Home'],
    ['contextmenu', 'Menu'],
    ['capslock', 'Caps_Lock'],
  ])('maps the alias %j to the keysym %j', (name, keysym) => {
    expect(normalizeKeyName(name)).toBe(keysym);
  });

  it('keeps the case of a single character: "A" is not "a"', () => {
    expect(normalizeKeyName('A')).toBe('A');
    expect(normalizeKeyName('a')).toBe('a');
    expect(normalizeKeyName('+')).toBe('+');
    expect(normalizeKeyName(' ')).toBe(' ');
    // One code point, even when it takes two UTF-16 units.
    expect(normalizeKeyName('😀')).toBe('😀');
    expect(normalizeKeyName('é')).toBe('é');
  });

  it('writes function keys F1..F35 with a capital F', () => {
    expect(normalizeKeyName('f5')).toBe('F5');
    expect(normalizeKeyName('F12')).toBe('F12');
    expect(normalizeKeyName('f35')).toBe('F35');
    expect(normalizeKeyName('F1')).toBe('F1');
  });

  it('passes other keysym-shaped names through for the backend to judge', () => {
    expect(normalizeKeyName('KP_Enter')).toBe('KP_Enter');
    expect(normalizeKeyName('XF86AudioMute')).toBe('XF86AudioMute');
    // Not a function key (F36 does not exist): left as written, not "F36".
    expect(normalizeKeyName('f36')).toBe('f36');
  });

  it('passes names that are also Object.prototype members through as strings', () => {
    for (const name of ['constructor', '__proto__', 'hasOwnProperty', 'valueOf']) {
      expect(normalizeKeyName(name)).toBe(name);
    }
  });

  it.each(['page down', 'ctrl-s', 'a.b', '', 'Ω≈'])('rejects %j with a hint', (name) => {
    const err = axError(() => normalizeKeyName(name), 'bad_argument');
    expect(err.message).toBe(`'${name}' is not a key name`);
    expect(err.hint).toMatch(/Return, Escape, Tab/);
    expect(err.actionable).toContain(err.hint as string);
  });
});

describe('parseKeyCombo', () => {
  it('reads a plain key with no modifiers', () => {
    expect(parseKeyCombo('enter', [])).toEqual({ key: 'Return', modifiers: [] });
    expect(parseKeyCombo('A', [])).toEqual({ key: 'A', modifiers: [] });
  });

  it('reads "ctrl+s" style combos, modifiers in the order written', () => {
    expect(parseKeyCombo('ctrl+s', [])).toEqual({ key: 's', modifiers: ['ctrl'] });
    expect(parseKeyCombo('Ctrl+Shift+Tab', [])).toEqual({
      key: 'Tab',
      modifiers: ['ctrl', 'shift'],
    });
    expect(parseKeyCombo('alt+f4', [])).toEqual({ key: 'F4', modifiers: ['alt'] });
    expect(parseKeyCombo('shift+pagedown', [])).toEqual({
      key: 'Page_Down',
      modifiers: ['shift'],
    });
  });

  it('adds separate modifiers after those in the combo', () => {
    expect(parseKeyCombo('s', ['ctrl'])).toEqual({ key: 's', modifiers: ['ctrl'] });
    expect(parseKeyCombo('ctrl+s', ['shift', 'ALT'])).toEqual({
      key: 's',
      modifiers: ['ctrl', 'shift', 'alt'],
    });
  });

  it.each([
    ['control', 'ctrl'],
    ['ctl', 'ctrl'],
    ['option', 'opt'],
    ['meta', 'super'],
    ['win', 'super'],
    ['command', 'cmd'],
    ['CMD', 'cmd'],
    ['Super', 'super'],
  ])('maps the modifier alias %j to %j', (alias, mod) => {
    expect(parseKeyCombo('x', [alias]).modifiers).toEqual([mod]);
    expect(parseKeyCombo(`${alias}+x`, []).modifiers).toEqual([mod]);
  });

  it('lists each modifier once, however it was written', () => {
    expect(parseKeyCombo('ctrl+control+s', ['Ctrl', 'ctl'])).toEqual({
      key: 's',
      modifiers: ['ctrl'],
    });
    expect(parseKeyCombo('shift+a', ['shift', 'alt', 'shift']).modifiers).toEqual(['shift', 'alt']);
  });

  it('reads a lone "+" as the plus key', () => {
    expect(parseKeyCombo('+', [])).toEqual({ key: '+', modifiers: [] });
    expect(parseKeyCombo('+', ['shift'])).toEqual({ key: '+', modifiers: ['shift'] });
    expect(parseKeyCombo('++', [])).toEqual({ key: '+', modifiers: [] });
  });

  it('reads "ctrl++" as ctrl and the plus key', () => {
    expect(parseKeyCombo('ctrl++', [])).toEqual({ key: '+', modifiers: ['ctrl'] });
    expect(parseKeyCombo('ctrl+shift++', [])).toEqual({
      key: '+',
      modifiers: ['ctrl', 'shift'],
    });
    expect(parseKeyCombo('ctrl++', ['alt'])).toEqual({ key: '+', modifiers: ['ctrl', 'alt'] });
  });

  it('rejects a combo with no key after its modifiers', () => {
    const err = axError(() => parseKeyCombo('ctrl+', []), 'bad_argument');
    expect(err.message).toBe(`'ctrl+' has no key after its modifiers`);
    expect(err.hint).toMatch(/ctrl\+s/);
  });

  it('rejects an unknown modifier, named as written, with the list of modifiers', () => {
    const inCombo = axError(() => parseKeyCombo('hyper+s', []), 'bad_argument');
    expect(inCombo.message).toBe(`'hyper' is not a modifier`);
    expect(inCombo.hint).toMatch(/ctrl, shift, alt, super/);
    const separate = axError(() => parseKeyCombo('s', ['Fn']), 'bad_argument');
    expect(separate.message).toBe(`'Fn' is not a modifier`);
    // A key in modifier position is not a modifier either.
    expect(axError(() => parseKeyCombo('a+b', []), 'bad_argument').message).toBe(
      `'a' is not a modifier`,
    );
    expect(axError(() => parseKeyCombo('s', ['constructor']), 'bad_argument').message).toBe(
      `'constructor' is not a modifier`,
    );
  });

  it('rejects a bad key name after good modifiers', () => {
    const err = axError(() => parseKeyCombo('ctrl+page down', []), 'bad_argument');
    expect(err.message).toBe(`'page down' is not a key name`);
  });

  it.each([
    ['a lone high surrogate', '\ud800', 'U+D800'],
    ['a lone low surrogate', '\udfff', 'U+DFFF'],
    ['a control character', '\u0001', 'U+0001'],
    ['DEL', '\u007f', 'U+007F'],
    ['a C1 control', '\u0085', 'U+0085'],
  ])('rejects %s as a key, naming its code point', (_what, key, code) => {
    const err = axError(() => parseKeyCombo(key, []), 'bad_argument');
    expect(err.message).toContain(code);
    expect(err.message).toMatch(/not a key that can be pressed/);
  });

  it('names a parsed combo once: ctrl+c, not ctrl+ctrl+c', () => {
    expect(keyLabel(parseKeyCombo('ctrl+c', []))).toBe('ctrl+c');
    expect(keyLabel(parseKeyCombo('c', ['ctrl', 'shift']))).toBe('ctrl+shift+c');
    expect(keyLabel(parseKeyCombo('ctrl+shift+enter', ['ctrl']))).toBe('ctrl+shift+Return');
  });
});
