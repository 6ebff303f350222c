/**
 * parseQuery: query text + strategy → Query. The grammar is documented in index.ts.
 */
import { compileLinear, REGEX_FLAGS } from './regex.js';
import { keyDef, KEYS, parseBool } from './keys.js';
import type { KeyDef } from './keys.js';
import { lex } from './lexer.js';
import type { Token } from './lexer.js';
import { resolveRole, roleNames, suggestRoles } from './roles.js';
import { closest, collapse, compact } from './text.js';
import type { Attempt, Query, QueryForm, Step, Strategy, Term, TextMatch } from './types.js';
import { ALL_TEXT_FIELDS, QueryError, STRATEGIES } from './types.js';
import { parseXPath } from './xpath.js';

/**
 * Reads `text` as a query. Throws QueryError (what is wrong + the valid forms) when it
 * cannot. Refs (`e42`) are not special here: callers resolve refs before calling this,
 * and a ref-looking text that reaches it is read as plain text.
 */
export function parseQuery(text: string, strategy: Strategy = 'auto'): Query {
  if (typeof text !== 'string') throw new QueryError('the query must be a string', String(text));
  if (!STRATEGIES.includes(strategy)) {
    throw new QueryError(
      `unknown strategy '${String(strategy)}' (use one of: ${STRATEGIES.join(', ')})`,
      text,
      { suggestions: closest(String(strategy), STRATEGIES, 2, 3), help: false },
    );
  }
  const t = text.trim();
  if (t === '') throw new QueryError('empty query', text);
  const make = (form: QueryForm, attempts: Attempt[]): Query => ({
    source: text,
    strategy,
    form,
    attempts,
  });
  switch (strategy) {
    case 'exact':
      return make('text', [literal('exact', t, text)]);
    case 'contains':
      return make('text', [literal('contains', t, text)]);
    case 'regex': {
      const whole = /^\/(.+)\/([a-z]*)$/is.exec(t);
      const match = regexMatch(whole ? whole[1] : t, whole ? whole[2] : '', text, 0);
      return make('regex', [{ name: 'regex', steps: [textStep(match)] }]);
    }
    case 'role': {
      const role = resolveRole(t);
      if (!role) throw unknownRole(t, text, 0);
      return make('role', [
        { name: 'role', steps: [{ axis: 'descendant', terms: [{ kind: 'role', role }] }] },
      ]);
    }
    case 'identifier':
      return make('identifier', [
        {
          name: 'identifier',
          steps: [
            {
              axis: 'descendant',
              terms: [
                { kind: 'text', fields: ['identifier'], match: { op: 'exact', text: collapse(t) } },
              ],
            },
          ],
        },
      ]);
    case 'xpath':
      return make('xpath', [{ name: 'xpath', steps: parseXPath(t) }]);
    case 'auto':
      return parseAuto(t, text, make);
  }
}

function parseAuto(
  t: string,
  source: string,
  make: (form: QueryForm, attempts: Attempt[]) => Query,
): Query {
  if (t === '*') return make('any', [{ name: 'any', steps: [{ axis: 'descendant', terms: [] }] }]);
  if (t.startsWith('//')) return make('xpath', [{ name: 'xpath', steps: parseXPath(t) }]);
  if (/^\/[A-Za-z*]/.test(t) && !/^\/.+\/[imsuvgyd]*$/s.test(t)) {
    // `/AXWindow/AXButton` is an xpath; `/usr/bin/env` is text. Only a clean parse decides.
    try {
      return make('xpath', [{ name: 'xpath', steps: parseXPath(t) }]);
    } catch (err) {
      if (!(err instanceof QueryError)) throw err;
    }
  }

  let tokens: Token[];
  try {
    tokens = lex(t);
  } catch (err) {
    // `He said 'hi` and `Home ~/docs` are text; `title:"Save` and `"Save` are broken queries.
    if (!(err instanceof QueryError) || looksStructured(t)) throw err;
    return make('text', [literal('exact', t, source), literal('contains', t, source)]);
  }
  const groups: Token[][] = [[]];
  for (const tok of tokens) {
    if (tok.kind === 'sep') groups.push([]);
    else groups[groups.length - 1].push(tok);
  }
  const parsed = groups.map((g) => parseStep(g, t, source));
  // Literal-text fallbacks only when nothing was quoted: a quote or a regex says "structured".
  const canFallBack = !tokens.some((tok) => tok.kind === 'quoted' || tok.kind === 'regex');
  const fallback = canFallBack ? [literal('exact', t, source), literal('contains', t, source)] : [];

  if (parsed.length === 1) {
    const p = parsed[0];
    const nth = p.nth;
    // [n] / index:n picks among the matches of the reading's last step.
    const pick = (a: Attempt): Attempt =>
      nth === undefined
        ? a
        : { ...a, steps: a.steps.map((s, k) => (k === a.steps.length - 1 ? { ...s, nth } : s)) };
    const one = (terms: Term[]): Step[] => [{ axis: 'descendant', terms }];
    switch (p.kind) {
      case 'empty':
        throw new QueryError(nth === undefined ? 'empty query' : 'nothing before [n]', source);
      case 'any':
        return make('any', [pick({ name: 'any', steps: one([]) })]);
      case 'regex':
        return make('regex', [pick({ name: 'regex', steps: [textStep(p.match)] })]);
      case 'text': {
        const attempts = [literal('exact', p.text, source), literal('contains', p.text, source)];
        const role = p.quoted ? null : resolveRole(p.text);
        if (role) {
          const roleAttempt: Attempt = { name: 'role', steps: one([{ kind: 'role', role }]) };
          // `AXButton` is unmistakably a role; `image` may well be a label's text.
          if (/^AX[A-Z]/.test(p.text)) attempts.unshift(roleAttempt);
          else attempts.push(roleAttempt);
        }
        // Without [n] the literal fallback would repeat the attempts; with it, `Item [2]` may be a label.
        return make('text', [...attempts.map(pick), ...(nth === undefined ? [] : fallback)]);
      }
      case 'role_title': {
        if (p.title === undefined) {
          const onlyRole = p.terms.length === 1;
          const name = onlyRole ? 'role' : 'terms';
          return make(name, [pick({ name, steps: one(p.terms) }), ...fallback]);
        }
        const attempts: Attempt[] = [{ name: 'role_title', steps: one(p.terms) }];
        const title = p.terms[p.title];
        if (title.kind === 'text' && title.match.op === 'exact' && title.match.text !== '') {
          const loose = [...p.terms];
          loose[p.title] = { ...title, match: { op: 'contains', text: title.match.text } };
          attempts.push({ name: 'role_title_contains', steps: one(loose) });
        }
        return make('role_title', [...attempts.map(pick), ...fallback]);
      }
      case 'terms':
        return make('terms', [pick({ name: 'terms', steps: one(p.terms) }), ...fallback]);
    }
  }

  // A path: several steps.
  const structured = parsed.some((p) => p.kind !== 'text' && p.kind !== 'empty');
  const emptyAt = parsed.findIndex((p) => p.kind === 'empty');
  if (emptyAt >= 0) {
    if (!structured)
      return make('text', [literal('exact', t, source), literal('contains', t, source)]);
    throw new QueryError(
      emptyAt === 0
        ? `nothing before the first '>' or [n]`
        : `empty step after '>' (step ${emptyAt + 1})`,
      source,
    );
  }
  const steps: Step[] = parsed.map((p) => {
    const step: Step = { axis: 'descendant', terms: stepTerms(p) };
    if (p.nth !== undefined) step.nth = p.nth;
    return step;
  });
  return make('path', [{ name: 'path', steps }, ...fallback]);
}

/** Starts with a quote, or with a key or role name and an operator. */
function looksStructured(t: string): boolean {
  if (/^["']/.test(t)) return true;
  const head = /^([A-Za-z][\w -]*?)\s*[:~=]/.exec(t);
  return head !== null && (keyDef(head[1]) !== undefined || resolveRole(head[1]) !== null);
}

type ParsedStep = { nth?: number } & (
  | { kind: 'empty' }
  | { kind: 'any' }
  | { kind: 'text'; text: string; quoted: boolean }
  | { kind: 'regex'; match: TextMatch }
  /** `title` is the index in `terms` of the title term, if the role had one. */
  | { kind: 'role_title'; terms: Term[]; title?: number }
  | { kind: 'terms'; terms: Term[] }
);

/** The terms of a step inside a path: a bare role name is a role, other text an exact text. */
function stepTerms(p: ParsedStep): Term[] {
  switch (p.kind) {
    case 'any':
    case 'empty':
      return [];
    case 'text': {
      const role = p.quoted ? null : resolveRole(p.text);
      if (role) return [{ kind: 'role', role }];
      return [
        { kind: 'text', fields: ALL_TEXT_FIELDS, match: { op: 'exact', text: collapse(p.text) } },
      ];
    }
    case 'regex':
      return [{ kind: 'text', fields: ALL_TEXT_FIELDS, match: p.match }];
    case 'role_title':
    case 'terms':
      return p.terms;
  }
}

function parseStep(group: Token[], src: string, source: string): ParsedStep {
  let toks = trimWs(group);
  let nth: number | undefined;
  const last = toks[toks.length - 1];
  if (last?.kind === 'nth') {
    nth = checkNth(last.n ?? 0, source, last.start);
    toks = trimWs(toks.slice(0, -1));
  } else if (endsWithNthTerm(toks)) {
    // `M nth:2` picks like `M[2]`: plain text takes a trailing nth:n/index:n too, so the
    // pick an ambiguity error suggests works on any query.
    nth = checkNth(Number(last.text), source, last.start);
    toks = trimWs(toks.slice(0, -3));
  }
  const withNth = <T extends ParsedStep>(p: T): T => {
    if (nth === undefined) return p;
    if (p.nth !== undefined) {
      throw new QueryError('give either [n] or index:n, not both', source, {
        position: last.start,
      });
    }
    return { ...p, nth };
  };
  if (toks.length === 0) return withNth({ kind: 'empty' });
  const raw = src.slice(toks[0].start, toks[toks.length - 1].end);
  const first = toks[0];
  if (toks.length === 1) {
    if (first.kind === 'word' && first.text === '*') return withNth({ kind: 'any' });
    if (first.kind === 'quoted') {
      if (collapse(first.text) === '') throw new QueryError('empty quoted text', source);
      return withNth({ kind: 'text', text: first.text, quoted: true });
    }
    if (first.kind === 'regex') {
      // `/usr/bin` at a step start is text, not a regex with flags "bin".
      if (!/^[imsuvgyd]*$/.test(first.flags ?? ''))
        return withNth({ kind: 'text', text: raw, quoted: false });
      return withNth({
        kind: 'regex',
        match: regexMatch(first.text, first.flags ?? '', source, first.start),
      });
    }
  }

  const opAt = toks.findIndex((tok) => tok.kind === 'op');
  if (opAt > 0 && toks.slice(0, opAt).every((tok) => tok.kind === 'word' || tok.kind === 'ws')) {
    const head = trimWs(toks.slice(0, opAt));
    const headText = src.slice(head[0].start, head[head.length - 1].end);
    if (head.length === 1 && keyDef(headText)) {
      const r = new TermReader(toks, src, source);
      r.readTerms(0);
      return withNth({ kind: 'terms', terms: r.terms, nth: r.nth });
    }
    const role = resolveRole(headText);
    if (role) {
      const r = new TermReader(toks, src, source);
      r.terms.push({ kind: 'role', role });
      const title = r.readTitle(opAt);
      r.readTerms(r.pos);
      return withNth({ kind: 'role_title', terms: r.terms, title, nth: r.nth });
    }
    if (head.length === 1) checkTypo(headText, source, head[0].start);
    return withNth({ kind: 'text', text: raw, quoted: false });
  }

  // `"Save As" enabled:true`: a quoted text followed by terms.
  if (first.kind === 'quoted' && toks[1]?.kind === 'ws') {
    const r = new TermReader(toks, src, source);
    if (r.isTermStart(r.skipWs(1))) {
      r.terms.push({
        kind: 'text',
        fields: ALL_TEXT_FIELDS,
        match: { op: 'exact', text: collapse(first.text) },
      });
      r.readTerms(1);
      return withNth({ kind: 'terms', terms: r.terms, nth: r.nth });
    }
  }
  return withNth({ kind: 'text', text: raw, quoted: false });
}

/** `… nth:2` / `… index:-1`: a number term for the nth key after some whitespace. */
function endsWithNthTerm(toks: Token[]): boolean {
  const n = toks.length;
  if (n < 5) return false;
  const [ws, key, op, value] = toks.slice(n - 4);
  return (
    ws.kind === 'ws' &&
    key.kind === 'word' &&
    keyDef(key.text)?.kind === 'nth' &&
    op.kind === 'op' &&
    op.text !== '~' &&
    value.kind === 'word' &&
    /^-?\d+$/.test(value.text)
  );
}

/** Reads `key<op>value` terms from a token list. */
class TermReader {
  readonly terms: Term[] = [];
  nth?: number;
  pos = 0;

  constructor(
    private readonly toks: Token[],
    private readonly src: string,
    private readonly source: string,
  ) {}

  skipWs(i: number): number {
    while (i < this.toks.length && this.toks[i].kind === 'ws') i++;
    return i;
  }

  /** `word<op>` with a known key word. */
  isTermStart(i: number): boolean {
    const t = this.toks[i];
    return t?.kind === 'word' && this.toks[i + 1]?.kind === 'op' && keyDef(t.text) !== undefined;
  }

  readTerms(from: number): void {
    let i = this.skipWs(from);
    while (i < this.toks.length) {
      const tok = this.toks[i];
      if (!this.isTermStart(i)) {
        const bit = this.src.slice(tok.start, this.toks[this.toks.length - 1].end);
        throw new QueryError(
          `unexpected '${clip(bit)}' at ${tok.start + 1}: expected key:value (keys: ${[...KEYS.keys()].slice(0, 10).join(', ')}, …); quote text that has spaces`,
          this.source,
          { position: tok.start },
        );
      }
      const def = keyDef(tok.text) as KeyDef;
      const op = this.toks[i + 1].text;
      const value = this.readValue(i + 2);
      this.addTerm(tok.text, def, op, value);
      i = this.skipWs(value.next);
    }
    this.pos = i;
  }

  /** The implicit title after `role:`; returns its index in terms, if one was given. */
  readTitle(opAt: number): number | undefined {
    const op = this.toks[opAt].text;
    const value = this.readValue(opAt + 1);
    this.pos = value.next;
    if (value.kind === 'bare' && value.text === '') return undefined;
    this.addTerm('title', { kind: 'text', field: 'name' }, op, value);
    return this.terms.length - 1;
  }

  private readValue(i: number): Value {
    const t = this.toks[i];
    if (t?.kind === 'quoted' || t?.kind === 'regex') {
      const after = this.toks[i + 1];
      if (after && after.kind !== 'ws') {
        throw new QueryError(
          `unexpected '${clip(this.src.slice(after.start))}' right after ${t.kind === 'quoted' ? 'the quoted value' : 'the regex'} at ${after.start + 1}`,
          this.source,
          { position: after.start },
        );
      }
      return t.kind === 'quoted'
        ? { kind: 'quoted', text: t.text, at: t.start, next: i + 1 }
        : { kind: 'regex', text: t.text, flags: t.flags ?? '', at: t.start, next: i + 1 };
    }
    // A bare value runs on (spaces and all) until the next key:value term, so
    // `role:push button` and `title:Save As enabled:true` read as meant.
    let j = i;
    while (j < this.toks.length) {
      if (this.toks[j].kind === 'ws' && this.isTermStart(this.skipWs(j))) break;
      if (this.toks[j].kind === 'word' && this.toks[j + 1]?.kind === 'op') {
        const w = this.toks[j].text;
        if (!keyDef(w)) checkKeyTypo(w, this.source, this.toks[j].start);
      }
      j++;
    }
    const start = this.toks[i]?.start ?? this.src.length;
    const text = j > i ? this.src.slice(start, this.toks[j - 1].end).trim() : '';
    return { kind: 'bare', text, at: start, next: j };
  }

  private addTerm(key: string, def: KeyDef, op: string, value: Value): void {
    const { source } = this;
    const where = value.at;
    switch (def.kind) {
      case 'nth': {
        if (value.kind !== 'bare' || !/^-?\d+$/.test(value.text)) {
          throw new QueryError(`${key}: takes a number (${key}:2 = the second match)`, source, {
            position: where,
          });
        }
        if (this.nth !== undefined)
          throw new QueryError(`${key}: given twice`, source, { position: where });
        this.nth = checkNth(Number(value.text), source, where);
        return;
      }
      case 'flag': {
        const b = value.kind === 'regex' || op === '~' ? null : parseBool(value.text);
        if (b === null) {
          throw new QueryError(`${key}: takes true or false (e.g. ${key}:true)`, source, {
            position: where,
          });
        }
        this.terms.push({ kind: 'flag', flag: def.flag, value: b });
        return;
      }
      case 'role': {
        if (value.kind === 'regex') {
          this.terms.push({
            kind: 'role_text',
            match: regexMatch(value.text, value.flags, source, where),
          });
          return;
        }
        if (value.text.trim() === '') {
          throw new QueryError(
            `${key}: needs a role name (role:button, role:AXTextField)`,
            source,
            {
              position: where,
            },
          );
        }
        if (op === '~') {
          this.terms.push({
            kind: 'role_text',
            match: { op: 'contains', text: collapse(value.text) },
          });
          return;
        }
        const role = resolveRole(value.text);
        if (!role) throw unknownRole(value.text, source, where);
        this.terms.push({ kind: 'role', role });
        return;
      }
      case 'text': {
        let match: TextMatch;
        if (value.kind === 'regex') match = regexMatch(value.text, value.flags, source, where);
        else if (op === '~') {
          if (collapse(value.text) === '') {
            throw new QueryError(`${key}~ needs some text to look for`, source, {
              position: where,
            });
          }
          match = { op: 'contains', text: collapse(value.text) };
        } else match = { op: 'exact', text: collapse(value.text) };
        this.terms.push({ kind: 'text', fields: [def.field], match });
        return;
      }
    }
  }
}

type Value =
  | { kind: 'bare' | 'quoted'; text: string; at: number; next: number }
  | { kind: 'regex'; text: string; flags: string; at: number; next: number };

function trimWs(toks: Token[]): Token[] {
  let a = 0;
  let b = toks.length;
  while (a < b && toks[a].kind === 'ws') a++;
  while (b > a && toks[b - 1].kind === 'ws') b--;
  return toks.slice(a, b);
}

function checkNth(n: number, source: string, at: number): number {
  if (n === 0 || !Number.isSafeInteger(n)) {
    throw new QueryError('[n] and index:n count from 1 (1 = first, -1 = last)', source, {
      position: at,
    });
  }
  return n;
}

function literal(name: 'exact' | 'contains', text: string, source: string): Attempt {
  const folded = collapse(text);
  if (folded === '') throw new QueryError('empty query', source);
  return {
    name,
    steps: [
      {
        axis: 'descendant',
        terms: [{ kind: 'text', fields: ALL_TEXT_FIELDS, match: { op: name, text: folded } }],
      },
    ],
  };
}

function textStep(match: TextMatch): Step {
  return { axis: 'descendant', terms: [{ kind: 'text', fields: ALL_TEXT_FIELDS, match }] };
}

/** Checks a regex and drops flags that would make repeated tests stateful (g, y) or do nothing (d). */
export function regexMatch(source: string, flags: string, query: string, at: number): TextMatch {
  const bad = [...flags].filter((f) => !'dgimsuyv'.includes(f));
  if (bad.length > 0) {
    throw new QueryError(
      `unknown regex flag '${bad.join('')}' in /${source}/${flags} (flags: i = ignore case, m, s, u)`,
      query,
      { position: at },
    );
  }
  const kept = [...new Set(flags)].filter((f) => REGEX_FLAGS.includes(f)).join('');
  try {
    compileLinear(source, kept);
  } catch (err) {
    throw new QueryError(`bad regex /${source}/${flags}: ${(err as Error).message}`, query, {
      position: at,
    });
  }
  return { op: 'regex', source, flags: kept };
}

function unknownRole(name: string, source: string, at: number): QueryError {
  const near = suggestRoles(name);
  return new QueryError(
    `unknown role '${clip(name)}'${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}: use an AX role (AXButton, AXTextField), a short name (button, textfield, checkbox) or a native one (push button)`,
    source,
    { position: at, suggestions: near },
  );
}

/**
 * `buton:Save` is almost surely a misspelled role, not text to look for; `Time: 10:30`
 * is text. Only near misses of longer names (or anything AX-prefixed) count as typos.
 */
function checkTypo(head: string, source: string, at: number): void {
  const c = compact(head);
  if (/^ax[a-z]/i.test(head)) throw unknownRole(head, source, at);
  // A plural of a role ("Links: 3", "Cells: 12") is a label, not a misspelled role.
  if (c.length < 5 || (c.endsWith('s') && resolveRole(c.slice(0, -1)))) return;
  const max = c.length >= 7 ? 2 : 1;
  const roles = closest(c, roleNames(), 3, max);
  const keys = closest(c, [...KEYS.keys()], 2, max);
  if (roles.length === 0 && keys.length === 0) return;
  const near = [...keys, ...roles];
  throw new QueryError(
    `unknown role or key '${head}' (did you mean ${near.join(', ')}?); to look for this text literally, quote it or use strategy "exact"`,
    source,
    { position: at, suggestions: near },
  );
}

function checkKeyTypo(word: string, source: string, at: number): void {
  const c = compact(word);
  if (c.length < 4) return;
  const keys = closest(c, [...KEYS.keys()], 2, 1);
  if (keys.length === 0) return;
  throw new QueryError(
    `unknown key '${word}' (did you mean ${keys.join(', ')}?); quote the value if the colon is part of the text`,
    source,
    { position: at, suggestions: keys },
  );
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 39)}…` : s;
}
