import { describe, expect, it } from 'vitest';
import {
  charLength,
  clipChange,
  clipMiddle,
  clipText,
  escapeText,
  shellQuote,
} from '../../src/tree/text.js';
import { randomText, rng } from './helpers/synthetic.js';

/** Line breaks as any common splitter sees them (JS, Python splitlines, editors). */
// eslint-disable-next-line no-control-regex
const LINE_BREAK = /[\n\r\v\f\u001c-\u001e\u0085\u2028\u2029]/;

describe('escapeText', () => {
  it('escapes quotes, backslashes, newlines, tabs and control characters', () => {
    expect(escapeText('say "hi"\\n\nnext\tcol\r\u0000\u001b', '"')).toBe(
      'say \\"hi\\"\\\\n\\nnext\\tcol\\r\\u0000\\u001b',
    );
  });

  it('escapes only the quote it sits in', () => {
    expect(escapeText(`it's "x"`, "'")).toBe(`it\\'s "x"`);
    expect(escapeText(`it's "x"`, '')).toBe(`it's "x"`);
  });

  it('escapes unicode line separators, C1 controls, bidi overrides and lone surrogates', () => {
    expect(escapeText('a\u2028b\u2029c\u0085d\u202ee\ud800f', '')).toBe(
      'a\\u2028b\\u2029c\\u0085d\\u202ee\\ud800f',
    );
  });

  it('keeps ordinary unicode, emoji and paired surrogates as they are', () => {
    expect(escapeText('日本 café 😀 •••', '"')).toBe('日本 café 😀 •••');
  });

  it('never leaves a line break on random input', () => {
    const next = rng(7);
    for (let i = 0; i < 500; i++) {
      const out = escapeText(randomText(next, 80), '"');
      expect(out).not.toMatch(LINE_BREAK);
      expect(Buffer.from(out, 'utf8').toString('utf8')).toBe(out); // no lone surrogate left
    }
  });
});

describe('clipText', () => {
  it('leaves short text alone', () => {
    expect(clipText('Open', 10)).toEqual({ text: 'Open', cut: false, length: 4 });
  });

  it('cuts to the limit including the ellipsis and reports the full length', () => {
    const c = clipText('abcdefghij', 5);
    expect(c).toEqual({ text: 'abcd…', cut: true, length: 10 });
  });

  it('fits exactly at the limit without a cut', () => {
    expect(clipText('abcde', 5)).toEqual({ text: 'abcde', cut: false, length: 5 });
  });

  it('counts code points, not UTF-16 units, and never splits a surrogate pair', () => {
    const c = clipText('😀😀😀😀😀😀', 4);
    expect(c.text).toBe('😀😀😀…');
    expect(c.length).toBe(6);
    expect(charLength('😀a')).toBe(2);
  });

  it('never splits an escape sequence', () => {
    const c = clipText('ab\ncd', 3);
    // "ab" + "\n" would be 4 wide: the cut falls before the escape.
    expect(c.text).toBe('ab…');
    const d = clipText('a\u0001bc', 4);
    expect(d.text).toBe('a…');
  });

  it('stays within its width on random input', () => {
    const next = rng(11);
    for (let i = 0; i < 300; i++) {
      const max = 1 + Math.floor(next() * 70);
      const c = clipText(randomText(next, 120), max);
      expect(charLength(c.text)).toBeLessThanOrEqual(max);
    }
  });
});

describe('clipChange', () => {
  it('shows both sides whole when they fit', () => {
    expect(clipChange('Hello', 'Hello world', 60)).toEqual({ old: 'Hello', new: 'Hello world' });
  });

  it('keeps the changed span in view in long text', () => {
    const base = 'x'.repeat(500);
    const pair = clipChange(base + 'OLD' + base, base + 'NEW' + base, 40);
    expect(pair.old).toContain('OLD');
    expect(pair.new).toContain('NEW');
    expect(pair.old.startsWith('…')).toBe(true);
    expect(pair.old.endsWith('…')).toBe(true);
    expect(charLength(pair.old)).toBeLessThanOrEqual(40);
    expect(charLength(pair.new)).toBeLessThanOrEqual(40);
  });

  it('lines both sides up at the same offset', () => {
    const prefix = 'The quick brown fox jumps over the lazy dog and keeps running ';
    const pair = clipChange(prefix + 'far away', prefix + 'near home', 30);
    const o = pair.old.indexOf('far');
    const n = pair.new.indexOf('near');
    expect(o).toBeGreaterThan(0);
    expect(o).toBe(n);
  });

  it('escapes newlines so a side is one line', () => {
    const pair = clipChange('line1\nline2', 'line1\nline2\nline3', 60);
    expect(pair.new).toBe('line1\\nline2\\nline3');
  });

  it('stays within its width on random input', () => {
    const next = rng(5);
    for (let i = 0; i < 300; i++) {
      const a = randomText(next, Math.floor(next() * 300));
      const b = next() < 0.5 ? a + randomText(next, 10) : randomText(next, 200);
      const max = 4 + Math.floor(next() * 60);
      const pair = clipChange(a, b, max);
      expect(charLength(pair.old)).toBeLessThanOrEqual(max);
      expect(charLength(pair.new)).toBeLessThanOrEqual(max);
      expect(pair.old + pair.new).not.toMatch(LINE_BREAK);
    }
  });
});

describe('clipMiddle and shellQuote', () => {
  it('keeps the start and the file name of a long path', () => {
    const path = '/tmp/' + 'deep/'.repeat(50) + '1763790000123_click.txt';
    const out = clipMiddle(path, 60);
    expect(charLength(out)).toBeLessThanOrEqual(60);
    expect(out.startsWith('/tmp/')).toBe(true);
    expect(out.endsWith('_click.txt')).toBe(true);
    expect(out).toContain('…');
    expect(clipMiddle('/short.txt', 60)).toBe('/short.txt');
  });

  it('quotes for a POSIX shell', () => {
    expect(shellQuote('/tmp/a b.txt')).toBe(`'/tmp/a b.txt'`);
    expect(shellQuote(`it's`)).toBe(`'it'\\''s'`);
  });
});
