/**
 * The event→step merger on events recorded from real runs (a person using the record_task
 * fixture and mousepad, with accessibility events only) and on input events made up around
 * them: clicks, typing, passwords, dialogs, keys.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  mergeEvents,
  secretPlaceholder,
  type RecordedEvent,
  type SeenElement,
} from '../../src/record/steps.js';
import { planWorkflow } from '../../src/tools/workflow-plan.js';
import { MAX_STEPS, STEP_TOOLS } from '../../src/tools/workflow.js';

const here = path.join(import.meta.dirname, 'fixtures', 'record');
const recorded = (name: string) =>
  JSON.parse(fs.readFileSync(path.join(here, name), 'utf8')) as RecordedEvent[];

const brief = (steps: ReturnType<typeof mergeEvents>['steps']) =>
  steps.map((s) => [s.tool, s.args.query, s.args.text ?? s.args.key ?? s.args.state]);

function element(query: string, more: Partial<SeenElement> = {}): SeenElement {
  return {
    id: query,
    query,
    button: false,
    toggle: false,
    radio: false,
    field: false,
    secret: false,
    label: query,
    ...more,
  };
}

const button = (name: string) => element(`AXButton:'${name}'`, { button: true, label: name });
const check = (name: string) => element(`AXCheckBox:'${name}'`, { toggle: true, label: name });
const radio = (name: string) =>
  element(`AXRadioButton:'${name}'`, { toggle: true, radio: true, label: name });
const field = (name: string, value: string) =>
  element(`AXTextField:'${name}'`, { field: true, label: name, value });
const secret = (name: string) =>
  element(`AXTextField:'${name}'`, { field: true, secret: true, label: name });

describe('mergeEvents on a recorded fixture run (accessibility events only)', () => {
  const events = recorded('fixture-events.json');

  it('gives one step per thing the person did, a placeholder for the password', () => {
    const { steps, secrets } = mergeEvents(events, { app: 'record_task.py', inferClicks: true });
    expect(brief(steps)).toEqual([
      ['ax_click', "AXCheckBox:'Remember me'", undefined],
      ['ax_type', "AXTextField:'Name'", 'Ada Lovelace'],
      ['ax_type', "AXTextField:'Password'", secretPlaceholder('Password')],
      ['ax_click', "AXButton:'Open Details'", undefined],
      ['ax_wait_for', "AXSheet:'Details'", undefined],
      ['ax_click', "AXButton:'Close'", undefined],
      ['ax_wait_for', "AXSheet:'Details'", 'disappear'],
    ]);
    expect(steps.every((s) => s.args.app === 'record_task.py')).toBe(true);
    expect(secrets).toEqual([
      { step: 's3', field: 'Password', placeholder: secretPlaceholder('Password') },
    ]);
    // Valid ax_workflow input: every tool and its arguments check out.
    expect(() => planWorkflow(steps, STEP_TOOLS, MAX_STEPS)).not.toThrow();
  });

  it('names the pair of the walk after each step', () => {
    const { steps, pairs } = mergeEvents(events, { app: 'a', inferClicks: true });
    expect(pairs).toHaveLength(steps.length);
    for (const p of pairs) expect(p).toMatch(/^\d+_get_tree\.txt$/);
  });

  it('takes no focus for a click where the session shows the clicks themselves', () => {
    const { steps } = mergeEvents(events, { app: 'a', inferClicks: false });
    expect(steps.map((s) => s.tool)).toEqual([
      'ax_click',
      'ax_type',
      'ax_type',
      'ax_wait_for',
      'ax_wait_for',
    ]);
  });
});

describe('mergeEvents on a recorded mousepad run', () => {
  it('merges a document typed line by line into one ax_type of the text it ended with', () => {
    const { steps } = mergeEvents(recorded('mousepad-events.json'), {
      app: 'mousepad',
      inferClicks: true,
    });
    expect(brief(steps)).toEqual([['ax_type', 'role:AXTextArea', 'hello recorder\nline 2']]);
  });
});

describe('mergeEvents with input events', () => {
  const opts = { app: 'app', inferClicks: false };

  it('one click for a click and the state it set; the field a click focused is typed into', () => {
    const name = field('Name', 'Ada');
    const events: RecordedEvent[] = [
      { at: 0, kind: 'click', x: 1, y: 1, element: check('Remember') },
      { at: 50, kind: 'state', element: check('Remember'), flag: 'checked', on: true },
      { at: 100, kind: 'click', x: 1, y: 1, element: name },
      { at: 110, kind: 'focus', element: name },
      { at: 150, kind: 'key', key: 'A', typing: true },
      { at: 160, kind: 'text', element: field('Name', 'A') },
      { at: 170, kind: 'text', element: name },
      { at: 200, kind: 'key', key: 'Return', typing: false },
      { at: 300, kind: 'click', x: 5, y: 5 },
    ];
    const result = mergeEvents(events, opts);
    expect(brief(result.steps)).toEqual([
      ['ax_click', "AXCheckBox:'Remember'", undefined],
      ['ax_type', "AXTextField:'Name'", 'Ada'],
      ['ax_key_press', undefined, 'Return'],
    ]);
    expect(result.unnamed).toBe(1);
  });

  it('a state change long after a click on it is a click of its own', () => {
    const events: RecordedEvent[] = [
      { at: 0, kind: 'click', x: 1, y: 1, element: check('A') },
      { at: 10_000, kind: 'state', element: check('A'), flag: 'checked', on: false },
    ];
    expect(mergeEvents(events, opts).steps.map((s) => s.tool)).toEqual(['ax_click', 'ax_click']);
  });

  it('a radio button going off is no click; one going on is', () => {
    const events: RecordedEvent[] = [
      { at: 0, kind: 'state', element: radio('Small'), flag: 'checked', on: false },
      { at: 1, kind: 'state', element: radio('Large'), flag: 'checked', on: true },
    ];
    expect(brief(mergeEvents(events, opts).steps)).toEqual([
      ['ax_click', "AXRadioButton:'Large'", undefined],
    ]);
  });

  it('never carries a secret: a password step types its placeholder whatever it is told', () => {
    const pw = { ...secret('PIN'), value: 'leaked?' };
    const events: RecordedEvent[] = [
      { at: 0, kind: 'text', element: pw },
      { at: 1, kind: 'text', element: pw },
    ];
    const { steps, secrets } = mergeEvents(events, opts);
    expect(steps).toHaveLength(1);
    expect(steps[0].args.text).toBe(secretPlaceholder('PIN'));
    expect(JSON.stringify(steps)).not.toContain('leaked?');
    expect(secrets[0]).toMatchObject({ step: 's1', field: 'PIN' });
  });

  it('typing in one field, then another, then the first again is three steps', () => {
    const events: RecordedEvent[] = [
      { at: 0, kind: 'text', element: field('A', 'x') },
      { at: 1, kind: 'text', element: field('B', 'y') },
      { at: 2, kind: 'text', element: field('A', 'xz') },
    ];
    expect(brief(mergeEvents(events, opts).steps)).toEqual([
      ['ax_type', "AXTextField:'A'", 'x'],
      ['ax_type', "AXTextField:'B'", 'y'],
      ['ax_type', "AXTextField:'A'", 'xz'],
    ]);
  });

  it('a window opening after a click waits for it after that click', () => {
    const events: RecordedEvent[] = [
      { at: 0, kind: 'click', x: 1, y: 1, element: button('Open') },
      { at: 5, kind: 'focus', element: button('Open') },
      { at: 100, kind: 'window', opened: true, element: element("AXWindow:'Prefs'") },
    ];
    expect(brief(mergeEvents(events, opts).steps)).toEqual([
      ['ax_click', "AXButton:'Open'", undefined],
      ['ax_wait_for', "AXWindow:'Prefs'", undefined],
    ]);
    // Without input events the focus on the button stands for its click.
    expect(brief(mergeEvents(events.slice(1), { ...opts, inferClicks: true }).steps)).toEqual([
      ['ax_click', "AXButton:'Open'", undefined],
      ['ax_wait_for', "AXWindow:'Prefs'", undefined],
    ]);
  });
});

describe('mergeEvents with keys that edit what is typed', () => {
  const opts = { app: 'app', inferClicks: false };
  const area = (value: string) =>
    element('role:AXTextArea', { id: 'doc', field: true, label: '', value });

  it('Return and BackSpace inside typing are the text; Return after it is a key press', () => {
    const events: RecordedEvent[] = [
      { at: 0, kind: 'text', element: area('ab') },
      { at: 1, kind: 'key', key: 'BackSpace', typing: false },
      { at: 2, kind: 'key', key: 'Return', typing: false },
      { at: 3, kind: 'text', element: area('a\n') },
      { at: 4, kind: 'text', element: area('a\nc') },
      { at: 5, kind: 'key', key: 'ctrl+s', typing: false },
      { at: 6, kind: 'window', opened: true, element: element("AXDialog:'Save As'") },
    ];
    expect(brief(mergeEvents(events, opts).steps)).toEqual([
      ['ax_type', 'role:AXTextArea', 'a\nc'],
      ['ax_key_press', undefined, 'ctrl+s'],
      ['ax_wait_for', "AXDialog:'Save As'", undefined],
    ]);
  });

  it('a key held at the end of the recording is still pressed', () => {
    const events: RecordedEvent[] = [
      { at: 0, kind: 'text', element: area('x') },
      { at: 1, kind: 'key', key: 'Return', typing: false },
    ];
    expect(brief(mergeEvents(events, opts).steps)).toEqual([
      ['ax_type', 'role:AXTextArea', 'x'],
      ['ax_key_press', undefined, 'Return'],
    ]);
  });
});
