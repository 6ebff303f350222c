/**
 * Safe mode's hold of the selections: every format each offered is kept and offered again
 * after the action (not only text), unless someone copied meanwhile; a format too big to
 * keep is named in a note before the action, never lost silently. On data: a clipboard
 * that records what was asked of it.
 */
import { describe, expect, it } from 'vitest';
import type { Clipboard, HeldSelection } from '../../src/platform/desktop.js';
import { HOLD_MAX_BYTES, holdSelections } from '../../src/pipeline/selection-hold.js';

type Sel = 'clipboard' | 'primary';

function fakeClipboard(held: Record<Sel, HeldSelection>) {
  const calls: string[] = [];
  const mine = new Set<Sel>();
  const clipboard: Clipboard = {
    read: async () => '',
    write: async (text, selection = 'clipboard') => {
      calls.push(`write ${selection} ${JSON.stringify(text)}`);
      mine.add(selection);
    },
    owns: (selection = 'clipboard') => mine.has(selection),
    release: async (selection) => {
      calls.push(`release ${selection}`);
      mine.delete(selection);
    },
    hold: async (selection, maxBytes) => {
      calls.push(`hold ${selection} ${maxBytes}`);
      return held[selection];
    },
    offer: async (h, selection) => {
      calls.push(`offer ${selection} ${h.formats.map((f) => f.type).join(',')}`);
    },
    close: async () => undefined,
  };
  return { clipboard, calls, mine };
}

const png = { type: 'image/png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47]) };
const text = { type: 'UTF8_STRING', data: Buffer.from('hello') };

describe('holdSelections', () => {
  it('empties both selections, then offers every format they held again', async () => {
    const { clipboard, calls } = fakeClipboard({
      clipboard: { formats: [png, text], tooBig: [] },
      primary: { formats: [], tooBig: [] },
    });
    const notes: string[] = [];
    const restore = await holdSelections(clipboard, (n) => notes.push(n));
    expect(calls).toEqual([
      `hold clipboard ${HOLD_MAX_BYTES}`,
      'write clipboard ""',
      `hold primary ${HOLD_MAX_BYTES}`,
      'write primary ""',
    ]);
    await restore();
    expect(calls.slice(4)).toEqual(['offer clipboard image/png,UTF8_STRING', 'offer primary ']);
    expect(notes).toEqual([]);
  });

  it('names a format too big to keep, before the action', async () => {
    const { clipboard } = fakeClipboard({
      clipboard: { formats: [text], tooBig: ['image/x-huge'] },
      primary: { formats: [], tooBig: [] },
    });
    const notes: string[] = [];
    await holdSelections(clipboard, (n) => notes.push(n));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/clipboard selection offered image\/x-huge beyond the 32 MB/);
    expect(notes[0]).toMatch(/UTF8_STRING is/);
  });

  it('leaves a copy someone made during the action as it is', async () => {
    const { clipboard, calls, mine } = fakeClipboard({
      clipboard: { formats: [png], tooBig: [] },
      primary: { formats: [png], tooBig: [] },
    });
    const restore = await holdSelections(clipboard);
    mine.delete('clipboard');
    await restore();
    expect(calls.filter((c) => c.startsWith('offer'))).toEqual(['offer primary image/png']);
  });
});
