/**
 * findMatches: a parsed query (or none) + explorer options → ranked matches.
 *
 * Attempts run in order and the first that finds anything (after scope and filters)
 * wins; `tried` names each attempt run. Ranking is a fixed, deterministic order:
 *
 *   1. text tier (case-exact name > case-folded name > exact value > … > contains on
 *      the name > contains on the value …; see TextHit.tier in match.ts)
 *   2. visible before not visible
 *   3. interactive roles (controls, rows, cells) before the rest
 *   4. text score within the tier (contains: starting the text, covering more of it)
 *   5. enabled before disabled
 *   6. position scope: smaller area, then deeper; otherwise nearest the focused element,
 *      by tree distance (steps through the common ancestor), then by centre distance
 *   7. tree order
 *
 * Matches are *equally good* (tiedWithBest) when they share the best match's tier,
 * visibility and interactivity: keys 1-3. What comes after is a guess (a longer
 * covering, nearness to the focus), good enough to show first in a read but not to
 * act on: an action on a query with several equally good matches is ambiguous.
 */
import type { Element, Snapshot } from '../model/element.js';
import { isInteractiveRole } from '../model/roles.js';
import { compileTerm, Subject, testTerms } from './match.js';
import type { CompiledTerm } from './match.js';
import { resolveElementTypes, resolveRole, roleMatches, suggestRoles } from './roles.js';
import { fold } from './text.js';
import type { Attempt, MatchStrategy, Query, RoleSpec, Step, TextField } from './types.js';
import { QueryError } from './types.js';

export interface FindScope {
  /**
   * application: the whole snapshot; focused: the window holding the focused element
   * (else the active window); element: `rootIndex` and everything below it;
   * position: elements whose frame contains (x, y).
   */
  kind: 'application' | 'focused' | 'element' | 'position';
  rootIndex?: number;
  x?: number;
  y?: number;
}

/** The explorer's filter (seed 003): every given field must hold; texts compare case-insensitively. */
export interface FindFilter {
  role?: string;
  titleContains?: string;
  valueContains?: string;
  descriptionContains?: string;
}

export interface FindOptions {
  /** visible[i] for elements[i], as the viewport computed it. */
  visible: readonly boolean[];
  /** The focused element; default: the first element with the `focused` flag. */
  focusedIndex?: number;
  scope?: FindScope;
  filter?: FindFilter;
  /** Element types (button, textfield, checkbox, … see elementTypeRoles); `any` = interactive. */
  elementTypes?: readonly string[];
  /**
   * Keep elements that are not visible (default true: they rank after visible ones, so a
   * row scrolled out of view can still be found). false drops them (explorer default).
   */
  includeHidden?: boolean;
  /** Only elements at most this many levels below the scope root (or below the windows: 0 = windows). */
  maxDepth?: number;
  /** At most this many matches are returned; `total` counts all. */
  limit?: number;
}

export interface Match {
  index: number;
  /** Text quality, higher is better (100 = exact name, structural matches 100). */
  score: number;
  /** The kind of text hit (see TextHit.tier): equal tiers are equally good texts. */
  tier: number;
  /** 0 visible and interactive, 1 visible, 2 hidden and interactive, 3 hidden: lower ranks first. */
  standing: number;
  strategy: MatchStrategy;
  /** Which text the query hit, for text matches. */
  field?: TextField;
}

export interface FindResult {
  /** Ranked, best first, at most `limit`. */
  matches: Match[];
  /** How many matched in the winning attempt (before `limit`). */
  total: number;
  /** The attempts run, in order (e.g. ["exact", "contains", "role"]). */
  tried: string[];
  /**
   * Elements the query matched but the options left out (scope, filter, element types,
   * hidden, depth): when nothing matched, a non-zero count says to widen those.
   */
  excluded: number;
}

const EXACT_STRATEGY: Record<TextField, MatchStrategy> = {
  name: 'title_exact',
  value: 'value_exact',
  description: 'description_exact',
  identifier: 'identifier',
};

export function findMatches(
  snapshot: Snapshot,
  query: Query | null | undefined,
  opts: FindOptions,
): FindResult {
  const focus = focusIndex(snapshot.elements, opts.focusedIndex);
  const subject = new Subject(snapshot, opts.visible, focus);
  const scope = resolveScope(snapshot, opts.scope, focus);
  const keep = constraints(snapshot, subject, opts, scope);
  const attempts: Attempt[] = query
    ? query.attempts
    : [{ name: 'any', steps: [{ axis: 'descendant', terms: [] }] }];

  const tried: string[] = [];
  const excluded = new Set<number>();
  for (const attempt of attempts) {
    const found = runAttempt(subject, attempt, scope, keep, excluded);
    tried.push(found.note ? `${attempt.name} (${found.note})` : attempt.name);
    if (found.hits.length === 0) continue;
    const ranked = rank(subject, found.hits, focus, scope.point);
    const matches: Match[] = ranked.map((h) => ({
      index: h.index,
      score: h.score,
      tier: h.tier,
      standing: standingOf(subject, h.index),
      strategy: attempt.name === 'exact' && h.field ? EXACT_STRATEGY[h.field] : strategyOf(attempt),
      ...(h.field ? { field: h.field } : {}),
    }));
    const limit = opts.limit ?? Infinity;
    for (const m of matches) excluded.delete(m.index);
    return {
      matches: Number.isFinite(limit) ? matches.slice(0, Math.max(0, limit)) : matches,
      total: matches.length,
      tried,
      excluded: excluded.size,
    };
  }
  return { matches: [], total: 0, tried, excluded: excluded.size };
}

/**
 * The matches as good as the first (ranked) one: same text tier, same visibility, same
 * interactivity. One means the query names one element; several, that it is ambiguous.
 */
export function tiedWithBest(matches: readonly Match[]): Match[] {
  const best = matches[0];
  if (!best) return [];
  return matches.filter((m) => m.tier === best.tier && m.standing === best.standing);
}

function standingOf(s: Subject, i: number): number {
  return (s.isVisible(i) ? 0 : 2) + (isInteractiveRole(s.snapshot.elements[i].role) ? 0 : 1);
}

function strategyOf(a: Attempt): MatchStrategy {
  return a.name === 'exact' ? 'title_exact' : a.name;
}

function focusIndex(elements: readonly Element[], given: number | undefined): number {
  if (given !== undefined && given >= 0 && given < elements.length) return given;
  if (given !== undefined) return -1;
  return elements.findIndex((e) => e.flags.includes('focused'));
}

interface ResolvedScope {
  /** null = everything. */
  mask: Uint8Array | null;
  /** The subtree root, for depth limits and first-step `child` axes; -1 = the app. */
  root: number;
  point?: { x: number; y: number };
}

function resolveScope(
  snapshot: Snapshot,
  scope: FindScope | undefined,
  focus: number,
): ResolvedScope {
  const { elements } = snapshot;
  const kind = scope?.kind ?? 'application';
  switch (kind) {
    case 'application':
      return { mask: null, root: -1 };
    case 'position': {
      const { x, y } = scope ?? {};
      if (!Number.isFinite(x) || !Number.isFinite(y)) {
        throw new QueryError('scope "position" needs numeric x and y', '', { help: false });
      }
      return { mask: null, root: -1, point: { x: x as number, y: y as number } };
    }
    case 'element': {
      const r = scope?.rootIndex;
      if (r === undefined || !Number.isInteger(r) || r < 0 || r >= elements.length) {
        throw new QueryError(
          `scope "element" needs rootIndex of an element (0..${elements.length - 1}), got ${String(r)}`,
          '',
          { help: false },
        );
      }
      return { mask: subtreeMask(elements, r), root: r };
    }
    case 'focused': {
      let top: number;
      if (focus >= 0) {
        top = focus;
        for (let guard = 0; elements[top].parent >= 0 && guard < elements.length; guard++) {
          top = elements[top].parent;
        }
      } else {
        top = (snapshot.windows.find((w) => w.active) ?? snapshot.windows[0])?.index ?? -1;
      }
      if (top < 0 || top >= elements.length) return { mask: null, root: -1 };
      return { mask: subtreeMask(elements, top), root: top };
    }
    default:
      throw new QueryError(
        `unknown scope '${String(kind)}' (use application, focused, element or position)`,
        '',
        { help: false },
      );
  }
}

/** root and everything below it. */
function subtreeMask(elements: readonly Element[], root: number): Uint8Array {
  const mask = new Uint8Array(elements.length);
  mask[root] = 1;
  for (const i of treeOrder(elements)) {
    const p = elements[i].parent;
    if (p >= 0 && mask[p]) mask[i] = 1;
  }
  return mask;
}

const orderCache = new WeakMap<readonly Element[], Int32Array>();

/**
 * Indices with every parent before its children. Snapshots are depth-first already
 * (identity); anything else is put in that order rather than trusted.
 */
function treeOrder(elements: readonly Element[]): Int32Array {
  const cached = orderCache.get(elements);
  if (cached && cached.length === elements.length) return cached;
  const n = elements.length;
  let ordered = true;
  for (let i = 0; i < n && ordered; i++) if (elements[i].parent >= i) ordered = false;
  let order: Int32Array;
  if (ordered) {
    order = new Int32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
  } else {
    const children: number[][] = Array.from({ length: n }, () => []);
    const roots: number[] = [];
    for (let i = 0; i < n; i++) {
      const p = elements[i].parent;
      if (p >= 0 && p < n && p !== i) children[p].push(i);
      else roots.push(i);
    }
    const out: number[] = [];
    const seen = new Uint8Array(n);
    const stack = [...roots].reverse();
    while (stack.length > 0) {
      const i = stack.pop() as number;
      if (seen[i]) continue;
      seen[i] = 1;
      out.push(i);
      for (let k = children[i].length - 1; k >= 0; k--) stack.push(children[i][k]);
    }
    // A parent cycle leaves elements unreached: append them so nothing is lost.
    for (let i = 0; i < n; i++) if (!seen[i]) out.push(i);
    order = Int32Array.from(out);
  }
  orderCache.set(elements, order);
  return order;
}

/** The per-element options test (scope, hidden, depth, filter, element types, point). */
function constraints(
  snapshot: Snapshot,
  s: Subject,
  opts: FindOptions,
  scope: ResolvedScope,
): (i: number) => boolean {
  const { elements } = snapshot;
  const includeHidden = opts.includeHidden ?? true;
  const baseDepth = scope.root >= 0 ? elements[scope.root].depth : 0;
  const maxDepth = opts.maxDepth;
  let role: RoleSpec | null = null;
  const f = opts.filter;
  if (f?.role !== undefined && f.role.trim() !== '') {
    role = resolveRole(f.role);
    if (!role) {
      const near = suggestRoles(f.role);
      throw new QueryError(
        `unknown filter role '${f.role}'${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}`,
        f.role,
        { suggestions: near, help: false },
      );
    }
  }
  const title = f?.titleContains ? fold(f.titleContains) : '';
  const value = f?.valueContains ? fold(f.valueContains) : '';
  const desc = f?.descriptionContains ? fold(f.descriptionContains) : '';
  let types: { roles: Set<string>; nativeRoles: Set<string> } | null = null;
  if (opts.elementTypes && opts.elementTypes.length > 0) {
    const r = resolveElementTypes(opts.elementTypes);
    if ('unknown' in r) {
      throw new QueryError(
        `unknown element type${r.unknown.length > 1 ? 's' : ''} ${r.unknown.map((u) => `'${u}'`).join(', ')}` +
          `${r.suggestions.length ? ` (did you mean ${r.suggestions.join(', ')}?)` : ''}`,
        r.unknown.join(','),
        { suggestions: r.suggestions, help: false },
      );
    }
    types = r;
  }
  const point = scope.point;
  return (i) => {
    const el = elements[i];
    if (scope.mask && !scope.mask[i]) return false;
    if (!includeHidden && !s.isVisible(i)) return false;
    if (maxDepth !== undefined && el.depth - baseDepth > maxDepth) return false;
    if (role && !roleMatches(role, el.role, el.nativeRole)) return false;
    if (types && !types.roles.has(el.role) && !types.nativeRoles.has(el.nativeRole.toLowerCase())) {
      return false;
    }
    // A nameless element's description is its name, as for a name term (match.ts).
    if (title && !(s.lower(i, 'name') || s.lower(i, 'description')).includes(title)) return false;
    if (value && !s.lower(i, 'value').includes(value)) return false;
    if (desc && !s.lower(i, 'description').includes(desc)) return false;
    if (point && !containsPoint(el, point)) return false;
    return true;
  };
}

function containsPoint(el: Element, p: { x: number; y: number }): boolean {
  const r = el.frame;
  if (!r || !(r.w > 0) || !(r.h > 0)) return false;
  return p.x >= r.x && p.x < r.x + r.w && p.y >= r.y && p.y < r.y + r.h;
}

interface Hit {
  index: number;
  score: number;
  tier: number;
  field?: TextField;
}

/**
 * Runs the steps of one attempt. Each step's candidates are the elements below (or
 * directly below) the previous step's matches; `[n]` keeps only the nth in tree order.
 * The last step's candidates must also pass the options; the ones that do not are
 * counted in `excluded`.
 */
function runAttempt(
  s: Subject,
  attempt: Attempt,
  scope: ResolvedScope,
  keep: (i: number) => boolean,
  excluded: Set<number>,
): { hits: Hit[]; note?: string } {
  const { elements } = s.snapshot;
  const n = elements.length;
  const order = treeOrder(elements);
  const steps = attempt.steps;
  let prev: Uint8Array | null = null;
  let hits: Hit[] = [];
  let note: string | undefined;
  for (let k = 0; k < steps.length; k++) {
    const step: Step = steps[k];
    const last = k === steps.length - 1;
    const terms: CompiledTerm[] = step.terms.map(compileTerm);
    const inContext = contextTest(elements, order, step, prev, scope);
    const mask = new Uint8Array(n);
    const stepHits: Hit[] = [];
    for (const i of order) {
      if (!inContext(i)) continue;
      const hit = testTerms(s, i, terms);
      if (!hit) continue;
      if (last && !keep(i)) {
        excluded.add(i);
        continue;
      }
      stepHits.push({ index: i, score: hit.score, tier: hit.tier, field: hit.field });
    }
    let chosen = stepHits;
    if (step.nth !== undefined) {
      const at = step.nth > 0 ? step.nth - 1 : stepHits.length + step.nth;
      chosen = at >= 0 && at < stepHits.length ? [stepHits[at]] : [];
      if (chosen.length === 0) {
        note = `${stepHits.length} match${stepHits.length === 1 ? '' : 'es'}${steps.length > 1 ? ` at step ${k + 1}` : ''}, no #${step.nth}`;
      }
    } else if (chosen.length === 0 && k < steps.length - 1) {
      note = `nothing at step ${k + 1} of ${steps.length}`;
    }
    for (const h of chosen) mask[h.index] = 1;
    if (chosen.length === 0) return { hits: [], note };
    prev = mask;
    hits = chosen;
  }
  return { hits, note };
}

/** Where a step may match: anywhere / below the previous matches / directly below. */
function contextTest(
  elements: readonly Element[],
  order: Int32Array,
  step: Step,
  prev: Uint8Array | null,
  scope: ResolvedScope,
): (i: number) => boolean {
  if (!prev) {
    const inScope = (i: number): boolean => !scope.mask || scope.mask[i] === 1;
    if (step.axis === 'child') {
      return (i) => elements[i].parent === scope.root && inScope(i);
    }
    return inScope;
  }
  const p = prev;
  if (step.axis === 'child') {
    return (i) => {
      const parent = elements[i].parent;
      return parent >= 0 && p[parent] === 1;
    };
  }
  const inside = new Uint8Array(elements.length);
  for (const i of order) {
    const parent = elements[i].parent;
    if (parent >= 0 && (p[parent] === 1 || inside[parent] === 1)) inside[i] = 1;
  }
  return (i) => inside[i] === 1;
}

function rank(
  s: Subject,
  hits: Hit[],
  focus: number,
  point: { x: number; y: number } | undefined,
): Hit[] {
  const m = hits.length;
  if (m <= 1) return hits;
  const { elements } = s.snapshot;
  const dist = !point && focus >= 0 ? treeDistances(elements, focus) : null;
  const fc = focus >= 0 ? centre(elements[focus]) : null;
  // Keys in flat arrays, sorted through an index permutation: no object per hit.
  const standing = new Uint8Array(m);
  const disabled = new Uint8Array(m);
  const near1 = new Float64Array(m);
  const near2 = new Float64Array(m);
  for (let k = 0; k < m; k++) {
    const i = hits[k].index;
    const el = elements[i];
    standing[k] = standingOf(s, i);
    disabled[k] = el.flags.includes('disabled') ? 1 : 0;
    if (point) {
      const r = el.frame;
      near1[k] = r ? r.w * r.h : Infinity;
      near2[k] = -el.depth;
    } else {
      near1[k] = dist ? dist[i] : 0;
      const c = fc ? centre(el) : null;
      near2[k] = fc && c ? Math.hypot(c.x - fc.x, c.y - fc.y) : Infinity;
    }
  }
  const perm = Array.from({ length: m }, (_, k) => k);
  perm.sort(
    (a, b) =>
      hits[b].tier - hits[a].tier ||
      standing[a] - standing[b] ||
      hits[b].score - hits[a].score ||
      disabled[a] - disabled[b] ||
      cmp(near1[a], near1[b]) ||
      cmp(near2[a], near2[b]) ||
      hits[a].index - hits[b].index,
  );
  return perm.map((k) => hits[k]);
}

/** Compares numbers where Infinity ties with Infinity. */
function cmp(a: number, b: number): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

function centre(el: Element): { x: number; y: number } | null {
  const r = el.frame;
  if (!r || !(r.w > 0) || !(r.h > 0)) return null;
  return { x: r.x + r.w / 2, y: r.y + r.h / 2 };
}

/**
 * Steps from every element to `focus` through their closest common ancestor. Elements
 * in other windows meet the focus at the (virtual) application root.
 */
function treeDistances(elements: readonly Element[], focus: number): Float64Array {
  const n = elements.length;
  const dist = new Float64Array(n).fill(-1);
  let top = focus;
  let steps = 0;
  dist[focus] = 0;
  for (let guard = 0; elements[top].parent >= 0 && guard < n; guard++) {
    top = elements[top].parent;
    steps++;
    dist[top] = steps;
  }
  const viaRoot = steps + 2;
  for (const i of treeOrder(elements)) {
    if (dist[i] >= 0) continue;
    const p = elements[i].parent;
    dist[i] = p >= 0 && dist[p] >= 0 ? dist[p] + 1 : viaRoot;
  }
  return dist;
}
