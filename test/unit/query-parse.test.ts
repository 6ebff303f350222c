/** parseQuery and describeQuery on text alone: forms, strategies, role aliases, errors. */
import { describe, expect, it } from 'vitest';
import {
  describeQuery,
  parseQuery,
  QueryError,
  resolveRole,
  type Query,
  type Step,
  type Term,
} from '../../src/query/index.js';

/** The first attempt's steps. */
function steps(q: Query): Step[] {
  return q.attempts[0].steps;
}

function only(q: Query): Term[] {
  const s = steps(q);
  expect(s).toHaveLength(1);
  return s[0].terms;
}

function names(q: Query): string[] {
  return q.attempts.map((a) => a.name);
}

function error(text: string, strategy?: Parameters<typeof parseQuery>[1]): QueryError {
  try {
    parseQuery(text, strategy);
  } catch (err) {
    expect(err).toBeInstanceOf(QueryError);
    return err as QueryError;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

describe('plain text', () => {
  it('reads a word as text, exact then contains', () => {
    const q = parseQuery('Save');
    expect(q.form).toBe('text');
    expect(names(q)).toEqual(['exact', 'contains']);
    expect(only(q)).toEqual([
      {
        kind: 'text',
        fields: ['name', 'value', 'description', 'identifier'],
        match: { op: 'exact', text: 'Save' },
      },
    ]);
    expect(q.attempts[1].steps[0].terms[0]).toMatchObject({
      match: { op: 'contains', text: 'Save' },
    });
  });

  it('keeps spaces, colons inside words and apostrophes', () => {
    expect(only(parseQuery("Don't save"))[0]).toMatchObject({ match: { text: "Don't save" } });
    expect(only(parseQuery('Save  As\u2026'))[0]).toMatchObject({ match: { text: 'Save As...' } });
    const time = parseQuery('Time: 10:30');
    expect(time.form).toBe('text');
    expect(only(time)[0]).toMatchObject({ match: { op: 'exact', text: 'Time: 10:30' } });
  });

  it('does not treat a ref-looking word specially', () => {
    const q = parseQuery('e42');
    expect(q.form).toBe('text');
    expect(only(q)[0]).toMatchObject({ match: { op: 'exact', text: 'e42' } });
  });

  it('reads a whole quoted query as literal text, with escapes', () => {
    const q = parseQuery('"button:Save > now"');
    expect(q.form).toBe('text');
    expect(names(q)).toEqual(['exact', 'contains']);
    expect(only(q)[0]).toMatchObject({ match: { text: 'button:Save > now' } });
    expect(only(parseQuery(String.raw`'it\'s'`))[0]).toMatchObject({ match: { text: "it's" } });
  });

  it('adds a role attempt for a role word: last for aliases, first for AX names', () => {
    expect(names(parseQuery('button'))).toEqual(['exact', 'contains', 'role']);
    const ax = parseQuery('AXButton');
    expect(names(ax)).toEqual(['role', 'exact', 'contains']);
    expect(ax.attempts[0].steps[0].terms[0]).toMatchObject({
      kind: 'role',
      role: { roles: ['AXButton'] },
    });
  });

  it('reads * as any element', () => {
    const q = parseQuery('*');
    expect(q.form).toBe('any');
    expect(only(q)).toEqual([]);
  });
});

describe('role:title', () => {
  it.each([
    ['button:Save', 'AXButton'],
    ['AXButton:Save', 'AXButton'],
    ['axbutton:Save', 'AXButton'],
    ['push button:Save', 'AXButton'],
    ['Push_Button:Save', 'AXButton'],
    ['textfield:Save', 'AXTextField'],
    ['text field:Save', 'AXTextField'],
    ['TextField:Save', 'AXTextField'],
    ['checkbox:Save', 'AXCheckBox'],
    ['check box:Save', 'AXCheckBox'],
    ['label:Save', 'AXStaticText'],
    ['combo box:Save', 'AXComboBox'],
    ['menu item:Save', 'AXMenuItem'],
    ['page tab:Save', 'AXTab'],
  ])('%s → %s', (text, role) => {
    const q = parseQuery(text);
    expect(q.form).toBe('role_title');
    const [r, title] = only(q);
    expect(r.kind).toBe('role');
    if (r.kind === 'role') expect(r.role.roles).toContain(role);
    expect(title).toEqual({ kind: 'text', fields: ['name'], match: { op: 'exact', text: 'Save' } });
  });

  it('falls back to contains, then to the whole text as plain text', () => {
    const q = parseQuery('button:Save As');
    expect(names(q)).toEqual(['role_title', 'role_title_contains', 'exact', 'contains']);
    expect(steps(q)[0].terms[1]).toMatchObject({ match: { op: 'exact', text: 'Save As' } });
    expect(q.attempts[1].steps[0].terms[1]).toMatchObject({
      match: { op: 'contains', text: 'Save As' },
    });
    expect(q.attempts[2].steps[0].terms[0]).toMatchObject({
      match: { op: 'exact', text: 'button:Save As' },
    });
  });

  it('has no literal fallback once something is quoted', () => {
    const q = parseQuery('button:"Save As"');
    expect(names(q)).toEqual(['role_title', 'role_title_contains']);
  });

  it('reads role~text as a contains title, and role: alone as the role', () => {
    const c = parseQuery('button~sav');
    expect(names(c)).toEqual(['role_title', 'exact', 'contains']);
    expect(only(c)[1]).toMatchObject({ match: { op: 'contains', text: 'sav' } });
    const r = parseQuery('AXCheckBox:');
    expect(r.form).toBe('role');
    expect(only(r)).toHaveLength(1);
    expect(only(r)[0]).toMatchObject({ kind: 'role', role: { roles: ['AXCheckBox'] } });
  });

  it('takes a regex title', () => {
    const q = parseQuery('button:/^Save( As)?$/i');
    expect(only(q)[1]).toEqual({
      kind: 'text',
      fields: ['name'],
      match: { op: 'regex', source: '^Save( As)?$', flags: 'i' },
    });
    expect(names(q)).toEqual(['role_title']);
  });

  it('lets terms follow the title', () => {
    const q = parseQuery('button:Save As enabled:true');
    expect(only(q)).toEqual([
      expect.objectContaining({ kind: 'role' }),
      { kind: 'text', fields: ['name'], match: { op: 'exact', text: 'Save As' } },
      { kind: 'flag', flag: 'enabled', value: true },
    ]);
  });

  it('reads a colon after a non-role word as plain text', () => {
    expect(parseQuery('Status: ready').form).toBe('text');
    expect(parseQuery('Links: 3').form).toBe('text');
    expect(parseQuery('Now: 5').form).toBe('text');
  });

  it('reads text with a stray quote or slash as plain text', () => {
    expect(only(parseQuery("He said 'hi"))[0]).toMatchObject({ match: { text: "He said 'hi" } });
    expect(only(parseQuery('Home ~/docs'))[0]).toMatchObject({ match: { text: 'Home ~/docs' } });
  });
});

describe('key:value terms', () => {
  it('combines terms with AND, with every operator', () => {
    const q = parseQuery(
      'role:button title:"Save As" value~draft description:Saves identifier:save-as',
    );
    expect(q.form).toBe('terms');
    expect(only(q)).toEqual([
      expect.objectContaining({
        kind: 'role',
        // `button` is the button family (push, toggle and menu buttons).
        role: expect.objectContaining({ roles: ['AXButton', 'AXToggleButton', 'AXMenuButton'] }),
      }),
      { kind: 'text', fields: ['name'], match: { op: 'exact', text: 'Save As' } },
      { kind: 'text', fields: ['value'], match: { op: 'contains', text: 'draft' } },
      { kind: 'text', fields: ['description'], match: { op: 'exact', text: 'Saves' } },
      { kind: 'text', fields: ['identifier'], match: { op: 'exact', text: 'save-as' } },
    ]);
  });

  it('runs an unquoted value on to the next key', () => {
    const q = parseQuery('role:push button title:Save As enabled:true');
    const terms = only(q);
    expect(terms[0]).toMatchObject({ kind: 'role', role: { roles: ['AXButton'] } });
    expect(terms[1]).toMatchObject({ match: { text: 'Save As' } });
    expect(terms[2]).toEqual({ kind: 'flag', flag: 'enabled', value: true });
  });

  it('accepts synonyms, = and a space after the colon', () => {
    const q = parseQuery('name=OK desc: Closes the dialog id:ok');
    expect(only(q)).toEqual([
      { kind: 'text', fields: ['name'], match: { op: 'exact', text: 'OK' } },
      { kind: 'text', fields: ['description'], match: { op: 'exact', text: 'Closes the dialog' } },
      { kind: 'text', fields: ['identifier'], match: { op: 'exact', text: 'ok' } },
    ]);
  });

  it('reads regex values with flags, and drops g/y', () => {
    const t = only(parseQuery('title:/^save/gi value:/a b/'));
    expect(t[0]).toMatchObject({ match: { op: 'regex', source: '^save', flags: 'i' } });
    expect(t[1]).toMatchObject({ match: { op: 'regex', source: 'a b', flags: '' } });
    // A slash inside a character class or escaped does not close the regex.
    expect(only(parseQuery(String.raw`title:/a[/]b\/c/`))[0]).toMatchObject({
      match: { source: String.raw`a[/]b\/c` },
    });
  });

  it('reads flag terms with their spellings', () => {
    const t = only(
      parseQuery('enabled:true visible:yes focused:1 checked:false hidden:off interactive:on'),
    );
    expect(t).toEqual([
      { kind: 'flag', flag: 'enabled', value: true },
      { kind: 'flag', flag: 'visible', value: true },
      { kind: 'flag', flag: 'focused', value: true },
      { kind: 'flag', flag: 'checked', value: false },
      { kind: 'flag', flag: 'hidden', value: false },
      { kind: 'flag', flag: 'interactive', value: true },
    ]);
  });

  it('reads role~ and role:/re/ against role names', () => {
    expect(only(parseQuery('role~text'))[0]).toEqual({
      kind: 'role_text',
      match: { op: 'contains', text: 'text' },
    });
    expect(only(parseQuery('role:/^AX(Button|Link)$/'))[0]).toMatchObject({
      kind: 'role_text',
      match: { op: 'regex' },
    });
  });

  it('puts index:/nth: on the step', () => {
    const q = parseQuery('role:button title:OK index:2');
    expect(steps(q)[0].nth).toBe(2);
    expect(steps(parseQuery('button:OK nth:-1'))[0].nth).toBe(-1);
  });

  it('takes a quoted text followed by terms', () => {
    expect(only(parseQuery('"Save As" enabled:false'))).toEqual([
      {
        kind: 'text',
        fields: ['name', 'value', 'description', 'identifier'],
        match: { op: 'exact', text: 'Save As' },
      },
      { kind: 'flag', flag: 'enabled', value: false },
    ]);
  });
});

describe('regex form', () => {
  it('reads /re/flags as a regex on all texts', () => {
    const q = parseQuery('/^Save/i');
    expect(q.form).toBe('regex');
    expect(only(q)[0]).toEqual({
      kind: 'text',
      fields: ['name', 'value', 'description', 'identifier'],
      match: { op: 'regex', source: '^Save', flags: 'i' },
    });
  });

  it('reads a path-like text as text, not a regex', () => {
    expect(parseQuery('/usr/bin/env').form).toBe('text');
  });
});

describe('paths', () => {
  it('reads > steps, each a role, role:title, terms or text', () => {
    const q = parseQuery('window:"Fixture Form" > AXButton:Submit');
    expect(q.form).toBe('path');
    const [w, b] = steps(q);
    expect(w.axis).toBe('descendant');
    // `window` is the window family: dialogs are windows too.
    expect(w.terms[0]).toMatchObject({
      kind: 'role',
      role: { roles: ['AXWindow', 'AXSheet', 'AXDialog'] },
    });
    expect(w.terms[1]).toMatchObject({ match: { op: 'exact', text: 'Fixture Form' } });
    expect(b.terms[0]).toMatchObject({ kind: 'role', role: { roles: ['AXButton'] } });
    expect(b.terms[1]).toMatchObject({ match: { text: 'Submit' } });
    expect(names(q)).toEqual(['path']);
  });

  it('reads bare role names as roles and [n] as nth', () => {
    const q = parseQuery('AXWindow > AXGroup >> AXButton[2]');
    const s = steps(q);
    expect(s.map((x) => x.terms[0])).toEqual([
      expect.objectContaining({ role: expect.objectContaining({ roles: ['AXWindow'] }) }),
      expect.objectContaining({ role: expect.objectContaining({ roles: ['AXGroup'] }) }),
      expect.objectContaining({ role: expect.objectContaining({ roles: ['AXButton'] }) }),
    ]);
    expect(s.map((x) => x.nth)).toEqual([undefined, undefined, 2]);
    expect(names(q)).toEqual(['path', 'exact', 'contains']);
  });

  it('reads a single step with [n] with its own form', () => {
    const q = parseQuery('OK[2]');
    expect(q.form).toBe('text');
    expect(names(q)).toEqual(['exact', 'contains', 'exact', 'contains']);
    expect(q.attempts[0].steps[0].nth).toBe(2);
    // The literal fallback is the whole text, without the pick.
    expect(q.attempts[2].steps[0].nth).toBeUndefined();
    expect(q.attempts[2].steps[0].terms[0]).toMatchObject({ match: { text: 'OK[2]' } });
    expect(steps(parseQuery('AXButton[-1]'))[0].nth).toBe(-1);
  });

  it('reads text with a trailing > as plain text', () => {
    const q = parseQuery('Next >');
    expect(q.form).toBe('text');
    expect(only(q)[0]).toMatchObject({ match: { text: 'Next >' } });
  });

  it('keeps > inside quotes and regexes', () => {
    const q = parseQuery('title:"a > b" > button:/x>y/');
    expect(steps(q)).toHaveLength(2);
    expect(steps(q)[0].terms[0]).toMatchObject({ match: { text: 'a > b' } });
    expect(steps(q)[1].terms[1]).toMatchObject({ match: { source: 'x>y' } });
  });
});

describe('xpath', () => {
  it('reads the subset with strategy xpath', () => {
    const q = parseQuery(`//AXWindow[@AXTitle="Main"]/AXButton[@title='Save'][2]`, 'xpath');
    expect(q.form).toBe('xpath');
    const [w, b] = steps(q);
    expect(w.axis).toBe('descendant');
    expect(w.terms[1]).toEqual({
      kind: 'text',
      fields: ['name'],
      match: { op: 'exact', text: 'Main' },
    });
    expect(b.axis).toBe('child');
    expect(b.nth).toBe(2);
    expect(b.terms[1]).toMatchObject({ fields: ['name'], match: { text: 'Save' } });
  });

  it('reads value, identifier, contains(), starts-with(), and, last() and *', () => {
    const q = parseQuery(
      "/*//textfield[@value='x' and @identifier='name'][contains(@title, 'Na')]//*[starts-with(@description,'Hi')][last()]",
      'xpath',
    );
    const [a, b, c] = steps(q);
    expect(a).toEqual({ axis: 'child', terms: [] });
    expect(b.terms.slice(1)).toEqual([
      { kind: 'text', fields: ['value'], match: { op: 'exact', text: 'x' } },
      { kind: 'text', fields: ['identifier'], match: { op: 'exact', text: 'name' } },
      { kind: 'text', fields: ['name'], match: { op: 'contains', text: 'Na' } },
    ]);
    expect(c.nth).toBe(-1);
    expect(c.terms[0]).toMatchObject({
      fields: ['description'],
      match: { op: 'regex', source: String.raw`^\s*Hi` },
    });
  });

  it('is recognized by auto when the text starts with //', () => {
    expect(parseQuery("//AXButton[@title='Save']").form).toBe('xpath');
    expect(parseQuery('/AXWindow/AXButton').form).toBe('xpath');
  });

  it('explains what is wrong', () => {
    expect(error("//AXButton[@title='Save'", 'xpath').message).toMatch(
      /bad xpath at \d+: expected '\]'/,
    );
    expect(error('//AXButton[@colour="red"]', 'xpath').message).toMatch(
      /unknown attribute @colour/,
    );
    expect(error('AXButton', 'xpath').message).toMatch(/starts with \/\//);
    const e = error('//buton', 'xpath');
    expect(e.message).toMatch(/unknown role 'buton'/);
    expect(e.suggestions).toContain('button');
  });
});

describe('strategies', () => {
  it('exact and contains read the whole text literally', () => {
    const e = parseQuery('button:Save', 'exact');
    expect(names(e)).toEqual(['exact']);
    expect(only(e)[0]).toMatchObject({ match: { op: 'exact', text: 'button:Save' } });
    expect(only(parseQuery('a > b', 'contains'))[0]).toMatchObject({
      match: { op: 'contains', text: 'a > b' },
    });
  });

  it('regex reads the whole text as a regex, with or without slashes', () => {
    expect(only(parseQuery('^Save', 'regex'))[0]).toMatchObject({
      match: { op: 'regex', source: '^Save', flags: '' },
    });
    expect(only(parseQuery('/^save$/i', 'regex'))[0]).toMatchObject({
      match: { source: '^save$', flags: 'i' },
    });
  });

  it('role reads a role name', () => {
    const q = parseQuery('push button', 'role');
    expect(q.form).toBe('role');
    expect(only(q)[0]).toMatchObject({ kind: 'role', role: { roles: ['AXButton'] } });
  });

  it('identifier matches the identifier only', () => {
    expect(only(parseQuery('submit', 'identifier'))).toEqual([
      { kind: 'text', fields: ['identifier'], match: { op: 'exact', text: 'submit' } },
    ]);
  });

  it('rejects an unknown strategy', () => {
    expect(error('Save', 'fuzzy' as never).message).toMatch(
      /unknown strategy 'fuzzy'.*auto, exact, contains/,
    );
  });
});

describe('role aliases', () => {
  it('resolves AX names, short names, aliases and native names case-insensitively', () => {
    for (const [name, role] of [
      ['AXTextField', 'AXTextField'],
      ['textfield', 'AXTextField'],
      ['Text Field', 'AXTextField'],
      ['text_field', 'AXTextField'],
      ['entry', 'AXTextField'],
      ['password text', 'AXSecureTextField'],
      ['radio', 'AXRadioButton'],
      ['radio button', 'AXRadioButton'],
      ['static text', 'AXStaticText'],
      ['scroll pane', 'AXScrollArea'],
      ['page tab list', 'AXTabGroup'],
      ['list item', 'AXRow'],
      ['table cell', 'AXCell'],
      ['frame', 'AXWindow'],
    ]) {
      expect(resolveRole(name)?.roles, name).toContain(role);
    }
  });

  it('keeps the native names so either vocabulary matches', () => {
    expect(resolveRole('button')?.nativeRoles).toContain('push button');
    expect(resolveRole('toggle button')?.nativeRoles).toEqual(['toggle button']);
  });

  it('resolves a shared alias to every role it names', () => {
    expect(resolveRole('dropdown')?.roles).toEqual(
      expect.arrayContaining(['AXPopUpButton', 'AXComboBox']),
    );
    expect(resolveRole('dialog')?.nativeRoles).toEqual(expect.arrayContaining(['dialog', 'alert']));
  });

  it('resolves every AT-SPI role name to itself, so any (native) from a tree line works', () => {
    // AtspiRole names as atspi_role_get_name spells them (libatspi 2.46).
    const atspi =
      'invalid|accelerator label|alert|animation|arrow|calendar|canvas|check box|check menu item|color chooser|column header|combo box|date editor|desktop icon|desktop frame|dial|dialog|directory pane|drawing area|file chooser|filler|focus traversable|font chooser|frame|glass pane|html container|icon|image|internal frame|label|layered pane|list|list item|menu|menu bar|menu item|option pane|page tab|page tab list|panel|password text|popup menu|progress bar|push button|radio button|radio menu item|root pane|row header|scroll bar|scroll pane|separator|slider|spin button|split pane|status bar|table|table cell|table column header|table row header|tearoff menu item|terminal|text|toggle button|tool bar|tool tip|tree|tree table|unknown|viewport|window|extended|header|footer|paragraph|ruler|application|autocomplete|editbar|embedded|entry|chart|caption|document frame|heading|page|section|redundant object|form|link|input method window|table row|tree item|document spreadsheet|document presentation|document text|document web|document email|comment|list box|grouping|image map|notification|info bar|level bar|title bar|block quote|audio|video|definition|article|landmark|log|marquee|math|rating|timer|static|math fraction|math root|subscript|superscript|description list|description term|description value|footnote|content deletion|content insertion|mark|suggestion|push button menu';
    const names = atspi.split('|');
    expect(names).toHaveLength(130);
    for (const name of names) expect(resolveRole(name)?.nativeRoles, name).toContain(name);
  });

  it('a container name stands for that native role only, not every AXGroup', () => {
    expect(resolveRole('panel')).toMatchObject({ roles: [], nativeRoles: ['panel'] });
    expect(resolveRole('group')?.roles).toEqual(['AXGroup']);
    expect(resolveRole('group')?.nativeRoles).toEqual(expect.arrayContaining(['panel', 'filler']));
  });

  it('takes an unknown AX-spelled role literally unless it is a near miss', () => {
    expect(resolveRole('AXFancyWidget')?.roles).toEqual(['AXFancyWidget']);
    expect(resolveRole('AXButon')).toBeNull();
    expect(resolveRole('florp')).toBeNull();
  });
});

describe('errors say what is wrong and show the valid forms', () => {
  it('unclosed quote', () => {
    const e = error('title:"Save As');
    expect(e.message).toMatch(/unclosed quote: " at 7 has no closing "/);
    expect(e.message).toMatch(/Valid forms: .*button:Save/);
    expect(e.position).toBe(6);
    expect(error('"Save').message).toMatch(/unclosed quote/);
  });

  it('bad regex and bad flags', () => {
    expect(error('title:/(/').message).toMatch(/bad regex \/\(\/: .*/);
    expect(error('title:/a/x').message).toMatch(/unknown regex flag 'x'/);
    expect(error('title:/abc').message).toMatch(/unclosed regex at 7/);
    expect(error('(', 'regex').message).toMatch(/bad regex/);
  });

  it('unknown role alias, with close ones', () => {
    const e = error('role:buton');
    expect(e.message).toMatch(/unknown role 'buton' \(did you mean button/);
    expect(e.suggestions).toContain('button');
    expect(error('chekbox:Subscribe').suggestions).toContain('checkbox');
    expect(error('AXButon:Save').suggestions).toContain('AXButton');
    expect(error('textfeild', 'role').suggestions).toContain('textfield');
  });

  it('a misspelled key', () => {
    const e = error('role:button titel:Save');
    expect(e.message).toMatch(/unknown key 'titel' \(did you mean title/);
  });

  it('text after a quoted value, bad flag values, bad index', () => {
    expect(error('title:"Save" As').message).toMatch(/unexpected 'As'.*expected key:value/);
    expect(error('enabled:maybe').message).toMatch(/enabled: takes true or false/);
    expect(error('index:two').message).toMatch(/index: takes a number/);
    expect(error('AXButton[0]').message).toMatch(/count from 1/);
    expect(error('button:OK index:2[3]').message).toMatch(/either \[n\] or index:n/);
    expect(error('role:').message).toMatch(/role: needs a role name/);
    expect(error('title~').message).toMatch(/needs some text/);
  });

  it('empty queries and empty steps', () => {
    expect(error('   ').message).toMatch(/empty query/);
    expect(error('window:Main > > button:OK').message).toMatch(/empty step after '>'/);
    expect(error('[2]').message).toMatch(/nothing before \[n\]/);
  });

  it('messages are one short paragraph', () => {
    const e = error('role:buton');
    expect(e.message.length).toBeLessThan(600);
    expect(e.message).not.toMatch(/\n/);
  });
});

describe('describeQuery', () => {
  it('gives one line per form', () => {
    expect(describeQuery(parseQuery('Save'))).toBe('text: text="Save" (then contains)');
    expect(describeQuery(parseQuery('button:Save'))).toBe(
      'role_title: button title="Save" (then role_title_contains, exact, contains)',
    );
    expect(describeQuery(parseQuery('role:button value~draft enabled:false index:2'))).toBe(
      'terms: button value~"draft" !enabled[2] (then exact, contains)',
    );
    expect(describeQuery(parseQuery('window:"Main" > AXButton[2]'))).toBe(
      'path: window title="Main" > AXButton[2]',
    );
    expect(describeQuery(parseQuery("/AXWindow//AXButton[@title='OK']", 'xpath'))).toBe(
      'xpath: /AXWindow//AXButton title="OK"',
    );
    expect(describeQuery(parseQuery('/^Sa/i'))).toBe('regex: text=/^Sa/i');
    expect(describeQuery(parseQuery('*'))).toBe('any: *');
    expect(describeQuery(null)).toBe('any element');
  });
});
