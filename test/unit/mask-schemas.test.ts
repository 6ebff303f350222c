/**
 * The one masking rule against every registered tool's input schema (zod → JSON schema):
 * each string field, at any depth (objects, arrays, a workflow step's own arguments), is
 * named either a locator, a key or content in src/guard/mask.ts; a field nobody has
 * named fails here. Then each field gets a unique string of its own, and every record
 * form (session log line and its summary, audit line, the viewer's call, replay's
 * output) is searched for it: content never shows, a secret call keeps no length, and a
 * locator stays (replay needs it).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { allTools } from '../../src/tools/index.js';
import { STEP_TOOLS } from '../../src/tools/workflow.js';
import { CONTENT_FIELDS, KEY_FIELDS, LOCATOR_FIELDS } from '../../src/guard/mask.js';
import { AuditLog } from '../../src/guard/audit.js';
import { buildRecord, maskOptions, type CallRecord } from '../../src/pipeline/record.js';
import type { ToolResponse } from '../../src/pipeline/response.js';
import { callOfRecord } from '../../src/view/calls.js';
import { replaySteps } from '../../src/cli/replay.js';

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  additionalProperties?: JsonSchema | boolean;
}

/** A path into a call's arguments: field names, and `[]` for an array's item. */
type FieldPath = string[];

interface StringField {
  tool: string;
  path: FieldPath;
}

const WORKFLOW = 'ax_workflow';
/** Where a workflow step's own arguments are: walked with each step tool's schema. */
const STEP_ARGS: FieldPath = ['steps', '[]', 'args'];

function schemaOf(tool: { input: z.ZodType }): JsonSchema {
  return z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

function isString(s: JsonSchema): boolean {
  return s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'));
}

function stringFields(tool: string, schema: JsonSchema, at: FieldPath = []): StringField[] {
  const out: StringField[] = [];
  const walk = (s: JsonSchema, p: FieldPath): void => {
    if (isString(s)) out.push({ tool, path: p });
    for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, [...p, k]);
    if (s.items) walk(s.items, [...p, '[]']);
    for (const v of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) walk(v, p);
  };
  walk(schema, at);
  return out;
}

/** Every string field of every tool; a workflow's step args as each step tool's. */
function allStringFields(): StringField[] {
  const out: StringField[] = [];
  for (const tool of allTools) {
    out.push(...stringFields(tool.name, schemaOf(tool)));
    if (tool.name === WORKFLOW) {
      for (const step of STEP_TOOLS.values()) {
        out.push(...stringFields(`${WORKFLOW}>${step.name}`, schemaOf(step), STEP_ARGS));
      }
    }
  }
  return out;
}

const fields = allStringFields();
const nameOf = (f: StringField): string => f.path.filter((p) => p !== '[]').at(-1)!;
const where = (f: StringField): string => `${f.tool} ${f.path.join('.')}`;

/** Arguments with `value` at `path` (a one-item array for `[]`); the step's tool named. */
function argsWith(f: StringField, value: string): Record<string, unknown> {
  const build = (p: FieldPath): unknown => {
    if (p.length === 0) return value;
    if (p[0] === '[]') return [build(p.slice(1))];
    return { [p[0]]: build(p.slice(1)) };
  };
  const args = build(f.path) as Record<string, unknown>;
  if (f.tool.startsWith(`${WORKFLOW}>`)) {
    const steps = args.steps as Array<Record<string, unknown>>;
    steps[0].tool = f.tool.split('>')[1];
  }
  return args;
}

/** A value no other part of a record could hold by chance (and long enough to be masked anywhere). */
function canaryOf(f: StringField): string {
  return `cnry${f.tool.replace(/\W/g, '')}${f.path.join('').replace(/\W/g, '')}Q7`;
}

/** A success whose summary echoes the canary, as a read of the field typed into would. */
function echoing(canary: string): ToolResponse {
  return {
    text: `status: success\nsummary: Typed into [AXTextField] "${canary}" e5; ${canary}\n`,
    isError: false,
    structured: { status: 'success', summary: `Typed "${canary}"` },
  };
}

function record(
  tool: string,
  args: Record<string, unknown>,
  over: { secret?: boolean; keepText?: boolean } = {},
) {
  return buildRecord({
    seq: 1,
    at: new Date('2026-01-02T03:04:05.000Z'),
    tool: tool.split('>')[0],
    args,
    response: echoing(JSON.stringify(args)),
    ms: 1,
    secret: over.secret ?? false,
    keepText: over.keepText ?? false,
  });
}

const auditDir = mkdtempSync(path.join(os.tmpdir(), 'axpage-mask-schemas-'));
afterAll(() => rmSync(auditDir, { recursive: true, force: true }));

/** The audit line the recorder writes for a call. */
function auditLine(tool: string, args: Record<string, unknown>, secret: boolean): string {
  const log = new AuditLog(
    path.join(auditDir, `audit-${Math.random().toString(16).slice(2)}.jsonl`),
  );
  const response = echoing('');
  expect(
    log.write({
      tool,
      args,
      mask: maskOptions({ keepText: true, secret, response }),
      outcome: 'success',
      ms: 1,
    }),
  ).toBe(true);
  return readFileSync(log.file, 'utf8');
}

/** What replay prints for a recorded step (skipped or run), through a client that echoes. */
async function replayed(rec: CallRecord): Promise<string> {
  const lines: string[] = [];
  await replaySteps(
    [rec],
    { call: async () => ({ text: 'status: success', structured: {}, isError: false }) } as never,
    { from: 1, stopOnDiff: false },
    (line) => lines.push(line),
  );
  return lines.join('\n');
}

describe('every string field of every tool', () => {
  it('is found: the walk sees the fields the masking is about', () => {
    const seen = fields.map(where);
    expect(seen).toContain('ax_type text');
    expect(seen).toContain('ax_set_value value');
    expect(seen).toContain('ax_run_script script');
    expect(seen).toContain('ax_clipboard_write text');
    expect(seen).toContain('ax_assert assertions.value');
    expect(seen).toContain('ax_workflow>ax_type steps.[].args.text');
  });

  it('is named a locator, a key or content in src/guard/mask.ts', () => {
    const unnamed = fields
      .filter((f) => {
        const n = nameOf(f);
        return !LOCATOR_FIELDS.has(n) && !KEY_FIELDS.has(n) && !CONTENT_FIELDS.has(n);
      })
      .map(where);
    // A new field is content until named otherwise: say which it is in mask.ts.
    expect(unnamed).toEqual([]);
  });

  it('names no field that no schema has (a stale name could hide a renamed one)', () => {
    const names = new Set(fields.map(nameOf));
    const stale = [...LOCATOR_FIELDS, ...KEY_FIELDS, ...CONTENT_FIELDS].filter(
      (n) => !names.has(n),
    );
    expect(stale).toEqual([]);
  });

  const content = fields.filter(
    (f) => !LOCATOR_FIELDS.has(nameOf(f)) && !KEY_FIELDS.has(nameOf(f)),
  );
  const locators = fields.filter((f) => LOCATOR_FIELDS.has(nameOf(f)));

  it.each(content.map((f) => [where(f), f] as const))(
    'content %s: masked in the session log, its summary, the audit log, the viewer and replay',
    async (_name, f) => {
      const canary = canaryOf(f);
      const args = argsWith(f, canary);
      const tool = f.tool.split('>')[0];
      const plain = record(f.tool, args);
      const secret = record(f.tool, args, { secret: true });
      const kept = record(f.tool, args, { keepText: true });
      for (const [form, text] of [
        ['session log', JSON.stringify(plain)],
        ['session log (secret call)', JSON.stringify(secret)],
        ['audit log', auditLine(tool, args, false)],
        ['audit log (secret call)', auditLine(tool, args, true)],
        ['viewer', JSON.stringify(callOfRecord(JSON.parse(JSON.stringify(plain)), 0))],
        [
          'viewer (a log that kept text)',
          JSON.stringify(callOfRecord(JSON.parse(JSON.stringify(kept)), 0)),
        ],
        [
          'viewer (a log of the secret call)',
          JSON.stringify(callOfRecord(JSON.parse(JSON.stringify(secret)), 0)),
        ],
        ['replay', await replayed(plain)],
        ['replay (a log that kept text)', await replayed(kept)],
      ] as const) {
        expect(text, `${where(f)}: ${form}`).not.toContain(canary);
      }
      expect(plain.summary, 'summary kept').toBeDefined();
      // A secret call keeps no length of anything, nested or not; the audit log never does.
      expect(JSON.stringify(secret.args)).not.toMatch(/"length"/);
      expect(JSON.stringify(secret.args)).toContain('"masked":"secret"');
      expect(auditLine(tool, args, false)).not.toMatch(/"length"/);
      // Replay says why it cannot type it again.
      expect(await replayed(plain)).toMatch(/skipped: .* (was not|is never) recorded/);
    },
  );

  it.each(locators.map((f) => [where(f), f] as const))(
    'locator %s: kept in the session log (replay needs it)',
    (_name, f) => {
      const canary = canaryOf(f);
      const rec = record(f.tool, argsWith(f, canary));
      expect(JSON.stringify(rec.args)).toContain(canary);
    },
  );
});
