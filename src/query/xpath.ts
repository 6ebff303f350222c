/**
 * The XPath-like subset (strategy `xpath`, also recognized by auto when the text starts
 * with `//`):
 *
 *   //AXButton[@title='Save']          anywhere
 *   /AXWindow/AXGroup/AXButton[2]      `/` = child (the first step: a top-level element)
 *   //AXWindow[@title="Main"]//button[contains(@title, 'save')][last()]
 *
 * Steps are role names (any alias: `//button`, `//push_button`) or `*`. Predicates:
 * `[n]`, `[last()]`, `[@attr='v']`, `[contains(@attr,'v')]`, `[starts-with(@attr,'v')]`,
 * joined with `and`; attrs title/name, value, description, identifier/id, role (an `AX`
 * prefix is ignored: `@AXTitle`), and flags (`@enabled='true'`).
 *
 * Unlike XPath, `[n]` counts among all matches of the step in tree order, not per parent,
 * and `=` compares case-insensitively (a case-exact hit ranks first).
 */
import { resolveRole, suggestRoles } from './roles.js';
import { collapse, compact, escapeRegex } from './text.js';
import type { FlagKey, Step, Term, TextField } from './types.js';
import { QueryError } from './types.js';
import { FLAG_KEYS, parseBool } from './keys.js';

const ATTR_FIELDS: Record<string, TextField> = {
  title: 'name',
  name: 'name',
  label: 'name',
  value: 'value',
  description: 'description',
  desc: 'description',
  help: 'description',
  identifier: 'identifier',
  id: 'identifier',
};

export function parseXPath(src: string): Step[] {
  const p = new XPathParser(src);
  return p.parse();
}

class XPathParser {
  private i = 0;
  constructor(private readonly src: string) {}

  parse(): Step[] {
    const steps: Step[] = [];
    this.skipWs();
    if (this.src[this.i] !== '/') this.fail('an xpath starts with // (anywhere) or / (top level)');
    while (this.i < this.src.length) {
      this.skipWs();
      if (this.i >= this.src.length) break;
      let axis: Step['axis'];
      if (this.src.startsWith('//', this.i)) {
        axis = 'descendant';
        this.i += 2;
      } else if (this.src[this.i] === '/') {
        axis = 'child';
        this.i += 1;
      } else {
        this.fail(`expected / or // before '${this.src.slice(this.i, this.i + 12)}'`);
      }
      steps.push(this.step(axis));
    }
    if (steps.length === 0) this.fail('empty xpath');
    return steps;
  }

  private step(axis: Step['axis']): Step {
    this.skipWs();
    const m = /\*|[A-Za-z][A-Za-z0-9_-]*/y;
    m.lastIndex = this.i;
    const name = m.exec(this.src);
    if (!name) this.fail('expected a role name (AXButton, button) or * after /');
    const start = this.i;
    this.i = m.lastIndex;
    const terms: Term[] = [];
    if (name[0] !== '*') {
      const role = resolveRole(name[0]);
      if (!role) {
        const near = suggestRoles(name[0]);
        this.fail(
          `unknown role '${name[0]}'${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}`,
          start,
          near,
        );
      }
      terms.push({ kind: 'role', role });
    }
    const step: Step = { axis, terms };
    this.skipWs();
    while (this.src[this.i] === '[') {
      this.i++;
      this.predicate(step);
      this.skipWs();
      if (this.src[this.i] !== ']') this.fail("expected ']'");
      this.i++;
      this.skipWs();
    }
    return step;
  }

  private predicate(step: Step): void {
    this.skipWs();
    const num = /(-?\d+)\s*(?=\])/y;
    num.lastIndex = this.i;
    const n = num.exec(this.src);
    const last = /last\(\)\s*(?=\])/y;
    last.lastIndex = this.i;
    if (n || last.test(this.src)) {
      if (step.nth !== undefined) this.fail('a step takes one [n]');
      const value = n ? Number(n[1]) : -1;
      if (value === 0) this.fail('[n] counts from 1 ([1] is the first, [-1] or [last()] the last)');
      step.nth = value;
      this.i = n ? num.lastIndex : last.lastIndex;
      return;
    }
    for (;;) {
      step.terms.push(this.condition());
      this.skipWs();
      const and = /and\s+/y;
      and.lastIndex = this.i;
      if (!and.test(this.src)) return;
      this.i = and.lastIndex;
    }
  }

  private condition(): Term {
    this.skipWs();
    const fn = /(contains|starts-with)\s*\(\s*/y;
    fn.lastIndex = this.i;
    const f = fn.exec(this.src);
    if (f) {
      this.i = fn.lastIndex;
      const attr = this.attr();
      this.skipWs();
      if (this.src[this.i] !== ',') this.fail(`expected ',' in ${f[1]}(@attr, 'text')`);
      this.i++;
      const value = this.quoted();
      this.skipWs();
      if (this.src[this.i] !== ')') this.fail(`expected ')' to close ${f[1]}(`);
      this.i++;
      if (value === '') this.fail(`${f[1]}() needs a non-empty text`);
      const match =
        f[1] === 'contains'
          ? ({ op: 'contains', text: collapse(value) } as const)
          : ({ op: 'regex', source: `^\\s*${escapeRegex(value)}`, flags: 'i' } as const);
      if (attr.kind === 'flag') this.fail(`${f[1]}() takes a text attribute, not @${attr.name}`);
      if (attr.kind === 'role') return { kind: 'role_text', match };
      return { kind: 'text', fields: [attr.field], match };
    }
    const attr = this.attr();
    this.skipWs();
    if (this.src[this.i] !== '=') this.fail(`expected = after @${attr.name}`);
    this.i++;
    const value = this.quoted();
    if (attr.kind === 'flag') {
      const b = parseBool(value);
      if (b === null) this.fail(`@${attr.name} takes 'true' or 'false', not '${value}'`);
      return { kind: 'flag', flag: attr.flag, value: b };
    }
    if (attr.kind === 'role') {
      const role = resolveRole(value);
      if (!role) this.fail(`unknown role '${value}'`, undefined, suggestRoles(value));
      return { kind: 'role', role };
    }
    return { kind: 'text', fields: [attr.field], match: { op: 'exact', text: collapse(value) } };
  }

  private attr():
    | { kind: 'text'; name: string; field: TextField }
    | { kind: 'role'; name: string }
    | { kind: 'flag'; name: string; flag: FlagKey } {
    this.skipWs();
    const m = /@([A-Za-z][A-Za-z0-9_-]*)/y;
    m.lastIndex = this.i;
    const a = m.exec(this.src);
    if (!a) this.fail('expected an attribute like @title, @value, @identifier');
    this.i = m.lastIndex;
    const key = compact(a[1]).replace(/^ax(?=.)/, '');
    if (key === 'role') return { kind: 'role', name: a[1] };
    const field = ATTR_FIELDS[key];
    if (field) return { kind: 'text', name: a[1], field };
    if ((FLAG_KEYS as readonly string[]).includes(key)) {
      return { kind: 'flag', name: a[1], flag: key as FlagKey };
    }
    this.fail(
      `unknown attribute @${a[1]} (use @title, @value, @description, @identifier, @role or a flag like @enabled)`,
      this.i - a[0].length,
    );
  }

  private quoted(): string {
    this.skipWs();
    const q = this.src[this.i];
    if (q !== '"' && q !== "'") this.fail("expected a quoted value like 'Save'");
    let text = '';
    for (let k = this.i + 1; k < this.src.length; k++) {
      const c = this.src[k];
      if (c === '\\' && k + 1 < this.src.length) {
        text += this.src[++k];
      } else if (c === q) {
        this.i = k + 1;
        return text;
      } else {
        text += c;
      }
    }
    return this.fail(`unclosed quote: ${q} at ${this.i + 1} has no closing ${q}`);
  }

  private skipWs(): void {
    while (this.i < this.src.length && /\s/.test(this.src[this.i])) this.i++;
  }

  private fail(problem: string, at = this.i, suggestions?: string[]): never {
    throw new QueryError(`bad xpath at ${at + 1}: ${problem}`, this.src, {
      position: at,
      suggestions,
    });
  }
}
