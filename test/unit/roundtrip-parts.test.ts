/**
 * The pure parts of the faster ax_get_tree round trip: the tree body rendered ahead of the
 * header, the screenshot line saying when its pixels were taken, the redaction comparison
 * that lets an encode made before the password-field lookup stand, and the session memory's
 * look at a dialog without noting it.
 */
import { describe, expect, it } from 'vitest';
import { sameRedaction } from '../../src/capture/index.js';
import { ShownMemory } from '../../src/pipeline/shown.js';
import { renderTreeBody, renderTreeFile } from '../../src/tree/index.js';
import { bigSnapshot, buildSnapshot, viewOf } from './helpers/synthetic.js';

const PNG = '/tmp/axpage-1000/1763790000123_get_tree.png';

function small() {
  return viewOf(
    buildSnapshot(
      [
        {
          role: 'AXWindow',
          nativeRole: 'frame',
          name: 'Main',
          frame: [0, 0, 400, 300],
          window: { active: true },
          children: [
            { role: 'AXButton', nativeRole: 'push button', name: 'Open', frame: [10, 10, 80, 30] },
          ],
        },
      ],
      { app: 'demo', pid: 4242, elapsedMs: 12 },
    ),
  );
}

describe('tree file rendered in two parts', () => {
  it('a body rendered beforehand gives the same bytes as one render', () => {
    const view = viewOf(bigSnapshot(2_000, { seed: 7 }));
    const input = {
      tool: 'ax_get_tree',
      view,
      screenshot: PNG,
      notes: ['hidden: 3 elements left out'],
      results: { title: 'role=AXButton', indices: [1, 5, 9] },
      sections: [{ title: 'audit', lines: ['one', 'two'] }],
    };
    const whole = renderTreeFile(input);
    expect(renderTreeFile(input, renderTreeBody(input))).toBe(whole);
    expect(whole.split('\n').filter((l) => l === '# tree')).toHaveLength(1);
  });

  it('renders a tree of 150,000 elements (no argument spread of its lines)', () => {
    const view = viewOf(bigSnapshot(150_000, { seed: 3, nameLength: 4 }));
    const text = renderTreeFile({ tool: 'ax_get_tree', view, screenshot: PNG });
    const lines = text.split('\n');
    expect(lines.length - lines.indexOf('# tree') - 2).toBe(view.snapshot.elements.length);
  });
});

describe('the screenshot line', () => {
  const lineOf = (text: string): string | undefined =>
    text.split('\n').find((l) => l.startsWith('# screenshot:'));

  it('says when the pixels were taken, relative to the walk', () => {
    const view = small();
    for (const at of ['walk start', 'walk end'] as const) {
      const text = renderTreeFile({ tool: 'ax_get_tree', view, screenshot: PNG, shotTakenAt: at });
      expect(lineOf(text)).toBe(`# screenshot: ${PNG}  taken: ${at}`);
    }
  });

  it('stays as it was without it, and without a screenshot says why', () => {
    const view = small();
    expect(lineOf(renderTreeFile({ tool: 'ax_get_tree', view, screenshot: PNG }))).toBe(
      `# screenshot: ${PNG}`,
    );
    const none = renderTreeFile({
      tool: 'ax_get_tree',
      view,
      screenshotError: 'capture failed: no display',
      shotTakenAt: 'walk end',
    });
    expect(lineOf(none)).toBe('# screenshot: none (capture failed: no display)');
  });
});

describe('sameRedaction', () => {
  const image = { width: 100, height: 50 };
  const origin = { x: 200, y: 100 };
  const field = { x: 210, y: 110, w: 30, h: 10 };
  const other = { x: 250, y: 120, w: 20, h: 10 };

  it('holds for no fields, and for the same fields in the same order', () => {
    expect(sameRedaction(image, origin, [], [])).toBe(true);
    expect(sameRedaction(image, origin, [field, other], [{ ...field }, { ...other }])).toBe(true);
  });

  it('ignores fields off the image, and rects that round to the same pixels', () => {
    const off = { x: 0, y: 0, w: 10, h: 10 };
    expect(sameRedaction(image, origin, [field], [off, field])).toBe(true);
    expect(sameRedaction(image, origin, [field], [{ ...field, w: 29.6 }])).toBe(true);
  });

  it('fails for a field missing, moved, or filled in another order', () => {
    expect(sameRedaction(image, origin, [], [field])).toBe(false);
    expect(sameRedaction(image, origin, [field], [])).toBe(false);
    expect(sameRedaction(image, origin, [field], [{ ...field, x: field.x + 1 }])).toBe(false);
    expect(sameRedaction(image, origin, [field, other], [other, field])).toBe(false);
  });
});

describe('ShownMemory.dialogWouldAppear', () => {
  it('answers like dialogAppeared without noting the dialog', () => {
    const snap = buildSnapshot(
      [
        {
          role: 'AXWindow',
          nativeRole: 'dialog',
          name: 'Save?',
          frame: [10, 10, 200, 100],
          window: { active: true, modal: true, dialog: true },
        },
      ],
      { app: 'demo', pid: 77 },
    );
    const view = viewOf(snap);
    const memory = new ShownMemory();
    expect(view.dialog).not.toBeNull();
    const expected = true;
    expect(memory.dialogWouldAppear(view)).toBe(expected);
    expect(memory.dialogWouldAppear(view)).toBe(expected);
    expect(memory.dialogAppeared(view)).toBe(expected);
    expect(memory.dialogWouldAppear(view)).toBe(false);
    expect(memory.dialogAppeared(view)).toBe(false);
  });
});
