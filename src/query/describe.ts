/** describeQuery: a query as one short line for summaries and logs. */
import type { Attempt, Query, Step, Term, TextField, TextMatch } from './types.js';
import { ALL_TEXT_FIELDS } from './types.js';

const FIELD_LABEL: Record<TextField, string> = {
  name: 'title',
  value: 'value',
  description: 'description',
  identifier: 'identifier',
};

/**
 * E.g. `role_title: AXButton title="Save" (then role_title_contains, exact, contains)`,
 * `path: AXWindow title="Main" > AXButton[2]`, `xpath: //AXButton title="Save"`.
 * Null (no query) describes as `any element`.
 */
export function describeQuery(query: Query | null | undefined): string {
  if (!query) return 'any element';
  const [first, ...rest] = query.attempts;
  const then = rest.length > 0 ? ` (then ${rest.map((a) => a.name).join(', ')})` : '';
  return `${query.form}: ${describeAttempt(first, query.form === 'xpath')}${then}`;
}

function describeAttempt(a: Attempt, xpath: boolean): string {
  return a.steps
    .map((s, k) => {
      const body = describeStep(s);
      if (xpath) return `${s.axis === 'child' ? '/' : '//'}${body}`;
      if (k === 0) return s.axis === 'child' ? `/${body}` : body;
      return `${s.axis === 'child' ? ' / ' : ' > '}${body}`;
    })
    .join('');
}

function describeStep(s: Step): string {
  const parts = s.terms.map(describeTerm);
  const body = parts.length > 0 ? parts.join(' ') : '*';
  return s.nth !== undefined ? `${body}[${s.nth}]` : body;
}

function describeTerm(t: Term): string {
  switch (t.kind) {
    case 'role':
      return t.role.label;
    case 'role_text':
      return `role${describeMatch(t.match)}`;
    case 'flag':
      return t.value ? t.flag : `!${t.flag}`;
    case 'text': {
      const all = ALL_TEXT_FIELDS.every((f) => t.fields.includes(f));
      const label = all ? 'text' : t.fields.map((f) => FIELD_LABEL[f]).join('|');
      return `${label}${describeMatch(t.match)}`;
    }
  }
}

function describeMatch(m: TextMatch): string {
  switch (m.op) {
    case 'exact':
      return `=${quote(m.text)}`;
    case 'contains':
      return `~${quote(m.text)}`;
    case 'regex':
      return `=/${m.source}/${m.flags}`;
  }
}

function quote(s: string): string {
  const cut = s.length > 60 ? `${s.slice(0, 59)}…` : s;
  return JSON.stringify(cut);
}
