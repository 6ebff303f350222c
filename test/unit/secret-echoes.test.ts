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
