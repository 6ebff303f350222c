import { describe, expect, it } from 'vitest';
import type { Element, Rect, Snapshot } from '../../src/model/element.js';
import type { SnapshotView } from '../../src/model/view.js';
import type { Desktop } from '../../src/platform/desktop.js';
import { assertUncovered } from '../../src/actions/covering.js';

type Row = [parent: number, frame: Rect, role: string, name: string, nativeRole?: string];

// A window with a stack: the hidden page's check box keeps its frame under the page shown.
const ROWS: Row[] = [
  [-1, { x: 0, y: 0, w: 400, h: 300 }, 'AXWindow', 'Pages', 'frame'],
  [0, { x: 0, y: 40, w: 400, h: 260 }, 'AXGroup', '', 'panel'],
  [1, { x: 0, y: 40, w: 400, h: 260 }, 'AXGroup', 'Front page', 'panel'],
  [2, { x: 10, y: 50, w: 100, h: 20 }, 'AXCheckBox', 'Front check', 'check box'],
  [3, { x: 30, y: 50, w: 80, h: 20 }, 'AXStaticText', 'Front check', 'label'],
  [1, { x: 0, y: 40, w: 400, h: 260 }, 'AXGroup', 'Back page', 'panel'],
  [5, { x: 0, y: 40, w: 400, h: 260 }, 'AXButton', 'Back button', 'push button'],
  [0, { x: 0, y: 0, w: 200, h: 20 }, 'AXButton', 'Name', 'table column header'],
];

function view(): SnapshotView {
  const depths: number[] = [];
  const elements = ROWS.map(([parent, frame, role, name, nativeRole], i): Element => ({
    id: `:1.5/o/${i}`,
    parent,
    depth: (depths[i] = parent >= 0 ? depths[parent] + 1 : 0),
    role,
    nativeRole: nativeRole ?? '',
    name,
    flags: [],
    actions: [],
    childCount: 0,
    frame,
  }));
  const snapshot: Snapshot = {
    pid: 7,
    app: 'pages',
    elements,
    windows: [
      { index: 0, title: 'Pages', role: 'AXWindow', modal: false, dialog: false, active: true },
    ],
    truncated: null,
    elapsedMs: 0,
    takenAt: 0,
    method: 'test',
  };
  return {
    snapshot,
    snapshotId: 's1',
    refs: elements.map((_, i) => `e${i}`),
    visible: elements.map(() => true),
    viewport: { x: 0, y: 0, w: 400, h: 300 },
    dialog: null,
  };
}

/** A desktop with the app's one window, whose hit test answers `answer` (a row, or as given). */
function desktopAnswering(answer: number | null | undefined | Error, onItself = false) {
  const asked: Array<{ root: string; p: { x: number; y: number } }> = [];
  const desktop = {
    listWindows: async () => [
      { id: 1, pid: 7, title: 'Pages', frame: { x: 0, y: 0, w: 400, h: 300 }, active: true },
    ],
    elementAt: async (root: Element, p: { x: number; y: number }) => {
      asked.push({ root: root.id, p });
      if (answer instanceof Error) throw answer;
      if (answer === undefined) return { id: ':1.5/o/unknown' };
      return answer === null ? null : { id: `:1.5/o/${answer}`, onItself };
    },
  } as unknown as Desktop;
  return { desktop, asked };
}

const check = (v: SnapshotView) => v.snapshot.elements[3];
const at = { x: 60, y: 60 };

describe("assertUncovered: the app's own hit test at the point", () => {
  it('refuses when another element is drawn there (a page shown over the hidden one)', async () => {
    const v = view();
    const { desktop, asked } = desktopAnswering(6);
    await expect(assertUncovered(desktop, v, check(v), 'Front check', at)).rejects.toThrow(
      /Front check is not drawn at \(60,60\): another element is drawn there \(\[AXButton\] "Back button" e6\)/,
    );
    // Asked once, of the element's window, at the click's point.
    expect(asked).toEqual([{ root: ':1.5/o/0', p: at }]);
  });

  it('passes the element, a part of it, or what holds it (a toolkit that answers one level)', async () => {
    for (const answer of [3, 4, 2, 0]) {
      const v = view();
      await expect(
        assertUncovered(desktopAnswering(answer).desktop, v, check(v), 'Front check', at),
      ).resolves.toBeUndefined();
    }
  });

  it('refuses where what holds it says the point is on itself, on none of its children', async () => {
    // A web page's block drawn over a button, with no element of its own: the page answers
    // the section holding both.
    for (const holder of [2, 1]) {
      const v = view();
      await expect(
        assertUncovered(desktopAnswering(holder, true).desktop, v, check(v), 'Front check', at),
      ).rejects.toThrow(
        /another element is drawn there \(\[AXGroup\].* which holds it, on nothing inside it\)/,
      );
    }
    // The element itself, answered on itself, is drawn there.
    const v = view();
    await expect(
      assertUncovered(desktopAnswering(3, true).desktop, v, check(v), 'Front check', at),
    ).resolves.toBeUndefined();
  });

  it('refuses nothing when the app cannot say: no answer, one the walk lacks, a failure', async () => {
    for (const answer of [null, undefined, new Error('timed out')]) {
      const v = view();
      await expect(
        assertUncovered(desktopAnswering(answer).desktop, v, check(v), 'Front check', at),
      ).resolves.toBeUndefined();
    }
  });

  it("does not ask for a table's header: Qt's table answers the row scrolled under it", async () => {
    const v = view();
    const { desktop, asked } = desktopAnswering(6);
    const header = v.snapshot.elements[7];
    await expect(
      assertUncovered(desktop, v, header, 'Name', { x: 100, y: 10 }),
    ).resolves.toBeUndefined();
    expect(asked).toEqual([]);
  });
});
