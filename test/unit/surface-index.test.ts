/** The artifact index resource, built from a dir listing and tree-file header lines. */
import { describe, expect, it } from 'vitest';
import { buildIndex, groupPairs, headerFacts, pairUri } from '../../src/surface/artifact-index.js';

describe('groupPairs', () => {
  it('pairs tree and PNG by their base name, newest first, and ignores other files', () => {
    const pairs = groupPairs([
      { name: '1700000000000_get_tree.txt', bytes: 10 },
      { name: '1700000000000_get_tree.png', bytes: 20 },
      { name: '1700000005000_click.txt', bytes: 30 },
      { name: '1700000005000-1_click.txt', bytes: 31 },
      { name: 'notes.txt', bytes: 1 },
      { name: '.1700000009000_click.123.abc.tmp', bytes: 1 },
      { name: 'audit.jsonl', bytes: 1 },
    ]);
    expect(pairs.map((p) => p.id)).toEqual([
      '1700000005000-1_click',
      '1700000005000_click',
      '1700000000000_get_tree',
    ]);
    const tree = pairs[2];
    expect(tree.tree).toEqual({ name: '1700000000000_get_tree.txt', bytes: 10 });
    expect(tree.screenshot).toEqual({ name: '1700000000000_get_tree.png', bytes: 20 });
    expect(pairs[0].screenshot).toBeUndefined();
  });
});

describe('headerFacts', () => {
  it("reads the app and pid of a tree file's first line", () => {
    expect(
      headerFacts('# app: Fixture Form  pid: 4242  window: "Fixture Form"  tool: ax_get_tree'),
    ).toEqual({ app: 'Fixture Form', pid: 4242 });
  });

  it('says nothing for a listing file or an empty line', () => {
    expect(headerFacts('# ax_list_apps: apps (pid, name, windows, frontmost)')).toEqual({});
    expect(headerFacts('')).toEqual({});
  });
});

describe('buildIndex', () => {
  const entries = Array.from({ length: 7 }, (_, i) => ({
    name: `17000000000${10 + i}_find.txt`,
    bytes: 100 + i,
  }));

  it('lists at most the limit, newest first, and says how many there are', () => {
    const index = buildIndex('/out dir', groupPairs(entries), () => ({ app: 'gedit', pid: 7 }), 3);
    expect(index.total).toBe(7);
    expect(index.listed).toBe(3);
    expect(index.note).toContain('3 newest of 7');
    expect(index.pairs.map((p) => p.id)).toEqual([
      '1700000000016_find',
      '1700000000015_find',
      '1700000000014_find',
    ]);
    const first = index.pairs[0];
    expect(first).toMatchObject({ tool: 'find', app: 'gedit', pid: 7 });
    expect(first.time).toBe(new Date(1700000000016).toISOString());
    expect(first.uri).toBe(pairUri('1700000000016_find'));
    expect(first.tree).toEqual({ uri: 'axpage://pair/1700000000016_find.txt', bytes: 106 });
  });

  it('says when everything is listed', () => {
    const index = buildIndex('/d', groupPairs(entries), () => ({}));
    expect(index.listed).toBe(7);
    expect(index.note).toContain('all 7 pairs');
  });
});
