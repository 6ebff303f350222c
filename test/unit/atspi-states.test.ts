/**
 * AT-SPI state sets → model flags, on data: the bit table against the system's libatspi
 * (when present), and every flag rule documented in states.ts.
 */

import { systemAtspiList } from './helpers/libatspi.js';
import { describe, expect, it } from 'vitest';
import { found, itNeeding } from '../e2e/helpers/needs.js';

import { FLAG_ORDER } from '../../src/model/element.js';
import type { Flag } from '../../src/model/element.js';
import {
  ATSPI_STATES,
  flagsFor,
  hasState,
  STATE,
  stateBits,
  stateNames,
} from '../../src/platform/linux/atspi/states.js';
import { pickAction } from '../../src/platform/linux/atspi/actions.js';
import { formatId, parseId } from '../../src/platform/linux/atspi/ids.js';
import { CallQueue, comparePriority, WalkStopped } from '../../src/platform/linux/atspi/queue.js';
import {
  decodeBody,
  encodeBody,
  parseSignature,
  unixPath,
} from '../../src/platform/linux/atspi/wire.js';
import { windowRank } from '../../src/platform/linux/atspi/walk.js';

function systemStateNames(): string[] | null {
  return systemAtspiList(
    '[Atspi.StateType(i).value_nick for i in range(int(Atspi.StateType.LAST_DEFINED))]',
  );
}

/** The usual states of a plain, enabled, visible GTK widget. */
const BASE = ['enabled', 'sensitive', 'showing', 'visible'];
const flags = (role: string, states: string[]): Flag[] => flagsFor(role, stateBits(states));

describe('AT-SPI state table', () => {
  it('has the 44 states of libatspi 2.46, bit = enum value', () => {
    expect(ATSPI_STATES).toHaveLength(44);
    expect(ATSPI_STATES[STATE.ACTIVE]).toBe('active');
    expect(ATSPI_STATES[STATE.CHECKED]).toBe('checked');
    expect(ATSPI_STATES[STATE.SHOWING]).toBe('showing');
    expect(ATSPI_STATES[STATE.VISIBLE]).toBe('visible');
    expect(ATSPI_STATES[STATE.MANAGES_DESCENDANTS]).toBe('manages-descendants');
    expect(ATSPI_STATES[STATE.INDETERMINATE]).toBe('indeterminate');
    expect(ATSPI_STATES[STATE.READ_ONLY]).toBe('read-only');
    for (const [k, v] of Object.entries(STATE)) {
      expect(ATSPI_STATES[v].replace(/-/g, '_').toUpperCase(), k).toBe(k);
    }
  });

  const system = systemStateNames();
  itNeeding(
    [found('libatspi through python3-gi', 'gir1.2-atspi-2.0', system !== null)],
    'matches the system libatspi state numbering',
    () => {
      expect(system!.slice(0, ATSPI_STATES.length)).toEqual([...ATSPI_STATES]);
    },
  );

  it('decodes the two-word bit set, both words and the sign bit', () => {
    // A real GTK3 check box: enabled, focusable, sensitive, showing, visible (+ checked).
    const gtk = [1124075776 | (1 << 4), 0];
    expect(stateNames(gtk)).toEqual([
      'checked',
      'enabled',
      'focusable',
      'sensitive',
      'showing',
      'visible',
    ]);
    // Bit 31 (manages-descendants) arrives as an unsigned 32-bit number.
    const table = [3271563520, 0];
    expect(hasState(table, STATE.MANAGES_DESCENDANTS)).toBe(true);
    // Word two: indeterminate (32) and read-only (43).
    const hi = stateBits(['indeterminate', 'read-only']);
    expect(hi[0]).toBe(0);
    expect(hasState(hi, STATE.INDETERMINATE)).toBe(true);
    expect(hasState(hi, STATE.READ_ONLY)).toBe(true);
    expect(stateNames(hi)).toEqual(['indeterminate', 'read-only']);
    // Missing words are empty, not errors.
    expect(hasState([], STATE.ACTIVE)).toBe(false);
    expect(() => stateBits(['no such state'])).toThrow(/unknown AT-SPI state/);
  });
});

describe('states → flags', () => {
  it('returns flags in FLAG_ORDER, never visible (the viewport sets it)', () => {
    const all = flags('check box', [...ATSPI_STATES.slice(1)]);
    expect(all).not.toContain('visible');
    const order = all.map((f) => FLAG_ORDER.indexOf(f));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('enabled from ENABLED or SENSITIVE, disabled from neither', () => {
    expect(flags('push button', BASE)).toEqual(['enabled']);
    expect(flags('push button', ['enabled', 'showing', 'visible'])).toEqual(['enabled']);
    expect(flags('push button', ['sensitive', 'showing', 'visible'])).toEqual(['enabled']);
    expect(flags('push button', ['showing', 'visible', 'focusable'])).toEqual([
      'disabled',
      'focusable',
    ]);
  });

  it('focus, selection, check, press', () => {
    expect(flags('check box', [...BASE, 'focusable', 'focused', 'checked'])).toEqual([
      'enabled',
      'focused',
      'focusable',
      'checked',
    ]);
    expect(flags('table cell', [...BASE, 'selectable', 'selected'])).toEqual([
      'enabled',
      'selected',
    ]);
    expect(flags('toggle button', [...BASE, 'pressed'])).toEqual(['enabled', 'pressed']);
  });

  it('indeterminate is "mixed" only on checkable elements', () => {
    expect(flags('check box', [...BASE, 'indeterminate'])).toContain('mixed');
    expect(flags('radio button', [...BASE, 'indeterminate'])).toContain('mixed');
    expect(flags('push button', [...BASE, 'checkable', 'indeterminate'])).toContain('mixed');
    expect(flags('progress bar', [...BASE, 'indeterminate'])).not.toContain('mixed');
    // Checked wins over a stale indeterminate bit.
    expect(flags('check box', [...BASE, 'checked', 'indeterminate'])).not.toContain('mixed');
  });

  it('expanded, or collapsed when expandable and not expanded', () => {
    expect(flags('table cell', [...BASE, 'expandable', 'expanded'])).toEqual([
      'enabled',
      'expanded',
    ]);
    expect(flags('table cell', [...BASE, 'expandable'])).toEqual(['enabled', 'collapsed']);
    expect(flags('tree item', [...BASE, 'collapsed'])).toEqual(['enabled', 'collapsed']);
    expect(flags('label', BASE)).toEqual(['enabled']);
  });

  it('editable, read-only, multi-line, modal, active', () => {
    expect(flags('text', [...BASE, 'editable', 'multi-line'])).toEqual([
      'enabled',
      'editable',
      'multiline',
    ]);
    expect(flags('text', [...BASE, 'read-only'])).toEqual(['enabled', 'readonly']);
    expect(flags('alert', [...BASE, 'modal', 'active'])).toEqual(['enabled', 'modal', 'active']);
  });

  it('secure for the password role only', () => {
    expect(flags('password text', [...BASE, 'editable'])).toContain('secure');
    expect(flags('text', [...BASE, 'editable'])).not.toContain('secure');
  });

  it('offscreen when not SHOWING or not VISIBLE', () => {
    expect(flags('label', ['enabled', 'visible'])).toContain('offscreen');
    expect(flags('label', ['enabled', 'showing'])).toContain('offscreen');
    expect(flags('label', ['enabled', 'showing', 'visible'])).not.toContain('offscreen');
  });
});

describe('window order', () => {
  const rank = (role: string, states: string[]): number => windowRank(role, stateBits(states));
  it('modal dialogs, other dialogs, the active window, the rest; hidden ones last', () => {
    const shown = ['showing', 'visible'];
    const order = [
      rank('alert', [...shown, 'modal']),
      rank('dialog', [...shown, 'active']),
      rank('file chooser', shown),
      rank('frame', [...shown, 'active']),
      rank('frame', shown),
      rank('dialog', ['modal']),
      rank('frame', []),
    ];
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(new Set(order).size).toBe(order.length);
  });
});

describe('ids, action choice, queue order', () => {
  it('ids are <bus><path> and parse back', () => {
    const id = formatId(':1.23', '/org/a11y/atspi/accessible/42');
    expect(id).toBe(':1.23/org/a11y/atspi/accessible/42');
    expect(parseId(id)).toEqual([':1.23', '/org/a11y/atspi/accessible/42']);
    expect(() => parseId('e42')).toThrow(/not an AT-SPI element id/);
    expect(() => parseId('/org/a11y')).toThrow(/not an AT-SPI element id/);
  });

  it('picks the named action, else click/press/activate/toggle for a generic request', () => {
    expect(pickAction(['Click'], 'click')).toBe(0);
    expect(pickAction(['Expand or contract', 'Edit', 'Activate'], 'activate')).toBe(2);
    expect(pickAction(['Expand or contract', 'Edit', 'Activate'], 'click')).toBe(2);
    expect(pickAction(['Expand or contract', 'Edit', 'Activate'])).toBe(2);
    expect(pickAction(['Press', 'SetFocus'], 'click')).toBe(0);
    expect(pickAction(['toggle'], 'press')).toBe(0);
    expect(pickAction(['Edit'], 'edit')).toBe(0);
    expect(pickAction(['Custom'], 'click')).toBe(0); // the only action
    expect(pickAction(['One', 'Two'], 'click')).toBe(-1);
    expect(pickAction(['Click'], 'frobnicate')).toBe(-1);
    expect(pickAction(['A', 'B'], 1)).toBe(1);
    expect(pickAction(['A', 'B'], 2)).toBe(-1);
    expect(pickAction([], 'click')).toBe(-1);
  });

  it('orders queue keys parent first, then children in sibling order', () => {
    const keys = [[1], [0, 2], [0], [0, 10], [0, 2, 0], []];
    keys.sort(comparePriority);
    expect(keys).toEqual([[], [0], [0, 2], [0, 2, 0], [0, 10], [1]]);
  });
});

describe('bounded priority queue', () => {
  it('keeps at most `limit` calls in flight and starts queued ones by priority', async () => {
    const q = new CallQueue(2);
    let inFlight = 0;
    let peak = 0;
    const started: string[] = [];
    const gates: Array<() => void> = [];
    const task = (name: string) => () => {
      started.push(name);
      inFlight++;
      peak = Math.max(peak, inFlight);
      return new Promise<string>((resolve) =>
        gates.push(() => {
          inFlight--;
          resolve(name);
        }),
      );
    };
    const done = [
      q.run([5], task('a')),
      q.run([6], task('b')),
      q.run([9], task('late')),
      q.run([0, 1], task('early-child')),
      q.run([0], task('early')),
    ];
    expect(started).toEqual(['a', 'b']);
    while (gates.length) {
      gates.shift()!();
      await new Promise((r) => setTimeout(r, 0));
    }
    expect(await Promise.all(done)).toEqual(['a', 'b', 'late', 'early-child', 'early']);
    expect(started).toEqual(['a', 'b', 'early', 'early-child', 'late']);
    expect(peak).toBe(2);
  });

  it('starts queued calls in priority order, whether they came in order or not', async () => {
    // A table's cells arrive in tree order (the queue's sorted run), other subtrees' calls
    // in between and out of order (its heap): the start order is the priority order.
    const q = new CallQueue(1);
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const keys: number[][] = [];
    for (let i = 0; i < 300; i++) keys.push([2, Math.floor(i / 3)]); // in order, with ties
    for (let i = 0; i < 120; i++) {
      const at = Math.floor(random() * keys.length);
      keys.splice(at, 0, [Math.floor(random() * 4), Math.floor(random() * 100)]);
    }
    const started: number[] = [];
    let release: () => void = () => undefined;
    const gate = q.run([-1], () => new Promise<void>((r) => (release = r)));
    const all = keys.map((k, i) =>
      q.run(k, async () => {
        started.push(i);
      }),
    );
    release();
    await gate;
    await Promise.all(all);
    const expected = keys
      .map((k, i) => ({ k, i }))
      .sort((a, b) => comparePriority(a.k, b.k) || a.i - b.i)
      .map(({ i }) => i);
    expect(started).toEqual(expected);
  });

  it('stop() rejects what is queued and refuses new work', async () => {
    const q = new CallQueue(1);
    let release: () => void = () => undefined;
    const first = q.run([0], () => new Promise<number>((r) => (release = () => r(1))));
    const queued = q.run([1], async () => 2);
    q.stop('time budget 5 ms');
    await expect(queued).rejects.toBeInstanceOf(WalkStopped);
    await expect(q.run([2], async () => 3)).rejects.toThrow(/time budget 5 ms/);
    release();
    expect(await first).toBe(1); // in flight: finishes on its own
  });
});

describe('lean D-Bus codec', () => {
  it('round-trips the bodies the walk sends and receives', () => {
    const cases: Array<[string, unknown[]]> = [
      ['u', [0]],
      ['ss', ['org.a11y.atspi.Accessible', 'Name']],
      ['isi', [3, 'héllo ✓', 9]],
      ['ii', [0, -1]],
      ['au', [[3271563520, 0]]],
      ['as', [['org.a11y.atspi.Accessible', 'org.a11y.atspi.Component']]],
      [
        'a(so)',
        [
          [
            [':1.7', '/org/a11y/atspi/accessible/1'],
            [':1.7', '/a'],
          ],
        ],
      ],
      ['(iiii)', [[10, -2147483648, 300, 0]]],
      [
        'a(sss)',
        [
          [
            ['Click', 'Clicks the button', ''],
            ['Edit', '', '<Ctrl>e'],
          ],
        ],
      ],
      ['b', [true]],
      ['d', [0.25]],
      ['y', [200]],
      ['x', [-5]],
      [
        'a((so)(so)(so)iiassusau)',
        [
          [
            [
              [':1.7', '/org/a11y/atspi/accessible/12'],
              [':1.7', '/org/a11y/atspi/accessible/root'],
              [':1.7', '/org/a11y/atspi/accessible/5'],
              0,
              -1,
              ['org.a11y.atspi.Accessible', 'org.a11y.atspi.Table'],
              '',
              55,
              'a table',
              [3271563520, 0],
            ],
          ],
        ],
      ],
    ];
    for (const [sig, values] of cases) {
      expect(decodeBody(sig, encodeBody(sig, values)), sig).toEqual(values);
    }
  });

  it('decodes variants and dicts the way dbus-next shapes them', () => {
    const body = encodeBody('a{sv}', [
      { Name: { signature: 's', value: 'OK' }, ChildCount: { signature: 'i', value: 2 } },
    ]);
    expect(decodeBody('a{sv}', body)).toEqual([
      { Name: { signature: 's', value: 'OK' }, ChildCount: { signature: 'i', value: 2 } },
    ]);
    const v = encodeBody('ssv', [
      'org.a11y.atspi.Value',
      'CurrentValue',
      { signature: 'd', value: 42 },
    ]);
    expect(decodeBody('ssv', v)[2]).toEqual({ signature: 'd', value: 42 });
  });

  it('aligns an empty array of structs (its padding counts even with no elements)', () => {
    const buf = encodeBody('ua(so)u', [7, [], 9]);
    // u32 7, u32 length 0, pad to 8, u32 9.
    expect(buf.length).toBe(12);
    expect(decodeBody('ua(so)u', buf)).toEqual([7, [], 9]);
  });

  it('rejects malformed signatures and reads unix:path addresses only', () => {
    expect(() => parseSignature('a(so')).toThrow(/bad D-Bus signature/);
    expect(() => parseSignature('z')).toThrow(/bad D-Bus signature/);
    expect(unixPath('unix:path=/run/user/0/at-spi/bus_93,guid=abc')).toBe(
      '/run/user/0/at-spi/bus_93',
    );
    expect(unixPath('unix:abstract=/tmp/dbus-x,guid=1;unix:path=/tmp/s')).toBe('/tmp/s');
    expect(unixPath('unix:abstract=/tmp/dbus-x')).toBeNull();
    expect(unixPath('tcp:host=localhost,port=1')).toBeNull();
  });
});
