/**
 * Runs the accessibility rules over a presented snapshot and renders their findings:
 * grep-able lines for the tree file (`! rule-id eN [role] "text" detail`) and one count
 * line per rule for the summary.
 */
import type { SnapshotView } from '../model/view.js';
import { RULES, type AuditContext, type Finding, type Rule, type RuleId } from './rules.js';

export { RULE_IDS, RULES, MIN_CONTRAST, MIN_TARGET } from './rules.js';
export type { Finding, Rule, RuleId, ShotPixels, Severity } from './rules.js';
export { contrastRatio, estimateContrast, relativeLuminance, type Pixels } from './contrast.js';

export interface AuditResult {
  rules: readonly Rule[];
  /** In rule order, then tree order. */
  findings: Finding[];
  /** Rules that could not run, and why. */
  skipped: Array<{ rule: RuleId; reason: string }>;
}

/** Runs `only` (default: every rule) over the view. */
export function runAudit(ctx: AuditContext, only?: readonly RuleId[]): AuditResult {
  const rules = only ? RULES.filter((r) => only.includes(r.id)) : RULES;
  const findings: Finding[] = [];
  const skipped: AuditResult['skipped'] = [];
  for (const rule of rules) {
    const reason = rule.unavailable?.(ctx);
    if (reason !== undefined) {
      skipped.push({ rule: rule.id, reason });
      continue;
    }
    const found = rule.check(ctx).sort((a, b) => a.index - b.index);
    for (const f of found) findings.push({ rule: rule.id, ...f });
  }
  return { rules, findings, skipped };
}

/** Findings per rule id, every rule that ran included (zero counts too). */
export function countsByRule(result: AuditResult): Record<string, number> {
  const counts: Record<string, number> = {};
  const skipped = new Set(result.skipped.map((s) => s.rule));
  for (const r of result.rules) if (!skipped.has(r.id)) counts[r.id] = 0;
  for (const f of result.findings) counts[f.rule]++;
  return counts;
}

const TEXT_CHARS = 60;

/** A text on one line, clipped, its quotes escaped. */
function quoted(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const clipped =
    [...flat].length > TEXT_CHARS ? [...flat].slice(0, TEXT_CHARS).join('') + '…' : flat;
  return `"${clipped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** The file's findings section: one grep-able line per finding, then the skipped rules. */
export function findingLines(view: SnapshotView, result: AuditResult): string[] {
  const els = view.snapshot.elements;
  const lines = result.findings.map((f) => {
    const el = els[f.index];
    const rule = result.rules.find((r) => r.id === f.rule);
    const text = el.name.trim() || el.value?.trim() || '';
    return `! ${f.rule} ${view.refs[f.index]} [${el.role}] ${quoted(text)} ${rule?.severity ?? ''}: ${f.detail}`;
  });
  for (const s of result.skipped) lines.push(`# skipped: ${s.rule} (${s.reason})`);
  return lines;
}

/** One line per rule for the summary: its count and WCAG criteria (severity: in the file). */
export function countLines(result: AuditResult): string[] {
  const counts = countsByRule(result);
  const lines = result.rules
    .filter((r) => counts[r.id] !== undefined)
    .map((r) => `${r.id}: ${counts[r.id]} (WCAG ${r.wcag.map((w) => w.sc).join(', ')})`);
  for (const s of result.skipped) lines.push(`${s.rule}: not checked (${s.reason})`);
  return lines;
}
