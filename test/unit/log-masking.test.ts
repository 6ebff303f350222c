/**
 * What the logs keep of keys, the clipboard and assertions on a password field, on data:
 * the session log line, the audit line (read back from its file), the viewer's call and
 * replay's reason all come from the one rule of src/guard/mask.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyKept, maskArgs } from '../../src/guard/mask.js';
import { buildRecord, SessionRecorder } from '../../src/pipeline/record.js';
import type { ToolResponse } from '../../src/pipeline/response.js';
import type { SnapshotView } from '../../src/model/view.js';
import type { Element } from '../../src/model/element.js';
import { callOfRecord } from '../../src/view/calls.js';
import { secretFields } from '../../src/pipeline/secret-fields.js';
import { unreplayable } from '../../src/cli/replay.js';

const SECRET = 'Zq7MARKERx9';

function response(summary: string, isError = false, extra: Record<string, unknown> = {}) {
  return {
    text: `status: ${isError ? 'error' : 'success'}\nsummary: ${summary}\n`,
    isError,
    structured: { status: isError ? 'error' : 'success', summary, ...extra },
  } satisfies ToolResponse;
}

function recordOf(
  tool: string,
  args: Record<string, unknown>,
  res: ToolResponse,
  over: { keepText?: boolean; secret?: boolean } = {},
) {
  return buildRecord({
    seq: 1,
    at: new Date('2026-01-02T03:04:05.000Z'),
    tool,
    args,
    response: res,
    ms: 1,
    secret: over.secret ?? false,
    keepText: over.keepText ?? false,
  });
}

/** The record as the session log, the viewer and replay show it, all in one string. */
function everywhere(rec: ReturnType<typeof recordOf>): string {
  const viewer = callOfRecord(JSON.parse(JSON.stringify(rec)), 0);
  return JSON.stringify(rec) + JSON.stringify(viewer) + (unreplayable(rec) ?? '');
}

describe('key arguments', () => {
  it.each([
    ['Return', []],
    ['Tab', []],
    ['Escape', []],
    ['page_down', []],
    ['F5', []],
    ['ctrl+s', []],
    ['s', ['ctrl']],
    ['alt+F4', []],
    ['super+a', []],
    ['ctrl++', []],
  ] as const)('keeps %s %j of a call that succeeded', (key, modifiers) => {
    expect(keyKept(key, modifiers, {})).toBe(true);
    expect(maskArgs({ key, modifiers: [...modifiers] }).key).toBe(key);
  });

  it.each([
    ['x', []],
    ['A', []],
    ['shift+a', []],
    ['a', ['shift']],
    ['+', []],
    ['7', []],
    ['é', []],
    // A name no key has: a password typed as a key name (the call fails anyway).
    ['hunter2pw', []],
    ['exclam', []],
  ] as const)('masks %s %j like typed text', (key, modifiers) => {
    expect(keyKept(key, modifiers, {})).toBe(false);
    expect(maskArgs({ key, modifiers: [...modifiers] }).key).toEqual({
      masked: 'text',
      length: key.length,
    });
  });

  it("withholds a failed call's key, even a named one, and keeps nothing of it anywhere", () => {
    expect(maskArgs({ key: 'Return' }, { withhold: true }).key).toEqual({ masked: 'withheld' });
    const rec = recordOf(
      'ax_key_press',
      { key: 'hunter2pw' },
      response("'hunter2pw' is not a key name", true, { error_code: 'bad_argument' }),
    );
    expect(rec.args.key).toEqual({ masked: 'withheld' });
    expect(everywhere(rec)).not.toContain('hunter2pw');
  });

  it('keeps a printable key only with record-text on, and never names it in the summary otherwise', () => {
    const pressed = response('Pressed x. No changes.');
    const rec = recordOf('ax_key_press', { key: 'x' }, pressed);
    expect(rec.args.key).toEqual({ masked: 'text', length: 1 });
    expect(rec.summary).toContain('summary: Pressed (typed text). No changes.');
    expect(everywhere(rec)).not.toMatch(/Pressed x/);
    const shifted = recordOf('ax_key_press', { key: 'shift+Q' }, response('Pressed shift+Q.'));
    expect(shifted.summary).toContain('summary: Pressed (typed text).');
    const kept = recordOf('ax_key_press', { key: 'x' }, pressed, { keepText: true });
    expect(kept.args.key).toBe('x');
    const named = recordOf('ax_key_press', { key: 'ctrl+s' }, response('Pressed ctrl+s.'));
    expect(named.args.key).toBe('ctrl+s');
    expect(named.summary).toContain('Pressed ctrl+s.');
  });
});

describe('clipboard contents', () => {
  it('a write keeps nothing of its text, with or without record-text, and replay says why', () => {
    const written = response('Put 11 chars on the clipboard');
    for (const keepText of [false, true]) {
      const rec = recordOf('ax_clipboard_write', { text: SECRET }, written, { keepText });
      expect(rec.args.text).toEqual({ masked: 'clipboard' });
      expect(rec.text_kept).toBeUndefined();
      expect(everywhere(rec)).not.toContain(SECRET);
      expect(unreplayable(rec)).toMatch(/clipboard text is never recorded/);
    }
    // A log written before: its kept text is not put back on the clipboard either.
    const old = { ...recordOf('ax_clipboard_write', { text: 'x' }, written), args: { text: 'x' } };
    expect(unreplayable(old)).toMatch(/cannot be replayed/);
  });

  it("a workflow step's clipboard write keeps nothing either", () => {
    const args = { steps: [{ tool: 'ax_clipboard_write', args: { text: SECRET } }] };
    const rec = recordOf('ax_workflow', args, response('1 step done'), { keepText: true });
    expect(JSON.stringify(rec)).not.toContain(SECRET);
  });

  it("a read's summary keeps nothing of what the clipboard holds, with or without record-text", () => {
    const read = response(`The clipboard holds 11 chars: "${SECRET}"`, false, {
      text: SECRET,
      length: 11,
    });
    for (const keepText of [false, true]) {
      const rec = recordOf('ax_clipboard_read', {}, read, { keepText });
      expect(rec.summary).toBeDefined();
      expect(everywhere(rec)).not.toContain(SECRET);
    }
    // A log that kept it (written before): the viewer shows no summary of a clipboard read.
    const old = { ...recordOf('ax_clipboard_read', {}, read), summary: read.structured.summary };
    expect(JSON.stringify(callOfRecord(old, 0))).not.toContain(SECRET);
  });
});

function passwordView(pid: number): SnapshotView {
  const element = (id: string, role: string, flags: Element['flags']): Element => ({
    id,
    parent: -1,
    depth: 0,
    role,
    nativeRole: role,
    name: '',
    flags,
    actions: [],
    childCount: 0,
  });
  return {
    snapshot: {
      pid,
      elements: [element('u', 'AXTextField', []), element('p', 'AXSecureTextField', ['secure'])],
    } as unknown as SnapshotView['snapshot'],
    snapshotId: 's1',
    refs: ['e4', 'e5'],
    visible: [true, true],
    viewport: { x: 0, y: 0, w: 1, h: 1 },
    dialog: null,
  };
}

describe('a call that reads or asserts on a password field', () => {
  let dir: string;
  beforeEach(() => {
    dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'axpage-logmask-')), 'out');
  });
  afterEach(() => rmSync(path.dirname(dir), { recursive: true, force: true }));

  it.each([
    ['value', { value: SECRET }],
    ['contains_text', { contains_text: SECRET }],
  ])(
    'an assertion of %s keeps nothing, not even a length, with or without record-text',
    async (_, assertions) => {
      const views = { views: { last: () => passwordView(7) } };
      for (const recordText of [false, true]) {
        const rec = new SessionRecorder(dir, { recordText, kindOf: () => 'action' });
        const failed = response(
          `FAILED 1 of 1 checks on 'Password': value expected "${SECRET}" got "(secure: not readable)".`,
          false,
          { pid: 7, element_ref: 'e5' },
        );
        const r = await rec.record(
          'ax_assert',
          { app: 7, query: 'Password', assertions },
          failed,
          1,
          views,
        );
        expect(r.secret).toBe(true);
        const line = readFileSync(rec.file, 'utf8');
        expect(line).not.toContain(SECRET);
        expect(line).not.toMatch(/"length"/);
        expect(readFileSync(path.join(dir, 'audit.jsonl'), 'utf8')).not.toMatch(/"length"|Zq7/);
      }
    },
  );

  it('a field once seen as a password field (now shown as plain text) is one still', async () => {
    const view = passwordView(8);
    // Revealed: the toolkit gave it the plain text role, with no secure flag.
    const revealed = { ...view.snapshot.elements[1], role: 'AXTextField', flags: [] };
    view.snapshot.elements[1] = revealed;
    secretFields.learn(8, ['p']);
    try {
      const rec = new SessionRecorder(dir);
      const checked = response('PASSED: value (1 checks)', false, { pid: 8, element_ref: 'e5' });
      const args = { query: 'Password', assertions: { value: SECRET } };
      const r = await rec.record('ax_assert', args, checked, 1, { views: { last: () => view } });
      expect(r.secret).toBe(true);
      expect(JSON.stringify(r)).not.toMatch(/"length"|Zq7/);
    } finally {
      secretFields.forget(8);
    }
  });

  it('an assertion on an ordinary field keeps its length as before', async () => {
    const views = { views: { last: () => passwordView(7) } };
    const rec = new SessionRecorder(dir);
    const passed = response("PASSED: 'User' value (1 checks)", false, {
      pid: 7,
      element_ref: 'e4',
    });
    const r = await rec.record(
      'ax_assert',
      { query: 'User', assertions: { value: 'bob' } },
      passed,
      1,
      views,
    );
    expect(r.secret).toBeUndefined();
    expect(r.args.assertions).toEqual({ value: { masked: 'text', length: 3 } });
  });
});
