import { describe, expect, it } from 'vitest';
import { findMatches, parseQuery, QueryError } from '../../src/query/index.js';
import { buildSnapshot } from './helpers/synthetic.js';

/** A window whose labels are built to make a backtracking engine explode. */
function hostileSnapshot() {
  const evil = 'a'.repeat(5000) + '!';
  return buildSnapshot([
    {
      role: 'AXWindow',
      name: 'W',
      frame: [0, 0, 800, 600],
      children: Array.from({ length: 50 }, (_, i) => ({
        role: 'AXStaticText',
        name: i === 49 ? 'aaa' : evil,
        frame: [0, i * 10, 100, 10] as [number, number, number, number],
      })),
    },
  ]);
}

describe('query regexes run in linear time', () => {
  it('matches /(a+)+$/ over 50 labels of 5,000 characters (backtracking would never end)', () => {
    const snap = hostileSnapshot();
    const result = findMatches(snap, parseQuery('title:/(a+)+$/'), {
      visible: snap.elements.map(() => true),
    });
    // Only the label that ends in a's matches.
    expect(result.matches.map((m) => snap.elements[m.index].name)).toEqual(['aaa']);
  });

  it('keeps the flags agents use: i, m, s', () => {
    const snap = buildSnapshot([
      { role: 'AXWindow', name: 'Main', children: [{ role: 'AXButton', name: 'Save\nas' }] },
    ]);
    const find = (q: string) =>
      findMatches(snap, parseQuery(q), { visible: snap.elements.map(() => true) }).matches.length;
    expect(find('title:/^save/i')).toBe(1);
    expect(find('title:/^save/')).toBe(0);
    expect(find('title:/^as$/m')).toBe(1);
    expect(find('title:/save.as/is')).toBe(1);
    expect(find('title:/save.as/i')).toBe(0);
  });

  it('refuses backreferences and lookaround with a clear error, not a silent miss', () => {
    for (const q of ['title:/(a)\\1/', 'title:/(?=a)b/']) {
      let err: unknown;
      try {
        parseQuery(q);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(QueryError);
      expect((err as Error).message).toMatch(/linear-time regex engine|unsupported/);
    }
  });
});
