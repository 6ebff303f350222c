import { describe, expect, it } from 'vitest';
import { parseByteSize, retentionFromEnv } from '../../src/capture/limits.js';
import {
  compareBase,
  formatBase,
  isTempFile,
  pairPartUri,
  parseArtifactFile,
  splitPairPart,
  toolSlug,
} from '../../src/capture/names.js';

describe('artifact names', () => {
  it('formats and parses <epoch-ms>[-<n>]_<tool>.txt|png both ways', () => {
    expect(formatBase(1763790000123, 0, 'click')).toBe('1763790000123_click');
    expect(formatBase(1763790000123, 2, 'get_tree')).toBe('1763790000123-2_get_tree');
    expect(parseArtifactFile('1763790000123-2_get_tree.png')).toEqual({
      base: '1763790000123-2_get_tree',
      ms: 1763790000123,
      n: 2,
      tool: 'get_tree',
      kind: 'png',
    });
    expect(parseArtifactFile('1763790000123_click.txt')).toMatchObject({ n: 0, kind: 'txt' });
  });

  it('accepts only the one spelling we write', () => {
    for (const name of [
      '1763790000123_click.TXT',
      '1763790000123_click.txt.bak',
      '1763790000123-0_click.txt',
      '1763790000123-01_click.txt',
      '01763790000123_click.txt',
      '1763790000123_.txt',
      '1763790000123_click-x.txt',
      '1763790000123.txt',
      'click_1763790000123.txt',
      '.1763790000123_click.txt',
      '1763790000123_click.jpg',
    ]) {
      expect(parseArtifactFile(name), name).toBeNull();
    }
  });

  it('recognizes our temp files only', () => {
    expect(isTempFile('.1763790000123-1_click.4242.a1b2c3d4e5f6.tmp')).toBe(true);
    expect(isTempFile('.1763790000123_click.tmp')).toBe(false);
    expect(isTempFile('1763790000123_click.4242.a1b2.tmp')).toBe(false);
    expect(isTempFile('.something.4242.a1b2.tmp')).toBe(false);
  });

  it('drops ax_ from tool names and rejects what is unsafe in a file name', () => {
    expect(toolSlug('ax_click_at')).toBe('click_at');
    expect(toolSlug('screenshot')).toBe('screenshot');
    for (const bad of ['', 'ax_', 'a/b', '../x', 'a b', 'x'.repeat(65), 'é']) {
      expect(() => toolSlug(bad), bad).toThrow(/cannot be used in a file name/);
    }
  });

  it('orders oldest first by time, then sequence, then tool', () => {
    const names = ['1000-2_a', '999_z', '1000_b', '1000-1_a', '1000_a'].map((b) =>
      parseArtifactFile(`${b}.txt`)!,
    );
    expect(names.sort(compareBase).map((n) => n.base)).toEqual([
      '999_z',
      '1000_a',
      '1000_b',
      '1000-1_a',
      '1000-2_a',
    ]);
  });
});

describe('retention limits', () => {
  it('parses byte sizes with binary units', () => {
    expect(parseByteSize('1024')).toBe(1024);
    expect(parseByteSize('64k')).toBe(65536);
    expect(parseByteSize('500M')).toBe(500 * 1024 ** 2);
    expect(parseByteSize('500 MiB')).toBe(500 * 1024 ** 2);
    expect(parseByteSize('1.5GB')).toBe(1.5 * 1024 ** 3);
    expect(parseByteSize('2t')).toBe(2 * 1024 ** 4);
    for (const bad of ['', 'M', '-5', '5 MX', '1e6', 'lots'])
      expect(parseByteSize(bad), bad).toBeNull();
  });

  it('defaults to 500 pairs and 500 MiB and names the variable on a bad value', () => {
    expect(retentionFromEnv({})).toEqual({ maxPairs: 500, maxBytes: 500 * 1024 ** 2 });
    expect(retentionFromEnv({ AXPAGE_MAX_PAIRS: ' 20 ', AXPAGE_MAX_BYTES: '10m' })).toEqual({
      maxPairs: 20,
      maxBytes: 10 * 1024 ** 2,
    });
    expect(() => retentionFromEnv({ AXPAGE_MAX_PAIRS: '-1' })).toThrow(/AXPAGE_MAX_PAIRS=-1/);
    expect(() => retentionFromEnv({ AXPAGE_MAX_PAIRS: '1e3' })).toThrow(/AXPAGE_MAX_PAIRS/);
    expect(() => retentionFromEnv({ AXPAGE_MAX_BYTES: '0.1' })).toThrow(/AXPAGE_MAX_BYTES=0.1/);
  });
});

describe('pair parts and their resource URIs', () => {
  it('splits a pair file or an image made from it into its base and part, longest suffix first', () => {
    expect(splitPairPart('1700000000016_find.txt')).toEqual({
      base: '1700000000016_find',
      part: '.txt',
    });
    expect(splitPairPart('1700000000016-2_click.png')?.part).toBe('.png');
    expect(splitPairPart('1700000000016_visual_diff.diff.png')).toEqual({
      base: '1700000000016_visual_diff',
      part: '.diff.png',
    });
    expect(splitPairPart('1700000000016_find_visual.marks.png')?.part).toBe('.marks.png');
  });

  it('gives no URI for names that are not the dir’s own files', () => {
    for (const name of [
      'notes.txt',
      '../1700000000016_find.txt',
      '1700000000016_find',
      'x.diff.png',
    ]) {
      expect(pairPartUri(name), name).toBeUndefined();
    }
    expect(pairPartUri('1700000000016_find.png')).toBe('axpage://pair/1700000000016_find.png');
  });
});
