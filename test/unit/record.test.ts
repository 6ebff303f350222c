/**
 * The session recorder on data: masking, the record's shape, counters, the private log
 * file, secrets, and the replay's parsing and step comparison.
 */
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isMasked, maskArgs } from '../../src/guard/mask.js';
import {
  buildRecord,
  SessionRecorder,
  targetOf,
  type CallRecord,
} from '../../src/pipeline/record.js';
import { isCopyKey, SecretMemory } from '../../src/pipeline/secrets.js';
import { SelectionSecrets } from '../../src/pipeline/transfers.js';
import type { ToolResponse } from '../../src/pipeline/response.js';
import type { SnapshotView } from '../../src/model/view.js';
import type { Element } from '../../src/model/element.js';
import {
  compareStep,
  parseLog,
  parseReplayArgs,
  replaySteps,
  unreplayable,
} from '../../src/cli/replay.js';

const clickResponse: ToolResponse = {
  text: 'status: success\nsummary: Clicked [AXButton] "7" e12 (action \'click\'). 0 added, 0 removed, 1 modified.\n',
  isError: false,
  structured: {
    status: 'success',
    pid: 4242,
    app: 'galculator',
    file: '/tmp/axpage-x/1763790000123-1_click.txt',
    screenshot: '/tmp/axpage-x/1763790000123-1_click.png',
    summary: 'Clicked [AXButton] "7" e12 (action \'click\'). 0 added, 0 removed, 1 modified.',
    changes: { added: 0, removed: 0, modified: 1, moved: 0 },
    effect: 'confirmed',
    text_changes: [{ role: 'AXLabel', label: '0', ref: 'e40', old: '0', new: '7' }],
  },
};

function record(over: Partial<Parameters<typeof buildRecord>[0]> = {}): CallRecord {
  return buildRecord({
    seq: 1,
    at: new Date('2026-01-02T03:04:05.000Z'),
    tool: 'ax_click',
    args: { query: '7' },
    response: clickResponse,
    ms: 85,
    secret: false,
    keepText: false,
    ...over,
  });
}

describe('maskArgs', () => {
  it('replaces typed text and values by their length, keeps the rest', () => {
    const out = maskArgs({ text: 'hunter2', value: 'abc', ref: 'e3', key: 'Return', x: 5 });
    expect(JSON.stringify(out)).not.toMatch(/hunter2|abc/);
    expect(out.text).toEqual({ masked: 'text', length: 7 });
    expect(out.value).toEqual({ masked: 'text', length: 3 });
    expect(out).toMatchObject({ ref: 'e3', key: 'Return', x: 5 });
  });

  it('keeps typed text only when asked, and never for a password field', () => {
    expect(maskArgs({ text: 'hello' }, { keepText: true }).text).toBe('hello');
    const secret = maskArgs({ text: 'pw123', key: 'Return' }, { keepText: true, secret: true });
    expect(secret.text).toEqual({ masked: 'secret' });
    expect(secret.key).toEqual({ masked: 'secret' });
    expect(JSON.stringify(secret)).not.toMatch(/pw123|5/);
  });

  it('masks a number given as a value, keeps numbers and flags elsewhere', () => {
    const out = maskArgs({ value: 4321, x: 5, clear_first: true });
    expect(out).toEqual({ value: { masked: 'text', length: 4 }, x: 5, clear_first: true });
  });

  it('caps long arguments', () => {
    const out = maskArgs({ query: 'q'.repeat(500) });
    expect(String(out.query)).toHaveLength(201);
    expect(isMasked(out.query)).toBe(false);
  });
});

describe('buildRecord', () => {
  it('has the documented fields', () => {
    const r = record({ args: { query: '7', text: 'typed' } });
    expect(r).toMatchObject({
      seq: 1,
      time: '2026-01-02T03:04:05.000Z',
      tool: 'ax_click',
      outcome: 'success',
      ms: 85,
      tree: '1763790000123-1_click.txt',
      png: '1763790000123-1_click.png',
      app: 'galculator',
      pid: 4242,
      target: { role: 'AXButton', text: '7', ref: 'e12' },
      changes: { added: 0, removed: 0, modified: 1, moved: 0 },
      effect: 'confirmed',
    });
    expect(r.summary_bytes).toBe(Buffer.byteLength(clickResponse.text));
    expect(r.args.text).toEqual({ masked: 'text', length: 5 });
    expect(r.text_kept).toBeUndefined();
    expect(r.error_code).toBeUndefined();
  });

  it('lists the refs of the arguments and of what the result names', () => {
    const r = record({ args: { ref: 'e5', to_ref: ' e6 ' } });
    expect(r.refs).toEqual(['e5', 'e6', 'e12', 'e40']);
  });

  it('records an error with its code and no pair', () => {
    const r = record({
      response: {
        text: 'status: error\nerror: no match',
        isError: true,
        structured: { status: 'error', error_code: 'no_match' },
      },
    });
    expect(r).toMatchObject({ outcome: 'error', error_code: 'no_match', refs: [] });
    expect(r.tree).toBeUndefined();
    expect(r.target).toBeUndefined();
  });

  it('keeps nothing of the text of a failed call, not even its length or with keepText', () => {
    const failed = record({
      args: { query: 'Password', text: 'hunter2' },
      keepText: true,
      response: {
        text: 'e',
        isError: true,
        structured: { status: 'error', error_code: 'blocked' },
      },
    });
    expect(failed.args.text).toEqual({ masked: 'withheld' });
    expect(failed.text_kept).toBeUndefined();
    expect(unreplayable(failed)).toMatch(/failed call/);
  });

  it('marks kept text and secret calls', () => {
    expect(record({ args: { text: 'hi' }, keepText: true }).text_kept).toBe(true);
    const s = record({ args: { text: 'pw' }, keepText: true, secret: true });
    expect(s.secret).toBe(true);
    expect(s.text_kept).toBeUndefined();
    expect(s.args.text).toEqual({ masked: 'secret' });
  });

  it("reads the target from a label with or without text, never a text entry's text", () => {
    expect(targetOf('Typed 3 chars into [AXSecureTextField] e9')).toEqual({
      role: 'AXSecureTextField',
      ref: 'e9',
    });
    expect(targetOf('Typed 3 chars into [AXTextArea] "hello typed" e9')).toEqual({
      role: 'AXTextArea',
      ref: 'e9',
    });
    expect(targetOf('nothing here')).toBeUndefined();
  });
});

describe('secrets', () => {
  it('knows a secret again without keeping it', () => {
    const m = new SecretMemory();
    m.note('s3cret!', 'typed into a password field');
    expect(m.reason('s3cret!')).toBe('typed into a password field');
    expect(m.reason('s3cret')).toBeUndefined();
    expect(
      JSON.stringify([...(m as unknown as { known: Map<string, string> }).known]),
    ).not.toContain('s3cret');
  });

  it.each([
    ['ctrl+c', [], true],
    ['c', ['ctrl'], true],
    ['Ctrl+X', [], true],
    ['ctrl+Insert', [], true],
    ['shift+Delete', [], true],
    ['c', [], false],
    ['ctrl+v', [], false],
    ['Delete', [], false],
  ])('isCopyKey(%s, %j) is %s', (key, mods, want) => {
    expect(isCopyKey(key, mods)).toBe(want);
  });
});

/** A view of one element with the given flags (ref e1). */
function viewWith(flags: Element['flags']): SnapshotView {
  const element: Element = {
    id: 'x',
    parent: -1,
    depth: 0,
    role: 'AXSecureTextField',
    nativeRole: 'password text',
    name: '',
    flags,
    actions: [],
    childCount: 0,
  };
  return {
    snapshot: { elements: [element] } as unknown as SnapshotView['snapshot'],
    snapshotId: 's1',
    refs: ['e1'],
    visible: [true],
    viewport: { x: 0, y: 0, w: 1, h: 1 },
    dialog: null,
  };
}

describe('SessionRecorder', () => {
  let dir: string;
  beforeEach(() => {
    dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'axpage-record-')), 'out');
  });
  afterEach(async () => {
    await rm(path.dirname(dir), { recursive: true, force: true });
  });

  const noViews = { views: { last: () => undefined } };

  it('a workflow step typed into a password field: nothing of it anywhere, not even a length', async () => {
    const rec = new SessionRecorder(dir, { kindOf: () => 'action' });
    const pw = 'nested-hunter2-pw';
    const stepResponse: ToolResponse = {
      text: 'status: success\nsummary: Typed 17 chars into [AXSecureTextField] "•••" e7\n',
      isError: false,
      structured: { status: 'success', pid: 4242, summary: 'Typed into [AXSecureTextField] e7' },
    };
    const steps = [
      { tool: 'ax_type', args: { query: 'Name', text: 'plain-name' } },
      { tool: 'ax_type', args: { query: 'Password', text: pw } },
    ];
    const workflowResponse: ToolResponse = {
      text: `status: success\nsummary: Ran 2 steps, all passed; last (s2): typed ${pw}\n`,
      isError: false,
      structured: { status: 'success', steps_run: 2 },
      calls: [
        { tool: 'ax_type', args: steps[0].args, response: clickResponse },
        { tool: 'ax_type', args: steps[1].args, response: stepResponse },
      ],
    };
    const r = await rec.record('ax_workflow', { steps }, workflowResponse, 10, noViews);
    expect(r.secret).toBe(true);
    expect(r.summary).toBeUndefined();
    const line = await readFile(rec.file, 'utf8');
    const audit = await readFile(path.join(dir, 'audit.jsonl'), 'utf8');
    for (const text of [line, audit]) {
      expect(text).not.toContain(pw);
      expect(text).not.toContain('plain-name');
      expect(text).not.toMatch(/"length"/);
    }
    expect(JSON.parse(line).args.steps[1].args).toEqual({
      query: 'Password',
      text: { masked: 'secret' },
    });
    expect(rec.clipboardSecret(pw)).toBe('typed into a password field');
  });

  it('appends one line per call to a 0600 log in a 0700 dir, and counts them', async () => {
    const rec = new SessionRecorder(dir, { kindOf: () => 'action' });
    await rec.record('ax_click', { query: '7' }, clickResponse, 10, noViews);
    await rec.record(
      'ax_type',
      { text: 'hello' },
      { text: 'status: error', isError: true, structured: { status: 'error', error_code: 'x' } },
      5,
      noViews,
    );
    const lines = (await readFile(rec.file, 'utf8')).trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as CallRecord).seq)).toEqual([1, 2]);
    expect(lines[1]).not.toContain('hello');
    expect((await stat(rec.file)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(path.basename(rec.file)).toMatch(/^session-\d+-\d+\.jsonl$/);
    expect(rec.counters()).toEqual({
      calls: 2,
      errors: 1,
      summary_bytes: Buffer.byteLength(clickResponse.text) + Buffer.byteLength('status: error'),
    });
    expect(rec.recentPairs()).toEqual(['1763790000123-1_click.txt']);
    expect([...rec.appsSeen()]).toEqual([[4242, 'galculator']]);
    // The audit log is appended in the background: wait for its second line, not a pause.
    const auditLines = async (): Promise<string[]> =>
      (await readFile(path.join(dir, 'audit.jsonl'), 'utf8').catch(() => ''))
        .split('\n')
        .filter(Boolean);
    await vi.waitFor(async () => expect(await auditLines()).toHaveLength(2), { timeout: 30_000 });
    const audit = await auditLines();
    expect(audit).toHaveLength(2);
    expect(JSON.parse(audit[1]).args.text).toEqual({ masked: 'withheld' });
  });

  it('makes the dir again when it was removed, and never writes through one swapped for a link', async () => {
    const rec = new SessionRecorder(dir, { kindOf: () => 'action' });
    await rec.record('ax_click', { query: '7' }, clickResponse, 10, noViews);
    await rm(dir, { recursive: true, force: true });
    await rec.record('ax_click', { query: '8' }, clickResponse, 10, noViews);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await readFile(rec.file, 'utf8')).trim().split('\n')).toHaveLength(1);
    expect((await readFile(path.join(dir, 'audit.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(
      1,
    );

    const elsewhere = path.join(path.dirname(dir), 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    await rm(dir, { recursive: true, force: true });
    symlinkSync(elsewhere, dir);
    await rec.record('ax_click', { query: '9' }, clickResponse, 10, noViews);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(rec.counters().calls).toBe(3);
  });

  it('writes no audit line for a read', async () => {
    const rec = new SessionRecorder(dir, { kindOf: () => 'read' });
    await rec.record('ax_get_tree', {}, clickResponse, 1, noViews);
    await expect(stat(path.join(dir, 'audit.jsonl'))).rejects.toThrow();
  });

  it('learns text typed into a password field, and masks it whatever the setting', async () => {
    const rec = new SessionRecorder(dir, { recordText: true });
    const typed: ToolResponse = {
      text: 'x',
      isError: false,
      structured: {
        status: 'success',
        pid: 7,
        summary: 'Typed 6 chars into [AXSecureTextField] e1',
      },
    };
    const r = await rec.record('ax_type', { text: 'pw-123' }, typed, 1, noViews);
    expect(r.secret).toBe(true);
    expect(await readFile(rec.file, 'utf8')).not.toContain('pw-123');
    expect(rec.clipboardSecret('pw-123')).toBe('typed into a password field');
    expect(rec.clipboardSecret('other')).toBeUndefined();
  });

  it('marks a copy in a focused password field secret, and tells clipboard reads what it learned', async () => {
    const selections = new SelectionSecrets();
    selections.readWith(async () => ({ read: async () => 'copied-secret' }));
    const rec = new SessionRecorder(dir, { selections });
    const views = { views: { last: () => viewWith(['focused', 'secure']) } };
    const pressed: ToolResponse = {
      text: 'x',
      isError: false,
      structured: { status: 'success', pid: 7, summary: 'Pressed ctrl+c' },
    };
    const r = await rec.record('ax_key_press', { key: 'ctrl+c' }, pressed, 1, views);
    expect(r.secret).toBe(true);
    // The pipeline learns the copy as it happens; the recorder answers from the same memory.
    await selections.copied(true, 7);
    expect(rec.clipboardSecret('copied-secret')).toBe('copied from a password field');
    const plain = { views: { last: () => viewWith(['focused']) } };
    const p = await rec.record('ax_key_press', { key: 'ctrl+c' }, pressed, 1, plain);
    expect(p.secret).toBeUndefined();
    expect(rec.clipboardSecret('fine')).toBeUndefined();
  });

  it('masks keys pressed while a password field has the focus', async () => {
    const rec = new SessionRecorder(dir);
    const views = { views: { last: () => viewWith(['focused', 'secure']) } };
    const pressed: ToolResponse = {
      text: 'x',
      isError: false,
      structured: { status: 'success', pid: 7, summary: 'Pressed h' },
    };
    const r = await rec.record('ax_key_press', { key: 'h' }, pressed, 1, views);
    expect(r).toMatchObject({ secret: true, args: { key: { masked: 'secret' } } });
    const plain = { views: { last: () => viewWith(['focused']) } };
    const p = await rec.record('ax_key_press', { key: 'Tab' }, pressed, 1, plain);
    expect(p.args.key).toBe('Tab');
  });

  it('masks every read after a secure copy it could not read, until the clipboard is written', async () => {
    const selections = new SelectionSecrets();
    selections.readWith(async () => ({ read: () => Promise.reject(new Error('no X')) }));
    const rec = new SessionRecorder(dir, { selections });
    await selections.copied(true, 7);
    expect(rec.clipboardSecret('anything')).toBe('copied from a password field');
    rec.clipboardWritten();
    expect(rec.clipboardSecret('anything')).toBeUndefined();
  });
});

describe('replay', () => {
  it('parses arguments', () => {
    expect(parseReplayArgs(['log.jsonl'])).toEqual({
      file: 'log.jsonl',
      from: 1,
      stopOnDiff: false,
    });
    expect(parseReplayArgs(['--from', '3', 'l', '--stop-on-diff'])).toEqual({
      file: 'l',
      from: 3,
      stopOnDiff: true,
    });
    expect(() => parseReplayArgs(['--from', '0', 'l'])).toThrow(/--from/);
    expect(() => parseReplayArgs([])).toThrow(/which session log/);
    expect(() => parseReplayArgs(['--bogus', 'l'])).toThrow(/unknown option/);
  });

  it('parses a log and names a bad line', () => {
    const a = record();
    const b = record({ seq: 2 });
    expect(parseLog(`${JSON.stringify(a)}\n${JSON.stringify(b)}\n`)).toHaveLength(2);
    expect(() => parseLog(`${JSON.stringify(a)}\nnot json\n`, 'f')).toThrow('f:2 is not JSON');
    expect(() => parseLog('{"seq":1}\n', 'f')).toThrow(/f:1 is not a session record/);
  });

  it('skips masked text with the reason', () => {
    expect(unreplayable(record({ args: { text: 'abc' } }))).toMatch(/3 chars\) was not recorded/);
    expect(unreplayable(record({ args: { text: 'abc' }, secret: true }))).toMatch(/password/);
    expect(unreplayable(record({ args: { text: 'abc' }, keepText: true }))).toBeUndefined();
    expect(unreplayable(record({ args: { query: 'q'.repeat(300) } }))).toMatch(/cut/);
  });

  it('finds the same step the same, and says what differs', () => {
    const a = record();
    expect(compareStep(a, record({ seq: 9, ms: 300 }))).toEqual({ same: true, differences: [] });
    const failed = record({
      response: {
        text: 'e',
        isError: true,
        structured: { status: 'error', error_code: 'no_match' },
      },
    });
    const v = compareStep(a, failed);
    expect(v.same).toBe(false);
    expect(v.differences).toContain('outcome success -> error (no_match)');
    expect(v.differences).toContain('element [AXButton] "7" -> none');
    const other = record({
      response: {
        ...clickResponse,
        structured: {
          ...clickResponse.structured,
          summary: 'Clicked [AXButton] "8" e12. 1 added, 0 removed, 1 modified.',
          changes: { added: 1, removed: 0, modified: 1, moved: 0 },
        },
      },
    });
    expect(compareStep(a, other).differences).toEqual([
      'changes 0 added, 0 removed, 1 texts changed -> 1 added, 0 removed, 1 texts changed',
      'element [AXButton] "7" -> [AXButton] "8"',
    ]);
  });

  it('holds a step to its text changes, not to the modified count, states or effect', () => {
    const a = record();
    const withStructured = (extra: Record<string, unknown>) =>
      record({
        response: { ...clickResponse, structured: { ...clickResponse.structured, ...extra } },
      });
    const flicker = withStructured({ changes: { added: 0, removed: 0, modified: 3, moved: 0 } });
    expect(compareStep(a, flicker).same).toBe(true);
    expect(compareStep(a, withStructured({ text_changes: [] })).differences).toEqual([
      'changes 0 added, 0 removed, 1 texts changed -> 0 added, 0 removed, 0 texts changed',
    ]);
    const toggled = withStructured({
      state_changes: [
        {
          role: 'AXButton',
          label: '7',
          ref: 'e12',
          changes: [{ old: 'unchecked', new: 'checked' }],
        },
        {
          role: 'AXButton',
          label: '+',
          ref: 'e13',
          changes: [{ old: 'checked', new: 'unchecked' }],
        },
      ],
    });
    expect(toggled.state_changed).toEqual(['unchecked -> checked']);
    expect(compareStep(a, toggled).same).toBe(true);
    expect(compareStep(a, withStructured({ effect: 'suspected_noop' })).same).toBe(true);
  });

  it('runs steps through a client, maps refs, skips masked ones, stops on a difference', async () => {
    const steps = [
      record({ seq: 1, args: { query: '7' } }),
      record({ seq: 2, args: { ref: 'e12' } }),
      record({ seq: 3, args: { text: 'xy' } }),
      record({ seq: 4, args: { query: '7' } }),
      record({ seq: 5, args: { query: '7' } }),
    ];
    const calls: Array<Record<string, unknown>> = [];
    const client = {
      async call(_tool: string, args: Record<string, unknown> = {}) {
        calls.push(args);
        const n = calls.length;
        // The replay's server mints e99 for the recorded e12; its third call fails.
        const summary =
          n === 3
            ? undefined
            : 'Clicked [AXButton] "7" e99 (action \'click\'). 0 added, 0 removed, 1 modified.';
        return {
          text: 't',
          isError: n === 3,
          images: [],
          structured: {
            ...clickResponse.structured,
            summary,
            ...(n === 3 ? { status: 'error', error_code: 'no_match', changes: undefined } : {}),
          },
        };
      },
    };
    const out: string[] = [];
    const tally = await replaySteps(steps, client, { from: 1, stopOnDiff: true }, (l) =>
      out.push(l),
    );
    expect(calls[1]).toEqual({ ref: 'e99' });
    expect(tally).toEqual({ same: 2, differ: 1, skipped: 1 });
    expect(out).toHaveLength(4);
    expect(out[2]).toMatch(/^#3 ax_click .*: skipped: text \(2 chars\)/);
    expect(out[3]).toMatch(/^#4 ax_click .*: DIFFERS: outcome success -> error \(no_match\)/);
  });
});

describe('SessionRecorder and known secrets in arguments', () => {
  let dir: string;
  beforeEach(() => {
    dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'axpage-record-')), 'out');
  });
  afterEach(async () => {
    await rm(path.dirname(dir), { recursive: true, force: true });
  });

  it('keeps no known secret an argument names (a query), in the session log or the audit log', async () => {
    const selections = new SelectionSecrets();
    selections.memory.note('EchoSecret-4242', 'copied from a password field');
    const rec = new SessionRecorder(dir, { selections, kindOf: () => 'action' });
    const response: ToolResponse = {
      text: 'x',
      isError: false,
      structured: { status: 'success', pid: 7, summary: 'Clicked' },
    };
    await rec.record('ax_click', { query: 'No results for EchoSecret-4242' }, response, 1, {
      views: { last: () => undefined },
    });
    const line = await readFile(rec.file, 'utf8');
    const audit = await readFile(path.join(dir, 'audit.jsonl'), 'utf8');
    for (const text of [line, audit]) expect(text).not.toContain('EchoSecret-4242');
    expect(line).toContain('No results for •••');
  });
});
