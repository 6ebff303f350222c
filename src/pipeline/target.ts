/**
 * Resolves what an action or read is aimed at: a ref, a query, or coordinates,
 * against a view of the app. Refs are checked before queries so that `e42` never
 * reaches the query parser.
 */
import type { Element } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import {
  findMatches,
  parseQuery,
  suggestNames,
  QueryError,
  type Strategy,
} from '../query/index.js';
import { AxError } from '../errors.js';

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

export function elementLabel(el: Element, ref: string): string {
  const text =
    el.name || (el.flags.includes('secure') ? '' : (el.value ?? '')) || el.description || '';
  const shown = text.length > 40 ? `${text.slice(0, 39)}…` : text;
  return `[${el.role}]${shown ? ` "${shown.replace(/\s+/g, ' ')}"` : ''} ${ref}`;
}

export function centerOf(el: Element): { x: number; y: number } | undefined {
  if (!el.frame || el.frame.w <= 0 || el.frame.h <= 0) return undefined;
  return { x: Math.round(el.frame.x + el.frame.w / 2), y: Math.round(el.frame.y + el.frame.h / 2) };
}

export function resolveInView(
  view: SnapshotView,
  target: Target,
  indexOfRef: (ref: string) => number,
): ResolvedTarget {
  switch (target.kind) {
    case 'ref':
      return elementTarget(view, indexOfRef(target.ref), 0);
    case 'query':
      return resolveQuery(view, target.query, target.strategy ?? 'auto');
    case 'point': {
      const point = { x: Math.round(target.x), y: Math.round(target.y) };
      return { point, label: `(${point.x},${point.y})`, otherMatches: 0 };
    }
  }
}

function resolveQuery(view: SnapshotView, text: string, strategy: Strategy): ResolvedTarget {
  let query;
  try {
    query = parseQuery(text, strategy);
  } catch (err) {
    if (err instanceof QueryError) throw new AxError('bad_query', err.message, undefined);
    throw err;
  }
  const focusedIndex = view.snapshot.elements.findIndex((e) => e.flags.includes('focused'));
  const result = findMatches(view.snapshot, query, {
    visible: view.visible,
    focusedIndex: focusedIndex >= 0 ? focusedIndex : undefined,
  });
  if (result.matches.length === 0) {
    const near = suggestNames(view.snapshot, text, 5);
    throw new AxError(
      'no_match',
      `nothing in ${view.snapshot.app} matches '${text}' (tried: ${result.tried.join(', ')}; ${view.snapshot.elements.length} elements searched)`,
      near.length > 0
        ? `Closest names: ${near.map((n) => `'${n}'`).join(', ')}. Or grep the tree file`
        : 'Grep the tree file for the role or text you want, or widen the query (contains: ~, regex: /…/)',
      { tried: result.tried, suggestions: near },
    );
  }
  return elementTarget(view, result.matches[0].index, result.total - 1);
}

function elementTarget(view: SnapshotView, index: number, otherMatches: number): ResolvedTarget {
  const element = view.snapshot.elements[index];
  const ref = view.refs[index];
  return {
    index,
    element,
    ref,
    point: centerOf(element),
    label: elementLabel(element, ref),
    otherMatches,
  };
}
