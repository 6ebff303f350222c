/**
 * Term evaluation on one element: does it hold, and how good a text hit is it.
 * Terms are compiled once per findMatches call (regexes built, texts folded) and element
 * texts are folded lazily, once per element, so 10 000 elements stay cheap.
 */
import { compileLinear, type LinearRegex } from './regex.js';
import type { Element, Snapshot } from '../model/element.js';
import { isInteractiveRole } from '../model/roles.js';
import { roleMatches } from './roles.js';
import { collapse } from './text.js';
import type { FlagKey, RoleSpec, Term, TextField, TextMatch } from './types.js';

/**
 * Text scores: exact beats contains beats nothing, and across fields the name beats
 * the value beats the description beats the identifier. A case-exact hit gets the full
 * base; contains gains for starting the text and for covering more of it.
 */
const EXACT_BASE: Record<TextField, number> = {
  name: 100,
  value: 90,
  description: 80,
  identifier: 76,
};
const REGEX_BASE: Record<TextField, number> = {
  name: 70,
  value: 66,
  description: 62,
  identifier: 58,
};
const CONTAINS_BASE: Record<TextField, number> = {
  name: 56,
  value: 46,
  description: 40,
  identifier: 36,
};
/** The score of a step that has no text term (role only, flags only, any). */
export const STRUCTURAL_SCORE = 100;

type CompiledText =
  { op: 'exact' | 'contains'; text: string; lower: string } | { op: 'regex'; re: LinearRegex };

export type CompiledTerm =
  | { kind: 'role'; role: RoleSpec; nativeSet: Set<string> }
  | { kind: 'role_text'; match: CompiledText }
  | { kind: 'text'; fields: readonly TextField[]; match: CompiledText }
  | { kind: 'flag'; flag: FlagKey; value: boolean };

export function compileTerm(term: Term): CompiledTerm {
  switch (term.kind) {
    case 'role':
      return { kind: 'role', role: term.role, nativeSet: new Set(term.role.nativeRoles) };
    case 'role_text':
      return { kind: 'role_text', match: compileText(term.match) };
    case 'text':
      return { kind: 'text', fields: term.fields, match: compileText(term.match) };
    case 'flag':
      return term;
  }
}

function compileText(m: TextMatch): CompiledText {
  if (m.op === 'regex') return { op: 'regex', re: compileLinear(m.source, m.flags) };
  return { op: m.op, text: m.text, lower: m.text.toLowerCase() };
}

/** Per-call view of the snapshot that terms are tested against. */
export class Subject {
  /** Per field, per element: the collapsed text (case kept) and its lower-case form, filled on first use. */
  private readonly collapsed: Record<TextField, (string | undefined)[]>;
  private readonly folded: Record<TextField, (string | undefined)[]>;

  constructor(
    readonly snapshot: Snapshot,
    private readonly visible: readonly boolean[],
    private readonly focusedIndex: number,
  ) {
    const n = snapshot.elements.length;
    const table = (): Record<TextField, (string | undefined)[]> => ({
      name: new Array(n),
      value: new Array(n),
      description: new Array(n),
      identifier: new Array(n),
    });
    this.collapsed = table();
    this.folded = table();
  }

  isVisible(i: number): boolean {
    return this.visible[i] ?? this.snapshot.elements[i].flags.includes('visible');
  }

  /** Raw texts: a secure element's value is never looked at. */
  raw(el: Element, field: TextField): string {
    switch (field) {
      case 'name':
        return el.name ?? '';
      case 'value':
        return el.flags.includes('secure') ? '' : (el.value ?? '');
      case 'description':
        return el.description ?? '';
      case 'identifier':
        return el.identifier ?? '';
    }
  }

  /** The collapsed text of one field (case kept). */
  text(i: number, field: TextField): string {
    let c = this.collapsed[field][i];
    if (c === undefined) {
      c = collapse(this.raw(this.snapshot.elements[i], field));
      this.collapsed[field][i] = c;
    }
    return c;
  }

  /** The collapsed, lower-case text of one field. */
  lower(i: number, field: TextField): string {
    let f = this.folded[field][i];
    if (f === undefined) {
      f = this.text(i, field).toLowerCase();
      this.folded[field][i] = f;
    }
    return f;
  }

  flag(i: number, flag: FlagKey): boolean {
    const el = this.snapshot.elements[i];
    switch (flag) {
      case 'visible':
        return this.isVisible(i);
      case 'hidden':
        return !this.isVisible(i);
      case 'enabled':
        return !el.flags.includes('disabled');
      case 'focused':
        return i === this.focusedIndex || el.flags.includes('focused');
      case 'interactive':
        return isInteractiveRole(el.role);
      default:
        return el.flags.includes(flag);
    }
  }
}

export interface TextHit {
  score: number;
  /**
   * The kind of hit, for "equally good": an exact or regex hit's tier is its score (a
   * case-exact name beats a case-folded one, a name beats a value); every contains hit
   * on a field shares one tier, whatever the position and coverage bonuses, because
   * "M" is no more meant by "MS" than by "MR".
   */
  tier: number;
  field: TextField;
}

/**
 * Tests all terms on element i. Returns null when one fails, else the best text hit
 * among the text terms (the first text term's best field), or a structural score.
 */
export function testTerms(
  s: Subject,
  i: number,
  terms: readonly CompiledTerm[],
): TextHit | { score: number; tier: number; field?: undefined } | null {
  let hit: TextHit | undefined;
  const el = s.snapshot.elements[i];
  for (const t of terms) {
    switch (t.kind) {
      case 'role':
        if (!roleMatches(t.role, el.role, el.nativeRole)) return null;
        break;
      case 'role_text':
        if (!matchRoleText(t.match, el)) return null;
        break;
      case 'flag':
        if (s.flag(i, t.flag) !== t.value) return null;
        break;
      case 'text': {
        const h = scoreText(s, i, t.fields, t.match);
        if (!h) return null;
        if (!hit || h.tier > hit.tier || (h.tier === hit.tier && h.score > hit.score)) hit = h;
        break;
      }
    }
  }
  return hit ?? { score: STRUCTURAL_SCORE, tier: STRUCTURAL_SCORE };
}

function matchRoleText(m: CompiledText, el: Element): boolean {
  const names = [el.role, el.nativeRole];
  if (m.op === 'regex') return names.some((n) => m.re.test(n));
  const lower = names.map((n) => n.toLowerCase());
  return m.op === 'exact' ? lower.includes(m.lower) : lower.some((n) => n.includes(m.lower));
}

/**
 * The field whose text stands for `field` on element i. An element named only by its
 * description (an icon button whose tooltip is its label) shows that description where a
 * name goes, in the tree file and summaries; a name term (`button:"Primary menu"`,
 * `title:…`) reads it there too, so what the tree shows is what a query finds. A term
 * that already looks at descriptions reads them as such and ranks them below names.
 */
function sourceOf(
  s: Subject,
  i: number,
  field: TextField,
  fields: readonly TextField[],
): TextField {
  if (field !== 'name' || fields.includes('description')) return field;
  return s.text(i, 'name') === '' ? 'description' : 'name';
}

function scoreText(
  s: Subject,
  i: number,
  fields: readonly TextField[],
  m: CompiledText,
): TextHit | null {
  let best: TextHit | null = null;
  const consider = (field: TextField, score: number, tier = score): void => {
    if (!best || tier > best.tier || (tier === best.tier && score > best.score)) {
      best = { field, score, tier };
    }
  };
  if (m.op === 'regex') {
    const el = s.snapshot.elements[i];
    for (const field of fields) {
      const raw = s.raw(el, sourceOf(s, i, field, fields));
      if (raw !== '' && m.re.test(raw)) consider(field, REGEX_BASE[field]);
    }
    return best;
  }
  for (const field of fields) {
    const from = sourceOf(s, i, field, fields);
    const f = s.lower(i, from);
    if (m.op === 'exact') {
      if (f === m.lower) consider(field, EXACT_BASE[field] - (s.text(i, from) === m.text ? 0 : 3));
      continue;
    }
    if (f === '' || m.lower === '') continue;
    const at = f.indexOf(m.lower);
    if (at < 0) continue;
    let score = CONTAINS_BASE[field];
    if (at === 0) score += 5;
    else if (/\W/.test(f[at - 1])) score += 2;
    score += Math.round((5 * m.lower.length) / f.length);
    if (s.text(i, from).includes(m.text)) score += 1;
    consider(field, score, CONTAINS_BASE[field]);
  }
  return best;
}
