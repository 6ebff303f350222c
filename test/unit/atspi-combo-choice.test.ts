/**
 * A combo box that keeps its own name whatever is chosen (GTK 3's, named "Colour") takes
 * the name of the item its Selection holds as its value, so that a choice shows as a
 * change of the combo box itself.
 */
import { describe, expect, it } from 'vitest';
import type { Basics, CallFn } from '../../src/platform/linux/atspi/read.js';
import { IFACE, readExtras } from '../../src/platform/linux/atspi/read.js';

const basics = (ifaces: string[]): Basics => ({
  role: 11, // ATSPI_ROLE_COMBO_BOX
  name: 'Colour',
  description: '',
  states: [0, 0],
  ifaces: new Set(ifaces),
  childCount: 1,
});

/** An app whose combo box (at /combo) has `chosen` selected, or nothing. */
function app(chosen: string | null): { call: CallFn; asked: string[] } {
  const asked: string[] = [];
  const call: CallFn = async (_dest, path, iface, member, _sig, body) => {
    asked.push(`${path} ${member}`);
    if (member === 'GetSelectedChild') {
      return [[':1.5', chosen === null ? '/org/a11y/atspi/null' : '/item']];
    }
    if (member === 'Get' && path === '/item' && body?.[1] === 'Name') {
      return [{ value: chosen }];
    }
    throw new Error(`unexpected ${iface} ${member} on ${path}`);
  };
  return { call, asked };
}

describe('a combo box whose choice is only in its Selection', () => {
  it('takes the chosen item name as its value', async () => {
    const { call } = app('Green');
    const x = await readExtras(call, [':1.5', '/combo'], 'combo box', basics([IFACE.Selection]), {
      readId: false,
    });
    expect(x.value).toBe('Green');
  });

  it('has no value when nothing is chosen', async () => {
    const { call } = app(null);
    const x = await readExtras(call, [':1.5', '/combo'], 'combo box', basics([IFACE.Selection]), {
      readId: false,
    });
    expect(x.value).toBeUndefined();
  });

  it('is not asked when it has no Selection, or text of its own', async () => {
    for (const ifaces of [[], [IFACE.Selection, IFACE.Text]]) {
      const { call, asked } = app('Green');
      await readExtras(call, [':1.5', '/combo'], 'combo box', basics(ifaces), { readId: false });
      expect(asked.filter((a) => a.includes('GetSelectedChild'))).toEqual([]);
    }
  });
});
