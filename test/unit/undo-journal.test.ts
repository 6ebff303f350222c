/** The undo journal and the ways back the delivery functions record, on synthetic views. */
import { describe, expect, it } from 'vitest';
import {
  deliverClick,
  deliverKey,
  deliverSetValue,
  deliverType,
  MAX_UNDO_TEXT,
  restoreToggle,
} from '../../src/actions/index.js';
import { UndoJournal } from '../../src/pipeline/undo.js';
import { formView, recordingDesktop, sceneOf, target } from './helpers/recording-desktop.js';
import { buildSnapshot, viewOf } from './helpers/synthetic.js';

describe('UndoJournal', () => {
  const entry = (did: string) => ({
    tool: 'ax_type',
    pid: 1,
    app: 'form',
    did,
    reversal: { kind: 'none' as const, reason: 'test' },
  });

  it('keeps the newest entries up to its bound, oldest forgotten first', () => {
    const journal = new UndoJournal(3);
    for (const did of ['a', 'b', 'c', 'd']) journal.record(entry(did));
    expect(journal.size).toBe(3);
    expect(journal.last()?.did).toBe('d');
    expect(journal.since(0).map((e) => e.did)).toEqual(['d', 'c', 'b']);
  });

  it('lists what came after a mark, newest first, and forgets removed entries', () => {
    const journal = new UndoJournal();
    journal.record(entry('before'));
    const mark = journal.mark;
    const one = journal.record(entry('one'));
    journal.record(entry('two'));
    expect(journal.since(mark).map((e) => e.did)).toEqual(['two', 'one']);
    journal.remove(one.seq);
    expect(journal.since(mark).map((e) => e.did)).toEqual(['two']);
    expect(journal.last()?.did).toBe('two');
  });

  it('is empty before any action', () => {
    const journal = new UndoJournal();
    expect(journal.last()).toBeUndefined();
    expect(journal.mark).toBe(0);
  });
});

describe('ways back recorded by the deliveries', () => {
  it('ax_set_value on a text field keeps the text read before it was set', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const done = await deliverSetValue(sceneOf(view, desktop), target(view, 'name'), 'Grace');
    expect(done.undo).toEqual({
      kind: 'restore',
      ref: view.refs[1],
      label: `[AXTextField] "Name" ${view.refs[1]}`,
      previous: 'Ada',
      what: 'text',
    });
    expect(desktop.text.get('name')).toBe('Grace');
  });

  it('typing keeps the text it read for the verdict, read once', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const done = await deliverType(sceneOf(view, desktop), {
      target: target(view, 'name'),
      text: ' Lovelace',
      clearFirst: false,
    });
    expect(done.undo).toMatchObject({ kind: 'restore', previous: 'Ada', what: 'text' });
    expect(desktop.names().filter((n) => n === 'readText')).toHaveLength(1);
  });

  it('a password field keeps no previous value and says why', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const done = await deliverSetValue(sceneOf(view, desktop), target(view, 'password'), 's3cret');
    expect(done.undo?.kind).toBe('none');
    expect(JSON.stringify(done.undo)).toMatch(/password field is never kept/);
    expect(desktop.names()).not.toContain('readText');
  });

  it('a number keeps the value before it was set', async () => {
    const view = formView();
    const desktop = recordingDesktop(view, {
      ranges: { count: { value: 5, min: 0, max: 10, step: 1 } },
    });
    const done = await deliverSetValue(sceneOf(view, desktop), target(view, 'count'), '7');
    expect(done.undo).toMatchObject({ kind: 'restore', previous: '5', what: 'value' });
  });

  it('a check box clicked goes back to the state it had', async () => {
    const view = formView({ subscribe: { flags: ['enabled', 'focusable', 'checked'] } });
    const desktop = recordingDesktop(view);
    const done = await deliverClick(sceneOf(view, desktop), {
      target: target(view, 'subscribe'),
      clickType: 'single',
    });
    expect(done.undo).toMatchObject({ kind: 'restore', previous: 'true', what: 'state' });
  });

  it('a plain button click and a key press are not reversible', async () => {
    const view = formView();
    const desktop = recordingDesktop(view);
    const clicked = await deliverClick(sceneOf(view, desktop), {
      target: target(view, 'submit'),
      clickType: 'single',
    });
    expect(clicked.undo?.kind).toBe('none');
    const pressed = await deliverKey(sceneOf(view, desktop), { key: 'Return', modifiers: [] });
    expect(pressed.undo).toEqual({ kind: 'none', reason: expect.stringMatching(/key press/) });
  });

  it('a text too long to keep is not reversible', async () => {
    const long = 'x'.repeat(MAX_UNDO_TEXT + 1);
    const view = formView({ name: { value: long } });
    const desktop = recordingDesktop(view);
    const done = await deliverSetValue(sceneOf(view, desktop), target(view, 'name'), 'short');
    expect(done.undo).toEqual({ kind: 'none', reason: expect.stringMatching(/too long/) });
  });
});

describe('restoreToggle on a radio group', () => {
  const radios = (checked: string) =>
    viewOf(
      buildSnapshot([
        {
          role: 'AXWindow',
          name: 'W',
          id: 'win',
          frame: [0, 0, 300, 200],
          window: { active: true },
          children: [
            {
              role: 'AXPanel',
              id: 'group',
              frame: [0, 0, 300, 100],
              children: ['a', 'b', 'c'].map((id, i) => ({
                role: 'AXRadioButton',
                name: id.toUpperCase(),
                id,
                frame: [10, 10 + 30 * i, 80, 20] as [number, number, number, number],
                flags: id === checked ? ['enabled', 'checked'] : ['enabled'],
                actions: ['click'],
              })),
            },
          ],
        },
      ]),
    );

  it('re-selects the radio button of the group that was on before', () => {
    const view = radios('a');
    const c = view.snapshot.elements.findIndex((e) => e.id === 'c');
    const a = view.snapshot.elements.findIndex((e) => e.id === 'a');
    expect(restoreToggle(view, c)).toMatchObject({
      kind: 'restore',
      ref: view.refs[a],
      previous: 'true',
    });
  });

  it('has no way back when no radio button of the group was on', () => {
    const view = radios('none');
    const b = view.snapshot.elements.findIndex((e) => e.id === 'b');
    expect(restoreToggle(view, b).kind).toBe('none');
  });
});
