import { describe, expect, it } from 'vitest';
import { parseSummary } from '../../src/harness/summary-parse.js';
import { renderSummary, type SummaryInput, type VisibleItem } from '../../src/summary/index.js';
import { rng } from './helpers/synthetic.js';
import { SUMMARY_LINE_ORDER } from './helpers/summary-order.js';

const FILE = '/tmp/axpage-1000/1763790000123_click.txt';
const PNG = '/tmp/axpage-1000/1763790000123_click.png';

function item(i: number, extra: Partial<VisibleItem> = {}): VisibleItem {
  return {
    index: i,
    role: 'AXButton',
    text: `Item ${i}`,
    ref: `e${i}`,
    frame: { x: i, y: 2 * i, w: 80, h: 30 },
    kind: 'interactive',
    ...extra,
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
    error: 'something odd: really',
    did: 'Clicked [AXButton] "Open" e42',
    changes: { added: 2, removed: 0, modified: 3, moved: 1 },
    action: {
      route: 'ax',
      delivery: 'background',
      effect: 'confirmed',
      escalation: { recommended: 'foreground', reason: 'no AT-SPI action' },
    },
    answer: { key: 'matches', elements: [item(7)] },
    stateChanges: [
      {
        role: 'AXCheckBox',
        label: 'Bold',
        ref: 'e9',
        changes: [
          { old: 'unchecked', new: 'checked' },
          { old: 'disabled', new: 'enabled' },
        ],
      },
    ],
    textChanges: [
      { role: 'AXTextField', label: 'Name', ref: 'e12', old: 'Hello', new: 'Hello world' },
      { role: 'AXLabel', label: 'Status', ref: 'e13', old: 'Idle', new: 'Busy' },
    ],
    visible: { items: [item(42), item(43, { change: 'added' })], omitted: 5 },
    appSwitch: {
      name: 'zenity',
      pid: 18059,
      elements: 12,
      visibleCount: 9,
      visible: { items: [item(100)], omitted: 0 },
    },
  };
}

describe('parseSummary: a rendered summary read back', () => {
  it('reads every field, in order', () => {
    const { text } = renderSummary(full());
    const s = parseSummary(text);
    expect(s.order).toEqual(SUMMARY_LINE_ORDER);
    expect(s.fields).toMatchObject({
      status: 'success',
      pid: '12837',
      app: 'gtk3-widget-factory',
      dialog: 'AXDialog "Font" (viewport scoped to dialog bounds)',
      file: FILE,
      file_size: '20480 bytes (261 elements, truncated: max elements 5000)',
      hint: `grep -n 'AXButton' '${FILE}'  # search by role or text`,
      screenshot: PNG,
      // A colon inside a value stays part of it.
      error: 'something odd: really',
      summary: 'Clicked [AXButton] "Open" e42. 2 added, 0 removed, 3 modified (1 moved).',
      // delivery and effect share the route line.
      route: 'ax delivery: background effect: confirmed',
      escalation: 'foreground (no AT-SPI action)',
      app_switch: 'zenity (PID: 18059) is now frontmost',
      app_switch_elements: '12 total, 9 visible',
    });
    expect(Number(s.fields.pid)).toBe(12837);
  });

  it('reads the indented lines under a list key as its items, in order', () => {
    const s = parseSummary(renderSummary(full()).text);
    expect(Object.keys(s.lists).sort()).toEqual([
      'app_switch_visible_elements',
      'matches',
      'state_changes',
      'text_changes',
      'visible_elements',
    ]);
    expect(s.lists.state_changes).toEqual([
      '[AXCheckBox] "Bold" e9: unchecked -> checked, disabled -> enabled',
    ]);
    expect(s.lists.matches).toEqual(['[AXButton] "Item 7" e7 (7,14 80x30)']);
    expect(s.lists.text_changes).toEqual([
      `[AXTextField] "Name" e12: 'Hello' -> 'Hello world'`,
      `[AXLabel] "Status" e13: 'Idle' -> 'Busy'`,
    ]);
    // Changed items first; the omitted ones are counted on the last line.
    expect(s.lists.visible_elements).toEqual([
      '[AXButton] "Item 43" e43 (43,86 80x30) added',
      '[AXButton] "Item 42" e42 (42,84 80x30)',
      '(+5 more in file)',
    ]);
    expect(s.lists.app_switch_visible_elements).toEqual([
      '[AXButton] "Item 100" e100 (100,200 80x30)',
    ]);
    // A list key's field is empty.
    expect(s.fields.text_changes).toBe('');
  });

  it('gives every text line of the summary back: nothing lost, nothing invented', () => {
    const next = rng(5);
    const base = full();
    const optional = Object.keys(base).filter((k) => k !== 'status') as Array<keyof SummaryInput>;
    for (let round = 0; round < 100; round++) {
      const input: SummaryInput = { status: next() < 0.5 ? 'success' : 'error' };
      for (const k of optional) {
        if (next() < 0.5) (input as unknown as Record<string, unknown>)[k] = base[k];
      }
      const { text } = renderSummary(input);
      const s = parseSummary(text);
      // Rebuild the text from the parse: key lines in order, each followed by its items.
      const rebuilt = s.order.flatMap((key) => [
        key in s.lists ? `${key}:` : `${key}: ${s.fields[key]}`,
        ...(s.lists[key] ?? []).map((line) => `  ${line}`),
      ]);
      expect(rebuilt.join('\n')).toBe(text);
      expect(s.fields.status).toBe(input.status);
    }
  });

  it('keeps escaped text on its line', () => {
    const { text } = renderSummary({
      status: 'error',
      app: 'bad\napp',
      error: 'line1\nline2: x',
      visible: { items: [item(1, { text: 'a\nb' })], omitted: 0 },
    });
    const s = parseSummary(text);
    expect(s.order).toEqual(['status', 'app', 'error', 'visible_elements']);
    expect(s.fields.app).toBe('bad\\napp');
    expect(s.fields.error).toBe('line1\\nline2: x');
    expect(s.lists.visible_elements).toHaveLength(1);
  });

  it('reads an empty value as an empty field, not as a list', () => {
    const { text } = renderSummary({ status: 'success', pid: 9, app: '', elements: 3 });
    expect(text).toBe('status: success\npid: 9\napp: ');
    const s = parseSummary(text);
    expect(s.fields.app).toBe('');
    expect(s.lists).toEqual({});
  });
});

describe('parseSummary: by hand', () => {
  it('ignores lines that are not key lines, and items with no list above them', () => {
    const s = parseSummary(
      [
        '  stray item',
        'status: success',
        'Not A Key: x',
        '(summary cut: 2 more lines; see the file)',
        '',
      ].join('\n'),
    );
    expect(s).toEqual({ fields: { status: 'success' }, lists: {}, order: ['status'] });
  });

  it('ends a list at the next key line', () => {
    const s = parseSummary(['visible_elements:', '  a', '  b', 'app_switch: x', '  c'].join('\n'));
    expect(s.lists).toEqual({ visible_elements: ['a', 'b'] });
    expect(s.fields.app_switch).toBe('x');
    expect(s.order).toEqual(['visible_elements', 'app_switch']);
  });

  it('keeps deeper indentation inside an item', () => {
    const s = parseSummary(['text_changes:', '    indented more'].join('\n'));
    expect(s.lists.text_changes).toEqual(['  indented more']);
  });

  it('reads an empty text as nothing', () => {
    expect(parseSummary('')).toEqual({ fields: {}, lists: {}, order: [] });
  });
});
