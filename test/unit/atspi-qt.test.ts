/**
 * The Qt guard: a Qt app is never sent Properties.GetAll (its bridge crashes on it), and
 * its properties are read one Get at a time instead. A recording fake bus plays the app.
 */
import { describe, expect, it } from 'vitest';
import {
  isQtBridge,
  isQtToolkitName,
  plainText,
  readProps,
} from '../../src/platform/linux/atspi/qt.js';

type Sent = { dest: string; member: string; body: unknown[] };

function fakeApp(toolkit: string | null, props: Record<string, unknown>) {
  const sent: Sent[] = [];
  const call = async (
    dest: string,
    _path: string,
    _iface: string,
    member: string,
    _sig?: string,
    body: unknown[] = [],
  ): Promise<unknown[]> => {
    sent.push({ dest, member, body });
    if (member === 'Get' && body[1] === 'ToolkitName') {
      if (toolkit === null) throw new Error('org.freedesktop.DBus.Error.NoReply');
      return [{ value: toolkit }];
    }
    if (member === 'GetAll') {
      if (toolkit === 'Qt') throw new Error('the app crashed');
      return [Object.fromEntries(Object.entries(props).map(([k, v]) => [k, { value: v }]))];
    }
    if (member === 'Get') {
      const name = body[1] as string;
      if (!(name in props)) throw new Error('org.freedesktop.DBus.Error.UnknownProperty');
      return [{ value: props[name] }];
    }
    throw new Error(`unexpected ${member}`);
  };
  return { call, sent };
}

describe('Qt bridge guard', () => {
  it('recognises Qt by its toolkit name only', () => {
    expect(isQtToolkitName('Qt')).toBe(true);
    expect(isQtToolkitName('qt ')).toBe(true);
    expect(isQtToolkitName('GTK')).toBe(false);
    expect(isQtToolkitName('Gecko')).toBe(false);
    expect(isQtToolkitName('')).toBe(false);
    expect(isQtToolkitName(undefined)).toBe(false);
  });

  it('reads a Qt app property by property and never sends it GetAll', async () => {
    const app = fakeApp('Qt', { CurrentValue: 5, MinimumValue: 0, MaximumValue: 10 });
    const all = await readProps(app.call, [':1.50', '/a/1'], 'org.a11y.atspi.Value', [
      'CurrentValue',
      'MinimumValue',
      'MaximumValue',
      'MinimumIncrement',
    ]);
    expect(all).toEqual({
      CurrentValue: { value: 5 },
      MinimumValue: { value: 0 },
      MaximumValue: { value: 10 },
    });
    expect(app.sent.map((s) => s.member)).not.toContain('GetAll');
    // Every Properties call it got had two arguments.
    expect(app.sent.every((s) => s.body.length === 2)).toBe(true);
  });

  it('uses one GetAll for other toolkits and asks the toolkit once per bus name', async () => {
    const app = fakeApp('GTK', { CurrentValue: 3 });
    for (let i = 0; i < 3; i++) {
      expect(
        await readProps(app.call, [':1.51', '/a/1'], 'org.a11y.atspi.Value', ['CurrentValue']),
      ).toEqual({
        CurrentValue: { value: 3 },
      });
    }
    expect(app.sent.map((s) => s.member)).toEqual(['Get', 'GetAll', 'GetAll', 'GetAll']);
  });

  it('asks again after an app did not answer the toolkit question', async () => {
    const app = fakeApp(null, {});
    expect(await isQtBridge(app.call, ':1.52')).toBe(false);
    expect(await isQtBridge(app.call, ':1.52')).toBe(false);
    expect(app.sent.filter((s) => s.body[1] === 'ToolkitName')).toHaveLength(2);
  });
});

describe('plainText', () => {
  it('turns Qt rich text into plain text', () => {
    expect(plainText("<p style='white-space:pre'>/tmp/</p>")).toBe('/tmp/');
    expect(
      plainText(
        "<p style='white-space:pre'>Calculate number of words\n(For huge &amp; long texts)</p>",
      ),
    ).toBe('Calculate number of words\n(For huge & long texts)');
    expect(plainText('<b>Bold</b><br>next')).toBe('Bold\nnext');
  });

  it('leaves plain text alone, even with angle brackets inside', () => {
    expect(plainText('a < b > c')).toBe('a < b > c');
    expect(plainText('<not a tag')).toBe('<not a tag');
    expect(plainText('x <b>y</b>')).toBe('x <b>y</b>');
    expect(plainText('')).toBe('');
  });
});
