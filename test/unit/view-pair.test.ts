import { describe, expect, it } from 'vitest';
import type { TreeDiff } from '../../src/model/diff.js';
import { diffSnapshots } from '../../src/diff/index.js';
import { renderTreeFile } from '../../src/tree/index.js';
import {
  parseElementLine,
  parseHeaderLine,
  parsePair,
  unescapeText,
} from '../../src/view/index.js';
import {
  bigSnapshot,
  buildSnapshot,
  randomText,
  rng,
  viewOf,
  type Spec,
} from './helpers/synthetic.js';

const PNG = '/tmp/axpage-1000/1763790000123_click.png';
const OPTS = { tree: '1763790000123_click.txt', png: '1763790000123_click.png' };

function app(extra: Spec[] = [], name = 'Name', value = 'Hello') {
  return buildSnapshot(
    [
      {
        role: 'AXWindow',
        nativeRole: 'frame',
        name: 'Widget "Factory"',
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
            name,
            value,
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
    { app: 'gtk3-widget-factory', pid: 12837 },
  );
}

describe('parsePair: an observation rendered by src/tree', () => {
  const view = viewOf(app());
  const text = renderTreeFile({
    tool: 'ax_get_tree',
    view,
    screenshot: PNG,
    capture: { x: 0, y: 0, w: 1280, h: 741 },
  });
  const pair = parsePair(text, OPTS);

  it('reads the header facts, the quoted window title unescaped as written', () => {
    expect(pair.header.app).toBe('gtk3-widget-factory');
    expect(pair.header.pid).toBe('12837');
    expect(pair.header.window).toBe('"Widget \\"Factory\\""');
    expect(pair.header.tool).toBe('ax_get_tree');
    expect(pair.header.viewport).toBe('0,0 1280x741');
    expect(pair.header.dialog).toBe('none');
    expect(pair.header.screenshot).toBe(PNG);
    expect(pair.tree).toBe(OPTS.tree);
    expect(pair.png).toBe(OPTS.png);
  });

  it('reads the capture rectangle the tree file now states', () => {
    expect(text.split('\n')).toContain('# capture: 0,0 1280x741');
    expect(pair.capture).toEqual({ x: 0, y: 0, w: 1280, h: 741 });
  });

  it('reads every element with ref, role, texts, states, box, line and depth', () => {
    expect(pair.elements).toHaveLength(view.snapshot.elements.length);
    const lines = text.split('\n');
    for (const el of pair.elements) expect(lines[el.line - 1]).toContain(` ${el.ref} `);
    expect(pair.elements[2]).toEqual({
      ref: 'e3',
      role: 'AXTextField',
      nativeRole: 'text',
      text: 'Name',
      value: 'Hello',
      states: ['visible', 'enabled', 'focused'],
      box: { x: 10, y: 20, w: 200, h: 24 },
      line: lines.findIndex((l) => l.includes(' e3 ')) + 1,
      depth: 1,
      section: 0,
    });
    expect(pair.elements.map((e) => e.depth)).toEqual([0, 1, 1, 1, 2]);
    expect(pair.elements[3].text).toBeUndefined();
    expect(pair.diff).toEqual([]);
    expect(pair.incomplete).toBeUndefined();
    expect(pair.skipped).toBeUndefined();
  });

  it('gives every element the box its snapshot frame has', () => {
    for (const [i, el] of view.snapshot.elements.entries()) {
      expect(pair.elements[i].box).toEqual(el.frame);
    }
  });
});

describe('parsePair: the diff section', () => {
  const before = app();
  const after = app([
    {
      role: 'AXButton',
      nativeRole: 'push button',
      name: 'Save',
      frame: [680, 560, 80, 30],
      flags: ['enabled'],
    },
  ]);
  after.elements[2].value = 'Hello world';
  after.elements[1].frame = { x: 680, y: 400, w: 80, h: 30 };
  // "Ready" is gone: removed; "Save" is new: added.
  after.elements.splice(4, 1);
  after.elements[4].parent = 0;
  const diff: TreeDiff = diffSnapshots(before, after);
  const afterView = viewOf(after);
  // As in a session, the new element gets a new ref; the removed one's ref is not reused.
  afterView.refs[diff.added[0]] = 'e6';
  const text = renderTreeFile({
    tool: 'ax_click',
    view: afterView,
    screenshot: PNG,
    diff: { diff, before: viewOf(before) },
  });
  const pair = parsePair(text, OPTS);

  it('has all four kinds, each from its own diff line', () => {
    expect(diff.added.length).toBe(1);
    expect(diff.removed.length).toBe(1);
    const kinds = pair.diff.map((d) => d.kind).sort();
    expect(kinds).toEqual(['added', 'modified', 'moved', 'removed']);
    const lines = text.split('\n');
    for (const d of pair.diff)
      expect(lines[d.line - 1][0]).toBe(
        { added: '+', removed: '-', modified: '~', moved: '~' }[d.kind],
      );
    expect(pair.header.diff).toBe('+1 -1 ~2 (1 moved)');
  });

  it('gives each entry its element facts: box for added and removed, from/to for moved', () => {
    const byKind = Object.fromEntries(pair.diff.map((d) => [d.kind, d]));
    expect(byKind.added).toMatchObject({
      role: 'AXButton',
      text: 'Save',
      box: { x: 680, y: 560, w: 80, h: 30 },
    });
    expect(byKind.removed).toMatchObject({
      role: 'AXStaticText',
      text: 'Ready',
      box: { x: 5, y: 605, w: 50, h: 15 },
    });
    expect(byKind.moved).toMatchObject({
      ref: 'e2',
      text: 'Open',
      from: { x: 680, y: 520 },
      to: { x: 680, y: 400 },
    });
    expect(byKind.modified).toMatchObject({
      ref: 'e3',
      text: 'Name',
      changes: "value: 'Hello' -> 'Hello world'",
    });
  });

  it('marks the elements of the tree with the kind their ref has in the diff', () => {
    const marked = Object.fromEntries(
      pair.elements.filter((e) => e.diff).map((e) => [e.ref, e.diff]),
    );
    const refOf = (i: number) => afterView.refs[i];
    expect(marked).toEqual({
      [refOf(diff.added[0])]: 'added',
      e2: 'moved',
      e3: 'modified',
    });
    const removedRef = pair.diff.find((d) => d.kind === 'removed')?.ref;
    expect(pair.elements.some((e) => e.ref === removedRef && e.diff)).toBe(false);
  });
});

describe('parsePair: app switch sections', () => {
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
  const pair = parsePair(text, OPTS);

  it('puts the second app in section 1 and keeps its header apart', () => {
    expect(pair.elements.filter((e) => e.section === 0)).toHaveLength(5);
    const second = pair.elements.filter((e) => e.section === 1);
    expect(second.map((e) => [e.ref, e.text, e.depth])).toEqual([
      ['e100', 'Question', 0],
      ['e101', 'Yes', 1],
    ]);
    expect(second[1].box).toEqual({ x: 600, y: 400, w: 60, h: 25 });
    expect(pair.header.app_switch1).toContain('zenity pid: 18059');
    expect(pair.header.app).toBe('gtk3-widget-factory');
    expect(pair.skipped).toBeUndefined();
  });
});

describe('parsePair: text', () => {
  it('unescapes quotes, line breaks and control characters as written by src/tree', () => {
    const name = 'say "hi"\nthen\ttab \\ back';
    const text = renderTreeFile({
      tool: 'ax_get_tree',
      view: viewOf(app([], name, "it's\r\n")),
      screenshot: PNG,
    });
    expect(text.split('\n').length).toBe(11);
    const el = parsePair(text, OPTS).elements[2];
    expect(el.text).toBe(name);
    expect(el.value).toBe("it's\r\n");
  });

  it('round-trips random nasty names through the tree file', () => {
    const s = bigSnapshot(400, { nameLength: 30, valueLength: 12, seed: 5 });
    const view = viewOf(s);
    const pair = parsePair(renderTreeFile({ tool: 'ax_get_tree', view, screenshot: PNG }), OPTS);
    expect(pair.elements).toHaveLength(s.elements.length);
    expect(pair.skipped).toBeUndefined();
    for (const [i, el] of s.elements.entries()) {
      const got = pair.elements[i];
      expect(got.ref).toBe(view.refs[i]);
      if (i > 0) expect(got.text).toBe(el.name);
      expect(got.box).toEqual(el.frame);
    }
  });

  it('keeps the cut mark of a long text, not the (N chars) note', () => {
    const long = 'x'.repeat(500);
    const text = renderTreeFile({
      tool: 'ax_get_tree',
      view: viewOf(app([], long)),
      screenshot: PNG,
    });
    const el = parsePair(text, OPTS).elements[2];
    expect(el.text).toBe('x'.repeat(199) + '…');
    expect(el.value).toBe('Hello');
    expect(el.box).toEqual({ x: 10, y: 20, w: 200, h: 24 });
  });

  it('unescapes \\u escapes', () => {
    expect(unescapeText('a\\u001bb\\u2028\\\\u')).toBe('a\u001bb\u2028\\u');
  });
});

describe('parsePair: secure fields', () => {
  it('has the mask as the value, never the password, in tree and diff', () => {
    const b = app();
    const a = app();
    b.elements[2].flags = ['secure'];
    b.elements[2].value = 'old-secret';
    a.elements[2].flags = ['secure', 'focused'];
    a.elements[2].value = 'new-secret';
    const text = renderTreeFile({
      tool: 'ax_type',
      view: viewOf(a),
      screenshot: PNG,
      diff: { diff: diffSnapshots(b, a), before: viewOf(b) },
    });
    const pair = parsePair(text, OPTS);
    expect(JSON.stringify(pair)).not.toContain('secret');
    const field = pair.elements[2];
    expect(field.value).toBe('•••');
    expect(field.states).toContain('secure');
    expect(pair.diff.find((d) => d.ref === 'e3')?.changes).toContain("'•••' -> '•••'");
  });
});

describe('parsePair: damaged files', () => {
  const text = renderTreeFile({ tool: 'ax_get_tree', view: viewOf(app()), screenshot: PNG });

  it('reads a file cut mid-line up to its last whole line', () => {
    const cut = text.slice(0, text.indexOf(' e4 ') + 10);
    const pair = parsePair(cut, OPTS);
    expect(pair.incomplete).toBe(true);
    expect(pair.elements.map((e) => e.ref)).toEqual(['e1', 'e2', 'e3']);
    expect(pair.skipped).toBe(1);
  });

  it('reads a file cut in its header without a tree', () => {
    const pair = parsePair(text.slice(0, 30), OPTS);
    expect(pair.elements).toEqual([]);
    expect(pair.incomplete).toBe(true);
  });

  it('skips a malformed line and counts it', () => {
    const lines = text.split('\n');
    const at = lines.findIndex((l) => l.includes(' e3 '));
    lines.splice(
      at,
      0,
      '  [AXButton "unterminated e9 x:1 y:2 w:3 h:4',
      '  garbage ~~~',
      '  [AXLabel] "ok" e7 x:zz',
    );
    const pair = parsePair(lines.join('\n'), OPTS);
    expect(pair.skipped).toBe(3);
    expect(pair.elements.map((e) => e.ref)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    expect(pair.elements[2].line).toBe(at + 4);
  });

  it('reads nothing as elements outside tree sections (marks legend, results)', () => {
    const withAppendix =
      text +
      '# marks: /tmp/x.png  (1 boxes; legend: number ref role "text")\n1 e2 AXButton "Open"\n';
    const pair = parsePair(withAppendix, OPTS);
    expect(pair.elements).toHaveLength(5);
    expect(pair.skipped).toBeUndefined();
  });

  it('survives random bytes', () => {
    const next = rng(3);
    for (let n = 0; n < 50; n++) {
      const junk =
        '# tree\n' + randomText(next, 400) + '\n# diff: +1\n+ ' + randomText(next, 80) + '\n';
      expect(() => parsePair(junk, OPTS)).not.toThrow();
    }
  });
});

describe('parseElementLine and parseHeaderLine', () => {
  it('reads ids, actions and partial children', () => {
    const el = parseElementLine(
      '[AXGroup (panel)] "" desc:"a b" e4 x:0 y:-5 w:10 h:10 visible id:"my id" actions:click,press children:2/9',
    );
    expect(el).toEqual({
      ref: 'e4',
      role: 'AXGroup',
      nativeRole: 'panel',
      description: 'a b',
      states: ['visible'],
      box: { x: 0, y: -5, w: 10, h: 10 },
      id: 'my id',
    });
  });

  it('splits on two spaces outside quotes only', () => {
    expect(parseHeaderLine('app: a  pid: 1  window: "x  y: z"  tool: t')).toEqual([
      ['app', 'a'],
      ['pid', '1'],
      ['window', '"x  y: z"'],
      ['tool', 't'],
    ]);
  });
});
