import { describe, expect, it } from 'vitest';
import type { SnapshotView } from '../../src/model/view.js';
import { AxError } from '../../src/errors.js';
import { RefRegistry } from '../../src/pipeline/refs.js';
import {
  centerOf,
  elementLabel,
  resolveInView,
  type RefLookup,
  type Target,
} from '../../src/pipeline/target.js';
import { targetOf } from '../../src/tools/schemas.js';
import { axError } from './helpers/pipeline-fixtures.js';
import { buildSnapshot, element, viewOf } from './helpers/synthetic.js';

/** A form: two "Save" buttons (one scrolled off screen), a field group, a secure field. */
function formView(): SnapshotView {
  const snap = buildSnapshot([
    {
      role: 'AXWindow',
      name: 'Editor',
      frame: [0, 0, 1000, 700],
      window: { active: true },
      children: [
        {
          role: 'AXGroup',
          name: 'Left',
          frame: [0, 0, 500, 600],
          children: [
            { role: 'AXButton', name: 'OK', frame: [20, 500, 80, 30], flags: ['enabled'] },
            { role: 'AXTextField', name: 'Title', value: 'Draft 1', frame: [20, 40, 300, 24] },
          ],
        },
        {
          role: 'AXGroup',
          name: 'Right',
          frame: [500, 0, 500, 600],
          children: [
            // Off screen (the screen is 1280x800) but next to the focused field: found,
            // yet ranked after the visible Save because visibility ranks before nearness.
            { role: 'AXButton', name: 'Save', frame: [520, 2000, 80, 30], actions: ['click'] },
            { role: 'AXButton', name: 'OK', frame: [520, 500, 80, 30], flags: ['enabled'] },
            {
              role: 'AXTextField',
              name: 'Notes',
              frame: [520, 40, 300, 24],
              flags: ['enabled', 'focused'],
            },
          ],
        },
        { role: 'AXButton', name: 'Save', frame: [601, 641, 79, 31], actions: ['click'] },
        { role: 'AXButton', name: 'Submit', frame: [700, 640, 80, 30] },
        {
          role: 'AXTextField',
          name: '',
          value: 'hunter2',
          flags: ['secure'],
          frame: [20, 80, 200, 24],
        },
      ],
    },
  ]);
  return viewOf(snap, { refBase: 10, snapshotId: 'sA' });
}

function indexNamed(view: SnapshotView, name: string, nth = 0): number {
  const hits = view.snapshot.elements.flatMap((e, i) => (e.name === name ? [i] : []));
  if (hits[nth] === undefined) throw new Error(`no element ${name} #${nth}`);
  return hits[nth];
}

/** A RefLookup over the view's refs, recording what it was asked; refs not in it were never issued. */
function refLookup(view: SnapshotView, asked: string[] = []): RefLookup {
  return {
    indexOf: (ref) => {
      asked.push(ref);
      return view.refs.indexOf(ref);
    },
    lastSeen: (ref) => {
      throw new AxError('unknown_ref', `ref ${ref} was never issued`);
    },
  };
}

/** Arguments through the schema boundary's one parser. */
const T = (args: Parameters<typeof targetOf>[0]): Target =>
  targetOf(args, { point: true, required: true }) as Target;

const noRefs: RefLookup = {
  indexOf: () => {
    throw new Error('indexOf must not be called');
  },
  lastSeen: () => {
    throw new Error('lastSeen must not be called');
  },
};

describe('resolveInView: refs', () => {
  it('resolves a ref through the callback, trimmed, to the element and its centre', () => {
    const view = formView();
    const save = indexNamed(view, 'Save', 1);
    const asked: string[] = [];
    const t = resolveInView(view, T({ ref: ` ${view.refs[save]} ` }), refLookup(view, asked));
    expect(asked).toEqual([view.refs[save]]);
    expect(t.index).toBe(save);
    expect(t.element).toBe(view.snapshot.elements[save]);
    expect(t.ref).toBe(view.refs[save]);
    // Frame 601,641 79x31: centre 640.5,656.5 rounds down to 640,656.
    expect(t.point).toEqual({ x: 640, y: 656 });
    expect(t.label).toBe(`[AXButton] "Save" ${view.refs[save]}`);
    expect(t.otherMatches).toBe(0);
  });

  it("passes on the registry's error for a ref never issued", () => {
    const view = formView();
    expect(
      axError(() => resolveInView(view, T({ ref: 'e999' }), refLookup(view)), 'unknown_ref')
        .message,
    ).toContain('e999');
  });

  it('refuses a ref and a query together at the boundary, before anything resolves', () => {
    const view = formView();
    const notes = indexNamed(view, 'Notes');
    const err = axError(() => T({ ref: view.refs[notes], query: 'Submit' }), 'bad_argument');
    expect(err.message).toMatch(/one target.*ref and query/);
  });
});

describe('resolveInView: queries', () => {
  it('picks the visible match over the off-screen one and counts the rest', () => {
    const view = formView();
    expect(view.visible[indexNamed(view, 'Save', 0)]).toBe(false);
    const t = resolveInView(view, T({ query: 'button:Save' }), noRefs);
    expect(t.index).toBe(indexNamed(view, 'Save', 1));
    expect(t.otherMatches).toBe(1);
    expect(t.label).toBe(`[AXButton] "Save" ${view.refs[t.index as number]}`);
    expect(t.point).toEqual({ x: 640, y: 656 });
  });

  it('breaks a tie by nearness to the focused element', () => {
    const view = formView();
    // Notes (focused) is in the Right group: its OK wins over the Left one.
    const t = resolveInView(view, T({ query: 'button:OK' }), noRefs);
    expect(t.index).toBe(indexNamed(view, 'OK', 1));
    expect(t.otherMatches).toBe(1);
  });

  it('reports no other matches for a unique query, and honours the strategy', () => {
    const view = formView();
    const unique = resolveInView(view, T({ query: 'Submit' }), noRefs);
    expect(unique.index).toBe(indexNamed(view, 'Submit'));
    expect(unique.otherMatches).toBe(0);
    const regex = resolveInView(view, T({ query: '^Sub', strategy: 'regex' }), noRefs);
    expect(regex.index).toBe(indexNamed(view, 'Submit'));
    // The value is searched too: "Draft 1" is the Title field's text.
    expect(resolveInView(view, T({ query: 'Draft 1' }), noRefs).index).toBe(
      indexNamed(view, 'Title'),
    );
  });

  it('says what was tried and suggests close names when nothing matches', () => {
    const view = formView();
    const err = axError(() => resolveInView(view, T({ query: 'Sbumit' }), noRefs), 'no_match');
    expect(err.message).toBe(
      `nothing in demo-app matches 'Sbumit' (tried: exact, contains; ${view.snapshot.elements.length} elements searched)`,
    );
    expect(err.hint).toMatch(/^Closest names: 'Submit'/);
    expect(err.details).toMatchObject({ tried: ['exact', 'contains'] });
    expect((err.details as { suggestions: string[] }).suggestions).toContain('Submit');
  });

  it('points at the tree file when no name is close', () => {
    const view = formView();
    const err = axError(() => resolveInView(view, T({ query: 'zzqqxxyy' }), noRefs), 'no_match');
    expect(err.hint).toMatch(/^Grep the tree file/);
    expect(err.details).toMatchObject({ suggestions: [] });
  });

  it('never offers a secure value as a suggestion', () => {
    const view = formView();
    const err = axError(() => resolveInView(view, T({ query: 'hunter3' }), noRefs), 'no_match');
    expect(err.actionable).not.toContain('hunter2');
  });

  it.each([
    ['role:buton', /unknown role 'buton'/],
    ['"Save', /unclosed quote/],
    ['title:/(/', /bad regex/],
    ['   ', /empty query/],
  ])('rejects the malformed query %j as bad_query', (query, message) => {
    const err = axError(() => resolveInView(formView(), T({ query }), noRefs), 'bad_query');
    expect(err.message).toMatch(message);
  });

  it('rejects an unknown strategy as bad_query', () => {
    const err = axError(
      () => resolveInView(formView(), T({ query: 'Save', strategy: 'fuzzy' as never }), noRefs),
      'bad_query',
    );
    expect(err.message).toMatch(/fuzzy/);
  });
});

describe('resolveInView: coordinates', () => {
  it('aims at a point, rounded', () => {
    const t = resolveInView(formView(), T({ x: 10.4, y: 20.6 }), noRefs);
    expect(t).toEqual({ point: { x: 10, y: 21 }, label: '(10,21)', otherMatches: 0 });
  });

  it('aims at the centre of a rectangle given with w and h', () => {
    const t = resolveInView(formView(), T({ x: 100, y: 200, w: 51, h: 20 }), noRefs);
    expect(t.point).toEqual({ x: 126, y: 210 });
    expect(t.label).toBe('(126,210)');
    expect(t.index).toBeUndefined();
    expect(t.element).toBeUndefined();
  });

  it.each<[string, Parameters<typeof targetOf>[0], RegExp]>([
    ['nothing', {}, /no target given/],
    ['x without y', { x: 10 }, /needs both x and y/],
    ['w without h', { x: 5, y: 6, w: 100 }, /w and h go together/],
    ['only a strategy', { strategy: 'exact' }, /no query was given/],
  ])('rejects %s as bad_argument with a hint', (_what, args, message) => {
    const err = axError(() => T(args), 'bad_argument');
    expect(err.message).toMatch(message);
    expect(err.hint).toBeTruthy();
  });

  it('refuses coordinates where an element is needed', () => {
    const err = axError(() => targetOf({ x: 1, y: 2 }, { required: true }), 'bad_argument');
    expect(err.message).toMatch(/an element, not coordinates/);
  });
});

describe('elementLabel and centerOf', () => {
  it('shows the name, else the value, else the description', () => {
    expect(elementLabel(element({ role: 'AXButton', name: 'OK', value: 'v' }), 'e1')).toBe(
      '[AXButton] "OK" e1',
    );
    expect(elementLabel(element({ role: 'AXTextField', value: 'Draft' }), 'e2')).toBe(
      '[AXTextField] "Draft" e2',
    );
    expect(elementLabel(element({ role: 'AXImage', description: 'Logo' }), 'e3')).toBe(
      '[AXImage] "Logo" e3',
    );
    expect(elementLabel(element({ role: 'AXGroup' }), 'e4')).toBe('[AXGroup] e4');
  });

  it('never shows a secure value', () => {
    const secret = element({ role: 'AXTextField', value: 'hunter2', flags: ['secure'] });
    expect(elementLabel(secret, 'e5')).toBe('[AXTextField] e5');
    const described = { ...secret, description: 'Password' };
    expect(elementLabel(described, 'e6')).toBe('[AXTextField] "Password" e6');
    const named = { ...secret, name: 'Password' };
    expect(elementLabel(named, 'e7')).toBe('[AXTextField] "Password" e7');
    const view = formView();
    const i = view.snapshot.elements.findIndex((e) => e.flags.includes('secure'));
    const t = resolveInView(view, T({ ref: view.refs[i] }), refLookup(view));
    expect(t.label).not.toContain('hunter2');
  });

  it('cuts long text at 40 characters with a mark and folds whitespace', () => {
    const long = 'x'.repeat(50);
    expect(elementLabel(element({ role: 'AXStaticText', name: long }), 'e8')).toBe(
      `[AXStaticText] "${'x'.repeat(39)}…" e8`,
    );
    const exact = 'y'.repeat(40);
    expect(elementLabel(element({ role: 'AXStaticText', name: exact }), 'e9')).toBe(
      `[AXStaticText] "${exact}" e9`,
    );
    expect(elementLabel(element({ role: 'AXLabel', name: 'two\nlines\t here' }), 'e10')).toBe(
      '[AXLabel] "two lines here" e10',
    );
  });

  it('has no centre for an element without a usable frame', () => {
    expect(centerOf(element({ role: 'AXButton' }))).toBeUndefined();
    expect(
      centerOf(element({ role: 'AXButton', frame: { x: 5, y: 5, w: 0, h: 10 } })),
    ).toBeUndefined();
    expect(centerOf(element({ role: 'AXButton', frame: { x: 0, y: 0, w: 10, h: 10 } }))).toEqual({
      x: 5,
      y: 5,
    });
  });

  it('puts the centre of a part one pixel high on that pixel, not on the next row', () => {
    expect(centerOf(element({ role: 'AXRow', frame: { x: 10, y: 40, w: 3, h: 1 } }))).toEqual({
      x: 11,
      y: 40,
    });
  });
});

/** Memory keys of a calculator: GTK toggle buttons, MS/MR/M+ and no plain "M". */
function keysView(names: string[], opts: { refBase?: number; snapshotId?: string } = {}) {
  return viewOf(
    buildSnapshot([
      {
        role: 'AXWindow',
        name: 'calc',
        frame: [0, 0, 600, 400],
        window: { active: true },
        children: names.map((name, k) => ({
          role: 'AXCheckBox',
          nativeRole: 'toggle button',
          name,
          frame: [10 + 50 * k, 100, 40, 30] as [number, number, number, number],
        })),
      },
    ]),
    { refBase: opts.refBase ?? 1, snapshotId: opts.snapshotId ?? 'sK' },
  );
}

const unique = { unique: true };

describe('resolveInView: one element for an action', () => {
  it('refuses a query that several elements match equally well, listing each with its pick', () => {
    const view = keysView(['MS', 'MR', 'M+']);
    const err = axError(
      () => resolveInView(view, T({ query: 'M' }), noRefs, unique),
      'ambiguous_target',
    );
    expect(err.message).toBe(
      `'M' matches 3 elements equally well, none was acted on: ` +
        `e2 [AXCheckBox] "MS" at 10,100 nth:1; e3 [AXCheckBox] "MR" at 60,100 nth:2; ` +
        `e4 [AXCheckBox] "M+" at 110,100 nth:3`,
    );
    // Short enough for the summary's error line (400 characters) with the hint.
    expect(err.actionable.length).toBeLessThan(400);
    const candidates = (err.details as { candidates: { ref: string; query?: string }[] })
      .candidates;
    expect(candidates.map((c) => c.ref)).toEqual(['e2', 'e3', 'e4']);
    expect(err.hint).toContain('ref: "e2"');
    expect(err.hint).toContain('query: "M nth:1"');
    // Each suggested query, and each ref, resolves to its own candidate under the same rule.
    for (const c of candidates) {
      const byQuery = resolveInView(view, T({ query: c.query as string }), noRefs, unique);
      expect(byQuery.ref).toBe(c.ref);
      const byRef = resolveInView(view, T({ ref: c.ref }), refLookup(view), unique);
      expect(byRef.ref).toBe(c.ref);
    }
  });

  it('lets an exact match win over partial ones, and a read take the best of many', () => {
    const view = keysView(['MS', 'M', 'MR', 'M+']);
    const t = resolveInView(view, T({ query: 'M' }), noRefs, unique);
    expect(t.element?.name).toBe('M');
    const read = resolveInView(keysView(['MS', 'MR', 'M+']), T({ query: 'M' }), noRefs);
    expect(read.otherMatches).toBe(2);
  });

  it('takes a query that picks one with nth, or a button-family query', () => {
    const view = keysView(['MS', 'MR', 'M+', '7']);
    expect(resolveInView(view, T({ query: 'M nth:3' }), noRefs, unique).element?.name).toBe('M+');
    expect(resolveInView(view, T({ query: 'button:7' }), noRefs, unique).element?.name).toBe('7');
  });

  it('offers refs only when the strategy reads the whole text literally (no nth syntax)', () => {
    const err = axError(
      () =>
        resolveInView(keysView(['MS', 'MR']), T({ query: 'M', strategy: 'contains' }), noRefs, {
          unique: true,
        }),
      'ambiguous_target',
    );
    expect(err.message).toMatch(/"MS" at 10,100; e3 /);
    expect(err.hint).toBe('Name one by ref (ref: "e2").');
  });

  it('caps the list with +N more', () => {
    const names = Array.from({ length: 8 }, (_, k) => `Key ${k}`);
    const err = axError(
      () => resolveInView(keysView(names), T({ query: 'button:' }), noRefs, unique),
      'ambiguous_target',
    );
    expect(err.message).toMatch(/matches 8 elements.*; \+4 more$/);
    expect((err.details as { candidates: unknown[] }).candidates).toHaveLength(4);
  });

  it('says how to click the text "*" when * (any element) is ambiguous', () => {
    const err = axError(
      () => resolveInView(keysView(['*', '/']), T({ query: '*' }), noRefs, unique),
      'ambiguous_target',
    );
    expect(err.hint).toContain('query: "\\"*\\""');
    const star = resolveInView(keysView(['*', '/']), T({ query: '"*"' }), noRefs, unique);
    expect(star.element?.name).toBe('*');
  });

  it('says * inside text is literal when it finds nothing', () => {
    const err = axError(
      () => resolveInView(keysView(['MS']), T({ query: 'M*' }), noRefs),
      'no_match',
    );
    expect(err.message).toMatch(/inside text it is a literal character/);
  });
});

describe('resolveInView: stale refs', () => {
  /** A registry that saw `before` (refs e1…) and now holds `after` (refs minted later). */
  function registry(before: SnapshotView, after: SnapshotView): RefLookup {
    const reg = new RefRegistry();
    for (let k = 0; k < before.refs.length + after.refs.length; k++) {
      reg.mint({ pid: 4242, snapshotId: k < before.refs.length ? 'sK' : 'sL', tool: 'ax_find' });
    }
    reg.noteSeen(before);
    reg.noteSeen(after);
    return { indexOf: (ref) => after.refs.indexOf(ref), lastSeen: (ref) => reg.lastSeen(ref) };
  }

  it('names the re-created element by its new ref and a query, and both calls work', () => {
    const before = keysView(['7', '8']);
    const after = keysView(['7', '8'], { refBase: 10, snapshotId: 'sL' });
    const refs = registry(before, after);
    const err = axError(() => resolveInView(after, T({ ref: 'e2' }), refs, unique), 'stale_ref');
    expect(err.message).toMatch(
      /^ref e2 is stale: it came from snapshot sK \(ax_find\).*it was \[AXCheckBox\] "7", and the same element is now e11$/,
    );
    const details = err.details as { ref: string; query: string };
    expect(details).toMatchObject({ ref: 'e11', query: "AXCheckBox:'7'" });
    expect(err.hint).toBe(`Use ref: "e11" (or query: "AXCheckBox:'7'")`);
    const byRef = resolveInView(after, T({ ref: details.ref }), refs, unique);
    const byQuery = resolveInView(after, T({ query: details.query }), refs, unique);
    expect(byRef.element?.name).toBe('7');
    expect(byQuery.index).toBe(byRef.index);
  });

  it('lists the candidates when several elements now have that role and name', () => {
    const before = keysView(['7']);
    const after = keysView(['7', '7'], { refBase: 10, snapshotId: 'sL' });
    const err = axError(
      () => resolveInView(after, T({ ref: 'e2' }), registry(before, after), unique),
      'stale_ref',
    );
    expect(err.message).toMatch(/2 elements have that role and name now: e11, e12$/);
    expect(err.hint).toContain(`query: "AXCheckBox:'7' nth:1"`);
    expect(resolveInView(after, T({ query: "AXCheckBox:'7' nth:2" }), noRefs, unique).ref).toBe(
      'e12',
    );
  });

  it('names a control re-created as another kind of its family (push button -> toggle button)', () => {
    const window = (child: { role: string; nativeRole: string }) =>
      buildSnapshot([
        {
          role: 'AXWindow',
          name: 'app',
          frame: [0, 0, 600, 400],
          window: { active: true },
          children: [{ ...child, name: 'Target', frame: [10, 100, 80, 30] }],
        },
      ]);
    const before = viewOf(window({ role: 'AXButton', nativeRole: 'push button' }), {
      refBase: 1,
      snapshotId: 'sK',
    });
    const after = viewOf(window({ role: 'AXCheckBox', nativeRole: 'toggle button' }), {
      refBase: 10,
      snapshotId: 'sL',
    });
    const refs = registry(before, after);
    const err = axError(() => resolveInView(after, T({ ref: 'e2' }), refs, unique), 'stale_ref');
    expect(err.message).toMatch(
      /it was \[AXButton\] "Target", re-created as \[AXCheckBox\] "Target", now e11$/,
    );
    const details = err.details as { ref: string; query: string };
    expect(details).toMatchObject({ ref: 'e11', query: "button:'Target'" });
    // Both pieces of advice work.
    expect(resolveInView(after, T({ ref: details.ref }), refs, unique).index).toBe(1);
    expect(resolveInView(after, T({ query: details.query }), refs, unique).index).toBe(1);
  });

  it('says so when nothing with that role and name is left', () => {
    const before = keysView(['7']);
    const after = keysView(['8'], { refBase: 10, snapshotId: 'sL' });
    const err = axError(
      () => resolveInView(after, T({ ref: 'e2' }), registry(before, after)),
      'stale_ref',
    );
    expect(err.message).toMatch(/it was \[AXCheckBox\] "7", and nothing with that role and name/);
    expect(err.details).toMatchObject({ lastSeen: { role: 'AXCheckBox', name: '7' } });
  });
});
