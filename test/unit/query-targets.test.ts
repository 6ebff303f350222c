/**
 * Targets an agent would name: role families, what "equally good" means (tiers), `*`,
 * nth on plain text, quoting. On a synthetic calculator shaped like galculator, whose
 * keys are GTK toggle buttons (`[AXCheckBox (toggle button)]`).
 */
import { describe, expect, it } from 'vitest';
import type { SnapshotView } from '../../src/model/view.js';
import {
  exactQueryFor,
  findMatches,
  parseQuery,
  quoteText,
  resolveElementTypes,
  resolveRole,
  ROLE_FAMILIES,
  roleMatches,
  tiedWithBest,
  withNth,
  type FindResult,
} from '../../src/query/index.js';
import { buildSnapshot, viewOf, type Spec } from './helpers/synthetic.js';

const key = (name: string, x: number, extra: Partial<Spec> = {}): Spec => ({
  role: 'AXCheckBox',
  nativeRole: 'toggle button',
  name,
  frame: [x, 300, 40, 30],
  flags: ['enabled'],
  ...extra,
});

function calculator(): SnapshotView {
  return viewOf(
    buildSnapshot([
      {
        role: 'AXWindow',
        nativeRole: 'frame',
        name: 'galculator',
        frame: [0, 0, 600, 500],
        window: { active: true },
        children: [
          { role: 'AXTextField', nativeRole: 'text', name: 'Display', frame: [10, 10, 500, 40] },
          { role: 'AXTextArea', nativeRole: 'text', name: 'Paper', frame: [10, 60, 500, 100] },
          { role: 'AXStaticText', nativeRole: 'label', name: 'Memory', frame: [10, 170, 80, 20] },
          key('7', 10),
          key('8', 60),
          key('MS', 110),
          key('MR', 160),
          key('M+', 210),
          key('Save as:', 260),
          key('*', 310),
          // The same label twice: a label (not interactive) and a key.
          { role: 'AXStaticText', nativeRole: 'label', name: 'C', frame: [10, 200, 20, 20] },
          key('C', 360),
          // A key scrolled off screen, named like a visible one.
          key('8', 60, { frame: [60, 3000, 40, 30] }),
          { role: 'AXButton', nativeRole: 'push button', name: '=', frame: [410, 300, 40, 30] },
          {
            role: 'AXMenuButton',
            nativeRole: 'push button menu',
            name: 'Mode',
            frame: [460, 300, 60, 30],
          },
          {
            role: 'AXCheckBox',
            nativeRole: 'check box',
            name: 'Paper mode',
            frame: [10, 400, 100, 20],
          },
          { role: 'AXSwitch', nativeRole: 'switch', name: 'RPN', frame: [120, 400, 50, 20] },
        ],
      },
    ]),
  );
}

function find(view: SnapshotView, text: string): FindResult {
  return findMatches(view.snapshot, parseQuery(text), { visible: view.visible });
}

const names = (view: SnapshotView, idx: readonly { index: number }[]): string[] =>
  idx.map((m) => view.snapshot.elements[m.index].name);

describe('role families', () => {
  it('button: finds GTK toggle buttons (AXCheckBox) as well as push and menu buttons', () => {
    const view = calculator();
    expect(names(view, find(view, 'button:7').matches)).toEqual(['7']);
    expect(names(view, find(view, 'role:button title:MS').matches)).toEqual(['MS']);
    const all = names(view, find(view, 'button:').matches);
    expect(all).toEqual(expect.arrayContaining(['7', '=', 'Mode', 'MS']));
    // Real check boxes and switches are not buttons.
    expect(all).not.toContain('Paper mode');
    expect(all).not.toContain('RPN');
  });

  it('AX names stay exact: AXButton is only what `grep AXButton` shows', () => {
    const view = calculator();
    expect(find(view, 'AXButton:7').matches).toEqual([]);
    expect(names(view, find(view, 'role:AXButton').matches)).toEqual(['=']);
    expect(names(view, find(view, 'AXCheckBox:7').matches)).toEqual(['7']);
    expect(names(view, find(view, 'toggle button:7').matches)).toEqual(['7']);
    // The xpath form and contains take the family too.
    expect(names(view, find(view, "//button[@title='7']").matches)).toEqual(['7']);
    expect(names(view, find(view, 'button~Save').matches)).toEqual(['Save as:']);
  });

  it('checkbox takes switches; textfield takes text areas; aliases name the same family', () => {
    const view = calculator();
    expect(names(view, find(view, 'checkbox:RPN').matches)).toEqual(['RPN']);
    expect(names(view, find(view, 'textfield:').matches)).toEqual(['Display', 'Paper']);
    expect(names(view, find(view, 'text field:Paper').matches)).toEqual(['Paper']);
    expect(resolveRole('btn')?.roles).toEqual(resolveRole('button')?.roles);
    expect(resolveRole('input')?.roles).toEqual(resolveRole('textfield')?.roles);
  });

  it('every family role is a role the query layer knows, and family words resolve to them', () => {
    for (const family of ROLE_FAMILIES) {
      for (const role of family.roles) expect(resolveRole(role)?.roles).toEqual([role]);
      for (const word of [family.name, ...family.aliases]) {
        expect(resolveRole(word)?.roles).toEqual(family.roles);
      }
    }
  });

  it('the button family matches by native name where a backend maps a toggle to AXCheckBox', () => {
    const spec = resolveRole('button');
    expect(spec && roleMatches(spec, 'AXCheckBox', 'toggle button')).toBe(true);
    expect(spec && roleMatches(spec, 'AXCheckBox', 'check box')).toBe(false);
  });

  it('the element type `button` takes toggle buttons too', () => {
    const types = resolveElementTypes(['button']);
    if ('unknown' in types) throw new Error('button is an element type');
    expect(types.nativeRoles.has('toggle button')).toBe(true);
    const view = calculator();
    const r = findMatches(view.snapshot, parseQuery('7'), {
      visible: view.visible,
      elementTypes: ['button'],
    });
    expect(names(view, r.matches)).toEqual(['7']);
  });
});

describe('equally good matches', () => {
  it('an exact match wins over partial ones and is the only one tied', () => {
    const view = calculator();
    const withM = buildSnapshot([
      {
        role: 'AXWindow',
        name: 'w',
        frame: [0, 0, 600, 500],
        window: { active: true },
        children: [key('MS', 10), key('M', 60), key('MR', 110)],
      },
    ]);
    const v = viewOf(withM);
    const r = find(v, 'M');
    expect(names(v, r.matches)).toEqual(['M']);
    expect(names(v, tiedWithBest(r.matches))).toEqual(['M']);
    // Without an exact "M", every partial match on the name is as good as the next.
    const partial = find(view, 'M');
    expect(r.tried).toEqual(['exact']);
    expect(partial.tried).toEqual(['exact', 'contains']);
    // Contains is case-insensitive: Mode and Paper mode are partial matches too. The
    // label Memory is one, but a label is not as good as a control.
    expect(names(view, tiedWithBest(partial.matches)).sort()).toEqual([
      'M+',
      'MR',
      'MS',
      'Mode',
      'Paper mode',
    ]);
  });

  it('position and coverage bonuses order partial matches but do not make them better', () => {
    const view = calculator();
    const r = find(view, 'M');
    // MS starts with M and M covers half of it: ranked before "Paper mode", still tied.
    expect(r.matches[0].score).toBeGreaterThan(r.matches[r.matches.length - 1].score);
    expect(tiedWithBest(r.matches)).toHaveLength(5);
  });

  it('a visible match beats a hidden one, an interactive one a label', () => {
    const view = calculator();
    const eight = find(view, '8');
    expect(eight.total).toBe(2);
    const best = tiedWithBest(eight.matches);
    expect(best).toHaveLength(1);
    expect(view.visible[best[0].index]).toBe(true);
    const c = find(view, 'C');
    expect(c.total).toBe(2);
    expect(tiedWithBest(c.matches).map((m) => view.snapshot.elements[m.index].role)).toEqual([
      'AXCheckBox',
    ]);
  });

  it('a case-exact name beats a case-folded one; a name beats a value', () => {
    const v = viewOf(
      buildSnapshot([
        {
          role: 'AXWindow',
          name: 'w',
          frame: [0, 0, 600, 500],
          window: { active: true },
          children: [
            key('ok', 10),
            key('OK', 60),
            { role: 'AXTextField', name: 'x', value: 'Go', frame: [10, 100, 80, 20] },
            key('Go', 110),
          ],
        },
      ]),
    );
    expect(names(v, tiedWithBest(find(v, 'OK').matches))).toEqual(['OK']);
    expect(names(v, tiedWithBest(find(v, 'Go').matches))).toEqual(['Go']);
  });
});

describe('nth on any query', () => {
  it('reads a trailing nth:n / index:n on plain text like [n]', () => {
    const view = calculator();
    expect(parseQuery('M nth:2').attempts[0].steps[0].nth).toBe(2);
    expect(parseQuery('Save index:-1').attempts[0].steps[0].nth).toBe(-1);
    // nth counts every match of the query in tree order: the label Memory comes first.
    expect(names(view, find(view, 'M nth:2').matches)).toEqual(['MS']);
    expect(names(view, find(view, 'M[3]').matches)).toEqual(['MR']);
    expect(names(view, find(view, 'button:8 nth:2').matches)).toEqual(['8']);
    expect(find(view, 'button:8 nth:2').matches[0].index).toBe(
      view.snapshot.elements.findLastIndex((e) => e.name === '8'),
    );
  });

  it('withNth writes a query that picks the nth, for text, role:title, regex and xpath', () => {
    const view = calculator();
    expect(withNth('M', 2)).toBe('M nth:2');
    expect(names(view, find(view, withNth('button:M', 3)).matches)).toEqual(['M+']);
    expect(names(view, find(view, withNth('/^M[SR]$/', 2)).matches)).toEqual(['MR']);
    expect(names(view, find(view, withNth("//button[contains(@title, 'M')]", 1)).matches)).toEqual([
      'MS',
    ]);
  });
});

describe('* and quoting', () => {
  it('* alone is any element, as a query, a path step or an xpath step', () => {
    const view = calculator();
    const n = view.snapshot.elements.length;
    expect(find(view, '*').total).toBe(n);
    expect(find(view, '//*').total).toBe(n);
    expect(find(view, 'window:galculator > *').total).toBe(n - 1);
  });

  it('* inside text or as a value is a literal character, never a wildcard', () => {
    const view = calculator();
    expect(names(view, find(view, 'button:*').matches)).toEqual(['*']);
    expect(names(view, find(view, '"*"').matches)).toEqual(['*']);
    expect(find(view, 'Sav*').matches).toEqual([]);
    expect(find(view, 'M*').matches).toEqual([]);
  });

  it('quotes keep colons, spaces and > as text; backslash escapes a quote', () => {
    const view = calculator();
    expect(names(view, find(view, 'button:"Save as:"').matches)).toEqual(['Save as:']);
    expect(names(view, find(view, '"Save as:"').matches)).toEqual(['Save as:']);
    // Unquoted, "Save as:" is still read as text (no role or key is named "Save as").
    expect(names(view, find(view, 'Save as:').matches)).toEqual(['Save as:']);
    expect(names(view, find(view, "title:'Save as:'").matches)).toEqual(['Save as:']);
    // A near miss of a role is an error, not text.
    expect(() => parseQuery('buton:OK')).toThrow(/unknown role or key 'buton'/);
    expect(quoteText('Save as:')).toBe(`'Save as:'`);
    expect(quoteText("Don't save")).toBe(`"Don't save"`);
    expect(quoteText('say "hi", don\'t \\')).toBe('"say \\"hi\\", don\'t \\\\"');
    for (const text of ['Save as:', "Don't save", 'say "hi", don\'t \\', 'a > b [2]', '*']) {
      const q = parseQuery(`title:${quoteText(text)}`);
      expect(q.attempts[0].steps[0].terms[0]).toMatchObject({ match: { op: 'exact', text } });
    }
  });

  it('exactQueryFor names an element by AX role and name, else identifier, else description', () => {
    expect(exactQueryFor({ role: 'AXCheckBox', name: 'Save as:' })).toBe(`AXCheckBox:'Save as:'`);
    expect(exactQueryFor({ role: 'AXTextField', name: '', identifier: 'email' })).toBe(
      `role:AXTextField identifier:'email'`,
    );
    expect(exactQueryFor({ role: 'AXImage', name: '', description: 'Logo' })).toBe(
      `role:AXImage description:'Logo'`,
    );
    expect(exactQueryFor({ role: 'AXGroup', name: '' })).toBeUndefined();
    const view = calculator();
    const save = view.snapshot.elements.findIndex((e) => e.name === 'Save as:');
    const found = find(view, exactQueryFor(view.snapshot.elements[save]) as string);
    expect(found.matches.map((m) => m.index)).toEqual([save]);
  });
});
