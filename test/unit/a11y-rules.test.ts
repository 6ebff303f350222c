/** Each audit rule on synthetic snapshots: it fires on a faulty element and not on a sound one. */
import { describe, expect, it } from 'vitest';
import {
  RULE_IDS,
  RULES,
  countLines,
  countsByRule,
  findingLines,
  runAudit,
  type Pixels,
  type RuleId,
} from '../../src/audit/index.js';
import { buildSnapshot, viewOf, type Spec } from './helpers/synthetic.js';
import type { SnapshotView } from '../../src/model/view.js';

function windowOf(children: Spec[]): SnapshotView {
  return viewOf(
    buildSnapshot([
      {
        role: 'AXWindow',
        name: 'Main',
        frame: [0, 0, 400, 300],
        flags: ['active'],
        window: { active: true, title: 'Main' },
        children,
      },
    ]),
  );
}

/** The refs (of `view`) that `rule` reports. */
function refsFound(view: SnapshotView, rule: RuleId, shot?: { image: Pixels }): string[] {
  const result = runAudit({ view, shot: shot && { image: shot.image, origin: { x: 0, y: 0 } } }, [
    rule,
  ]);
  return result.findings.map((f) => view.refs[f.index]);
}

const button = (name: string, frame: [number, number, number, number], extra: Partial<Spec> = {}) =>
  ({
    role: 'AXButton',
    name,
    frame,
    flags: ['enabled', 'focusable'],
    actions: ['click'],
    ...extra,
  }) satisfies Spec;

describe('the rule table', () => {
  it('has one rule per id, each with a title, WCAG references and a severity', () => {
    expect(RULES.map((r) => r.id)).toEqual([...RULE_IDS]);
    for (const r of RULES) {
      expect(r.title.length).toBeGreaterThan(5);
      expect(r.wcag.length).toBeGreaterThan(0);
      for (const w of r.wcag) expect(w.sc).toMatch(/^\d\.\d\.\d+$/);
      expect(['error', 'warning']).toContain(r.severity);
    }
  });
});

describe('control-name (4.1.2)', () => {
  const view = windowOf([
    button('', [10, 10, 40, 30], { description: 'Delete' }),
    button('Save', [60, 10, 40, 30]),
    { role: 'AXTextField', name: '', frame: [10, 50, 200, 30], flags: ['editable', 'focusable'] },
    { role: 'AXStaticText', name: '', frame: [10, 90, 50, 20] },
  ]);

  it('reports controls without a name, and not named controls or unnamed text', () => {
    expect(refsFound(view, 'control-name')).toEqual(['e2', 'e4']);
  });

  it('says that a description is not a name', () => {
    const lines = findingLines(view, runAudit({ view }, ['control-name']));
    expect(lines[0]).toBe(
      '! control-name e2 [AXButton] "" error: no name (a description "Delete" is not a name)',
    );
  });
});

describe('image-alt (1.1.1)', () => {
  it('reports an unnamed image, not a named one nor an icon inside a named button', () => {
    const view = windowOf([
      { role: 'AXImage', name: '', frame: [10, 10, 48, 48] },
      { role: 'AXImage', name: 'Logo', frame: [60, 10, 48, 48] },
      button('Delete', [10, 70, 40, 30], {
        children: [{ role: 'AXImage', name: '', frame: [14, 74, 16, 16] }],
      }),
    ]);
    expect(refsFound(view, 'image-alt')).toEqual(['e2']);
  });
});

describe('keyboard (2.1.1)', () => {
  it('reports an operable control that cannot take focus, not a disabled one or a part', () => {
    const view = windowOf([
      button('No focus', [10, 10, 80, 30], { flags: ['enabled'] }),
      button('Fine', [100, 10, 80, 30]),
      button('Off', [190, 10, 80, 30], { flags: ['disabled'] }),
      // Reached through its focusable entry.
      {
        role: 'AXComboBox',
        name: 'Font',
        frame: [200, 50, 120, 30],
        flags: ['enabled'],
        actions: ['press'],
        children: [
          {
            role: 'AXTextField',
            name: 'Font',
            frame: [200, 50, 90, 30],
            flags: ['editable', 'focusable'],
          },
        ],
      },
      {
        role: 'AXComboBox',
        name: 'Size',
        frame: [10, 50, 120, 30],
        flags: ['enabled', 'focusable'],
        actions: ['press'],
        children: [button('', [100, 50, 30, 30], { flags: ['enabled'] })],
      },
    ]);
    expect(refsFound(view, 'keyboard')).toEqual(['e2']);
  });
});

describe('duplicate-name (2.4.6, 1.3.1)', () => {
  it('reports the second of two sibling controls with one role and name, not cousins', () => {
    const view = windowOf([
      {
        role: 'AXGroup',
        frame: [0, 0, 400, 40],
        children: [button('Open', [10, 10, 60, 30]), button('open ', [80, 10, 60, 30])],
      },
      { role: 'AXGroup', frame: [0, 50, 400, 40], children: [button('Open', [10, 50, 60, 30])] },
    ]);
    expect(refsFound(view, 'duplicate-name')).toEqual(['e4']);
    expect(findingLines(view, runAudit({ view }, ['duplicate-name']))[0]).toContain(
      'same role and name as sibling e3',
    );
  });
});

describe('target-size (2.5.8)', () => {
  it('reports a small target next to another, not a big one nor a small one spaced apart', () => {
    const view = windowOf([
      button('Tiny', [10, 10, 14, 14]),
      button('Next', [24, 5, 60, 30]),
      button('Alone', [300, 200, 16, 16]),
    ]);
    expect(refsFound(view, 'target-size')).toEqual(['e2']);
  });

  it('reports two small targets whose circles meet', () => {
    const view = windowOf([button('A', [10, 10, 16, 16]), button('B', [30, 10, 16, 16])]);
    expect(refsFound(view, 'target-size')).toEqual(['e2', 'e3']);
  });
});

describe('contrast (1.4.3)', () => {
  /** A white 400x300 screen with glyph-like strokes of `rgb` inside `frame`. */
  function screenWith(labels: Array<{ frame: [number, number, number, number]; rgb: number[] }>) {
    const w = 400;
    const h = 300;
    const data = new Uint8Array(w * h * 3).fill(255);
    for (const { frame, rgb } of labels) {
      const [fx, fy, fw, fh] = frame;
      for (let x = fx + 2; x < fx + fw - 2; x += 4) {
        for (let y = fy + 3; y < fy + fh - 3; y++) data.set(rgb, (y * w + x) * 3);
      }
    }
    return { image: { width: w, height: h, channels: 3 as const, data } };
  }
  const label = (
    name: string,
    frame: [number, number, number, number],
    flags: Spec['flags'] = [],
  ) => ({ role: 'AXStaticText', name, frame, flags }) satisfies Spec;

  it('reports light grey text on white, not black text, a secure one or a tiny one', () => {
    const view = windowOf([
      label('Faint', [10, 10, 60, 20]),
      label('Clear', [100, 10, 60, 20]),
      label('Hidden', [10, 40, 60, 20], ['secure']),
      label('x', [200, 10, 4, 4]),
    ]);
    const shot = screenWith([
      { frame: [10, 10, 60, 20], rgb: [0xbb, 0xbb, 0xbb] },
      { frame: [100, 10, 60, 20], rgb: [0, 0, 0] },
      { frame: [10, 40, 60, 20], rgb: [0xee, 0xee, 0xee] },
      { frame: [200, 10, 4, 4], rgb: [0xee, 0xee, 0xee] },
    ]);
    expect(refsFound(view, 'contrast', shot)).toEqual(['e2']);
    const line = findingLines(
      view,
      runAudit({ view, shot: { ...shot, origin: { x: 0, y: 0 } } }, ['contrast']),
    )[0];
    expect(line).toMatch(
      /^! contrast e2 \[AXStaticText\] "Faint" error: ~1\.9\d:1 \(#bbbbbb on #ffffff\)/,
    );
  });

  it('takes #777 on white (4.48:1) as too low and #767676 (4.54:1) as enough', () => {
    const view = windowOf([
      label('Grey 777', [10, 10, 60, 20]),
      label('Grey 767676', [100, 10, 60, 20]),
    ]);
    const shot = screenWith([
      { frame: [10, 10, 60, 20], rgb: [0x77, 0x77, 0x77] },
      { frame: [100, 10, 60, 20], rgb: [0x76, 0x76, 0x76] },
    ]);
    expect(refsFound(view, 'contrast', shot)).toEqual(['e2']);
  });

  it('is not checked without a screenshot, and says why', () => {
    const view = windowOf([label('Faint', [10, 10, 60, 20])]);
    const result = runAudit({ view }, ['contrast', 'control-name']);
    expect(result.skipped).toEqual([{ rule: 'contrast', reason: 'no screenshot to sample' }]);
    expect(countsByRule(result)).toEqual({ 'control-name': 0 });
    expect(countLines(result)).toEqual([
      'control-name: 0 (WCAG 4.1.2)',
      'contrast: not checked (no screenshot to sample)',
    ]);
  });
});

describe('runAudit', () => {
  it('runs every rule by default, and only the ones asked for', () => {
    const view = windowOf([button('', [10, 10, 14, 14]), button('Next', [24, 5, 60, 30])]);
    const all = runAudit({ view });
    expect(countsByRule(all)).toMatchObject({ 'control-name': 1, 'target-size': 1 });
    const one = runAudit({ view }, ['target-size']);
    expect(one.findings.map((f) => f.rule)).toEqual(['target-size']);
  });

  it('writes finding lines that keep to one line and escape quotes', () => {
    const view = windowOf([
      button('Say "hi"\nnow', [10, 10, 40, 30]),
      button('Say "hi"\nnow', [60, 10, 40, 30]),
    ]);
    const [line] = findingLines(view, runAudit({ view }, ['duplicate-name']));
    expect(line).toBe(
      '! duplicate-name e3 [AXButton] "Say \\"hi\\" now" warning: same role and name as sibling e2',
    );
  });
});
