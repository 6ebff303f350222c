/**
 * Echo forms an app may turn a secret into that look or decode like it: look-alike letters
 * from other scripts, small capitals, full-width forms, case folds that change its length,
 * ROT47, base32 and base64 of the text turned round. Each is masked; ordinary text in those
 * scripts is not. The scan's cost over a large tree is printed (no timing is asserted).
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { SecretEchoes } from '../../src/pipeline/secrets.js';

/** RFC 4648 base32, as an app would encode it. */
function base32(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const b of bytes) bits += b.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5)
    out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out + '='.repeat((8 - (out.length % 8)) % 8);
}

/** Printable ASCII rotated by 47. */
function rot47(text: string): string {
  return text.replace(/[!-~]/g, (c) =>
    String.fromCharCode(33 + ((c.charCodeAt(0) - 33 + 47) % 94)),
  );
}

const reversed = (s: string) => [...s].reverse().join('');

describe('SecretEchoes: look-alike and encoded echoes', () => {
  const e = new SecretEchoes();
  const secrets = {
    cyrillic: 'papaya-ocean-42',
    greek: 'Tokio-Xeta-5511',
    smallCaps: 'maple-word-7',
    fullWidth: 'Kiwi7',
    fold: 'Gruß-Maß-91x',
    rot47: 'Orchid-Lantern-4207',
    base32: 'Basalt-Meadow-5318',
    base64Reversed: 'Quiver-Tundra-6429',
  };
  for (const s of Object.values(secrets)) e.add(s);

  it.each([
    // а о е р с у from the Cyrillic script in place of Latin letters.
    [
      'Cyrillic look-alikes',
      'Search: \u0440\u0430\u0440\u0430\u0443\u0430-\u043e\u0441\u0435\u0430n-42',
    ],
    // Greek capitals and small letters that draw as Latin ones.
    ['Greek look-alikes', 'Title: \u03a4\u03bf\u03ba\u03b9\u03bf-\u03a7\u03b5\u03c4\u03b1-5511'],
    ['small capitals', 'Hello \u1d0d\u1d00\u1d18\u029f\u1d07-\u1d21\u1d0f\u0280\u1d05-7'],
    ['full-width letters', 'pin: \uff2b\uff49\uff57\uff49\uff17'],
    ['a case fold that lengthens it (ß as SS)', 'GRUSS-MASS-91X'],
    ['ROT47', `obscured=${rot47(secrets.rot47)}`],
    ['base32', `otp=${base32(Buffer.from(secrets.base32))}`],
    ['base32 after other bytes', `k=${base32(Buffer.from(`user:${secrets.base32}`))}`],
    ['base32 in lower case', `k=${base32(Buffer.from(secrets.base32)).toLowerCase()}`],
    [
      'base64 of it turned round',
      `t=${Buffer.from(reversed(secrets.base64Reversed)).toString('base64')}`,
    ],
  ])('%s: found, and gone after scrub', (_how, text) => {
    expect(e.holds(text)).toBe(true);
    const scrubbed = e.scrub(text);
    expect(scrubbed).toContain('•••');
    expect(e.holds(scrubbed)).toBe(false);
  });

  it('masks only the line that holds a look-alike echo', () => {
    const text =
      'first line\n\u0440\u0430\u0440\u0430\u0443\u0430-\u043e\u0441\u0435\u0430n-42\nlast line';
    expect(e.scrub(text)).toBe('first line\n•••\nlast line');
  });

  it.each([
    ['Russian text', 'Поиск: нет результатов, папка пуста'],
    ['Greek text', 'Αναζήτηση: κανένα αποτέλεσμα'],
    [
      'small capitals of other words',
      '\u1d1b\u029c\u026a\ua731 \u026a\ua731 \u1d00 \u1d1b\u1d07\ua731\u1d1b',
    ],
    ['base32 of other text', base32(Buffer.from('nothing to see here at all'))],
  ])('leaves %s alone', (_how, text) => {
    expect(e.holds(text)).toBe(false);
    expect(e.scrub(text)).toBe(text);
  });
});

describe('SecretEchoes: the cost of a scan', () => {
  it('scans a 100 kB tree with 10 secrets (time printed, not asserted)', () => {
    const e = new SecretEchoes();
    for (let i = 0; i < 10; i++) e.add(`Secret-${i}-Lantern-${1000 + i * 7}`);
    const lines: string[] = [];
    for (let i = 0; lines.join('\n').length < 100_000; i++) {
      lines.push(
        `  [e${i}] push button "Item ${i} Ändern Поиск" (${i * 3},${i * 7} 80x24) focusable`,
      );
    }
    const tree = lines.join('\n');
    e.scrub(tree); // warm up
    const runs = 20;
    const t0 = performance.now();
    for (let i = 0; i < runs; i++) expect(e.scrub(tree)).toBe(tree);
    const ms = (performance.now() - t0) / runs;
    console.log(
      `secret scan: ${(tree.length / 1024).toFixed(0)} kB tree, 10 secrets: ${ms.toFixed(2)} ms per scrub`,
    );
  });
});
