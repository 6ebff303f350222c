/** ax_a11y_audit: an app's tree (and screenshot) checked against the accessibility rules. */
import { z } from 'zod';
import { defineTool } from './define.js';
import { optionalAppArg, targetOf } from './schemas.js';
import {
  RULE_IDS,
  countLines,
  countsByRule,
  findingLines,
  runAudit,
  type AuditResult,
  type RuleId,
} from '../audit/index.js';
import { AxError } from '../errors.js';
import type { WrittenResult } from '../pipeline/publish.js';
import type { SnapshotView } from '../model/view.js';

const REF = /^\s*e[1-9][0-9]*\s*$/;

export const a11yAudit = defineTool({
  name: 'ax_a11y_audit',
  title: 'Audit accessibility',
  description: 'WCAG checks of an app; findings by ref in the file.',
  kind: 'read',
  input: z.object({
    app: optionalAppArg,
    // Plain strings checked by the handler: the ids are in the error and the docs, not
    // in every session's tools/list.
    rules: z.array(z.string()).optional().describe('Rule ids (default all).'),
    scope: z.string().optional().describe('Ref or query to audit below.'),
  }),
  output: z.object({
    findings: z.record(z.string(), z.number()),
    finding_count: z.number(),
  }),
  async handle(args, { pipeline, call }) {
    const rules = ruleIdsOf(args.rules);
    const scope = args.scope?.trim() || undefined;
    return pipeline.observe(call, {
      app: args.app,
      root:
        scope === undefined
          ? undefined
          : targetOf(REF.test(scope) ? { ref: scope } : { query: scope }),
      // What the app reports as not showing is not on screen for anyone to use.
      dropHidden: true,
      describe: ({ view }) =>
        `Audited ${view.snapshot.elements.length} elements of ${view.snapshot.app}`,
      written: async ({ view }, pair) =>
        examination(view, runAudit({ view, shot: await pair.pixels() }, rules)),
    });
  },
});

/** The rules asked for, checked before anything is walked. */
function ruleIdsOf(given: string[] | undefined): RuleId[] | undefined {
  if (given === undefined) return undefined;
  const known: readonly string[] = RULE_IDS;
  const unknown = given.filter((id) => !known.includes(id));
  if (given.length === 0 || unknown.length > 0) {
    throw new AxError(
      'bad_argument',
      given.length === 0
        ? 'rules is empty'
        : `unknown rule ${unknown.map((u) => `'${u}'`).join(', ')}`,
      `Pass rule ids among ${RULE_IDS.join(', ')}, or leave rules out for all`,
    );
  }
  return [...new Set(given)] as RuleId[];
}

function examination(view: SnapshotView, result: AuditResult): WrittenResult {
  const total = result.findings.length;
  return {
    sections: [{ title: `findings: ${total}`, lines: findingLines(view, result) }],
    answer: { key: 'findings by rule', lines: countLines(result) },
    extra: {
      findings: countsByRule(result),
      finding_count: total,
      ...(result.skipped.length > 0
        ? { not_checked: Object.fromEntries(result.skipped.map((s) => [s.rule, s.reason])) }
        : {}),
    },
  };
}

export const auditTools = [a11yAudit];
