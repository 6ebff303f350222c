import { describe, expect, it } from 'vitest';
import type { TreeDiff } from '../../src/model/diff.js';
import { renderTreeFile } from '../../src/tree/index.js';
import { bigSnapshot, buildSnapshot, viewOf, type Spec } from './helpers/synthetic.js';

function app(extra: Spec[] = [], opts: { truncated?: string | null } = {}) {
  return buildSnapshot(
    [
      {
        role: 'AXWindow',
        nativeRole: 'frame',
        name: 'Widget Factory',
        frame: [0, 0, 1280, 741],
        window: { active: true },
        children: [
          {
            role: 'AXButton',
            nativeRole: 'push button',
            name: 'Open',
            frame: [680, 520, 80, 30],
            flags: ['enabled'],
          },
          {
            role: 'AXTextField',
            nativeRole: 'text',
            name: 'Name',
            value: 'Hello',
            frame: [10, 20, 200, 24],
            flags: ['enabled', 'focused'],
          },
          {
            role: 'AXGroup',
            nativeRole: 'panel',
            frame: [0, 600, 400, 100],
            children: [
              { role: 'AXStaticText', nativeRole: 'label', name: 'Ready', frame: [5, 605, 50, 15] },
            ],
          },
          ...extra,
        ],
      },
    ],
    { app: 'gtk3-widget-factory', pid: 12837, elapsedMs: 23.6, ...opts },
  );
}

const PNG = '/tmp/axpage-1000/1763790000123_get_tree.png';

describe('renderTreeFile: observation', () => {
  const view = viewOf(app());
  const text = renderTreeFile({ tool: 'ax_get_tree', view, screenshot: PNG });
  const lines = text.split('\n');

  it('writes the header lines', () => {
    expect(lines[0]).toBe(
      '# app: gtk3-widget-factory  pid: 12837  window: "Widget Factory"  snapshot: s7f3a  tool: ax_get_tree',
    );
    expect(lines[1]).toBe(
      '# elements: 5 (visible 5)  elapsed: 24 ms  method: synthetic  truncated: no',
    );
    expect(lines[2]).toBe('# viewport: 0,0 1280x741  dialog: none');
    expect(lines[3]).toBe('# screenshot: /tmp/axpage-1000/1763790000123_get_tree.png');
    expect(lines[4]).toBe('# tree');
  });

  it('writes one line per element, indented two spaces per depth, in tree order', () => {
    expect(lines.slice(5)).toEqual([
      '[AXWindow (frame)] "Widget Factory" e1 x:0 y:0 w:1280 h:741 visible',
      '  [AXButton (push button)] "Open" e2 x:680 y:520 w:80 h:30 visible enabled',
      '  [AXTextField (text)] "Name" value:"Hello" e3 x:10 y:20 w:200 h:24 visible enabled focused',
      '  [AXGroup (panel)] "" e4 x:0 y:600 w:400 h:100 visible',
      '    [AXStaticText (label)] "Ready" e5 x:5 y:605 w:50 h:15 visible',
      '',
    ]);
    expect(text.endsWith('\n')).toBe(true);
  });

  it('says why the screenshot is missing, and why the walk stopped', () => {
    const t = renderTreeFile({
      tool: 'ax_get_tree',
      view: viewOf(app([], { truncated: 'max elements 5000' })),
      screenshotError: 'X server refused XGetImage',
    }).split('\n');
    expect(t[1]).toMatch(/ truncated: max elements 5000$/);
    expect(t[3]).toBe('# screenshot: none (X server refused XGetImage)');
  });

  it('names a blocking dialog in the viewport line', () => {
    const s = app([]);
    s.elements.push({
      id: 'd',
      parent: -1,
      depth: 0,
      role: 'AXDialog',
      nativeRole: 'alert',
      name: 'Quit "now"?',
      frame: { x: 100, y: 100, w: 300, h: 120 },
      flags: ['modal'],
      actions: [],
      childCount: 0,
    });
    s.windows.push({
      index: s.elements.length - 1,
      title: 'Quit "now"?',
      role: 'AXDialog',
      frame: { x: 100, y: 100, w: 300, h: 120 },
      modal: true,
      dialog: true,
      active: true,
    });
    const t = renderTreeFile({ tool: 'ax_get_tree', view: viewOf(s), screenshot: PNG }).split('\n');
    expect(t[0]).toContain('window: "Widget Factory"');
    expect(t[1]).toContain('(visible 1)');
    expect(t[2]).toBe('# viewport: 100,100 300x120  dialog: AXDialog "Quit \\"now\\"?"');
  });

  it('lists results before the tree', () => {
    const t = renderTreeFile({
      tool: 'ax_find',
      view,
      screenshot: PNG,
      results: { title: 'role=AXButton', indices: [1, 99] },
    }).split('\n');
    const at = t.indexOf('# results: role=AXButton (1)');
    expect(at).toBeGreaterThan(0);
    expect(t[at + 1]).toBe(
      '[AXButton (push button)] "Open" e2 x:680 y:520 w:80 h:30 visible enabled',
    );
    expect(t[at + 2]).toBe('# tree');
  });

  it('writes action, note and missing-screenshot lines in the header', () => {
    const t = renderTreeFile({
      tool: 'ax_click',
      view,
      action: {
        route: 'xtest',
        delivery: 'foreground',
        effect: 'unverifiable',
        escalation: { recommended: 'px', reason: 'no action interface' },
        actMs: 2.6,
        settleMs: 120.2,
        settleReason: 'quiet 2 events',
      },
      notes: ['skipped 3 windows\nof other apps'],
    }).split('\n');
    expect(t.slice(3, 7)).toEqual([
      '# screenshot: none (not taken)',
      '# action: route: xtest  delivery: foreground  effect: unverifiable  act: 3 ms  settle: 120 ms (quiet 2 events)',
      '# escalation: px (no action interface)',
      '# note: skipped 3 windows\\nof other apps',
    ]);
    expect(t[7]).toBe('# tree');
  });

  it('adds an error line when the call failed', () => {
    const t = renderTreeFile({
      tool: 'ax_click',
      view,
      screenshot: PNG,
      error: 'stale ref e9\nretry',
    });
    expect(t.split('\n')[4]).toBe('# error: stale ref e9\\nretry');
  });
});

describe('renderTreeFile: diff', () => {
  const before = viewOf(app());
  const afterSnap = app([
    {
      role: 'AXButton',
      nativeRole: 'push button',
      name: 'Save',
      frame: [680, 560, 80, 30],
      flags: ['enabled'],
    },
  ]);
  afterSnap.elements[2].value = 'Hello world';
  afterSnap.elements[1].frame = { x: 680, y: 400, w: 80, h: 30 };
  const after = viewOf(afterSnap);
  const diff: TreeDiff = {
    added: [5],
    removed: [4],
    modified: [
      {
        before: 2,
        after: 2,
        changes: [{ field: 'value', old: 'Hello', new: 'Hello world' }],
        moved: false,
      },
      {
        before: 1,
        after: 1,
        changes: [{ field: 'frame', old: '680,520 80x30', new: '680,400 80x30' }],
        moved: true,
      },
    ],
    matchOf: new Int32Array([0, 1, 2, 3, -1, -1]),
  };
  const text = renderTreeFile({
    tool: 'ax_click',
    view: after,
    screenshot: PNG,
    diff: { diff, before },
  });
  const lines = text.split('\n');

  it('writes the diff header and +, -, ~ lines before the tree', () => {
    const at = lines.indexOf('# diff: +1 -1 ~2 (1 moved)');
    expect(at).toBe(4);
    expect(lines.slice(5, 9)).toEqual([
      '+ [AXButton (push button)] "Save" e6 x:680 y:560 w:80 h:30 visible enabled',
      '- [AXStaticText (label)] "Ready" e5 x:5 y:605 w:50 h:15 visible',
      `~ moved [AXButton (push button)] "Open" e2 | frame: 680,520 -> 680,400`,
      `~ [AXTextField (text)] "Name" e3 | value: 'Hello' -> 'Hello world'`,
    ]);
    expect(lines[9]).toBe('# tree');
  });

  it('masks secure values in diff lines', () => {
    const b = app();
    const a = app();
    b.elements[2].flags = ['secure'];
    b.elements[2].value = 'old-secret';
    a.elements[2].flags = ['secure'];
    a.elements[2].value = 'new-secret';
    const d: TreeDiff = {
      added: [],
      removed: [],
      modified: [
        {
          before: 2,
          after: 2,
          changes: [
            { field: 'value', old: 'old-secret', new: 'new-secret' },
            { field: 'description', old: 'hint old-secret', new: 'hint' },
          ],
          moved: false,
        },
      ],
      matchOf: new Int32Array(5),
    };
    const t = renderTreeFile({
      tool: 'ax_type',
      view: viewOf(a),
      screenshot: PNG,
      diff: { diff: d, before: viewOf(b) },
    });
    expect(t).not.toContain('secret');
    expect(t).toContain(`| value: '•••' -> '•••', description: 'hint •••' -> 'hint'`);
  });

  it('keeps the changed span of long values in view', () => {
    const long = 'lorem ipsum '.repeat(100);
    const d: TreeDiff = {
      added: [],
      removed: [],
      modified: [
        {
          before: 2,
          after: 2,
          changes: [{ field: 'value', old: long + 'A', new: long + 'B' }],
          moved: false,
        },
      ],
      matchOf: new Int32Array(5),
    };
    const t = renderTreeFile({
      tool: 'ax_type',
      view: viewOf(app()),
      screenshot: PNG,
      diff: { diff: d, before: viewOf(app()) },
      maxTextChars: 50,
    });
    const line = t.split('\n').find((l) => l.startsWith('~ '))!;
    expect(line).toMatch(/value: '….*A' -> '….*B'$/);
  });
});

describe('renderTreeFile: app switch', () => {
  it('appends the second app under # app_switch', () => {
    const other = buildSnapshot(
      [
        {
          role: 'AXDialog',
          nativeRole: 'dialog',
          name: 'Question',
          frame: [400, 300, 300, 150],
          window: { dialog: true, active: true },
          children: [
            { role: 'AXButton', nativeRole: 'push button', name: 'Yes', frame: [600, 400, 60, 25] },
          ],
        },
      ],
      { app: 'zenity', pid: 18059 },
    );
    const text = renderTreeFile({
      tool: 'ax_click',
      view: viewOf(app()),
      screenshot: PNG,
      appSwitch: viewOf(other, { refBase: 100, snapshotId: 's9b2c' }),
    });
    const lines = text.split('\n');
    const at = lines.findIndex((l) => l.startsWith('# app_switch:'));
    expect(lines.slice(at, at + 5)).toEqual([
      '# app_switch: zenity pid: 18059  window: "Question"  snapshot: s9b2c',
      '# elements: 2 (visible 2)  elapsed: 12 ms  method: synthetic  truncated: no',
      '# viewport: 400,300 300x150  dialog: AXDialog "Question"',
      '[AXDialog (dialog)] "Question" e100 x:400 y:300 w:300 h:150 visible',
      '  [AXButton (push button)] "Yes" e101 x:600 y:400 w:60 h:25 visible',
    ]);
    expect(at).toBe(lines.indexOf('# tree') + 6);
  });
});

describe('renderTreeFile: scale and determinism', () => {
  it('is byte-identical for the same input and one line per element with nasty names', () => {
    const s = bigSnapshot(3000, { nameLength: 300, valueLength: 50, seed: 9 });
    const a = renderTreeFile({
      tool: 'ax_get_tree',
      view: viewOf(s),
      screenshot: PNG,
      maxTextChars: 100,
    });
    const b = renderTreeFile({
      tool: 'ax_get_tree',
      view: viewOf(structuredClone(s)),
      screenshot: PNG,
      maxTextChars: 100,
    });
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    const lines = a.split('\n');
    // 4 header lines + "# tree" + elements + the empty string after the final newline.
    expect(lines).toHaveLength(5 + s.elements.length + 1);
    expect(a).not.toMatch(/[\r\u2028\u2029\u0085]/);
    // Every cut value says how long it was.
    const tree = lines.slice(5, -1);
    for (const line of tree) expect(line).toMatch(/^ *\[AX[A-Za-z]+ \([^)]*\)\] "/);
    expect(tree.filter((l) => l.includes('chars)')).length).toBeGreaterThan(2000);
  });

  it('notes children that were not walked on truncated snapshots', () => {
    const s = app();
    s.elements[0].childCount = 40;
    const t = renderTreeFile({ tool: 'ax_get_tree', view: viewOf(s), screenshot: PNG });
    expect(t).toContain('"Widget Factory" e1 x:0 y:0 w:1280 h:741 visible children:3/40');
  });
});
