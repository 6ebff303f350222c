import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  SessionRecorder,
  TYPED_MASK,
  buildRecord,
  loggedSummary,
} from '../../src/pipeline/record.js';
import type { ToolResponse } from '../../src/pipeline/response.js';
import { renderSummary, type VisibleItem } from '../../src/summary/index.js';

const TYPED = 'hunter "two"\nlines';

function field(text: string, ref = 'e12'): VisibleItem {
  return {
    index: 12,
    role: 'AXTextField',
    text,
    ref,
    frame: { x: 10, y: 20, w: 200, h: 24 },
    kind: 'interactive',
  };
}

/** A typing call's summary as the pipeline renders it: the typed text in a text change and a visible field. */
function typedResponse(typed: string, old = 'Hi '): ToolResponse {
  const { text, structured } = renderSummary({
    status: 'success',
    tool: 'ax_type',
    did: `Typed ${typed.length} chars into [AXTextField] "Name" e12`,
    textChanges: [{ role: 'AXTextField', label: 'Name', ref: 'e12', old, new: old + typed }],
    visible: { items: [field(old + typed), field(typed.repeat(30), 'e13')], omitted: 0 },
  });
  return { text, structured, isError: false };
}

function record(response: ToolResponse, over: { secret?: boolean; keepText?: boolean } = {}) {
  return buildRecord({
    seq: 1,
    at: new Date('2026-01-02T03:04:05.000Z'),
    tool: 'ax_type',
    args: { ref: 'e12', text: TYPED },
    response,
    ms: 20,
    secret: over.secret ?? false,
    keepText: over.keepText ?? false,
  });
}

/** Every form the summary could show the typed text in, and pieces of it. */
function leaks(line: string): string[] {
  const forms = [
    TYPED,
    'hunter \\"two\\"\\nlines',
    'hunter "two"\\nlines',
    'hunter',
    'two',
    'lines',
  ];
  return forms.filter((f) => line.includes(f));
}

describe('the summary in the session log', () => {
  it('is the text the agent got, with the typed text masked wherever it shows', () => {
    const response = typedResponse(TYPED);
    // The rendered summary does show it (escaped): else this test could not fail.
    expect(response.text).toContain('hunter \\"two\\"\\nlines');
    const r = record(response);
    expect(r.summary).toBeDefined();
    expect(r.summary).toContain('Typed 18 chars into [AXTextField] "Name" e12');
    expect(r.summary).toContain(TYPED_MASK);
    expect(leaks(JSON.stringify(r))).toEqual([]);
  });

  it('masks a cut piece of a long typed text', () => {
    const long = 'correct horse battery staple '.repeat(20);
    const response = typedResponse(long, '');
    expect(response.text).toMatch(/correct horse/);
    const summary = loggedSummary(response.text, [long], { secret: false });
    expect(summary).not.toMatch(/horse|battery|staple/);
  });

  it('masks a letter or two only where it is a value, not in every label', () => {
    const text = `summary: Typed 1 chars. [AXButton] "Tab" e3. [AXTextField] "x" e4 value 'abx'`;
    expect(loggedSummary(text, ['x'], { secret: false })).toBe(
      `summary: Typed 1 chars. [AXButton] "Tab" e3. [AXTextField] "${TYPED_MASK}" e4 value '${TYPED_MASK}'`,
    );
  });

  it('is absent for a call to a password field, and kept whole only with --record-text', () => {
    const response = typedResponse(TYPED);
    expect(record(response, { secret: true }).summary).toBeUndefined();
    expect(record(response, { keepText: true }).summary).toBe(response.text);
  });

  it('is masked for a failed call even with --record-text', () => {
    const base = typedResponse(TYPED);
    const r = record({ ...base, isError: true }, { keepText: true });
    expect(leaks(JSON.stringify(r))).toEqual([]);
  });

  describe('as written by the recorder', () => {
    const dirs: string[] = [];
    afterAll(async () => {
      for (const d of dirs) await rm(d, { recursive: true, force: true });
    });

    it('never has the typed string in the log line on disk', async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'axpage-rec-'));
      dirs.push(dir);
      const rec = new SessionRecorder(dir);
      await rec.record('ax_type', { ref: 'e12', text: TYPED }, typedResponse(TYPED), 20, {
        views: { last: () => undefined },
      });
      const line = await readFile(rec.file, 'utf8');
      expect(JSON.parse(line).summary).toContain('text_changes:');
      expect(leaks(line)).toEqual([]);
    });

    it('masks text typed earlier when a later call shows it, unless the log kept it', async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'axpage-rec-'));
      dirs.push(dir);
      const pipeline = { views: { last: () => undefined } };
      // A read of the field: no typed argument, but the field's content is what was typed.
      const { text, structured } = renderSummary({
        status: 'success',
        tool: 'ax_get_value',
        did: 'Read the value of [AXTextArea] e5',
        answer: { key: 'value', value: `${TYPED} and more` },
      });
      const read: ToolResponse = { text, structured, isError: false };
      expect(read.text).toContain('hunter');
      const rec = new SessionRecorder(dir);
      await rec.record('ax_type', { ref: 'e5', text: TYPED }, typedResponse(TYPED), 20, pipeline);
      await rec.record('ax_get_value', { ref: 'e5' }, read, 5, pipeline);
      const lines = (await readFile(rec.file, 'utf8')).trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(JSON.parse(lines[1]).summary).toContain(TYPED_MASK);
      expect(leaks(lines.join('\n'))).toEqual([]);

      const keeping = new SessionRecorder(dir, { recordText: true });
      await keeping.record(
        'ax_type',
        { ref: 'e5', text: TYPED },
        typedResponse(TYPED),
        20,
        pipeline,
      );
      await keeping.record('ax_get_value', { ref: 'e5' }, read, 5, pipeline);
      const kept = (await readFile(keeping.file, 'utf8')).trim().split('\n');
      expect(JSON.parse(kept[1]).summary).toBe(read.text);
    });
  });
});
