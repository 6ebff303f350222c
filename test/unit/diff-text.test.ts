import { describe, expect, it } from 'vitest';
import { textSpan } from '../../src/diff/index.js';

const lorem =
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor ' +
  'incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud ' +
  'exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. ';

describe('textSpan', () => {
  it('returns short strings whole (old and new strings, not character bags)', () => {
    expect(textSpan('Hello', 'Help', 40)).toEqual({ old: 'Hello', new: 'Help' });
  });

  it('cuts long strings around the change so it is visible on both sides', () => {
    const old = lorem.repeat(3) + 'The quick brown fox jumps over the lazy dog. ' + lorem.repeat(3);
    const neu = old.replace('quick brown fox', 'quick red fox');
    const span = textSpan(old, neu, 60);
    expect(span.old.length).toBeLessThanOrEqual(60);
    expect(span.new.length).toBeLessThanOrEqual(60);
    expect(span.old).toContain('brown');
    expect(span.new).toContain('red');
    expect(span.old).not.toContain('red');
    expect(span.old.startsWith('…') && span.old.endsWith('…')).toBe(true);
    expect(span.new.startsWith('…') && span.new.endsWith('…')).toBe(true);
    // Same leading context on both sides, so the two lines read in parallel.
    expect(span.old.slice(0, span.old.indexOf('brown'))).toBe(
      span.new.slice(0, span.new.indexOf('red')),
    );
  });

  it('shows the first of two far-apart edits instead of the whole stretch between them', () => {
    const old = `Title: draft\n${lorem.repeat(20)}\nSigned: Ann`;
    const neu = `Title: final\n${lorem.repeat(20)}\nSigned: Bob`;
    const span = textSpan(old, neu, 50);
    expect(span.old).toContain('draft');
    expect(span.new).toContain('final');
    expect(span.old.startsWith('Title')).toBe(true);
    expect(span.new.endsWith('…')).toBe(true);
  });

  it('shows an append at the end of a long text with as much context as fits', () => {
    const old = lorem.repeat(5);
    const neu = `${old}And one more sentence.`;
    const span = textSpan(old, neu, 40);
    expect(span.new).toBe('…' + neu.slice(neu.length - 39));
    expect(span.new).toContain('one more sentence.');
    // The old text's end is where the insertion happened.
    expect(span.old).toBe('…' + old.slice(old.length - 39));
  });

  it('handles one side short and the other long', () => {
    const long = lorem.repeat(4);
    const span = textSpan('', long, 30);
    expect(span.old).toBe('');
    expect(span.new).toBe(long.slice(0, 29) + '…');
    const back = textSpan(long, 'x', 30);
    expect(back.new).toBe('x');
    expect(back.old).toHaveLength(30);
  });

  it('shows the start of a change longer than the budget', () => {
    const old = `${lorem}${'a'.repeat(500)}${lorem}`;
    const neu = `${lorem}${'b'.repeat(500)}${lorem}`;
    const span = textSpan(old, neu, 40);
    expect(span.old).toMatch(/^….{0,8}a+…$/s);
    expect(span.new).toMatch(/^….{0,8}b+…$/s);
    expect(span.new).toHaveLength(40);
  });

  it('never splits a surrogate pair at a cut', () => {
    const emoji = '😀'.repeat(200);
    const span = textSpan(emoji + 'x', emoji + 'y', 21);
    for (const s of [span.old, span.new]) {
      expect(s.length).toBeLessThanOrEqual(21);
      expect(s).not.toMatch(
        /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/,
      );
    }
    expect(span.new.endsWith('y')).toBe(true);
  });

  it('stays fast on long, completely different texts', () => {
    const a = Array.from({ length: 50_000 }, (_, k) =>
      String.fromCharCode(97 + ((k * 7) % 26)),
    ).join('');
    const b = Array.from({ length: 50_000 }, (_, k) =>
      String.fromCharCode(97 + ((k * 11) % 26)),
    ).join('');
    textSpan(a.slice(1), b.slice(1), 80); // warm-up, so the printed time is steady state
    const t0 = performance.now();
    const span = textSpan(a, b, 80);
    const ms = performance.now() - t0;
    console.log(`textSpan on two different 50 000-char texts: ${ms.toFixed(1)} ms`);
    expect(span.old.length).toBeLessThanOrEqual(80);
    expect(span.new.length).toBeLessThanOrEqual(80);
  });
});
