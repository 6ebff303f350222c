/**
 * Chromium's action names: GetActions answers with empty names, GetName(i) with the real
 * ones; the read falls back only when every name is empty.
 */
import { describe, expect, it } from 'vitest';
import { actionNamesByIndex } from '../../src/platform/linux/atspi/action-strings.js';
import { embedsOnly, namesMissing } from '../../src/platform/linux/atspi/chromium.js';
import { readActionNames, type CallFn } from '../../src/platform/linux/atspi/read.js';
import { pickAction } from '../../src/platform/linux/atspi/actions.js';

/** A fake bus for one element: GetActions gives `listed`, GetName(i) gives `named[i]`. */
function element(listed: string[], named: string[]): { call: CallFn; calls: string[] } {
  const calls: string[] = [];
  const call: CallFn = (_dest, _path, _iface, member, _sig, body) => {
    calls.push(member);
    if (member === 'GetActions') return Promise.resolve([listed.map((n) => [n, '', ''])]);
    if (member === 'GetName') return Promise.resolve([named[(body?.[0] as number) ?? 0]]);
    return Promise.reject(new Error(`unexpected ${member}`));
  };
  return { call, calls };
}

describe('namesMissing', () => {
  it('is true only for a non-empty list of empty names', () => {
    expect(namesMissing(['', ''])).toBe(true);
    expect(namesMissing([])).toBe(false);
    expect(namesMissing(['click', ''])).toBe(false);
  });
});

describe('readActionNames', () => {
  it("reads Chromium's names one by one when GetActions gives only empty ones", async () => {
    const { call, calls } = element(['', ''], ['press', 'showContextMenu']);
    expect(await readActionNames(call, [':1.3', '/x'])).toEqual(['press', 'showContextMenu']);
    expect(calls.filter((c) => c === 'GetName')).toHaveLength(2);
  });

  it('keeps the names GetActions gives and asks nothing more', async () => {
    const { call, calls } = element(['click'], ['other']);
    expect(await readActionNames(call, [':1.3', '/x'])).toEqual(['click']);
    expect(calls).toEqual(['GetActions']);
  });

  it('asks GetName for each index in order', async () => {
    const { call } = element([], ['jump', 'showContextMenu', 'x']);
    expect(await actionNamesByIndex(call, [':1.3', '/x'], 2)).toEqual(['jump', 'showContextMenu']);
  });

  it("without a count, reads how many from NActions (Gecko's path) and never GetActions", async () => {
    const calls: string[] = [];
    const call: CallFn = (_dest, _path, _iface, member, _sig, body) => {
      calls.push(member);
      if (member === 'Get') return Promise.resolve([{ value: 2 }]);
      if (member === 'GetName') return Promise.resolve([['click', 'jump'][body?.[0] as number]]);
      return Promise.reject(new Error(`unexpected ${member}`));
    };
    expect(await actionNamesByIndex(call, [':1.4', '/y'])).toEqual(['click', 'jump']);
    expect(calls).toEqual(['Get', 'GetName', 'GetName']);
  });
});

describe("pickAction with Chromium's names", () => {
  it('takes check for a check box and doDefault only when nothing else fits', () => {
    expect(pickAction(['check', 'showContextMenu'])).toBe(0);
    expect(pickAction(['showContextMenu', 'doDefault'])).toBe(1);
    expect(pickAction(['doDefault', 'jump'])).toBe(1);
  });
});

describe('embedsOnly', () => {
  it("is true for a container's run of object-replacement characters only", () => {
    expect(embedsOnly('\uFFFC\uFFFC')).toBe(true);
    expect(embedsOnly('')).toBe(false);
    expect(embedsOnly('a\uFFFC')).toBe(false);
    expect(embedsOnly('Hello')).toBe(false);
  });
});
