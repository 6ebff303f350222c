import { describe, expect, it } from 'vitest';
import { attributeLines, windowLine } from '../../src/tools/answers.js';
import { renderSummary } from '../../src/summary/index.js';
import { parseSummary } from '../../src/harness/summary-parse.js';
import { buildSnapshot, viewOf } from './helpers/synthetic.js';

describe('read answers in the summary', () => {
  it('a window line says index, title, role, ref, pid, frame and marks', () => {
    const view = viewOf(
      buildSnapshot(
        [
          {
            role: 'AXDialog',
            name: 'Save As',
            frame: [100, 80, 400, 300],
            window: { dialog: true, modal: true, active: true },
          },
          { role: 'AXWindow', name: 'Editor', frame: [0, 0, 800, 600], window: {} },
        ],
        { pid: 812 },
      ),
    );
    const lines = view.snapshot.windows.map((w, i) => windowLine(view, w, i));
    expect(lines).toEqual([
      '0: "Save As" [AXDialog] e1 pid 812 (100,80 400x300) active modal dialog',
      '1: "Editor" [AXWindow] e2 pid 812 (0,0 800x600)',
    ]);
  });

  it('a window the backend could not place says why, not "minimized"', () => {
    const view = viewOf(
      buildSnapshot([{ role: 'AXWindow', name: 'About', flags: ['offscreen'], window: {} }], {
        pid: 812,
      }),
    );
    const w = { ...view.snapshot.windows[0], unplaced: 'no window of its process titled "About"' };
    expect(windowLine(view, w, 0)).toBe(
      '0: "About" [AXWindow] e1 pid 812 (not placed: no window of its process titled "About")',
    );
    expect(windowLine(view, { ...w, unplaced: undefined }, 0)).toMatch(/\(no frame\) minimized$/);
  });

  it('attributes fit in 10 lines, most useful first, secure value masked as given', () => {
    const lines = attributeLines({
      role: 'AXTextField',
      native_role: 'password text',
      name: 'Password',
      value: '•••',
      frame: { x: 1, y: 2, w: 3, h: 4 },
      visible: true,
      flags: ['enabled', 'secure'],
      actions: ['activate'],
      child_count: 0,
      parent_ref: 'e4',
      children_refs: [],
      platform: { id: ':1.4/obj', role: 'password text' },
    });
    expect(lines).toEqual([
      "role: 'AXTextField (password text)'",
      "name: 'Password'",
      "value: '•••'",
      'frame: (1,2 3x4) visible',
      'states: enabled secure',
      'actions: activate',
      'parent: e4, children: 0',
      'platform: {"id":":1.4/obj","role":"password text"}',
    ]);
  });

  it('renders a value answer quoted and capped, and lines capped with …', () => {
    const s = renderSummary({
      status: 'success',
      answer: { key: 'value', value: 'v'.repeat(500) },
    });
    const value = parseSummary(s.text).fields.value;
    expect(value).toMatch(/^'v+…'$/);
    expect(value.length).toBeLessThanOrEqual(122);
    const l = renderSummary({
      status: 'success',
      answer: { key: 'attributes', lines: ['a'.repeat(300), 'line\nbreak'] },
    });
    const items = parseSummary(l.text).lists.attributes;
    expect(items[0]).toMatch(/^a+…$/);
    expect(items[1]).toBe('line\\nbreak');
  });

  it('lists at most 10 items and counts the rest, with the file', () => {
    const lines = Array.from({ length: 14 }, (_, i) => `${i}: window`);
    const s = parseSummary(
      renderSummary({ status: 'success', answer: { key: 'windows', lines } }).text,
    );
    expect(s.lists.windows).toHaveLength(11);
    expect(s.lists.windows[10]).toBe('(+4 more in file)');
  });
});
