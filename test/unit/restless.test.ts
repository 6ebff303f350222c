import { describe, expect, it } from 'vitest';
import { diffSnapshots } from '../../src/diff/index.js';
import type { Rect } from '../../src/model/element.js';
import { RestlessElements, inPlace, kept } from '../../src/pipeline/restless.js';
import { clone, indexOf, node, snapshot } from './helpers/diff-fixtures.js';

function win(spinner: Rect, label: Rect) {
  return snapshot([
    node('AXWindow', 'Factory', {
      id: ':1.9/win',
      frame: { x: 0, y: 0, w: 800, h: 600 },
      children: [
        node('AXGroup', 'spin', { id: ':1.9/spin', frame: spinner }),
        node('AXStaticText', 'Label', { id: ':1.9/label', frame: label }),
      ],
    }),
  ]);
}

const at = (x: number, y: number, w = 16, h = 24): Rect => ({ x, y, w, h });

/** A reader that gives each id its frames in turn (the last one again once they run out). */
function reader(frames: Record<string, Rect[]>) {
  const reads: string[] = [];
  const read = (id: string) => {
    reads.push(id);
    const list = frames[id] ?? [];
    return Promise.resolve(list.length > 1 ? list.shift() : list[0]);
  };
  return { read, reads };
}

describe('elements that move on their own', () => {
  it('tells a turning element from one that moved once', () => {
    expect(kept([at(256, 418), at(282, 418)])).toBe(true);
    expect(kept([at(256, 418), at(256, 418)])).toBe(false);
    expect(inPlace([at(256, 418), at(282, 432), at(276, 438)])).toBe(true);
    // A slide across the window is no turning in place.
    expect(inPlace([at(20, 418), at(600, 418)])).toBe(false);
  });

  it("drops a spinner's moves, and then knows it without reading it again", async () => {
    const restless = new RestlessElements();
    const before = win(at(256, 418), at(10, 10, 80, 20));
    const after = win(at(282, 418), at(10, 10, 80, 20));
    const diff = diffSnapshots(before, after);
    expect(diff.modified).toHaveLength(1);
    const { read } = reader({ ':1.9/spin': [at(280, 415), at(276, 438)] });
    const out = await restless.without(1, before, after, diff, read);
    expect(out.modified).toEqual([]);
    expect(restless.known(1)).toEqual([':1.9/spin']);

    const later = win(at(270, 420), at(10, 10, 80, 20));
    const again = reader({});
    const out2 = await restless.without(1, after, later, diffSnapshots(after, later), again.read);
    expect(out2.modified).toEqual([]);
    expect(again.reads).toEqual([]);
  });

  it('keeps a move that stays (a reflow, a scroll) and the target its own', async () => {
    const restless = new RestlessElements();
    const before = win(at(256, 418), at(10, 10, 80, 20));
    const after = win(at(256, 418), at(10, 40, 80, 20));
    const diff = diffSnapshots(before, after);
    const { read } = reader({ ':1.9/label': [at(10, 40, 80, 20)] });
    const out = await restless.without(1, before, after, diff, read);
    expect(out.modified).toHaveLength(1);
    expect(restless.known(1)).toEqual([]);

    const turning = win(at(282, 418), at(10, 10, 80, 20));
    const spin = reader({ ':1.9/spin': [at(280, 415), at(276, 438)] });
    const kept2 = await restless.without(
      2,
      before,
      turning,
      diffSnapshots(before, turning),
      spin.read,
      ':1.9/spin',
    );
    expect(kept2.modified).toHaveLength(1);
    expect(spin.reads).toEqual([]);
  });

  it('keeps a change beyond the frame, and a known spinner that went far away', async () => {
    const restless = new RestlessElements();
    const before = win(at(256, 418), at(10, 10, 80, 20));
    const turned = win(at(282, 418), at(10, 10, 80, 20));
    await restless.without(
      1,
      before,
      turned,
      diffSnapshots(before, turned),
      reader({ ':1.9/spin': [at(280, 415), at(276, 438)] }).read,
    );
    expect(restless.known(1)).toHaveLength(1);
    const renamed = clone(turned);
    renamed.elements[indexOf(renamed, 'spin')].name = 'busy';
    renamed.elements[indexOf(renamed, 'busy')].frame = at(270, 420);
    const d = await restless.without(
      1,
      turned,
      renamed,
      diffSnapshots(turned, renamed),
      reader({}).read,
    );
    expect(d.modified).toHaveLength(1);
    const far = win(at(700, 100), at(10, 10, 80, 20));
    const still = reader({ ':1.9/spin': [at(700, 100)] });
    const d2 = await restless.without(1, turned, far, diffSnapshots(turned, far), still.read);
    expect(d2.modified).toHaveLength(1);
    expect(restless.known(1)).toEqual([]);
  });
});
