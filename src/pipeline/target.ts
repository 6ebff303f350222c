/**
 * Resolves what an action or read is aimed at: a ref, a query, or coordinates,
 * against a view of the app. Refs are checked before queries so that `e42` never
 * reaches the query parser.
 */
import type { Element, Rect } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import {
  ROLE_FAMILIES,
  quoteText,
  exactQueryFor,
  findMatches,
  parseQuery,
  suggestNames,
  tiedWithBest,
  withNth,
  QueryError,
  type FindResult,
  type Strategy,
} from '../query/index.js';
import { AxError } from '../errors.js';
import { reachableFrame } from '../viewport/index.js';
import type { RefSighting } from './refs.js';

/**
 * What a call aims at, parsed once at the schema boundary (tools/schemas.ts): exactly one
 * of an element ref, a query, or a screen point. Everything below takes this union, so
 * "which of the arguments wins" is decided in one place.
 */
export type Target =
  | { kind: 'ref'; ref: string }
  | { kind: 'query'; query: string; strategy?: Strategy }
  | { kind: 'point'; x: number; y: number };

export interface ResolvedTarget {
  /** Index in the view's elements, when the target is an element. */
  index?: number;
  element?: Element;
  ref?: string;
  /** Where a pointer action lands: the element's centre or the given point. */
  point?: { x: number; y: number };
  /** For summaries: `[AXButton] "Submit" e12` or `(640,400)`. */
  label: string;
  /** Matches beyond the chosen one, when a query was ambiguous. */
  otherMatches: number;
}

/** How resolveInView reads refs: the view's own index, and what a ref named before. */
export interface RefLookup {
  /** Index of the ref in this view, or -1 when the view does not hold it. */
  indexOf(ref: string): number;
  /** Origin and last sighting of a ref; throws unknown_ref for refs never issued. */
  lastSeen(ref: string): RefSighting;
}

export interface ResolveOptions {
  /**
   * Actions pass true: a query whose best matches are several equally good elements
   * (tiedWithBest) is an `ambiguous_target` error listing them, unless the query picks
   * one with nth:n or [n]. Reads leave it false and get the best match and the count.
   */
  unique?: boolean;
}

/** Candidates listed in an ambiguity error before `+N more`. */
const MAX_LISTED = 4;

export function elementLabel(el: Element, ref: string): string {
  const shown = shownText(el);
  return `[${el.role}]${shown ? ` "${shown}"` : ''} ${ref}`;
}

export function centerOf(el: Element): { x: number; y: number } | undefined {
  return middleOf(el.frame);
}

function middleOf(f: Rect | undefined): { x: number; y: number } | undefined {
  if (!f || f.w <= 0 || f.h <= 0) return undefined;
  // Down, never up: the middle of a part one pixel high is that pixel, not the next row's.
  return { x: Math.floor(f.x + f.w / 2), y: Math.floor(f.y + f.h / 2) };
}

export function resolveInView(
  view: SnapshotView,
  target: Target,
  refs: RefLookup,
  opts: ResolveOptions = {},
): ResolvedTarget {
  switch (target.kind) {
    case 'ref': {
      const ref = target.ref.trim();
      const index = refs.indexOf(ref);
      if (index < 0) throw staleRef(view, ref, refs.lastSeen(ref));
      return elementTarget(view, index, 0);
    }
    case 'query':
      return resolveQuery(view, target.query, target.strategy ?? 'auto', opts.unique === true);
    case 'point': {
      const point = { x: Math.round(target.x), y: Math.round(target.y) };
      return { point, label: `(${point.x},${point.y})`, otherMatches: 0 };
    }
  }
}

function runQuery(view: SnapshotView, text: string, strategy: Strategy): FindResult {
  let query;
  try {
    query = parseQuery(text, strategy);
  } catch (err) {
    if (err instanceof QueryError) throw new AxError('bad_query', err.message, undefined);
    throw err;
  }
  // findMatches finds the focused element itself when it is not given.
  return findMatches(view.snapshot, query, { visible: view.visible });
}

function resolveQuery(
  view: SnapshotView,
  text: string,
  strategy: Strategy,
  unique: boolean,
): ResolvedTarget {
  const result = runQuery(view, text, strategy);
  if (result.matches.length === 0) {
    const near = suggestNames(view.snapshot, text, 5);
    const star = hasLiteralStar(text)
      ? ' (`*` is a wildcard only as a whole query or path step; inside text it is a literal character: use title~Save for "contains", /^Save/ for "starts with")'
      : '';
    throw new AxError(
      'no_match',
      `nothing in ${view.snapshot.app} matches '${text}' (tried: ${result.tried.join(', ')}; ${view.snapshot.elements.length} elements searched)${star}`,
      near.length > 0
        ? `Closest names: ${near.map((n) => `'${n}'`).join(', ')}. Or grep the tree file`
        : 'Grep the tree file for the role or text you want, or widen the query (contains: ~, regex: /…/)',
      { tried: result.tried, suggestions: near },
    );
  }
  if (unique) {
    const tied = tiedWithBest(result.matches);
    if (tied.length > 1) throw ambiguous(view, text, strategy, result, tied);
  }
  return elementTarget(view, result.matches[0].index, result.total - 1);
}

/** `Save*`, `button:*`: a star that is not the whole query (and so not a wildcard). */
function hasLiteralStar(text: string): boolean {
  return text.includes('*') && text.trim() !== '*' && !text.trim().startsWith('/');
}

interface Candidate {
  ref: string;
  role: string;
  nativeRole: string;
  text: string;
  frame?: { x: number; y: number; w: number; h: number };
  /** The query that picks exactly this one (the original with nth:n), when there is one. */
  query?: string;
}

/**
 * Several elements match equally well: list them (ref, role, text, position) with the
 * query that picks each one, so the next call can name one.
 */
function ambiguous(
  view: SnapshotView,
  text: string,
  strategy: Strategy,
  result: FindResult,
  tied: { index: number }[],
): AxError {
  const { elements } = view.snapshot;
  // nth counts every match of the winning reading in tree order (snapshots are depth-first).
  const inTreeOrder = result.matches.map((m) => m.index).sort((a, b) => a - b);
  const listed = tied.slice(0, MAX_LISTED);
  const candidates: Candidate[] = listed.map(({ index }) => {
    const el = elements[index];
    const c: Candidate = {
      ref: view.refs[index],
      role: el.role,
      nativeRole: el.nativeRole,
      text: shownText(el),
      ...(el.frame ? { frame: { ...el.frame } } : {}),
    };
    if (strategy === 'auto') {
      const q = withNth(text, inTreeOrder.indexOf(index) + 1);
      // Only a query checked to land on this very element is offered.
      if (picks(view, q, index)) c.query = q;
    }
    return c;
  });
  const more = tied.length - listed.length;
  // Short enough for the summary's error line: ref, role, text, where, and its pick.
  const lines = candidates.map((c) => {
    const at = c.frame ? ` at ${c.frame.x},${c.frame.y}` : '';
    const pick = c.query ? ` ${c.query.slice(text.trim().length).trim()}` : '';
    const shown = c.text.length > 24 ? `${c.text.slice(0, 23)}…` : c.text;
    return `${c.ref} [${c.role}]${shown ? ` ${JSON.stringify(shown)}` : ''}${at}${pick}`;
  });
  const first = candidates.find((c) => c.query) ?? candidates[0];
  const star =
    text.trim() === '*'
      ? ` \`*\` alone means any element; for the text "*" quote it: ${arg('query', '"*"')}`
      : '';
  return new AxError(
    'ambiguous_target',
    `'${text}' matches ${tied.length} elements equally well, none was acted on: ${lines.join('; ')}${more > 0 ? `; +${more} more` : ''}`,
    `Name one by ref (${arg('ref', first.ref)})${first.query ? ` or add its pick to the query (${arg('query', first.query)})` : ''}.${star}`,
    { candidates, total: tied.length },
  );
}

/** An argument as the agent would pass it: `query: "AXButton:\"Save\""`. */
function arg(name: string, value: string): string {
  return `${name}: ${JSON.stringify(value)}`;
}

function picks(view: SnapshotView, query: string, index: number): boolean {
  try {
    const r = runQuery(view, query, 'auto');
    return r.matches.length === 1 && r.matches[0].index === index;
  } catch {
    return false;
  }
}

/** The text an element is shown by: its name, else its value (never a secure one), else its description; one line, 40 characters at most. */
function shownText(el: Element): string {
  const text =
    el.name || (el.flags.includes('secure') ? '' : (el.value ?? '')) || el.description || '';
  const one = text.replace(/\s+/g, ' ');
  return one.length > 40 ? `${one.slice(0, 39)}…` : one;
}

/**
 * A ref the view does not hold. The error says what the element was and, when an
 * element of the same role and name is in the view now, names it (its ref, and a query
 * checked to find exactly it), so the advice is a call that works.
 */
function staleRef(view: SnapshotView, ref: string, seen: RefSighting): AxError {
  const app = view.snapshot.app;
  const was = seen.element;
  const head = `ref ${ref} is stale: it came from snapshot ${seen.snapshotId} (${seen.tool}) and that element is no longer in ${app}'s tree (snapshot ${view.snapshotId})`;
  if (!was) {
    return new AxError(
      'stale_ref',
      head,
      'The element is gone or was re-created: use the refs of the latest summary or tree file, or a query',
    );
  }
  const label = `[${was.role}]${shownText(was) ? ` "${shownText(was)}"` : ''}`;
  const lastSeen = { role: was.role, nativeRole: was.nativeRole, name: was.name };
  const query = exactQueryFor(was);
  const found = query ? sameNameMatches(view, query, was) : [];
  if (query && found.length === 1) {
    const now = view.refs[found[0]];
    return new AxError(
      'stale_ref',
      `${head}; it was ${label}, and the same element is now ${now}`,
      `Use ${arg('ref', now)} (or ${arg('query', query)})`,
      { lastSeen, ref: now, query },
    );
  }
  if (query && found.length > 1) {
    const refs = found.map((i) => view.refs[i]);
    const shown = refs.slice(0, MAX_LISTED).join(', ');
    const more = refs.length > MAX_LISTED ? ` and ${refs.length - MAX_LISTED} more` : '';
    return new AxError(
      'stale_ref',
      `${head}; it was ${label}, and ${refs.length} elements have that role and name now: ${shown}${more}`,
      `Pick one by ref, or by position with ${arg('query', withNth(query, 1))} (nth counts in tree order)`,
      { lastSeen, candidates: refs, query },
    );
  }
  // Apps re-create a control as another kind of the same family (a push button that
  // comes back as a toggle button): one of that family with the same name is the advice.
  const family = ROLE_FAMILIES.find((f) => f.roles.includes(was.role));
  const familyQuery =
    family && was.name.trim() !== '' ? `${family.name}:${quoteText(was.name.trim())}` : undefined;
  const kin = familyQuery ? sameNameMatches(view, familyQuery, was, true) : [];
  if (familyQuery && kin.length === 1) {
    const now = view.refs[kin[0]];
    const nowLabel = `[${view.snapshot.elements[kin[0]].role}] "${shownText(view.snapshot.elements[kin[0]])}"`;
    return new AxError(
      'stale_ref',
      `${head}; it was ${label}, re-created as ${nowLabel}, now ${now}`,
      `Use ${arg('ref', now)} (or ${arg('query', familyQuery)})`,
      { lastSeen, ref: now, query: familyQuery },
    );
  }
  return new AxError(
    'stale_ref',
    `${head}; it was ${label}, and nothing with that role and name is in the tree now`,
    'It closed or was renamed: look at the latest summary or tree file, or ax_find the text you expect',
    { lastSeen },
  );
}

/**
 * Elements the query finds whose name is exactly the old element's, and its role too
 * unless `anyRole` (a control re-created as another kind of its family).
 */
function sameNameMatches(
  view: SnapshotView,
  query: string,
  was: Element,
  anyRole = false,
): number[] {
  let result: FindResult;
  try {
    result = runQuery(view, query, 'auto');
  } catch {
    return [];
  }
  const { elements } = view.snapshot;
  return result.matches
    .map((m) => m.index)
    .filter((i) => elements[i].name === was.name && (anyRole || elements[i].role === was.role))
    .sort((a, b) => a - b);
}

function elementTarget(view: SnapshotView, index: number, otherMatches: number): ResolvedTarget {
  const element = view.snapshot.elements[index];
  const ref = view.refs[index];
  return {
    index,
    element,
    ref,
    point: middleOf(reachableFrame(view.snapshot, index)),
    label: elementLabel(element, ref),
    otherMatches,
  };
}
