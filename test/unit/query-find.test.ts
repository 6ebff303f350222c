/**
 * findMatches, suggestNames and the element-type table on a synthetic snapshot shaped
 * like the GTK fixture apps: a form window (labels, entries, a password, buttons, a
 * list of rows), a modal "Confirm" dialog and a non-modal "Preferences" dialog, each
 * with an OK button, a hidden button and a disabled one.
 */
import { describe, expect, it } from 'vitest';
import type { Element, Flag, Rect, Snapshot } from '../../src/model/element.js';
import {
  elementTypeRoles,
  findMatches,
  parseQuery,
  QueryError,
  suggestNames,
  type FindOptions,
  type FindResult,
} from '../../src/query/index.js';

interface Spec {
  role: string;
  native: string;
  name?: string;
  value?: string;
  description?: string;
  identifier?: string;
  frame?: Rect;
  flags?: Flag[];
  /** Not visible in the viewport (scrolled away, behind a modal). */
  hidden?: boolean;
  children?: Spec[];
}

function el(
  role: string,
  native: string,
  name: string,
  extra: Omit<Spec, 'role' | 'native' | 'name'> = {},
): Spec {
  return { role, native, name, ...extra };
}

function frame(x: number, y: number, w: number, h: number): Rect {
  return { x, y, w, h };
}

interface Built {
  snapshot: Snapshot;
  visible: boolean[];
}

function build(roots: Spec[]): Built {
  const elements: Element[] = [];
  const visible: boolean[] = [];
  const visit = (s: Spec, parent: number, depth: number, parentHidden: boolean): void => {
    const index = elements.length;
    const hidden = parentHidden || s.hidden === true;
    elements.push({
      id: `/org/a11y/atspi/accessible/${index}`,
      parent,
      depth,
      role: s.role,
      nativeRole: s.native,
      name: s.name ?? '',
      value: s.value,
      description: s.description,
      identifier: s.identifier,
      frame: s.frame,
      flags: [...(s.flags ?? ['enabled'])],
      actions: [],
      childCount: s.children?.length ?? 0,
    });
    visible.push(!hidden);
    for (const c of s.children ?? []) visit(c, index, depth + 1, hidden);
  };
  for (const r of roots) visit(r, -1, 0, false);
  const windows = elements
    .map((e, index) => ({ e, index }))
    .filter(({ e }) => e.parent === -1)
    .map(({ e, index }) => ({
      index,
      title: e.name,
      role: e.role,
      frame: e.frame,
      modal: e.flags.includes('modal'),
      dialog: e.role !== 'AXWindow',
      active: e.flags.includes('active'),
    }));
  return {
    snapshot: {
      pid: 4242,
      app: 'fixture-form',
      elements,
      windows,
      truncated: null,
      elapsedMs: 3,
      takenAt: 0,
      method: 'fixture',
    },
    visible,
  };
}

function rows(): Spec[] {
  return [1, 2, 3, 4, 5, 6].map((k) =>
    el('AXRow', 'list item', `Row ${k}`, {
      frame: frame(20, 210 + (k - 1) * 24, 360, 24),
      hidden: k >= 5, // scrolled out of the 4-row viewport
      flags: ['enabled', 'selected'],
      children: [
        el('AXStaticText', 'label', `Item ${k}`, { frame: frame(24, 212 + (k - 1) * 24, 100, 20) }),
      ],
    }),
  );
}

/** The fixture. Tree order: form window, Confirm dialog, Preferences dialog. */
function fixture(focus?: 'name' | 'confirm-cancel' | 'prefs-autosave'): Built {
  const f = (key: typeof focus, flags: Flag[] = ['enabled', 'focusable']): Flag[] =>
    focus === key ? [...flags, 'focused'] : flags;
  return build([
    el('AXWindow', 'frame', 'Fixture Form', {
      frame: frame(0, 0, 420, 400),
      flags: ['enabled', 'active'],
      children: [
        el('AXGroup', 'filler', '', {
          frame: frame(0, 0, 420, 400),
          children: [
            el('AXGroup', 'panel', '', {
              frame: frame(16, 16, 388, 368),
              children: [
                el('AXStaticText', 'label', 'Name', { frame: frame(16, 16, 60, 24) }),
                el('AXTextField', 'text', 'Name', {
                  identifier: 'name',
                  value: 'Ada',
                  frame: frame(88, 16, 300, 24),
                  flags: f('name', ['enabled', 'focusable', 'editable']),
                }),
                el('AXStaticText', 'label', 'Email', { frame: frame(16, 48, 60, 24) }),
                el('AXTextField', 'text', 'Email', {
                  identifier: 'email',
                  value: 'ada@example.com',
                  frame: frame(88, 48, 300, 24),
                  flags: ['enabled', 'focusable', 'editable'],
                }),
                el('AXStaticText', 'label', 'Password', { frame: frame(16, 80, 60, 24) }),
                // As the AT-SPI backend maps it: AXTextField with the secure flag.
                el('AXTextField', 'password text', 'Password', {
                  identifier: 'password',
                  frame: frame(88, 80, 300, 24),
                  flags: ['enabled', 'focusable', 'editable', 'secure'],
                }),
                el('AXCheckBox', 'check box', 'Subscribe', {
                  identifier: 'subscribe',
                  frame: frame(88, 112, 120, 24),
                  flags: ['enabled', 'focusable', 'checked'],
                }),
                el('AXStaticText', 'label', 'Color', { frame: frame(16, 144, 60, 24) }),
                el('AXComboBox', 'combo box', 'Color', {
                  identifier: 'color',
                  value: 'Red',
                  frame: frame(88, 144, 120, 24),
                }),
                // A greeting label whose *name* is the Name field's *value*.
                el('AXStaticText', 'label', 'Ada', { frame: frame(220, 144, 40, 24) }),
                el('AXButton', 'push button', 'Submit', {
                  identifier: 'submit',
                  frame: frame(88, 176, 80, 28),
                  children: [
                    el('AXImage', 'icon', 'Submit icon', { frame: frame(92, 180, 16, 16) }),
                  ],
                }),
                el('AXButton', 'push button', 'Save As\u2026', { frame: frame(176, 176, 80, 28) }),
                el('AXButton', 'push button', 'Save', {
                  frame: frame(264, 176, 60, 28),
                  flags: ['disabled', 'focusable'],
                }),
                el('AXStaticText', 'label', 'Status', {
                  identifier: 'status',
                  description: 'Autosave is on',
                  frame: frame(330, 176, 60, 28),
                }),
                el('AXScrollArea', 'scroll pane', '', {
                  frame: frame(16, 208, 388, 100),
                  children: [
                    el('AXList', 'list', 'Items', {
                      frame: frame(16, 208, 388, 148),
                      children: rows(),
                    }),
                  ],
                }),
                // Two "Apply" buttons: the first disabled; two "Refresh": the first hidden.
                el('AXButton', 'push button', 'Apply', {
                  frame: frame(16, 320, 60, 28),
                  flags: ['disabled'],
                }),
                el('AXButton', 'push button', 'Apply', { frame: frame(88, 320, 60, 28) }),
                el('AXButton', 'push button', 'Refresh', {
                  frame: frame(16, 420, 60, 28),
                  hidden: true,
                }),
                el('AXButton', 'push button', 'Refresh', { frame: frame(160, 320, 60, 28) }),
              ],
            }),
          ],
        }),
      ],
    }),
    // Non-modal dialogs: AXWindow with the native role `dialog`, as the backend maps them.
    el('AXWindow', 'dialog', 'Confirm', {
      frame: frame(500, 100, 240, 120),
      children: [
        el('AXStaticText', 'label', 'Really submit?', { frame: frame(510, 110, 200, 24) }),
        el('AXButton', 'push button', 'OK', { frame: frame(510, 180, 60, 28) }),
        el('AXButton', 'push button', 'Cancel', {
          frame: frame(580, 180, 60, 28),
          flags: f('confirm-cancel'),
        }),
      ],
    }),
    el('AXWindow', 'dialog', 'Preferences', {
      frame: frame(800, 100, 240, 160),
      children: [
        el('AXTabGroup', 'page tab list', '', {
          frame: frame(800, 80, 240, 20),
          children: [
            el('AXRadioButton', 'page tab', 'General', {
              frame: frame(800, 80, 80, 20),
              flags: ['enabled', 'selected'],
            }),
            el('AXRadioButton', 'page tab', 'Advanced', { frame: frame(880, 80, 80, 20) }),
          ],
        }),
        el('AXCheckBox', 'check box', 'Autosave', {
          frame: frame(810, 110, 120, 24),
          flags: f('prefs-autosave'),
        }),
        el('AXButton', 'push button', 'OK', { frame: frame(810, 220, 60, 28) }),
        el('AXButton', 'push button', 'Cancel', { frame: frame(880, 220, 60, 28) }),
      ],
    }),
  ]);
}

/** Runs a query; `opts` adds to the fixture's visibility. */
function find(
  b: Built,
  text: string | null,
  opts: Partial<FindOptions> = {},
  strategy?: Parameters<typeof parseQuery>[1],
): FindResult {
  const q = text === null ? null : parseQuery(text, strategy);
  return findMatches(b.snapshot, q, { visible: b.visible, ...opts });
}

/** "[AXButton] Save" for the ranked matches, for readable assertions. */
function labels(b: Built, r: FindResult): string[] {
  return r.matches.map((m) => {
    const e = b.snapshot.elements[m.index];
    return `${e.role} ${e.name}`;
  });
}

/** The index of the element with this name (and role); the nth of them with `k`. */
function idx(b: Built, name: string, role?: string, k = 0): number {
  const all = b.snapshot.elements
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => e.name === name && (!role || e.role === role));
  if (!all[k]) throw new Error(`no element ${name}`);
  return all[k].i;
}

describe('plain text', () => {
  const b = fixture();

  it('finds the exact name first and stops there', () => {
    const r = find(b, 'Submit');
    expect(labels(b, r)).toEqual(['AXButton Submit']);
    expect(r.matches[0].strategy).toBe('title_exact');
    expect(r.tried).toEqual(['exact']);
  });

  it('falls back to contains when nothing is exact, listing what it tried', () => {
    const r = find(b, 'subm');
    expect(r.tried).toEqual(['exact', 'contains']);
    expect(labels(b, r)[0]).toBe('AXButton Submit');
    expect(labels(b, r)).toContain('AXStaticText Really submit?');
    expect(r.matches.every((m) => m.strategy === 'contains')).toBe(true);
  });

  it('matches case-insensitively but ranks the case-exact hit first', () => {
    const r = find(b, 'name');
    expect(r.tried).toEqual(['exact']);
    // The identifier "name" is case-exact, but an exact name (any case) still beats it.
    expect(r.matches[0].index).toBe(idx(b, 'Name', 'AXTextField'));
    expect(r.matches[0].field).toBe('name');
  });

  it('reads … and ... alike', () => {
    expect(labels(b, find(b, 'save as...'))).toEqual(['AXButton Save As\u2026']);
  });

  it('matches values, descriptions and identifiers, and says which', () => {
    const v = find(b, 'ada@example.com');
    expect(v.matches.map((m) => [m.strategy, m.field])).toEqual([['value_exact', 'value']]);
    const d = find(b, 'Autosave is on');
    expect(d.matches[0]).toMatchObject({ strategy: 'description_exact', field: 'description' });
    const i = find(b, 'subscribe');
    expect(labels(b, i)).toEqual(['AXCheckBox Subscribe']);
    expect(find(b, 'color', {}, 'identifier').matches[0].strategy).toBe('identifier');
  });

  it('never matches a secure value', () => {
    const b2 = fixture();
    b2.snapshot.elements[idx(b2, 'Password', 'AXTextField')].value = 'hunter2';
    expect(find(b2, 'hunter2').matches).toEqual([]);
    expect(find(b2, 'value~hunter').matches).toEqual([]);
    expect(find(b2, '/hunter/').matches).toEqual([]);
  });

  it('tries the word as a role last', () => {
    const r = find(b, 'checkbox');
    expect(r.tried).toEqual(['exact', 'contains', 'role']);
    expect(labels(b, r)).toEqual(['AXCheckBox Subscribe', 'AXCheckBox Autosave']);
    expect(r.matches[0].strategy).toBe('role');
  });

  it('reports nothing with every attempt when nothing matches', () => {
    const r = find(b, 'Frobnicate');
    expect(r).toEqual({ matches: [], total: 0, tried: ['exact', 'contains'], excluded: 0 });
  });
});

describe('ranking', () => {
  it('exact beats contains, exact name beats exact value', () => {
    const b = fixture();
    // "Save" is exact on the disabled button; "Save As…" only contains it.
    expect(labels(b, find(b, 'Save'))).toEqual(['AXButton Save']);
    // Contains: starting the text and covering more of it rank higher; names before descriptions.
    expect(labels(b, find(b, 'Save', {}, 'contains'))).toEqual([
      'AXButton Save',
      'AXButton Save As\u2026',
      'AXCheckBox Autosave',
      'AXStaticText Status',
    ]);
    // "Ada" is the label's name and the Name field's value: the name wins, though the field is interactive.
    const r = find(b, 'Ada');
    expect(r.matches.map((m) => b.snapshot.elements[m.index].role)).toEqual([
      'AXStaticText',
      'AXTextField',
    ]);
    expect(r.matches[0].score).toBeGreaterThan(r.matches[1].score);
  });

  it('interactive beats static among equal text', () => {
    const b = fixture();
    expect(labels(b, find(b, 'Name'))).toEqual(['AXTextField Name', 'AXStaticText Name']);
  });

  it('visible beats hidden, even later in tree order', () => {
    const b = fixture();
    const r = find(b, 'Refresh');
    expect(r.matches.map((m) => m.index)).toEqual([
      idx(b, 'Refresh', 'AXButton', 1),
      idx(b, 'Refresh', 'AXButton', 0),
    ]);
    expect(b.visible[r.matches[1].index]).toBe(false);
  });

  it('enabled beats disabled', () => {
    const b = fixture();
    const r = find(b, 'Apply');
    expect(r.matches.map((m) => m.index)).toEqual([
      idx(b, 'Apply', 'AXButton', 1),
      idx(b, 'Apply', 'AXButton', 0),
    ]);
  });

  it('nearest to the focus wins among equals', () => {
    const inConfirm = fixture('confirm-cancel');
    const okConfirm = idx(inConfirm, 'OK', 'AXButton', 0);
    const okPrefs = idx(inConfirm, 'OK', 'AXButton', 1);
    expect(find(inConfirm, 'OK').matches.map((m) => m.index)).toEqual([okConfirm, okPrefs]);
    const inPrefs = fixture('prefs-autosave');
    expect(find(inPrefs, 'OK').matches.map((m) => m.index)).toEqual([okPrefs, okConfirm]);
    // An explicit focusedIndex wins over the flags.
    expect(
      find(inPrefs, 'OK', { focusedIndex: idx(inPrefs, 'Really submit?') }).matches[0].index,
    ).toBe(okConfirm);
  });

  it('breaks tree-distance ties by distance on screen', () => {
    const b = fixture();
    // Focus the Name field; both Apply buttons are siblings of it (same tree distance):
    // make both enabled and the later one nearer on screen.
    const first = idx(b, 'Apply', 'AXButton', 0);
    const second = idx(b, 'Apply', 'AXButton', 1);
    b.snapshot.elements[first].flags = ['enabled'];
    b.snapshot.elements[first].frame = frame(300, 360, 60, 20);
    b.snapshot.elements[second].frame = frame(88, 44, 60, 20);
    const r = find(b, 'Apply', { focusedIndex: idx(b, 'Name', 'AXTextField') });
    expect(r.matches.map((m) => m.index)).toEqual([second, first]);
    // With no focus at all, tree order decides.
    expect(find(b, 'Apply', { focusedIndex: -1 }).matches.map((m) => m.index)).toEqual([
      first,
      second,
    ]);
  });

  it('is deterministic', () => {
    const b = fixture('name');
    const once = JSON.stringify(find(b, 'role:button'));
    for (let k = 0; k < 3; k++) expect(JSON.stringify(find(b, 'role:button'))).toBe(once);
  });
});

describe('role forms and aliases', () => {
  const b = fixture();

  it.each([
    'button:Submit',
    'AXButton:Submit',
    'push button:Submit',
    'Button:submit',
    'role:button title:Submit',
  ])('%s', (text) => {
    expect(labels(b, find(b, text))).toEqual(['AXButton Submit']);
  });

  it('matches the native role name too', () => {
    expect(labels(b, find(b, 'text:Email'))).toEqual(['AXTextField Email']);
    expect(labels(b, find(b, 'password text:'))).toEqual(['AXTextField Password']);
    expect(labels(b, find(b, 'password:'))).toEqual(['AXTextField Password']);
    expect(labels(b, find(b, 'dialog:Confirm'))).toEqual(['AXWindow Confirm']);
    expect(labels(b, find(b, 'tab:Advanced'))).toEqual(['AXRadioButton Advanced']);
    expect(labels(b, find(b, 'list item:Row 2'))).toEqual(['AXRow Row 2']);
  });

  it('role: alone lists that role', () => {
    const r = find(b, 'textfield:');
    expect(labels(b, r)).toEqual(['AXTextField Name', 'AXTextField Email', 'AXTextField Password']);
    expect(r.matches[0].strategy).toBe('role');
  });

  it('role:title falls back to contains, then to literal text', () => {
    const r = find(b, 'button:Save As');
    expect(r.tried).toEqual(['role_title', 'role_title_contains']);
    expect(labels(b, r)).toEqual(['AXButton Save As\u2026']);
    expect(r.matches[0].strategy).toBe('role_title_contains');
    const lit = find(b, 'Really: x', {});
    expect(lit.tried).toEqual(['exact', 'contains']);
    const b2 = fixture();
    // `Label: hello` reads as a label titled "hello"; no label is, but a button has that text.
    b2.snapshot.elements[idx(b2, 'Submit')].name = 'Label: hello';
    const r2 = find(b2, 'Label: hello');
    expect(r2.tried).toEqual(['role_title', 'role_title_contains', 'exact']);
    expect(labels(b2, r2)).toEqual(['AXButton Label: hello']);
    expect(r2.matches[0].strategy).toBe('title_exact');
  });

  it('regex titles with flags', () => {
    expect(labels(b, find(b, 'button:/^save( as…)?$/i'))).toEqual([
      'AXButton Save As\u2026',
      'AXButton Save',
    ]);
    expect(find(b, 'button:/^save/').matches).toEqual([]);
    expect(labels(b, find(b, 'title:/^Row [2-3]$/'))).toEqual(['AXRow Row 2', 'AXRow Row 3']);
  });

  it('role~ and role regex on role names', () => {
    expect(labels(b, find(b, 'role~textfield'))).toEqual([
      'AXTextField Name',
      'AXTextField Email',
      'AXTextField Password',
    ]);
    expect(labels(b, find(b, 'role~"tab"'))).toEqual([
      'AXRadioButton General',
      'AXRadioButton Advanced',
      'AXTabGroup ',
    ]);
    expect(find(b, 'role:/^AX(CheckBox|ComboBox)$/').matches).toHaveLength(3);
  });
});

describe('terms', () => {
  const b = fixture();

  it('ANDs every term', () => {
    expect(labels(b, find(b, 'role:button title:Apply enabled:true'))).toEqual(['AXButton Apply']);
    expect(labels(b, find(b, 'role:button enabled:false'))).toEqual([
      'AXButton Save',
      'AXButton Apply',
    ]);
    expect(labels(b, find(b, 'role:checkbox checked:true'))).toEqual(['AXCheckBox Subscribe']);
    expect(labels(b, find(b, 'value~example'))).toEqual(['AXTextField Email']);
    expect(labels(b, find(b, 'description~autosave'))).toEqual(['AXStaticText Status']);
    expect(labels(b, find(b, 'id:submit'))).toEqual(['AXButton Submit']);
  });

  it('visible:false and hidden:true find the hidden ones', () => {
    expect(labels(b, find(b, 'role:button hidden:true'))).toEqual(['AXButton Refresh']);
    expect(labels(b, find(b, 'role:row visible:false'))).toEqual(['AXRow Row 5', 'AXRow Row 6']);
  });

  it('focused: follows the focus', () => {
    const f = fixture('confirm-cancel');
    expect(labels(f, find(f, 'focused:true'))).toEqual(['AXButton Cancel']);
    expect(
      find(f, 'focused:true', { focusedIndex: 3 })
        .matches.map((m) => m.index)
        .sort(),
    ).toEqual([3, idx(f, 'Cancel', 'AXButton', 0)].sort());
  });

  it('index:n picks the nth in tree order', () => {
    const r = find(b, 'role:button title:OK index:2');
    expect(r.matches.map((m) => m.index)).toEqual([idx(b, 'OK', 'AXButton', 1)]);
    expect(find(b, 'button:OK nth:-1').matches.map((m) => m.index)).toEqual([
      idx(b, 'OK', 'AXButton', 1),
    ]);
    const none = find(b, 'role:button title:OK index:3');
    expect(none.matches).toEqual([]);
    expect(none.tried[0]).toBe('terms (2 matches, no #3)');
  });
});

describe('paths and xpath', () => {
  const b = fixture();

  it('window > button', () => {
    expect(labels(b, find(b, 'window:"Fixture Form" > AXButton:Submit'))).toEqual([
      'AXButton Submit',
    ]);
    expect(find(b, 'window:"Fixture Form" > button:OK').matches).toEqual([]);
    const ok = find(b, 'dialog:Preferences > OK');
    expect(ok.matches.map((m) => m.index)).toEqual([idx(b, 'OK', 'AXButton', 1)]);
    expect(ok.matches[0].strategy).toBe('path');
  });

  it('[n] counts among a step’s matches in tree order', () => {
    expect(labels(b, find(b, 'AXWindow > AXGroup > AXButton[2]'))).toEqual([
      'AXButton Save As\u2026',
    ]);
    expect(labels(b, find(b, 'list > AXRow[-1]'))).toEqual(['AXRow Row 6']);
    expect(labels(b, find(b, 'AXSheet[2] > button:Cancel'))).toEqual(['AXButton Cancel']);
    expect(find(b, 'AXSheet[2] > button:Cancel').matches[0].index).toBe(
      idx(b, 'Cancel', 'AXButton', 1),
    );
    expect(labels(b, find(b, 'AXButton[3]'))).toEqual(['AXButton Save']);
  });

  it('a step that finds nothing says where', () => {
    const r = find(b, 'dialog:Nope > button:OK');
    expect(r.tried[0]).toBe('path (nothing at step 1 of 2)');
  });

  it('xpath: // anywhere, / child', () => {
    expect(labels(b, find(b, "//AXButton[@title='Submit']", {}, 'xpath'))).toEqual([
      'AXButton Submit',
    ]);
    // OK buttons are direct children of the dialogs, not of the form window.
    expect(find(b, '/dialog/AXButton[@title="OK"]', {}, 'xpath').matches).toHaveLength(2);
    expect(find(b, "/AXWindow[@title='Fixture Form']/AXButton", {}, 'xpath').matches).toEqual([]);
    expect(labels(b, find(b, "//list/row[contains(@title, 'row')][2]/*", {}, 'xpath'))).toEqual([
      'AXStaticText Item 2',
    ]);
    expect(labels(b, find(b, "//*[@identifier='color' and @value='red']", {}, 'xpath'))).toEqual([
      'AXComboBox Color',
    ]);
    expect(labels(b, find(b, "//button[@enabled='false']", {}, 'xpath'))).toEqual([
      'AXButton Save',
      'AXButton Apply',
    ]);
  });
});

describe('scope, filters, element types, limit', () => {
  const b = fixture('name');

  it('scope element: the root and below', () => {
    const root = idx(b, 'Preferences');
    expect(labels(b, find(b, 'OK', { scope: { kind: 'element', rootIndex: root } }))).toEqual([
      'AXButton OK',
    ]);
    expect(
      find(b, 'Preferences', { scope: { kind: 'element', rootIndex: root } }).matches[0].index,
    ).toBe(root);
    expect(find(b, 'Submit', { scope: { kind: 'element', rootIndex: root } }).matches).toEqual([]);
  });

  it('scope focused: the focused window', () => {
    const r = find(b, 'role:button', { scope: { kind: 'focused' } });
    expect(r.total).toBe(7);
    expect(r.matches.every((m) => m.index < idx(b, 'Confirm'))).toBe(true);
    const inPrefs = fixture('prefs-autosave');
    expect(labels(inPrefs, find(inPrefs, 'role:button', { scope: { kind: 'focused' } }))).toEqual([
      'AXButton OK',
      'AXButton Cancel',
    ]);
  });

  it('scope position: the widget under the point, interactive before its icon', () => {
    // Inside the Submit button and over its icon.
    const r = find(b, null, { scope: { kind: 'position', x: 95, y: 185 } });
    expect(labels(b, r)[0]).toBe('AXButton Submit');
    expect(labels(b, r)).toEqual([
      'AXButton Submit',
      'AXImage Submit icon',
      'AXGroup ',
      'AXGroup ',
      'AXWindow Fixture Form',
    ]);
    // Over a label: the label; over the Name field: the field.
    expect(labels(b, find(b, '*', { scope: { kind: 'position', x: 20, y: 150 } }))[0]).toBe(
      'AXStaticText Color',
    );
    expect(labels(b, find(b, '*', { scope: { kind: 'position', x: 200, y: 20 } }))[0]).toBe(
      'AXTextField Name',
    );
    // A query narrows what is under the point.
    expect(
      labels(b, find(b, 'role:image', { scope: { kind: 'position', x: 95, y: 185 } })),
    ).toEqual(['AXImage Submit icon']);
    expect(find(b, '*', { scope: { kind: 'position', x: 2000, y: 2000 } }).matches).toEqual([]);
  });

  it('filter: role, titleContains, valueContains, descriptionContains', () => {
    expect(labels(b, find(b, null, { filter: { role: 'button', titleContains: 'save' } }))).toEqual(
      ['AXButton Save As\u2026', 'AXButton Save'],
    );
    expect(labels(b, find(b, null, { filter: { valueContains: 'EXAMPLE' } }))).toEqual([
      'AXTextField Email',
    ]);
    expect(labels(b, find(b, null, { filter: { descriptionContains: 'autosave' } }))).toEqual([
      'AXStaticText Status',
    ]);
    expect(
      labels(b, find(b, 'OK', { filter: { role: 'push button' }, scope: { kind: 'focused' } })),
    ).toEqual([]);
  });

  it('element types map to roles', () => {
    const r = find(b, null, { elementTypes: ['checkbox', 'text_field'] });
    // Focus is on Name: its siblings by screen distance, then the other window.
    expect(labels(b, r)).toEqual([
      'AXTextField Name',
      'AXTextField Email',
      'AXTextField Password',
      'AXCheckBox Subscribe',
      'AXCheckBox Autosave',
    ]);
    // Page tabs are AXRadioButton (as on macOS); the tab type still finds them by native role.
    expect(labels(b, find(b, null, { elementTypes: ['tab'] }))).toEqual([
      'AXRadioButton General',
      'AXRadioButton Advanced',
    ]);
    expect(find(b, null, { elementTypes: ['dropdown'] }).total).toBe(1);
    expect(
      find(b, 'Color', { elementTypes: ['static_text'] }).matches.map(
        (m) => b.snapshot.elements[m.index].role,
      ),
    ).toEqual(['AXStaticText']);
    const any = find(b, null, { elementTypes: ['any'] });
    expect(
      any.matches.every((m) => elementTypeRoles.any.includes(b.snapshot.elements[m.index].role)),
    ).toBe(true);
    expect(any.total).toBe(25);
  });

  it('knows every element type ax_find documents', () => {
    const documented =
      'button, text_field, checkbox, radio, menu, menu_item, link, list, table, row, cell, slider, tab, combo_box, static_text, image, window, dialog, group, scroll_area, any';
    for (const t of documented.split(', ')) {
      expect(() => find(b, null, { elementTypes: [t] }), t).not.toThrow();
    }
    expect(find(b, null, { elementTypes: ['combo_box'] }).total).toBe(1);
    expect(find(b, null, { elementTypes: ['scroll_area'] }).total).toBe(1);
    expect(find(b, null, { elementTypes: ['dialog'] }).total).toBe(2);
  });

  it('includeHidden false drops hidden elements and counts them as excluded', () => {
    const r = find(b, 'Refresh', { includeHidden: false });
    expect(r.total).toBe(1);
    expect(b.visible[r.matches[0].index]).toBe(true);
    const rows = find(b, 'role:row', { includeHidden: false });
    expect(rows.total).toBe(4);
    expect(rows.excluded).toBe(2);
    const gone = find(b, 'Row 6', { includeHidden: false });
    expect(gone.matches).toEqual([]);
    expect(gone.excluded).toBe(1);
  });

  it('maxDepth counts from the windows or the scope root', () => {
    // Only the dialogs' buttons are one level below a window (nearest the focus first).
    expect(labels(b, find(b, 'role:button', { maxDepth: 1 }))).toEqual([
      'AXButton OK',
      'AXButton Cancel',
      'AXButton OK',
      'AXButton Cancel',
    ]);
    expect(find(b, 'role:row', { maxDepth: 4 }).matches).toEqual([]);
    const list = idx(b, 'Items');
    expect(find(b, '*', { scope: { kind: 'element', rootIndex: list }, maxDepth: 1 }).total).toBe(
      7,
    );
  });

  it('limit caps matches, total counts all', () => {
    const r = find(b, 'role:row', { limit: 2 });
    expect(r.matches).toHaveLength(2);
    expect(r.total).toBe(6);
    expect(labels(b, r)).toEqual(['AXRow Row 1', 'AXRow Row 2']);
  });

  it('rejects bad options with clear errors', () => {
    expect(() => find(b, null, { elementTypes: ['buton'] })).toThrow(
      /unknown element type 'buton' \(did you mean button/,
    );
    expect(() => find(b, null, { filter: { role: 'chekbox' } })).toThrow(
      /unknown filter role 'chekbox'.*checkbox/,
    );
    expect(() => find(b, null, { scope: { kind: 'element' } })).toThrow(QueryError);
    expect(() => find(b, null, { scope: { kind: 'position', x: 1 } })).toThrow(
      /needs numeric x and y/,
    );
  });
});

describe('an element named only by its description', () => {
  // An icon button: no name, its tooltip as description (GTK 4's "Primary menu").
  const b = build([
    el('AXWindow', 'frame', 'Calculator', {
      frame: frame(0, 0, 400, 300),
      flags: ['enabled', 'active'],
      children: [
        el('AXButton', 'button', '', {
          description: 'Primary menu',
          frame: frame(360, 4, 32, 32),
        }),
        el('AXButton', 'button', 'Menu', {
          description: 'Primary menu of the app',
          frame: frame(320, 4, 32, 32),
        }),
        el('AXStaticText', 'label', 'Primary', { frame: frame(4, 4, 80, 20) }),
      ],
    }),
  ]);
  const icon = b.snapshot.elements.findIndex((e) => e.description === 'Primary menu');
  const at = (r: FindResult): number[] => r.matches.map((m) => m.index);

  it.each([
    'button:Primary menu',
    'button:"primary menu"',
    'role:button title:"Primary menu"',
    'name:"Primary menu"',
    'button:/^Primary m/',
  ])('%s reads its description as its name', (text) => {
    expect(at(find(b, text))).toEqual([icon]);
  });

  it('a contains name term too, and an xpath title', () => {
    expect(at(find(b, 'role:button title~primary'))).toEqual([icon]);
    expect(at(find(b, "//AXButton[@title='Primary menu']", {}, 'xpath'))).toEqual([icon]);
  });

  it('an element with a name is matched by its name, never by its description', () => {
    expect(at(find(b, 'button:Menu'))).toEqual([icon + 1]);
    expect(find(b, 'role:button title:"Primary menu of the app"').matches).toEqual([]);
  });

  it('a term that looks at descriptions still ranks one below a name', () => {
    const r = find(b, 'Primary menu');
    expect(r.matches[0].index).toBe(icon);
    expect(r.matches[0].strategy).toBe('description_exact');
  });

  it('the titleContains filter', () => {
    expect(at(find(b, null, { filter: { role: 'button', titleContains: 'primary' } }))).toEqual([
      icon,
    ]);
  });
});

describe('suggestNames', () => {
  const b = fixture();

  it('offers the closest names for a typo', () => {
    expect(suggestNames(b.snapshot, 'Sumbit', 3)[0]).toBe('Submit');
    expect(suggestNames(b.snapshot, 'Pasword', 3)[0]).toBe('Password');
    expect(suggestNames(b.snapshot, 'Cancle', 2)).toEqual(['Cancel']);
  });

  it('reads the text out of a structured query and prefers its role', () => {
    expect(suggestNames(b.snapshot, 'button:Sbumit', 2)[0]).toBe('Submit');
    expect(suggestNames(b.snapshot, 'role:checkbox title:Autosav', 1)).toEqual(['Autosave']);
  });

  it('finds a word inside a longer name', () => {
    expect(suggestNames(b.snapshot, 'Reallly', 3)).toContain('Really submit?');
  });

  it('returns nothing when nothing is close, and never a value', () => {
    expect(suggestNames(b.snapshot, 'Zyzzyva', 5)).toEqual([]);
    expect(suggestNames(b.snapshot, 'ada@exampel.com', 5)).toEqual([]);
  });
});

describe('performance', () => {
  it('10 000 elements', () => {
    const windows: Spec[] = [];
    let k = 0;
    for (let w = 0; w < 10; w++) {
      const groups: Spec[] = [];
      for (let g = 0; g < 31; g++) {
        const kids: Spec[] = [];
        for (let c = 0; c < 32; c++, k++) {
          const kind = k % 4;
          kids.push(
            kind === 0
              ? el('AXButton', 'push button', `Action ${k}`, {
                  frame: frame(c * 30, g * 30, 28, 28),
                })
              : kind === 1
                ? el('AXStaticText', 'label', `Label number ${k}`, {
                    frame: frame(c * 30, g * 30, 28, 28),
                  })
                : kind === 2
                  ? el('AXTextField', 'text', `Field ${k}`, {
                      value: `value ${k}`,
                      frame: frame(c * 30, g * 30, 28, 28),
                    })
                  : el('AXRow', 'list item', `Row ${k}`, {
                      frame: frame(c * 30, g * 30, 28, 28),
                      hidden: g > 20,
                    }),
          );
        }
        groups.push(
          el('AXGroup', 'panel', '', { frame: frame(0, g * 30, 960, 30), children: kids }),
        );
      }
      windows.push(
        el('AXWindow', 'frame', `Window ${w}`, {
          frame: frame(0, 0, 1000, 1000),
          children: groups,
        }),
      );
    }
    const b = build(windows);
    expect(b.snapshot.elements.length).toBeGreaterThanOrEqual(10_000);
    const focusedIndex = idx(b, 'Field 5002');
    // Each case with an independent oracle over the raw elements.
    const els = b.snapshot.elements;
    const count = (pred: (e: Element, i: number) => boolean): number => els.filter(pred).length;
    const inside = (e: Element, x: number, y: number): boolean =>
      !!e.frame &&
      x >= e.frame.x &&
      x < e.frame.x + e.frame.w &&
      y >= e.frame.y &&
      y < e.frame.y + e.frame.h;
    const cases: [string, Partial<FindOptions>, number][] = [
      ['Action 9000', {}, 1],
      ['number 99', {}, count((e) => e.name.includes('number 99'))],
      ['/^Row 1\\d{3}$/', {}, count((e) => /^Row 1\d{3}$/.test(e.name))],
      [
        'role:button title~"Action 1"',
        {},
        count((e) => e.role === 'AXButton' && e.name.includes('Action 1')),
      ],
      ['Window 3 > AXGroup[2] > button', {}, 8],
      ['Nothing like this', {}, 0],
      ['*', { scope: { kind: 'position', x: 100, y: 100 } }, count((e) => inside(e, 100, 100))],
      [
        'role:textfield',
        { elementTypes: ['textfield'], includeHidden: false, limit: 50 },
        count((e, i) => e.role === 'AXTextField' && b.visible[i]),
      ],
    ];
    // First run (cold: the JIT has not seen the code) and second run (warm), printed, not asserted.
    const times: string[] = [];
    for (const [text, opts, total] of cases) {
      const ms: string[] = [];
      for (let run = 0; run < 2; run++) {
        const t0 = performance.now();
        const q = parseQuery(text);
        const r = findMatches(b.snapshot, q, { visible: b.visible, focusedIndex, ...opts });
        ms.push((performance.now() - t0).toFixed(1));
        expect(r.total, text).toBe(total);
      }
      times.push(`${text}: ${ms.join(' / ')} ms`);
    }
    const t0 = performance.now();
    expect(suggestNames(b.snapshot, 'Acton 44', 5)[0]).toBe('Action 44');
    times.push(`suggestNames: ${(performance.now() - t0).toFixed(1)} ms`);
    console.log(
      `query on ${b.snapshot.elements.length} elements (cold / warm):\n  ${times.join('\n  ')}`,
    );
  });
});
