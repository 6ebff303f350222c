import { describe, expect, it } from 'vitest';
import { SecretEchoes, SecretMemory } from '../../src/pipeline/secrets.js';

describe('SecretEchoes: a known secret masked inside any text', () => {
  it('masks every occurrence, at any depth of a plain value, and leaves the rest as it was', () => {
    const e = new SecretEchoes();
    e.add('EchoSecret-4242');
    expect(e.scrub('Search: EchoSecret-4242')).toBe('Search: •••');
    expect(e.scrub('EchoSecret-4242EchoSecret-4242')).toBe('••••••');
    const value = { a: ['x', { b: 'No results for "EchoSecret-4242"' }], n: 3, keep: 'plain' };
    const out = e.scrubDeep(value);
    expect(out).toEqual({ a: ['x', { b: 'No results for "•••"' }], n: 3, keep: 'plain' });
    // Untouched parts are the same objects; nothing to mask gives the value back.
    expect(out.a[0]).toBe('x');
    const clean = { a: ['x'] };
    expect(e.scrubDeep(clean)).toBe(clean);
  });

  it('looks for each line of a multi-line secret too, longest first', () => {
    const e = new SecretEchoes();
    e.add('line-one-abc\nline-two-xyz');
    e.add('abc');
    expect(e.holds('echo: line-two-xyz')).toBe(true);
    expect(e.scrub('line-one-abc\nline-two-xyz')).toBe('•••');
    // Too short to look for: common text stays readable.
    expect(e.holds('abc')).toBe(false);
  });

  it('is fed by SecretMemory.note, and leaves class instances (buffers) alone', () => {
    const e = new SecretEchoes();
    const memory = new SecretMemory(e);
    memory.note('Typed-Pass-99', 'typed into a password field');
    expect(e.size).toBe(1);
    const buf = Buffer.from('Typed-Pass-99');
    expect(e.scrubDeep({ buf }).buf).toBe(buf);
    expect(e.scrub('Welcome back, Typed-Pass-99!')).toBe('Welcome back, •••!');
  });
});

describe('SecretEchoes: a secret echoed otherwise than it went in', () => {
  const e = new SecretEchoes();
  e.add('EchoSecret-4242');
  e.add('P@ss w0rd!42x');

  it.each([
    ['in upper case', 'Search: ECHOSECRET-4242', 'Search: •••'],
    ['URL-encoded', 'https://x.org/?q=P%40ss%20w0rd!42x', 'https://x.org/?q=•••'],
    ['form-encoded', 'q=P%40ss+w0rd%2142x', 'q=•••'],
  ])('%s: masked where it is', (_how, text, masked) => {
    expect(e.scrub(text)).toBe(masked);
  });

  it.each([
    ['spaced out', 'E c h o S e c r e t - 4 2 4 2'],
    ['its first half', 'Looking for EchoSecr…'],
  ])('%s: the whole text masked', (_how, text) => {
    expect(e.scrub(text)).toBe('•••');
  });

  it('leaves a text sharing less of it alone', () => {
    expect(e.scrub('Echo settings (4242 items)')).toBe('Echo settings (4242 items)');
  });
});

describe('SecretEchoes: echoes an app escapes, turns round or breaks up', () => {
  const e = new SecretEchoes();
  e.add('EchoSecret-4242');
  e.add('correct horse battery staple');
  e.add('tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0');

  it.each([
    ['every sign escaped (Python quote)', 'q=correct%20horse%20battery%20staple'],
    ['reversed', 'x 2424-terceSohcE y'],
    ['in base64', 'id=RWNob1NlY3JldC00MjQy'],
  ])('%s: masked where it is', (_how, text) => {
    expect(e.scrub(text)).toContain('•••');
    expect(e.holds(e.scrub(text))).toBe(false);
  });

  it.each([
    ['zero-width spaces between its letters', 'E\u200bc\u200bh\u200bo\u200bS\u200becret-4242'],
    ['soft hyphens', 'Echo\u00adSecret\u00ad4242'],
    ['words joined by dashes', 'correct-horse-battery-staple'],
    ['signs between its letters', 'E*c*h*o*S*e*c*r*e*t'],
    ['written as markup', 'Search: &#69;&#99;&#104;&#111;&#83;&#101;&#99;&#114;&#101;&#116;'],
    ['12 letters and digits of a long token', 'token tok_9f8e7d6c5b…'],
  ])('%s: the whole text masked', (_how, text) => {
    expect(e.scrub(text)).toBe('•••');
  });
});

describe('SecretEchoes: echoes in other scripts and encodings', () => {
  const e = new SecretEchoes();
  e.add('EchoSecret-4242');

  it.each([
    [
      'in base64 after a user name (Basic auth)',
      `Authorization: Basic ${Buffer.from('bob:EchoSecret-4242').toString('base64')}`,
    ],
    [
      'as \\u escapes',
      `q="${[...'EchoSecret-4242'].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`,
    ],
    ['in hex', `id=${Buffer.from('EchoSecret-4242').toString('hex')}`],
    ['in ROT13', 'RpubFrperg-4242'],
    ['in full-width letters', 'Ｅｃｈｏ Ｓｅｃｒｅｔ'],
    ['with Hangul fillers between letters', 'E\u3164c\u3164h\u3164o\u3164S\u3164e\u3164c\u3164r'],
  ])('%s: masked', (_how, text) => {
    expect(e.holds(text)).toBe(true);
    expect(e.holds(e.scrub(text))).toBe(false);
  });
});

describe('SecretEchoes: a short or digit-only secret', () => {
  const pin = new SecretEchoes();
  pin.add('1234');
  /** A summary line whose coordinates run 1242,12 34x30: "1234" across signs and spaces. */
  const line = '[AXButton] "Minimize" e3741 (1242,12 34x30)';
  const summary = `status: success\nvisible_elements:\n  ${line}\n  [AXButton] "Close" e3742 (1310,12 34x30)`;

  it('is not found across coordinates: a summary that runs its digits by chance is left as it is', () => {
    expect(pin.holds(line)).toBe(false);
    expect(pin.scrub(summary)).toBe(summary);
  });

  it('is not found inside a longer run of letters and digits (a ref, a timestamp, a file name)', () => {
    for (const text of ['e1234', 'file: /tmp/out/1795861234001_screenshot.txt', 'x12345']) {
      expect(pin.scrub(text)).toBe(text);
    }
  });

  it.each([
    ['as it is', 'PIN: 1234', 'PIN: •••'],
    ['in brackets', 'entered (1234).', 'entered (•••).'],
    ['reversed', 'code 4321 accepted', 'code ••• accepted'],
    ['in a line of its own', 'ok\n1234\ndone', 'ok\n•••\ndone'],
  ])('is still masked where it is, %s', (_how, text, masked) => {
    expect(pin.scrub(text)).toBe(masked);
  });

  it.each([
    ['spaced out', 'You typed 1 2 3 4'],
    ['with signs between its digits', 'PIN 1-2-3-4'],
    ['with invisible characters between its digits', 'PIN 1\u200b2\u200b3\u200b4'],
    ['in full-width digits', 'PIN １２３４'],
  ])('is still found %s, and that line masked', (_how, text) => {
    expect(pin.holds(text)).toBe(true);
    expect(pin.scrub(`before\n${text}\nafter`)).toBe('before\n•••\nafter');
  });

  it('a short secret of letters is still found spaced out, only that line masked', () => {
    const e = new SecretEchoes();
    e.add('Kq4z!');
    expect(e.scrub('name: K q 4 z\nfile: a.txt')).toBe('•••\nfile: a.txt');
    expect(e.scrub('Search: kq4z!')).toBe('Search: •••');
    // Across signs of other texts (coordinates, words) it is not.
    expect(e.holds('(Kq,4 zone)')).toBe(false);
  });

  it('a long digit-only secret (a card number) is found in groups, not across coordinates', () => {
    const e = new SecretEchoes();
    e.add('4111222233334444');
    for (const text of ['Card 4111 2222 3333 4444', 'card 4111-2222-3333-4444', 'ends 33334444']) {
      expect(e.holds(text), text).toBe(true);
    }
    expect(e.holds('[AXCell] e1 (4111,2222 3333x4444)')).toBe(false);
    expect(e.scrub('a\nCard 4111 2222 3333 4444\nb')).toBe('a\n•••\nb');
  });
});

describe('SecretEchoes: a text that holds a secret only otherwise or in part', () => {
  const e = new SecretEchoes();
  e.add('EchoSecret-4242');

  it('has only the lines that hold it masked', () => {
    const text =
      'status: success\n  [AXStaticText] "E c h o S e c r e t - 4 2 4 2" e5\n  [AXButton] "OK" e6';
    expect(e.scrub(text)).toBe('status: success\n•••\n  [AXButton] "OK" e6');
  });

  it('is masked whole when no one line holds it', () => {
    expect(e.scrub('Echo\nSecr\net-4\n242')).toBe('•••');
  });
});
