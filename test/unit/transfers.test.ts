/**
 * A secret's taint following its text: which keys and commands paste or copy, what the
 * session knows of the clipboard and the primary selection, and what one action's
 * transfers make a password field, on data (no desktop, the selections read from a map).
 */
import { describe, expect, it } from 'vitest';
import type { Element, Snapshot } from '../../src/model/element.js';
import type { SnapshotView } from '../../src/model/view.js';
import type { Desktop, DesktopWindow, KeyCombo } from '../../src/platform/desktop.js';
import {
  ActionTransfers,
  changedTextFields,
  copiesKey,
  pasteSource,
  SelectionSecrets,
  type SelectionName,
  type TransferScene,
} from '../../src/pipeline/transfers.js';
import { editCommand } from '../../src/actions/edit-commands.js';

const combo = (key: string, ...modifiers: KeyCombo['modifiers']): KeyCombo => ({ key, modifiers });

function el(id: string, extra: Partial<Element> = {}): Element {
  return {
    id,
    parent: -1,
    depth: 0,
    role: 'AXTextField',
    nativeRole: 'text',
    name: id,
    flags: ['enabled', 'editable'],
    actions: [],
    childCount: 0,
    ...extra,
  };
}

function view(elements: Element[]): SnapshotView {
  return {
    snapshot: { pid: 7, elements } as unknown as Snapshot,
    snapshotId: 's1',
    refs: elements.map((_, i) => `e${i + 1}`),
    visible: elements.map(() => true),
    viewport: { x: 0, y: 0, w: 800, h: 600 },
    dialog: null,
  };
}

/** Selections read from a map; a missing entry cannot be read. Counts the reads. */
function selectionsOf(held: Partial<Record<SelectionName, string>>) {
  const reads: SelectionName[] = [];
  const s = new SelectionSecrets();
  s.readWith(async () => ({
    read: async (which: SelectionName) => {
      reads.push(which);
      const text = held[which];
      if (text === undefined) throw new Error('cannot read');
      return text;
    },
  }));
  return { s, reads, held };
}

describe('keys and commands', () => {
  it.each<[KeyCombo, SelectionName[] | undefined]>([
    [combo('v', 'ctrl'), ['clipboard']],
    [combo('V', 'ctrl'), ['clipboard']],
    [combo('v', 'ctrl', 'shift'), ['clipboard']],
    [combo('Insert', 'shift'), ['clipboard', 'primary']],
    [combo('XF86Paste'), ['clipboard']],
    [combo('v'), undefined],
    [combo('v', 'alt'), undefined],
    [combo('Insert'), undefined],
    [combo('Insert', 'ctrl'), undefined],
  ])('pasteSource(%j) is %j', (c, want) => {
    expect(pasteSource(c)).toEqual(want);
  });

  it.each<[KeyCombo, boolean]>([
    [combo('c', 'ctrl'), true],
    [combo('C', 'ctrl', 'shift'), true],
    [combo('x', 'ctrl'), true],
    [combo('Insert', 'ctrl'), true],
    [combo('Delete', 'shift'), true],
    [combo('XF86Copy'), true],
    [combo('c'), false],
    [combo('Delete'), false],
  ])('copiesKey(%j) is %s', (c, want) => {
    expect(copiesKey(c)).toBe(want);
  });

  it('knows Paste, Copy and Cut items and buttons by their names, in a few languages', () => {
    const item = (name: string, role = 'AXMenuItem') => el('m', { role, name });
    expect(editCommand(item('_Paste'))).toBe('paste');
    expect(editCommand(item('Paste Special…'))).toBe('paste');
    expect(editCommand(item('Einfügen'))).toBe('paste');
    expect(editCommand(item('粘贴'))).toBe('paste');
    expect(editCommand(item('Paste', 'AXButton'))).toBe('paste');
    expect(editCommand(item('Copy'))).toBe('copy');
    expect(editCommand(item('Cu_t'))).toBe('copy');
    expect(editCommand(item('Couper'))).toBe('copy');
    expect(editCommand(item('Select All'))).toBeUndefined();
    expect(editCommand(item('Copyright'))).toBeUndefined();
    expect(editCommand(item('Pasted items'))).toBeUndefined();
    // A label or a field named so runs nothing.
    expect(editCommand(item('Paste', 'AXStaticText'))).toBeUndefined();
    expect(editCommand(undefined)).toBeUndefined();
  });
});

describe('SelectionSecrets', () => {
  it('takes the clipboard after a copy from a password field as secret, until it holds another text', async () => {
    const { s, held } = selectionsOf({ clipboard: 'the-secret' });
    await s.copied(true, 7);
    expect(s.reason('the-secret')).toBe('copied from a password field');
    expect(await s.pasteSecret(['clipboard'])).toBe('copied from a password field');
    held.clipboard = 'alice';
    await s.copied(false, 7);
    expect(s.reason('alice')).toBeUndefined();
    expect(await s.pasteSecret(['clipboard'])).toBeUndefined();
    // The same text again is the same secret, whoever put it there.
    held.clipboard = 'the-secret';
    expect(await s.pasteSecret(['clipboard'])).toBe('copied from a password field');
  });

  it('counts a paste secret when the clipboard could not be read after the copy, until it is replaced', async () => {
    const { s, held } = selectionsOf({});
    await s.copied(true, 7);
    expect(s.reason('anything')).toBe('copied from a password field');
    expect(await s.pasteSecret(['clipboard'])).toBe('copied from a password field');
    held.clipboard = 'x';
    expect(await s.pasteSecret(['clipboard'])).toBe('copied from a password field');
    // ax_clipboard_write replaced it: what it wrote is no secret.
    held.clipboard = 'written-by-the-agent';
    s.written();
    expect(await s.pasteSecret(['clipboard'])).toBeUndefined();
  });

  it('takes the next text the clipboard holds soon after a copy from a password field as it (a late copy)', async () => {
    const { s, held } = selectionsOf({ clipboard: 'before' });
    await s.copied(true, 7);
    // The app copies a moment later (a password store decrypts first).
    held.clipboard = 'late-secret';
    expect(await s.pasteSecret(['clipboard'])).toBe('copied from a password field');
    expect(await s.readReason('late-secret')).toBe('copied from a password field');
  });

  it('knows text typed into a password field on either selection', async () => {
    const { s } = selectionsOf({ clipboard: 'typed-pw', primary: 'typed-pw' });
    s.memory.note('typed-pw', 'typed into a password field');
    expect(await s.pasteSecret(['clipboard'])).toBe('typed into a password field');
    expect(await s.pasteSecret(['primary'])).toBe('typed into a password field');
  });

  it('keeps what was selected in a password field for pastes from PRIMARY only', async () => {
    const { s, held } = selectionsOf({ clipboard: 'selected-pw', primary: 'selected-pw' });
    await s.selectedInSecret();
    expect(await s.pasteSecret(['primary'])).toBe('selected in a password field');
    expect(await s.pasteSecret(['clipboard'])).toBeUndefined();
    expect(s.reason('selected-pw')).toBeUndefined();
    held.primary = 'else';
    expect(await s.pasteSecret(['primary'])).toBeUndefined();
  });

  it('pastes nothing secret from an empty selection, and treats an unreadable one by what it knows', async () => {
    const { s, held, reads } = selectionsOf({ clipboard: '' });
    expect(await s.pasteSecret(['clipboard'])).toBeUndefined();
    // Nothing known yet: not even read.
    expect(reads).toEqual([]);
    s.memory.note('other', 'typed into a password field');
    expect(await s.pasteSecret(['clipboard'])).toBeUndefined();
    expect(reads).toEqual(['clipboard']);
    delete held.clipboard;
    expect(await s.pasteSecret(['clipboard'])).toMatch(/could not be read/);
    // No reader at all (no display): the same.
    expect(await new SelectionSecrets().pasteSecret(['clipboard'])).toBeUndefined();
  });
});

/** One action's transfers on app 7, its learned ids collected per pid. */
function transfersOf(opts: {
  before: Element[];
  selections: SelectionSecrets;
  secret?: string[];
  lastField?: Element;
  windows?: DesktopWindow[];
  popups?: Array<{
    id?: number;
    pid: number | null;
    frame: { x: number; y: number; w: number; h: number };
  }>;
  other?: Element[];
}) {
  const learned: Array<[number, string[]]> = [];
  const secret = new Set(opts.secret ?? []);
  const scene: TransferScene = {
    pid: 7,
    before: view(opts.before),
    selections: opts.selections,
    desktop: {
      listWindows: async () => opts.windows ?? [],
      popupWindows: async () => opts.popups ?? [],
    } as unknown as Desktop,
    isSecret: (_pid, e) => e.flags.includes('secure') || secret.has(e.id),
    learn: (pid, ids) => {
      learned.push([pid, ids]);
      for (const id of ids) secret.add(id);
    },
    lastField: () => opts.lastField,
    walk: async (pid) => ({ pid, elements: opts.other ?? [] }) as unknown as Snapshot,
  };
  return { t: new ActionTransfers(scene), learned };
}

describe('ActionTransfers', () => {
  const user = el('user', { value: 'alice', flags: ['enabled', 'editable', 'focused'] });
  const pw = el('pw', { flags: ['enabled', 'editable'] });

  it('makes the focused field a password field before a paste of a secret goes', async () => {
    const { s } = selectionsOf({ clipboard: 'the-secret' });
    s.memory.note('the-secret', 'copied from a password field');
    const { t, learned } = transfersOf({ before: [user, pw], selections: s, secret: ['pw'] });
    await t.beforeKey(combo('v', 'ctrl'), user);
    expect(learned).toEqual([[7, ['user']]]);
  });

  it('leaves a field alone when what is pasted is no secret, or the key pastes nothing', async () => {
    const { s, reads } = selectionsOf({ clipboard: 'plain' });
    s.memory.note('the-secret', 'copied from a password field');
    const { t, learned } = transfersOf({ before: [user], selections: s });
    await t.beforeKey(combo('v', 'ctrl'), user);
    await t.beforeKey(combo('a', 'ctrl'), user);
    expect(learned).toEqual([]);
    // Only the paste read the clipboard.
    expect(reads).toEqual(['clipboard']);
  });

  it("takes a menu's Paste into the app's last text field, and its Copy from it", async () => {
    const { s, held } = selectionsOf({ clipboard: 'the-secret' });
    const paste = el('m1', { role: 'AXMenuItem', name: 'Paste', flags: ['enabled'] });
    const copy = el('m2', { role: 'AXMenuItem', name: 'Copy', flags: ['enabled'] });
    // A Copy item over the password field: the clipboard's text is secret after it.
    const copying = transfersOf({
      before: [pw, copy],
      selections: s,
      secret: ['pw'],
      lastField: pw,
    });
    await copying.t.beforePress(copy, 'single');
    await copying.t.settled(view([pw, copy]));
    expect(s.reason('the-secret')).toBe('copied from a password field');
    // A Paste item over the user name: it becomes a password field first.
    const pasting = transfersOf({ before: [user, paste], selections: s, lastField: user });
    await pasting.t.beforePress(paste, 'single');
    expect(pasting.learned).toEqual([[7, ['user']]]);
    // A right click opens the menu: it pastes nothing.
    held.clipboard = 'the-secret';
    const opening = transfersOf({ before: [user, paste], selections: s, lastField: user });
    await opening.t.beforePress(paste, 'right');
    expect(opening.learned).toEqual([]);
  });

  it('keeps a late copy secret after another app copied or the agent wrote the clipboard meanwhile', async () => {
    const { s, held } = selectionsOf({ clipboard: 'before' });
    let owner: 'self' | number | null = 7;
    s.askOwner({ check: async () => undefined, whose: async () => owner });
    await s.copied(true, 7);
    // Before the vault's copy lands, the agent writes the clipboard, then copies in app 9.
    held.clipboard = 'written';
    owner = 'self';
    s.written();
    expect(await s.readReason('written')).toBeUndefined();
    held.clipboard = 'hello';
    owner = 9;
    await s.copied(false, 9);
    expect(await s.readReason('hello')).toBeUndefined();
    // Then the vault's copy lands: its app owns the clipboard.
    held.clipboard = 'late-secret';
    owner = 7;
    expect(await s.readReason('late-secret')).toBe('copied from a password field');
  });

  it('ends a late copy at another copy when nothing tells whose the clipboard is', async () => {
    const { s, held } = selectionsOf({ clipboard: 'before' });
    await s.copied(true, 7);
    held.clipboard = 'alice';
    await s.copied(false, 9);
    expect(await s.readReason('alice')).toBeUndefined();
  });

  it('knows what an owner it may not read offered, as text to mask wherever it is echoed', async () => {
    const { s } = selectionsOf({ clipboard: 'Denied-Secret-1' });
    s.askOwner({
      check: async () => 'its owner is not readable by this server',
      whose: async () => 3,
    });
    expect(await s.pasteSecret(['clipboard'])).toMatch(/not readable/);
    expect(s.echoes.scrub('No results for "Denied-Secret-1"')).toBe('No results for "•••"');
  });

  it('a copy from an ordinary field clears what could not be read before', async () => {
    const { s, held } = selectionsOf({});
    await s.copied(true, 7);
    held.clipboard = 'alice';
    const { t } = transfersOf({ before: [user], selections: s });
    await t.afterKey(combo('c', 'ctrl'), user);
    await t.settled(view([user]));
    expect(await s.pasteSecret(['clipboard'])).toBeUndefined();
  });

  it('drops a drag from a password field: the field under its end, here or in another app', async () => {
    const { s } = selectionsOf({});
    const here = transfersOf({ before: [pw, user], selections: s, secret: ['pw'] });
    await here.t.beforeDrag(pw, user, { x: 10, y: 10 });
    expect(here.learned).toEqual([[7, ['user']]]);
    const field = el('far', { frame: { x: 500, y: 500, w: 100, h: 30 } });
    const big = el('pane', { frame: { x: 400, y: 400, w: 400, h: 400 } });
    const away = transfersOf({
      before: [pw],
      selections: s,
      secret: ['pw'],
      windows: [
        { pid: 9, title: 'Other', frame: { x: 400, y: 400, w: 400, h: 400 }, active: false },
      ],
      other: [big, field],
    });
    await away.t.beforeDrag(pw, undefined, { x: 520, y: 510 });
    expect(away.learned).toEqual([[9, ['far']]]);
    // Another app's popup over the windows (a completion list holding an entry) takes it.
    const onPopup = transfersOf({
      before: [pw],
      selections: s,
      secret: ['pw'],
      windows: [
        { pid: 9, title: 'Other', frame: { x: 400, y: 400, w: 400, h: 400 }, active: false },
      ],
      popups: [{ pid: 11, frame: { x: 480, y: 480, w: 200, h: 100 } }],
      other: [field],
    });
    await onPopup.t.beforeDrag(pw, undefined, { x: 520, y: 510 });
    expect(onPopup.learned).toEqual([[11, ['far']]]);
    // A drag from an ordinary field moves no secret.
    const plain = transfersOf({ before: [user, pw], selections: s });
    await plain.t.beforeDrag(user, pw, { x: 1, y: 1 });
    expect(plain.learned).toEqual([]);
  });

  it('after a secret went in, makes every text field it changed a password field, and asks for a new walk', async () => {
    const { s } = selectionsOf({ clipboard: 'the-secret' });
    s.memory.note('the-secret', 'copied from a password field');
    const other = el('notes', { value: 'x' });
    const { t, learned } = transfersOf({ before: [user, other], selections: s });
    // No element said it had the focus, and none was a text field before.
    await t.beforeKey(combo('v', 'ctrl'), undefined);
    const after = [user, { ...other, value: 'xthe-secret' }];
    expect(await t.settled(view(after))).toBe(true);
    expect(learned).toEqual([[7, ['notes']]]);
  });

  it('reads PRIMARY after an action in a password field, or one that leaves the focus there', async () => {
    const { s, reads } = selectionsOf({ primary: 'sel' });
    const focusedPw = { ...pw, flags: [...pw.flags, 'focused' as const] };
    const elsewhere = transfersOf({ before: [user, pw], selections: s, secret: ['pw'] });
    expect(await elsewhere.t.settled(view([user, pw]))).toBe(false);
    expect(reads).toEqual([]);
    const into = transfersOf({ before: [user, pw], selections: s, secret: ['pw'] });
    await into.t.beforeKey(combo('Tab'), user);
    await into.t.settled(view([user, focusedPw]));
    // The clipboard is marked around input to an app showing a password field (below).
    expect(reads).toEqual(['clipboard', 'clipboard', 'primary']);
    expect(await s.pasteSecret(['primary'])).toBe('selected in a password field');
  });

  it('takes a text an app showing a password field copied by any command, shown nowhere, for a secret', async () => {
    const { s, held } = selectionsOf({ clipboard: 'before' });
    const share = el('share', {
      role: 'AXButton',
      flags: ['enabled'],
      value: undefined,
      name: 'Share',
    });
    const t = transfersOf({ before: [user, pw, share], selections: s, secret: ['pw'] }).t;
    await t.beforePress(share, 'single');
    held.clipboard = 'the-field-text';
    await t.settled(view([user, pw, share]));
    expect(t.clipboardChanged).toBe(true);
    expect(await s.pasteSecret(['clipboard'])).toMatch(/shown nowhere/);
  });

  it('leaves a text the app shows plain, and a copy in an app with no password field alone', async () => {
    const shown = selectionsOf({ clipboard: 'before' });
    const named = el('user', { value: 'alice-shown' });
    const share = el('share', {
      role: 'AXButton',
      flags: ['enabled'],
      value: undefined,
      name: 'Share',
    });
    const t = transfersOf({
      before: [named, pw, share],
      selections: shown.s,
      secret: ['pw'],
    }).t;
    await t.beforePress(share, 'single');
    shown.held.clipboard = 'alice-shown';
    await t.settled(view([named, pw, share]));
    expect(await shown.s.pasteSecret(['clipboard'])).toBeUndefined();
    const plain = selectionsOf({ clipboard: 'before' });
    const u = transfersOf({ before: [user, share], selections: plain.s }).t;
    await u.beforePress(share, 'single');
    plain.held.clipboard = 'copied';
    await u.settled(view([user, share]));
    expect(plain.reads).toEqual([]);
    expect(await plain.s.pasteSecret(['clipboard'])).toBeUndefined();
  });
});

describe('changedTextFields', () => {
  it('lists fields whose text changed and new fields with text, by identity', () => {
    const a = el('a', { value: '1' });
    const b = el('b', { value: '2' });
    const label = el('l', { role: 'AXStaticText', flags: ['enabled'], value: 'x' });
    const before = { elements: [a, b, label] } as unknown as Snapshot;
    const after = {
      elements: [
        a,
        { ...b, value: '3' },
        { ...label, value: 'y' },
        el('c', { value: 'new' }),
        el('d', { value: '' }),
      ],
    } as unknown as Snapshot;
    expect(changedTextFields(before, after).map((e) => e.id)).toEqual(['b', 'c']);
  });
});

describe('SelectionSecrets: a copy made after an action beside a password field settled', () => {
  const looks =
    (shows: string[], showsSecret = true) =>
    async () => ({
      elements: shows.map((name) => el(name, { role: 'AXStaticText', flags: [] })),
      showsSecret,
    });

  it('learns a text the app shows nowhere, taken before the next call or read', async () => {
    const held: Partial<Record<SelectionName, string>> = { clipboard: 'before' };
    const { s } = selectionsOf(held);
    s.askOwner({ check: async () => undefined, whose: async () => 7 });
    s.watchBeside(await s.clipboardMark(), 7, looks(['Login', 'before']));
    held.clipboard = 'Late-Pw-8812';
    const call = await s.callStarted();
    expect(s.reason('Late-Pw-8812')).toBeDefined();
    await s.callEnded(call);
  });

  it('leaves a text the app shows, another app copied, or copied once no password field shows', async () => {
    for (const [shows, owner, showsSecret] of [
      [['Late-Pw-8812 shown'], 7, true],
      [[], 9, true],
      [[], 7, false],
    ] as const) {
      const held: Partial<Record<SelectionName, string>> = { clipboard: 'before' };
      const { s } = selectionsOf(held);
      s.askOwner({ check: async () => undefined, whose: async () => owner });
      s.watchBeside(await s.clipboardMark(), 7, looks([...shows], showsSecret));
      held.clipboard = 'Late-Pw-8812';
      expect(await s.readReason('Late-Pw-8812')).toBeUndefined();
    }
  });

  it('stops watching once the call after ends, or the agent writes the clipboard', async () => {
    const held: Partial<Record<SelectionName, string>> = { clipboard: 'before' };
    const { s } = selectionsOf(held);
    s.askOwner({ check: async () => undefined, whose: async () => 7 });
    const first = await s.callStarted();
    s.watchBeside(await s.clipboardMark(), 7, looks([]));
    await s.callEnded(first);
    await s.callEnded(await s.callStarted());
    held.clipboard = 'Too-Late-5521';
    await s.callStarted();
    expect(s.reason('Too-Late-5521')).toBeUndefined();
    s.watchBeside(await s.clipboardMark(), 7, looks([]));
    s.written();
    held.clipboard = 'After-Write-6631';
    expect(await s.readReason('After-Write-6631')).toBeUndefined();
  });
});
