/**
 * Resolves what an action or read is aimed at: a ref, a query, or coordinates,
 * against a view of the app. Refs are checked before queries so that `e42` never
 * reaches the query parser.
 */
import type { Element } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import { findMatches, parseQuery, suggestNames, QueryError } from '../query/index.js';
import { AxError } from '../errors.js';

export interface TargetSpec {
  ref?: string;
  query?: string;
  strategy?: string;
  x?: number;
  y?: number;
  w?: number;
  h?: number;
}

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

export function hasTarget(spec: TargetSpec): boolean {
  return spec.ref !== undefined || spec.query !== undefined || spec.x !== undefined;
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
  spec: TargetSpec,
  indexOfRef: (ref: string) => number,
): ResolvedTarget {
  if (spec.ref !== undefined) {
    const index = indexOfRef(spec.ref.trim());
    return elementTarget(view, index, 0);
  }
  if (spec.query !== undefined) {
    let query;
    try {
      query = parseQuery(spec.query, (spec.strategy ?? 'auto') as never);
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
      const near = suggestNames(view.snapshot, spec.query, 5);
      throw new AxError(
        'no_match',
        `nothing in ${view.snapshot.app} matches '${spec.query}' (tried: ${result.tried.join(', ')}; ${view.snapshot.elements.length} elements searched)`,
        near.length > 0
          ? `Closest names: ${near.map((n) => `'${n}'`).join(', ')}. Or grep the tree file`
          : 'Grep the tree file for the role or text you want, or widen the query (contains: ~, regex: /…/)',
        { tried: result.tried, suggestions: near },
      );
    }
    return elementTarget(view, result.matches[0].index, result.total - 1);
  }
  if (spec.x !== undefined && spec.y !== undefined) {
    const point =
      spec.w !== undefined && spec.h !== undefined
        ? { x: Math.round(spec.x + spec.w / 2), y: Math.round(spec.y + spec.h / 2) }
        : { x: Math.round(spec.x), y: Math.round(spec.y) };
    return { point, label: `(${point.x},${point.y})`, otherMatches: 0 };
  }
  throw new AxError(
    'bad_argument',
    'no target given',
    'Pass ref (e.g. e42 from a summary), query (e.g. "button:Save"), or x and y',
  );
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
