import { describe, expect, it } from 'vitest';
import type { Flag } from '../../src/model/element.js';
import { FLAG_ORDER } from '../../src/model/element.js';
import { elementTexts, formatElementLine } from '../../src/tree/line.js';
import { element, randomText, rng } from './helpers/synthetic.js';

describe('formatElementLine', () => {
  it('prints role, native role, text, ref, frame and flags in that order', () => {
    const el = element({
      role: 'AXButton',
      nativeRole: 'push button',
      name: 'Open',
      frame: { x: 680, y: 520, w: 80, h: 30 },
      flags: ['enabled'],
      actions: ['click'],
    });
    expect(formatElementLine(el, 'e57', true)).toBe(
      '[AXButton (push button)] "Open" e57 x:680 y:520 w:80 h:30 visible enabled',
    );
  });

  it('drops the native role when it repeats the role, and the frame when absent', () => {
    const el = element({ role: 'AXButton', nativeRole: 'AXButton', name: 'OK' });
    expect(formatElementLine(el, 'e1', false)).toBe('[AXButton] "OK" e1');
  });

  it('rounds coordinates to the nearest point', () => {
    const el = element({ role: 'AXGroup', frame: { x: 10.5, y: -0.4, w: 99.49, h: 20.51 } });
    expect(formatElementLine(el, 'e2', false)).toContain('x:11 y:0 w:99 h:21');
  });

  it('treats non-finite frames as absent', () => {
    const el = element({ role: 'AXGroup', frame: { x: NaN, y: 0, w: 1, h: 1 } });
    expect(formatElementLine(el, 'e2', false)).not.toContain('x:');
  });

  it('orders flags by FLAG_ORDER, deduplicates, and takes visible only from the argument', () => {
    const flags: Flag[] = ['secure', 'focused', 'visible', 'enabled', 'focused', 'checked'];
    const el = element({ role: 'AXCheckBox', name: 'Agree', flags });
    const hidden = formatElementLine(el, 'e3', false);
    expect(hidden.endsWith(' enabled focused checked secure')).toBe(true);
    expect(hidden).not.toContain('visible');
    const shown = formatElementLine(el, 'e3', true);
    expect(shown.endsWith(' visible enabled focused checked secure')).toBe(true);
    const printed = shown.split(' ').filter((t) => (FLAG_ORDER as readonly string[]).includes(t));
    const ranks = printed.map((f) => FLAG_ORDER.indexOf(f as Flag));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  it('escapes quotes, backslashes, newlines and tabs so the element is one line', () => {
    const el = element({ role: 'AXStaticText', name: 'He said "no"\\\nthen\tleft\r\u0007' });
    const line = formatElementLine(el, 'e4', false);
    expect(line).toBe(
      '[AXStaticText (statictext)] "He said \\"no\\"\\\\\\nthen\\tleft\\r\\u0007" e4',
    );
    expect(line.split('\n')).toHaveLength(1);
  });

  it('cuts long text with … and notes the full length', () => {
    const el = element({ role: 'AXStaticText', name: 'a'.repeat(1234) });
    const line = formatElementLine(el, 'e5', false, { maxTextChars: 20 });
    expect(line).toBe(`[AXStaticText (statictext)] "${'a'.repeat(19)}…" (1234 chars) e5`);
  });

  it('shows the value when it differs from the name, and the description when distinct', () => {
    const el = element({
      role: 'AXTextField',
      nativeRole: 'text',
      name: 'Name',
      value: 'Hello',
      description: 'Your full name',
    });
    expect(formatElementLine(el, 'e6', false)).toBe(
      '[AXTextField (text)] "Name" value:"Hello" desc:"Your full name" e6',
    );
  });

  it('uses the value as the text of an unnamed field, once', () => {
    const el = element({ role: 'AXTextField', nativeRole: 'text', value: 'typed' });
    expect(formatElementLine(el, 'e7', false)).toBe('[AXTextField (text)] "typed" e7');
  });

  it('hides a value or description equal to the name', () => {
    const el = element({
      role: 'AXStaticText',
      name: 'Ready',
      value: 'Ready',
      description: 'Ready',
    });
    expect(formatElementLine(el, 'e8', false)).toBe('[AXStaticText (statictext)] "Ready" e8');
  });

  it('uses the description when there is no name or value', () => {
    const el = element({ role: 'AXButton', description: 'Close window' });
    expect(formatElementLine(el, 'e9', false)).toBe('[AXButton (button)] "Close window" e9');
  });

  it('prints an empty text as "" so every line has the same shape', () => {
    expect(formatElementLine(element({ role: 'AXGroup' }), 'e10', false)).toBe(
      '[AXGroup (group)] "" e10',
    );
  });

  it('masks secure values even when a backend passed one, and leaks in other texts', () => {
    const el = element({
      role: 'AXTextField',
      nativeRole: 'password text',
      name: 'Password',
      value: 'hunter2',
      description: 'was hunter2',
      flags: ['secure', 'focused'],
    });
    const line = formatElementLine(el, 'e11', true);
    expect(line).not.toContain('hunter2');
    expect(line).toBe(
      '[AXTextField (password text)] "Password" value:"•••" desc:"was •••" e11 visible focused secure',
    );
    const unread = element({ role: 'AXTextField', name: '', flags: ['secure'] });
    expect(formatElementLine(unread, 'e12', false)).toBe(
      '[AXTextField (textfield)] "" value:"•••" e12 secure',
    );
  });

  it('adds id: for identifiers, quoting those with spaces', () => {
    const a = element({ role: 'AXButton', name: 'Go', identifier: 'go-button' });
    expect(formatElementLine(a, 'e13', false)).toBe('[AXButton (button)] "Go" e13 id:go-button');
    const b = element({ role: 'AXButton', name: 'Go', identifier: 'go button\n2' });
    expect(formatElementLine(b, 'e13', false)).toBe(
      '[AXButton (button)] "Go" e13 id:"go button\\n2"',
    );
  });

  it('lists actions only for roles that are not interactive already', () => {
    const button = element({ role: 'AXButton', name: 'Go', actions: ['click'] });
    expect(formatElementLine(button, 'e14', false)).not.toContain('actions:');
    const group = element({ role: 'AXGroup', actions: ['click', 'activate', 'click'] });
    expect(formatElementLine(group, 'e15', false)).toBe(
      '[AXGroup (group)] "" e15 actions:click,activate',
    );
    const text = element({ role: 'AXStaticText', name: 'Row', actions: ['expand or contract'] });
    expect(formatElementLine(text, 'e16', false)).toContain('actions:"expand or contract"');
  });

  it('notes children the walk did not reach', () => {
    const list = element({ role: 'AXList', childCount: 10000 });
    expect(formatElementLine(list, 'e17', false, { walkedChildren: 50 })).toBe(
      '[AXList (list)] "" e17 children:50/10000',
    );
    expect(formatElementLine(list, 'e17', false, { walkedChildren: 10000 })).not.toContain(
      'children:',
    );
  });

  it('omits the ref when there is none', () => {
    expect(formatElementLine(element({ role: 'AXGroup' }), '', false)).toBe('[AXGroup (group)] ""');
  });

  it('is one line and deterministic on random elements', () => {
    const next = rng(3);
    for (let i = 0; i < 300; i++) {
      const el = element({
        role: 'AXStaticText',
        nativeRole: randomText(next, 8),
        name: randomText(next, 300),
        value: randomText(next, 50),
        description: randomText(next, 50),
        identifier: randomText(next, 10),
        frame: { x: next() * 1000, y: next() * 1000, w: next() * 100, h: next() * 100 },
      });
      const a = formatElementLine(el, 'e1', true, { maxTextChars: 40 });
      expect(a).not.toMatch(/[\n\r\u2028\u2029\u0085]/);
      expect(formatElementLine(structuredClone(el), 'e1', true, { maxTextChars: 40 })).toBe(a);
    }
  });
});

describe('elementTexts', () => {
  it('never returns a secure value', () => {
    const t = elementTexts(
      element({ role: 'AXTextField', name: '', value: 's3cret', flags: ['secure'] }),
    );
    expect(t).toEqual({ primary: '', value: '•••' });
  });
});
