import { describe, expect, it } from 'vitest';
import type { TextChange, TreeDiff } from '../../src/model/diff.js';
import {
  SUMMARY_MAX_BYTES,
  appSwitchFacts,
  collectTextChanges,
  diffCounts,
  pickHintRole,
  renderSummary,
  selectVisibleElements,
  summaryShape,
  viewFacts,
  type SummaryInput,
  type VisibleItem,
} from '../../src/summary/index.js';
import { clipAdvice } from '../../src/summary/render.js';
import { renderTreeFile } from '../../src/tree/index.js';
import {
  bigSnapshot,
  buildSnapshot,
  randomText,
  rng,
  viewOf,
  type Spec,
} from './helpers/synthetic.js';
import { SUMMARY_LINE_ORDER } from './helpers/summary-order.js';

const FILE = '/tmp/axpage-1000/1763790000123_click.txt';
const PNG = '/tmp/axpage-1000/1763790000123_click.png';

const ORDER = SUMMARY_LINE_ORDER;

function keysOf(text: string): string[] {
  return (
    text
      .split('\n')
      .filter((l) => !l.startsWith('  '))
      .map((l) => l.slice(0, l.indexOf(':')))
      // route, delivery and effect share one line, led by whichever is present.
      .map((k) => (k === 'delivery' || k === 'effect' ? 'route' : k))
  );
}

function item(
  i: number,
  kind: VisibleItem['kind'] = 'interactive',
  text = `Item ${i}`,
): VisibleItem {
  return {
    index: i,
    role: kind === 'text' ? 'AXStaticText' : 'AXButton',
    text,
    ref: `e${i}`,
    frame: { x: i, y: 2 * i, w: 80, h: 30 },
    kind,
  };
}

function full(): SummaryInput {
  return {
    status: 'success',
    pid: 12837,
    app: 'gtk3-widget-factory',
    window: 'Font',
    dialog: { role: 'AXDialog', title: 'Font' },
    file: FILE,
    fileSize: 20480,
    elements: 261,
    truncated: 'max elements 5000',
    hintRole: 'AXButton',
    screenshot: PNG,
    error: 'something odd',
    did: 'Clicked [AXButton] "Open" e42',
    changes: { added: 2, removed: 0, modified: 3, moved: 1 },
    action: {
      route: 'ax',
      delivery: 'background',
      effect: 'confirmed',
      escalation: { recommended: 'foreground', reason: 'no AT-SPI action' },
    },
    answer: { key: 'matches', elements: [item(7)], omitted: 2 },
    stateChanges: [
      {
        role: 'AXCheckBox',
        label: 'Bold',
        ref: 'e9',
        changes: [{ old: 'unchecked', new: 'checked' }],
      },
    ],
    textChanges: [
      { role: 'AXTextField', label: 'Name', ref: 'e12', old: 'Hello', new: 'Hello world' },
    ],
    visible: { items: [item(42)], omitted: 0 },
    unchanged: { count: 34, since: '1763790000001_get_tree.txt' },
    appSwitch: {
      name: 'zenity',
      pid: 18059,
      elements: 12,
      visibleCount: 9,
      visible: { items: [item(100)], omitted: 0 },
    },
  };
}

describe('renderSummary: lines and order', () => {
  it('renders every line in its fixed order', () => {
    const { text } = renderSummary(full());
    expect(text).toBe(
      [
        'status: success',
        'pid: 12837',
        'app: gtk3-widget-factory',
        'window: "Font"',
        'dialog: AXDialog "Font" (viewport scoped to dialog bounds)',
        `file: ${FILE}`,
        'file_size: 20480 bytes (261 elements, truncated: max elements 5000)',
        `hint: grep -n 'AXButton' '${FILE}'  # search by role or text`,
        `screenshot: ${PNG}`,
        'error: something odd',
        'summary: Clicked [AXButton] "Open" e42. 2 added, 0 removed, 3 modified (1 moved).',
        'route: ax delivery: background effect: confirmed',
        'escalation: foreground (no AT-SPI action)',
        'matches:',
        '  [AXButton] "Item 7" e7 (7,14 80x30)',
        '  (+2 more in file)',
        'state_changes:',
        '  [AXCheckBox] "Bold" e9: unchecked -> checked',
        'text_changes:',
        `  [AXTextField] "Name" e12: 'Hello' -> 'Hello world'`,
        'visible_elements:',
        '  [AXButton] "Item 42" e42 (42,84 80x30)',
        '  (+34 unchanged since 1763790000001_get_tree.txt)',
        'app_switch: zenity (PID: 18059) is now frontmost',
        'app_switch_elements: 12 total, 9 visible',
        'app_switch_visible_elements:',
        '  [AXButton] "Item 100" e100 (100,200 80x30)',
      ].join('\n'),
    );
    expect(keysOf(text)).toEqual(ORDER);
  });

  it('leaves out every line that does not apply', () => {
    const { text, structured } = renderSummary({ status: 'error', error: 'no desktop' });
    expect(text).toBe('status: error\nerror: no desktop');
    expect(structured).toEqual({ status: 'error', error: 'no desktop' });
  });

  it('keeps the order for every subset of lines', () => {
    const next = rng(21);
    const base = full();
    const optional = Object.keys(base).filter((k) => k !== 'status') as Array<keyof SummaryInput>;
    for (let round = 0; round < 200; round++) {
      const input: SummaryInput = { status: 'success' };
      for (const k of optional) {
        if (next() < 0.5) (input as unknown as Record<string, unknown>)[k] = base[k];
      }
      const keys = keysOf(renderSummary(input).text);
      const ranks = keys.map((k) => ORDER.indexOf(k));
      expect(ranks.every((r) => r >= 0)).toBe(true);
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    }
  });

  it('says "No changes." for an action that changed nothing, and omits zero moves', () => {
    const none = renderSummary({
      status: 'success',
      did: 'Pressed Return',
      changes: { added: 0, removed: 0, modified: 0, moved: 0 },
    });
    expect(none.text).toContain('summary: Pressed Return. No changes.');
    const some = renderSummary({
      status: 'success',
      did: 'Typed.',
      changes: { added: 1, removed: 2, modified: 3, moved: 0 },
    });
    expect(some.text).toContain('summary: Typed. 1 added, 2 removed, 3 modified.');
  });

  it('reports a missing screenshot with its reason', () => {
    const r = renderSummary({ status: 'success', screenshotError: 'capture timed out' });
    expect(r.text).toBe('status: success\nscreenshot: none (capture timed out)');
    expect(r.structured.screenshot_error).toBe('capture timed out');
  });

  it('shell-quotes the file in the hint and leaves the hint out when there is no role', () => {
    const file = "/tmp/it's here/1_click.txt";
    const r = renderSummary({ status: 'success', file, hintRole: 'AXCheckBox' });
    expect(r.text).toContain(
      `hint: grep -n 'AXCheckBox' '/tmp/it'\\''s here/1_click.txt'  # search by role or text`,
    );
    expect(renderSummary({ status: 'success', file, hintRole: null }).text).not.toContain('hint:');
  });

  it('escapes newlines in every text value', () => {
    const r = renderSummary({
      status: 'error',
      app: 'bad\napp',
      error: 'line1\nline2\r\u2028x',
      did: 'Typed "a\nb"',
      dialog: { role: 'AXDialog', title: 'T\n"q"' },
      textChanges: [{ role: 'AXTextArea', label: 'L\n', ref: 'e1', old: 'a\nb', new: "a\nb'c" }],
      visible: { items: [item(1, 'interactive', 'x\ny')], omitted: 0 },
    });
    const lines = r.text.split('\n');
    expect(lines).toContain('app: bad\\napp');
    expect(lines).toContain('error: line1\\nline2\\r\\u2028x');
    expect(lines).toContain('dialog: AXDialog "T\\n\\"q\\"" (viewport scoped to dialog bounds)');
    expect(lines).toContain(`  [AXTextArea] "L\\n" e1: 'a\\nb' -> 'a\\nb\\'c'`);
    expect(lines).toContain('  [AXButton] "x\\ny" e1 (1,2 80x30)');
    expect(r.text).not.toMatch(/[\r\u2028\u2029]/);
  });

  it('caps text values at about 60 characters with …', () => {
    const r = renderSummary({
      status: 'success',
      app: 'A'.repeat(200),
      visible: { items: [item(1, 'interactive', 'B'.repeat(200))], omitted: 0 },
    });
    expect(r.text).toContain(`app: ${'A'.repeat(59)}…\n`);
    expect(r.text).toContain(`"${'B'.repeat(59)}…"`);
    expect(r.structured.app).toBe('A'.repeat(59) + '…');
  });
});

describe('renderSummary: caps and "+N more"', () => {
  it('cuts a long error in the middle, so the next step at its end stays', () => {
    const facts = 'connect ECONNREFUSED /tmp/x/bus_92,guid=f631357b83; '.repeat(20);
    const step = 'Check that at-spi-bus-launcher is running in this session';
    const r = renderSummary({ status: 'error', error: `the bus is gone (${facts}). ${step}` });
    const line = r.text.split('\n').find((l) => l.startsWith('error: ')) ?? '';
    expect(line).toContain('…');
    expect(line.startsWith('error: the bus is gone')).toBe(true);
    expect(line.endsWith(step)).toBe(true);
  });

  it('shows at most 3 text changes and counts the rest', () => {
    const changes: TextChange[] = Array.from({ length: 7 }, (_, i) => ({
      role: 'AXTextField',
      label: `F${i}`,
      ref: `e${i}`,
      old: `${i}`,
      new: `${i + 1}`,
    }));
    const r = renderSummary({ status: 'success', textChanges: changes });
    const lines = r.text.split('\n');
    expect(lines.slice(1)).toEqual([
      'text_changes:',
      `  [AXTextField] "F0" e0: '0' -> '1'`,
      `  [AXTextField] "F1" e1: '1' -> '2'`,
      `  [AXTextField] "F2" e2: '2' -> '3'`,
      '  (+4 more in file)',
    ]);
    expect(r.structured.text_changes).toHaveLength(3);
    expect(r.structured.text_changes_omitted).toBe(4);
  });

  it('caps each side of a text change around the changed span', () => {
    const base = 'The quick brown fox jumps over the lazy dog. '.repeat(10);
    const r = renderSummary({
      status: 'success',
      textChanges: [
        { role: 'AXTextArea', label: 'Body', ref: 'e5', old: base + 'END', new: base + 'FINISH' },
      ],
    });
    const line = r.text.split('\n')[2];
    expect(line).toMatch(/^ {2}\[AXTextArea\] "Body" e5: '….*END' -> '….*FINISH'$/);
    const [, oldSide, newSide] = /: '(.*)' -> '(.*)'$/.exec(line)!;
    expect([...oldSide].length).toBeLessThanOrEqual(60);
    expect([...newSide].length).toBeLessThanOrEqual(60);
  });

  it('applies 30 interactive + 10 text caps to any selection and says how many more', () => {
    const items = [
      ...Array.from({ length: 50 }, (_, i) => item(i + 1)),
      ...Array.from({ length: 20 }, (_, i) => item(i + 100, 'text')),
    ];
    const r = renderSummary({ status: 'success', visible: { items, omitted: 5 } });
    const lines = r.text.split('\n');
    const body = lines.slice(lines.indexOf('visible_elements:') + 1);
    expect(body.filter((l) => l.includes('[AXButton]'))).toHaveLength(30);
    expect(body.filter((l) => l.includes('[AXStaticText]'))).toHaveLength(10);
    expect(body[body.length - 1]).toBe('  (+35 more in file)');
    expect(r.structured.visible_elements).toHaveLength(40);
    expect(r.structured.visible_elements_omitted).toBe(35);
  });

  it('lists changed elements first, then the rest in tree order', () => {
    const a = item(5);
    const b = { ...item(2), change: 'added' as const };
    const c = item(1, 'text', 'label');
    const r = renderSummary({ status: 'success', visible: { items: [b, a, c], omitted: 0 } });
    expect(r.text.split('\n').slice(2)).toEqual([
      '  [AXButton] "Item 2" e2 (2,4 80x30) added',
      '  [AXStaticText] "label" e1 (1,2 80x30)',
      '  [AXButton] "Item 5" e5 (5,10 80x30)',
    ]);
    expect(r.structured.visible_elements?.[0].change).toBe('added');
  });

  it('renders app_switch lines with the same caps', () => {
    const items = Array.from({ length: 45 }, (_, i) => item(i + 1));
    const r = renderSummary({
      status: 'success',
      appSwitch: {
        name: 'zenity',
        pid: 18059,
        elements: 60,
        visibleCount: 50,
        visible: { items, omitted: 0 },
      },
    });
    const lines = r.text.split('\n');
    expect(lines[1]).toBe('app_switch: zenity (PID: 18059) is now frontmost');
    expect(lines[2]).toBe('app_switch_elements: 60 total, 50 visible');
    expect(lines[3]).toBe('app_switch_visible_elements:');
    expect(lines.filter((l) => l.startsWith('  [AXButton]'))).toHaveLength(30);
    expect(lines[lines.length - 1]).toBe('  (+15 more in file)');
    expect(r.structured.app_switch).toMatchObject({
      name: 'zenity',
      pid: 18059,
      elements: 60,
      visible: 50,
      visible_elements_omitted: 15,
    });
  });
});

describe('renderSummary: the byte cap', () => {
  function assertCapped(text: string): void {
    expect(Buffer.byteLength(text, 'utf8')).toBeLessThanOrEqual(SUMMARY_MAX_BYTES);
    expect(text).not.toMatch(/[\n]\n|[\r\u2028\u2029\u0085]/);
  }

  it('holds on a 5000-element tree with huge names, shrinking lists and saying so', () => {
    const s = bigSnapshot(5000, { nameLength: 2000, seed: 4 });
    const view = viewOf(s);
    const file = renderTreeFile({ tool: 'ax_get_tree', view, screenshot: PNG });
    const facts = viewFacts(view);
    const r = renderSummary({
      status: 'success',
      ...facts,
      file: FILE,
      fileSize: Buffer.byteLength(file, 'utf8'),
      screenshot: PNG,
      did: 'Read the tree',
    });
    assertCapped(r.text);
    const lines = r.text.split('\n');
    // Nothing cut silently: the visible list says how many it left out, and that count
    // plus what it shows is every candidate the selection found.
    const shown = lines.filter((l) => /^ {2}\[/.test(l)).length;
    const more = /^ {2}\(\+(\d+) more in file\)$/.exec(lines[lines.length - 1]);
    expect(more).not.toBeNull();
    expect(shown + Number(more![1])).toBe(facts.visible.items.length + facts.visible.omitted);
    expect(r.structured.visible_elements).toHaveLength(shown);
    expect(r.structured.visible_elements_omitted).toBe(Number(more![1]));
    expect(lines[0]).toBe('status: success');
    expect(lines).toContain(`file: ${FILE}`);
    expect(summaryShape.parse(r.structured)).toEqual(r.structured);
  });

  it('keeps whole lines: every element line is complete or absent', () => {
    const items = Array.from({ length: 40 }, (_, i) => item(i, 'interactive', '😀'.repeat(100)));
    const r = renderSummary({
      status: 'success',
      file: FILE,
      visible: { items: items.slice(0, 30), omitted: 0 },
      appSwitch: {
        name: 'z',
        pid: 1,
        elements: 40,
        visibleCount: 40,
        visible: { items, omitted: 0 },
      },
    });
    assertCapped(r.text);
    for (const l of r.text.split('\n').filter((x) => x.startsWith('  ['))) {
      expect(l).toMatch(/^ {2}\[AXButton\] "(😀)+…" e\d+ \(\d+,\d+ 80x30\)$/);
    }
  });

  it('shrinks the lists before it cuts any text', () => {
    const items = Array.from({ length: 40 }, (_, i) =>
      item(i, i < 30 ? 'interactive' : 'text', 'x'.repeat(58)),
    );
    const error = 'E'.repeat(390);
    const r = renderSummary({ status: 'error', error, file: FILE, visible: { items, omitted: 0 } });
    assertCapped(r.text);
    const lines = r.text.split('\n');
    // The error fits at the first level, so it is whole; the list paid for it.
    expect(lines).toContain(`error: ${error}`);
    const shown = lines.filter((l) => l.startsWith('  [')).length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(40);
    expect(lines[lines.length - 1]).toBe(`  (+${40 - shown} more in file)`);
    // The lowest-ranked items went first: the kept ones are a prefix of the rank order.
    expect(r.structured.visible_elements!.map((v) => v.ref)).toEqual(
      items.slice(0, shown).map((i) => i.ref),
    );
  });

  it('cuts text, paths last, when the lists alone cannot make room', () => {
    const r = renderSummary({
      status: 'error',
      error: 'E'.repeat(5000),
      did: 'A'.repeat(5000),
      action: {
        route: 'xtest',
        delivery: 'foreground',
        effect: 'unverifiable',
        escalation: { recommended: 'foreground', reason: 'R'.repeat(5000) },
      },
      file: '/tmp/' + 'd/'.repeat(700) + 'f.txt',
      screenshot: '/tmp/' + 'd/'.repeat(700) + 'f.png',
      visible: { items: Array.from({ length: 30 }, (_, i) => item(i)), omitted: 0 },
    });
    assertCapped(r.text);
    const lines = r.text.split('\n');
    expect(lines.find((l) => l.startsWith('error: '))).toMatch(/^error: E+…E+$/);
    expect(lines.find((l) => l.startsWith('file: '))).toMatch(/^file: \/tmp\/.*….*f\.txt$/);
    // Whatever is listed is counted: shown + "+N more" is all 30.
    const shown = lines.filter((l) => l.startsWith('  [')).length;
    const more = shown === 30 ? 0 : Number(/\(\+(\d+) more/.exec(r.text)![1]);
    expect(shown + more).toBe(30);
    // The hint needs the whole path: with a cut path it is left out, not wrong.
    expect(r.text).not.toContain('hint:');
    // Structured keeps the full facts.
    expect(r.structured.file).toContain('d/'.repeat(700));
  });

  it('keeps the cap even when every line is absurd', () => {
    const huge = '/' + '日'.repeat(20000);
    const r = renderSummary({
      status: 'success',
      pid: 1,
      app: huge,
      dialog: { role: huge, title: huge },
      file: huge,
      fileSize: 1,
      elements: 1,
      truncated: huge,
      hintRole: huge,
      screenshot: huge,
      error: huge,
      did: huge,
      action: {
        route: huge,
        delivery: huge,
        effect: huge,
        escalation: { recommended: huge, reason: huge },
        settleMs: 1e12,
      },
    });
    assertCapped(r.text);
    expect(r.text.startsWith('status: success\npid: 1\n')).toBe(true);
  });

  it('holds on random inputs of any size', () => {
    const next = rng(99);
    for (let round = 0; round < 150; round++) {
      const big = () => randomText(next, Math.floor(next() ** 3 * 3000));
      const items = (n: number) =>
        Array.from({ length: n }, (_, i) => ({
          ...item(i, next() < 0.7 ? 'interactive' : 'text', big()),
          role: big() || 'AXButton',
          ref: big(),
          ...(next() < 0.3 ? { change: 'modified' as const } : {}),
        }));
      const input: SummaryInput = {
        status: next() < 0.5 ? 'success' : 'error',
        pid: Math.floor(next() * 1e6),
        app: big(),
        dialog: next() < 0.5 ? { role: big(), title: big() } : null,
        file: '/tmp/' + big(),
        fileSize: Math.floor(next() * 1e9),
        elements: Math.floor(next() * 1e5),
        truncated: next() < 0.5 ? big() : null,
        hintRole: big(),
        screenshot: next() < 0.5 ? '/tmp/' + big() : undefined,
        screenshotError: big(),
        error: next() < 0.5 ? big() : undefined,
        did: big(),
        changes: { added: 1, removed: 2, modified: 3, moved: 1 },
        action:
          next() < 0.7
            ? {
                route: big(),
                delivery: big(),
                effect: big(),
                escalation: next() < 0.5 ? { recommended: big(), reason: big() } : null,
              }
            : undefined,
        textChanges: Array.from({ length: Math.floor(next() * 6) }, () => ({
          role: big(),
          label: big(),
          ref: big(),
          old: big(),
          new: big(),
        })),
        visible: { items: items(Math.floor(next() * 60)), omitted: Math.floor(next() * 100) },
        appSwitch:
          next() < 0.5
            ? {
                name: big(),
                pid: 1,
                elements: 5,
                visibleCount: 3,
                visible: { items: items(Math.floor(next() * 60)), omitted: 0 },
              }
            : null,
      };
      const r = renderSummary(input);
      assertCapped(r.text);
      expect(r.text.startsWith(`status: ${input.status}`)).toBe(true);
      expect(summaryShape.safeParse(r.structured).success).toBe(true);
      // Deterministic.
      expect(renderSummary(input).text).toBe(r.text);
    }
  });
});

describe('selectVisibleElements', () => {
  function appWith(children: Spec[]): Spec[] {
    return [
      { role: 'AXWindow', name: 'W', frame: [0, 0, 1000, 800], window: { active: true }, children },
    ];
  }

  it('uses an exact interactive role set: AXTable and AXTabGroup are not tabs', () => {
    const s = buildSnapshot(
      appWith([
        { role: 'AXTable', name: 'Files', frame: [0, 0, 500, 500] },
        { role: 'AXTabGroup', name: 'Tabs', frame: [0, 0, 500, 30] },
        { role: 'AXTab', name: 'General', frame: [0, 0, 80, 30] },
        { role: 'AXButtonGroup', name: 'not a button', frame: [0, 40, 80, 30] },
        { role: 'AXButton', name: 'OK', frame: [0, 80, 80, 30] },
        { role: 'AXGroup', name: 'Panel', frame: [0, 120, 80, 30] },
        { role: 'AXStaticText', name: 'Hello', frame: [0, 160, 80, 30] },
        { role: 'AXStaticText', name: '  ', frame: [0, 200, 80, 30] },
      ]),
    );
    const sel = selectVisibleElements(viewOf(s));
    expect(sel.items.map((i) => `${i.role}:${i.text}`)).toEqual([
      'AXTab:General',
      'AXButton:OK',
      'AXStaticText:Hello',
    ]);
    expect(sel.omitted).toBe(0);
  });

  it('skips invisible elements and ranks changed, focused, controls, items, unlabeled', () => {
    const s = buildSnapshot(
      appWith([
        { role: 'AXCell', name: 'cell', frame: [0, 0, 50, 20] },
        { role: 'AXButton', name: '', frame: [0, 30, 50, 20] },
        { role: 'AXButton', name: 'control', frame: [0, 60, 50, 20] },
        { role: 'AXTextField', name: 'focused', frame: [0, 90, 50, 20], flags: ['focused'] },
        { role: 'AXButton', name: 'new', frame: [0, 120, 50, 20] },
        { role: 'AXButton', name: 'hidden', frame: [2000, 0, 50, 20] },
        { role: 'AXCell', name: '', frame: [0, 150, 50, 20] },
      ]),
    );
    const diff: TreeDiff = { added: [5], removed: [], modified: [], matchOf: new Int32Array(8) };
    const sel = selectVisibleElements(viewOf(s), { diff });
    expect(sel.items.map((i) => i.text)).toEqual(['new', 'focused', 'control', 'cell', '']);
    expect(sel.items[0].change).toBe('added');
    const capped = selectVisibleElements(viewOf(s), { diff, maxInteractive: 2 });
    expect(capped.items.map((i) => i.text)).toEqual(['new', 'focused']);
    expect(capped.omitted).toBe(3);
  });

  it('does not count a move as a change', () => {
    const s = buildSnapshot(appWith([{ role: 'AXButton', name: 'a', frame: [0, 0, 50, 20] }]));
    const diff: TreeDiff = {
      added: [],
      removed: [],
      modified: [
        {
          before: 1,
          after: 1,
          changes: [{ field: 'frame', old: '0,10 50x20', new: '0,0 50x20' }],
          moved: true,
        },
      ],
      matchOf: new Int32Array(2),
    };
    expect(selectVisibleElements(viewOf(s), { diff }).items[0].change).toBeUndefined();
  });

  it('masks secure text', () => {
    const s = buildSnapshot(
      appWith([{ role: 'AXTextField', value: 'pw', flags: ['secure'], frame: [0, 0, 50, 20] }]),
    );
    expect(selectVisibleElements(viewOf(s)).items[0].text).toBe('•••');
  });
});

describe('collectTextChanges', () => {
  const mk = (name: string, value: string, flags: Spec['flags'] = []) =>
    buildSnapshot([
      {
        role: 'AXWindow',
        name: 'W',
        frame: [0, 0, 100, 100],
        window: { active: true },
        children: [
          { role: 'AXStaticText', name: 'status', frame: [0, 0, 10, 10] },
          { role: 'AXTextField', name, value, flags, frame: [0, 20, 10, 10] },
        ],
      },
    ]);

  it('gives full old/new strings, values before names', () => {
    const before = mk('Name', 'Hello');
    const after = mk('Name', 'Hello world');
    before.elements[1].name = 'Count: 1';
    after.elements[1].name = 'Count: 2';
    const diff: TreeDiff = {
      added: [],
      removed: [],
      modified: [
        {
          before: 1,
          after: 1,
          changes: [{ field: 'name', old: 'Count: 1', new: 'Count: 2' }],
          moved: false,
        },
        {
          before: 2,
          after: 2,
          changes: [{ field: 'value', old: 'Hello', new: 'Hello world' }],
          moved: false,
        },
      ],
      matchOf: new Int32Array(3),
    };
    expect(collectTextChanges(diff, before, after, ['e1', 'e2', 'e3'])).toEqual([
      { role: 'AXTextField', label: 'Name', ref: 'e3', old: 'Hello', new: 'Hello world' },
      { role: 'AXStaticText', label: '', ref: 'e2', old: 'Count: 1', new: 'Count: 2' },
    ]);
  });

  it("ranks the acted element's change, then a document's, before the rest", () => {
    // A Replace All dialog's search boxes come first in the tree; the document is the effect.
    const mkDoc = (find: string, doc: string) =>
      buildSnapshot([
        {
          role: 'AXWindow',
          name: 'Replace',
          frame: [0, 0, 100, 100],
          window: { active: true },
          children: [
            { role: 'AXTextField', name: 'Search for', value: find, frame: [0, 0, 10, 10] },
            { role: 'AXTextField', name: 'Replace with', value: find, frame: [0, 20, 10, 10] },
            { role: 'AXStaticText', name: 'status', value: find, frame: [0, 40, 10, 10] },
          ],
        },
        {
          role: 'AXWindow',
          name: 'Editor',
          frame: [0, 0, 300, 300],
          children: [
            {
              role: 'AXTextArea',
              name: '',
              value: doc,
              flags: ['multiline', 'editable'],
              frame: [0, 0, 300, 300],
            },
          ],
        },
      ]);
    const before = mkDoc('a', 'number 42');
    const after = mkDoc('b', 'N42');
    const changed = [1, 2, 3, 5];
    const diff: TreeDiff = {
      added: [],
      removed: [],
      modified: changed.map((i) => ({
        before: i,
        after: i,
        changes: [{ field: 'value' as const, old: 'x', new: 'y' }],
        moved: false,
      })),
      matchOf: new Int32Array(6),
    };
    const refs = ['e0', 'e1', 'e2', 'e3', 'e4', 'e5'];
    expect(collectTextChanges(diff, before, after, refs).map((c) => c.ref)).toEqual([
      'e5',
      'e1',
      'e2',
      'e3',
    ]);
    expect(collectTextChanges(diff, before, after, refs, 3).map((c) => c.ref)).toEqual([
      'e3',
      'e5',
      'e1',
      'e2',
    ]);
  });

  it('masks secure values', () => {
    const before = mk('Password', 'abc', ['secure']);
    const after = mk('Password', 'abcd', ['secure']);
    const diff: TreeDiff = {
      added: [],
      removed: [],
      modified: [
        {
          before: 2,
          after: 2,
          changes: [{ field: 'value', old: 'abc', new: 'abcd' }],
          moved: false,
        },
      ],
      matchOf: new Int32Array(3),
    };
    const changes = collectTextChanges(diff, before, after, ['e1', 'e2', 'e3']);
    expect(changes).toEqual([
      { role: 'AXTextField', label: 'Password', ref: 'e3', old: '•••', new: '•••' },
    ]);
    expect(
      JSON.stringify(renderSummary({ status: 'success', textChanges: changes })),
    ).not.toContain('abc');
  });
});

describe('hint role, counts and facts', () => {
  it('prefers a visible AXButton, then the commonest visible interactive role, then the commonest role', () => {
    const mk = (children: Spec[]) =>
      viewOf(
        buildSnapshot([
          { role: 'AXWindow', frame: [0, 0, 500, 500], window: { active: true }, children },
        ]),
      );
    expect(
      pickHintRole(
        mk([
          { role: 'AXCheckBox', frame: [0, 0, 10, 10] },
          { role: 'AXCheckBox', frame: [0, 0, 10, 10] },
          { role: 'AXButton', frame: [0, 0, 10, 10] },
        ]),
      ),
    ).toBe('AXButton');
    expect(
      pickHintRole(
        mk([
          { role: 'AXButton', frame: [900, 0, 10, 10] },
          { role: 'AXCheckBox', frame: [0, 0, 10, 10] },
          { role: 'AXLink', frame: [0, 0, 10, 10] },
          { role: 'AXLink', frame: [0, 0, 10, 10] },
        ]),
      ),
    ).toBe('AXLink');
    expect(
      pickHintRole(
        mk([
          { role: 'AXGroup', frame: [0, 0, 10, 10] },
          { role: 'AXGroup', frame: [0, 0, 10, 10] },
          { role: 'AXImage', frame: [0, 0, 10, 10] },
        ]),
      ),
    ).toBe('AXGroup');
    expect(pickHintRole(viewOf(buildSnapshot([])))).toBeNull();
  });

  it('counts the diff, moves included in modified', () => {
    const diff: TreeDiff = {
      added: [1, 2],
      removed: [3],
      modified: [
        { before: 0, after: 0, changes: [], moved: true },
        { before: 4, after: 4, changes: [], moved: false },
      ],
      matchOf: new Int32Array(0),
    };
    expect(diffCounts(diff)).toEqual({ added: 2, removed: 1, modified: 2, moved: 1 });
  });

  it('builds a whole summary from views, with app_switch facts', () => {
    const main = viewOf(
      buildSnapshot(
        [
          {
            role: 'AXWindow',
            name: 'Main',
            frame: [0, 0, 800, 600],
            window: { active: true },
            children: [{ role: 'AXButton', name: 'Launch', frame: [10, 10, 80, 30] }],
          },
        ],
        { app: 'launcher', pid: 300 },
      ),
    );
    const other = viewOf(
      buildSnapshot(
        [
          {
            role: 'AXDialog',
            name: 'Question',
            frame: [300, 200, 300, 150],
            window: { dialog: true, active: true },
            children: [{ role: 'AXButton', name: 'Yes', frame: [400, 300, 60, 25] }],
          },
        ],
        { app: 'zenity', pid: 301 },
      ),
      { refBase: 50 },
    );
    const r = renderSummary({
      status: 'success',
      ...viewFacts(main),
      file: FILE,
      fileSize: 900,
      screenshot: PNG,
      did: 'Clicked [AXButton] "Launch" e2',
      changes: { added: 0, removed: 0, modified: 0, moved: 0 },
      appSwitch: appSwitchFacts(other),
    });
    expect(r.text).toBe(
      [
        'status: success',
        'pid: 300',
        'app: launcher',
        'window: "Main"',
        `file: ${FILE}`,
        'file_size: 900 bytes (2 elements)',
        `hint: grep -n 'AXButton' '${FILE}'  # search by role or text`,
        `screenshot: ${PNG}`,
        'summary: Clicked [AXButton] "Launch" e2. No changes.',
        'visible_elements:',
        '  [AXButton] "Launch" e2 (10,10 80x30)',
        'app_switch: zenity (PID: 301) is now frontmost',
        'app_switch_elements: 2 total, 2 visible',
        'app_switch_visible_elements:',
        '  [AXButton] "Yes" e51 (400,300 60x25)',
      ].join('\n'),
    );
    expect(summaryShape.parse(r.structured)).toEqual(r.structured);
    expect(r.structured).toMatchObject({
      pid: 300,
      app: 'launcher',
      file_size: 900,
      elements: 2,
      summary: 'Clicked [AXButton] "Launch" e2. No changes.',
      changes: { added: 0, removed: 0, modified: 0, moved: 0 },
      visible_elements: [
        { role: 'AXButton', text: 'Launch', ref: 'e2', x: 10, y: 10, w: 80, h: 30 },
      ],
      app_switch: { name: 'zenity', pid: 301, elements: 2, visible: 2 },
    });
  });

  it('lets tools extend the structured schema', () => {
    const extended = summaryShape.extend({ matches: summaryShape.shape.elements });
    expect(extended.parse({ status: 'success', matches: 3 })).toEqual({
      status: 'success',
      matches: 3,
    });
  });
});

describe('renderSummary from views', () => {
  const mk = (value: string, extra: Spec[] = []) =>
    buildSnapshot(
      [
        {
          role: 'AXWindow',
          name: 'Editor',
          frame: [0, 0, 800, 600],
          window: { active: true },
          children: [
            { role: 'AXTextField', name: 'Name', value, frame: [10, 10, 200, 24] },
            { role: 'AXButton', name: 'Save', frame: [10, 50, 80, 30] },
            ...extra,
          ],
        },
      ],
      { app: 'editor', pid: 55 },
    );

  it('derives counts, text changes and changed-first ranking from the diff', () => {
    const before = viewOf(mk('Hello'));
    const after = viewOf(
      mk('Hello world', [{ role: 'AXStaticText', name: 'Saved!', frame: [10, 90, 80, 20] }]),
    );
    const diff: TreeDiff = {
      added: [3],
      removed: [],
      modified: [
        {
          before: 1,
          after: 1,
          changes: [{ field: 'value', old: 'Hello', new: 'Hello world' }],
          moved: false,
        },
      ],
      matchOf: new Int32Array([0, 1, 2, -1]),
    };
    const r = renderSummary({
      status: 'success',
      tool: 'ax_type',
      view: after,
      diff: { diff, before },
      file: FILE,
      fileSize: 1234,
      screenshot: PNG,
      did: 'Typed into [AXTextField] "Name" e2',
      action: {
        route: 'ax',
        delivery: 'background',
        effect: 'confirmed',
        actMs: 3,
        settleMs: 41.6,
        settleReason: 'quiet',
      },
    });
    expect(r.text).toBe(
      [
        'status: success',
        'pid: 55',
        'app: editor',
        'window: "Editor"',
        `file: ${FILE}`,
        'file_size: 1234 bytes (4 elements)',
        `hint: grep -n 'AXButton' '${FILE}'  # search by role or text`,
        `screenshot: ${PNG}`,
        'summary: Typed into [AXTextField] "Name" e2. 1 added, 0 removed, 1 modified.',
        'route: ax delivery: background effect: confirmed',
        'text_changes:',
        `  [AXTextField] "Name" e2: 'Hello' -> 'Hello world'`,
        'visible_elements:',
        '  [AXTextField] "Name" e2 (10,10 200x24) =\'Hello world\' modified',
        '  [AXStaticText] "Saved!" e4 (10,90 80x20) added',
        '  [AXButton] "Save" e3 (10,50 80x30)',
      ].join('\n'),
    );
    expect(r.structured.settle_ms).toBe(42);
    expect(r.structured.changes).toEqual({ added: 1, removed: 0, modified: 1, moved: 0 });
    expect(r.structured.text_changes).toEqual([
      { role: 'AXTextField', label: 'Name', ref: 'e2', old: 'Hello', new: 'Hello world' },
    ]);
    expect(summaryShape.parse(r.structured)).toEqual(r.structured);
  });

  it("ranks find results first for the visible list's cap, listed in tree order", () => {
    const kids: Spec[] = Array.from({ length: 40 }, (_, i) => ({
      role: 'AXButton',
      name: `B${i}`,
      frame: [0, i * 10, 50, 10],
    }));
    const view = viewOf(mk('x', kids));
    const r = renderSummary({
      status: 'success',
      view,
      results: { title: 'name~B39', indices: [42] },
    });
    const items = r.structured.visible_elements!;
    // Ranked first for the cap of 30: B39 is in, the 12 left out are the plain B27..B38
    // before it; the list itself keeps tree order.
    expect(items.map((i) => i.text)).toEqual([
      'Name',
      'Save',
      ...Array.from({ length: 27 }, (_, i) => `B${i}`),
      'B39',
    ]);
    expect(r.structured.visible_elements_omitted).toBe(12);
  });

  it('lets explicit facts override the view', () => {
    const r = renderSummary({
      status: 'success',
      view: viewOf(mk('x')),
      app: 'Alias',
      hintRole: null,
    });
    expect(r.text).toContain('app: Alias');
    expect(r.text).not.toContain('hint:');
  });
});

describe('clipAdvice: advice cut short ends at a word', () => {
  const reason =
    'nothing changed in the app, read back after a wait (an action with no visible effect may still have landed: check before repeating it)';

  it('never ends inside a word', () => {
    for (const max of [20, 30, 60, 100, 120]) {
      const out = clipAdvice(reason, max);
      expect(out.endsWith('…')).toBe(true);
      const kept = out.slice(0, -1);
      expect(reason.startsWith(kept), out).toBe(true);
      // What follows the kept part in the advice starts no word inside it.
      expect(reason.slice(kept.length), out).toMatch(/^[\s,;:()]/);
      expect([...out].length).toBeLessThanOrEqual(max);
    }
  });

  it('leaves advice that fits as it is', () => {
    expect(clipAdvice('check before repeating it', 60)).toBe('check before repeating it');
  });
});
