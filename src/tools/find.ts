/**
 * Find and read tools: queries, attributes, values, waits. All of them answer with the
 * same summary shape; lists of matches go to the tree file in full and to the summary
 * capped.
 */
import { z } from 'zod';
import type { Element } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import { AxError } from '../errors.js';
import { isRef } from '../pipeline/refs.js';
import {
  findMatches,
  parseQuery,
  QueryError,
  suggestNames,
  type FindOptions,
} from '../query/index.js';
import { defineTool, detailArg } from './define.js';
import { attributeLines } from './answers.js';
import { checkedValue } from '../actions/index.js';
import {
  appArg,
  optionalAppArg,
  elementTargetOf,
  elementTargetShape,
  queryArg,
  QUERY_SYNTAX,
  refArg,
  strategyArg,
} from './schemas.js';

const candidateShape = z.object({
  ref: z.string(),
  role: z.string(),
  title: z.string(),
  strategy: z.string(),
  visible: z.boolean(),
});

export const find = defineTool({
  name: 'ax_find',
  title: 'Find elements',
  description:
    'Find elements by query: best match with ref, count, next candidates (all in the file).',
  kind: 'read',
  input: z.object({
    app: optionalAppArg,
    query: queryArg
      .optional()
      .describe(
        `${QUERY_SYNTAX} Optional when filter, element_types or a position scope say enough.`,
      ),
    strategy: strategyArg.optional(),
    scope: z
      .enum(['application', 'focused', 'element', 'position'])
      .optional()
      .describe(
        'application (default): the whole app; focused: its focused window; element: below `element`; position: the element at x,y.',
      ),
    element: refArg.optional().describe('With scope element: the subtree root.'),
    x: z.number().optional().describe('With scope position.'),
    y: z.number().optional().describe('With scope position.'),
    element_types: z
      .array(z.string())
      .optional()
      .describe(
        'Only these kinds: button, text_field, checkbox, radio, menu, menu_item, link, list, table, row, cell, slider, tab, combo_box, static_text, image, window, dialog, group, scroll_area, any.',
      ),
    filter: z
      .object({
        role: z.string().optional(),
        titleContains: z.string().optional(),
        valueContains: z.string().optional(),
        descriptionContains: z.string().optional(),
      })
      .optional()
      .describe('All given must hold, e.g. {"role": "AXButton", "titleContains": "save"}.'),
    include_hidden: z
      .boolean()
      .optional()
      .describe('Also match elements that are not visible (default false).'),
    max_depth: z
      .number()
      .int()
      .min(0)
      .max(200)
      .optional()
      .describe('Only elements at most this deep (0 = windows).'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .describe('How many matches to list in the file (default 50).'),
    detail: detailArg,
  }),
  output: z.object({
    found: z.boolean(),
    count: z.number(),
    method: z.string().optional(),
    strategy: z.string().optional(),
    role: z.string().optional(),
    title: z.string().optional(),
    value: z.string().optional(),
    position: z.array(z.number()).optional(),
    size: z.array(z.number()).optional(),
    enabled: z.boolean().optional(),
    focused: z.boolean().optional(),
    element_ref: z.string().optional(),
    candidates: z.array(candidateShape),
    tried: z.array(z.string()),
    suggestions: z.array(z.string()).optional(),
  }),
  async handle(args, { pipeline, call }) {
    if (
      args.query === undefined &&
      args.filter === undefined &&
      args.element_types === undefined &&
      args.scope !== 'position'
    ) {
      throw new AxError(
        'bad_argument',
        'ax_find needs a query, a filter, element_types, or scope "position" with x and y',
        'E.g. query: "button:Save", or filter: {titleContains: "Save"}',
      );
    }
    if (args.scope === 'position' && (args.x === undefined || args.y === undefined)) {
      throw new AxError(
        'bad_argument',
        'scope "position" needs x and y',
        'Pass the screen point in points',
      );
    }
    if (args.scope === 'element' && args.element === undefined) {
      throw new AxError(
        'bad_argument',
        'scope "element" needs element (a ref)',
        'Pass the ref of the subtree root',
      );
    }
    if (args.query !== undefined && isRef(args.query)) {
      throw new AxError(
        'bad_argument',
        `'${args.query}' is a ref, not a query`,
        'Use ax_get_attributes with ref to read an element you already have',
      );
    }
    let query;
    try {
      query =
        args.query !== undefined ? parseQuery(args.query, args.strategy ?? 'auto') : undefined;
    } catch (err) {
      if (err instanceof QueryError) throw new AxError('bad_query', err.message);
      throw err;
    }
    const limit = args.limit ?? 50;
    let matched: ReturnType<typeof findMatches> | undefined;
    const optionsOf = (view: SnapshotView): FindOptions => {
      const focusedIndex = view.snapshot.elements.findIndex((e) => e.flags.includes('focused'));
      const rootIndex =
        args.element !== undefined ? view.refs.indexOf(args.element.trim()) : undefined;
      if (args.element !== undefined && rootIndex === -1) {
        throw new AxError(
          'stale_ref',
          `ref ${args.element} is not in ${view.snapshot.app}'s current tree`,
          'Use a ref from the latest summary',
        );
      }
      const options: FindOptions = {
        visible: view.visible,
        focusedIndex: focusedIndex >= 0 ? focusedIndex : undefined,
        scope: args.scope ? { kind: args.scope, rootIndex, x: args.x, y: args.y } : undefined,
        filter: args.filter,
        elementTypes: args.element_types,
        includeHidden: args.include_hidden ?? false,
        maxDepth: args.max_depth,
        limit,
      };
      return options;
    };
    const run = (view: SnapshotView): ReturnType<typeof findMatches> =>
      (matched ??= findMatches(view.snapshot, query, optionsOf(view)));
    return pipeline.observe(call, {
      reuse: true,
      app: args.app,
      detail: args.detail,
      answer: ({ view }) => {
        const result = run(view);
        if (result.matches.length === 0) return undefined;
        const shown = result.matches.slice(0, MAX_MATCHES_LISTED);
        return {
          key: 'matches',
          indices: shown.map((m) => m.index),
          omitted: result.total - shown.length,
        };
      },
      inspect: async ({ view }) => {
        const result = run(view);
        const best = result.matches[0];
        const candidates = result.matches.slice(0, 10).map((m) => ({
          ref: view.refs[m.index],
          role: view.snapshot.elements[m.index].role,
          title: titleOf(view.snapshot.elements[m.index]),
          strategy: m.strategy,
          visible: view.visible[m.index],
        }));
        if (!best) {
          // Matches that are there but not on screen (another tab, scrolled away): say so,
          // or the closest name would read as the very text that "did not match".
          const options = optionsOf(view);
          const hidden = options.includeHidden
            ? []
            : findMatches(view.snapshot, query, { ...options, includeHidden: true }).matches;
          return {
            found: false,
            count: 0,
            candidates,
            tried: result.tried,
            ...(hidden.length > 0
              ? {
                  hidden_matches: hidden.slice(0, 5).map((m) => ({
                    ref: view.refs[m.index],
                    role: view.snapshot.elements[m.index].role,
                    title: titleOf(view.snapshot.elements[m.index]),
                  })),
                  hidden_count: hidden.length,
                }
              : { suggestions: args.query ? suggestNames(view.snapshot, args.query, 5) : [] }),
          };
        }
        const el = view.snapshot.elements[best.index];
        return {
          found: true,
          count: result.total,
          method: 'accessibility',
          strategy: best.strategy,
          role: el.role,
          title: titleOf(el),
          value: el.flags.includes('secure') ? undefined : el.value,
          position: el.frame ? [el.frame.x, el.frame.y] : undefined,
          size: el.frame ? [el.frame.w, el.frame.h] : undefined,
          enabled: !el.flags.includes('disabled'),
          focused: el.flags.includes('focused'),
          element_ref: view.refs[best.index],
          candidates,
          tried: result.tried,
        };
      },
      results: ({ view }) => ({
        title: `matches for ${args.query !== undefined ? `'${args.query}'` : 'the filter'}`,
        indices: run(view).matches.map((m) => m.index),
      }),
      describe: ({ view }, facts) => {
        const result = run(view);
        const what = args.query !== undefined ? `'${args.query}'` : 'the filter';
        if (!facts.found) {
          const hidden = facts.hidden_matches as
            Array<{ ref: string; role: string; title: string }> | undefined;
          if (hidden) {
            const listed = hidden.map((h) => `${h.ref} ${h.role} '${h.title}'`).join(', ');
            return `No visible element matches ${what}; ${facts.hidden_count as number} not on screen (another tab or page, scrolled away): ${listed}. Bring it into view, or pass include_hidden: true`;
          }
          const near = (facts.suggestions as string[] | undefined) ?? [];
          return `No element matches ${what} (tried: ${result.tried.join(', ')})${near.length ? `; closest names: ${near.map((n) => `'${n}'`).join(', ')}` : '; grep the tree file or widen the query (title~text, /regex/)'}`;
        }
        const best = result.matches[0];
        return `Found ${result.total} match${result.total === 1 ? '' : 'es'} for ${what}, best first (${best.strategy})`;
      },
    });
  },
});

export const getAttributes = defineTool({
  name: 'ax_get_attributes',
  title: 'Get all attributes of an element',
  description: 'Everything known about one element: roles, name, value, frame, states, actions.',
  kind: 'read',
  input: z.object({ ...elementTargetShape, detail: detailArg }),
  output: z.object({
    found: z.boolean(),
    element_ref: z.string(),
    attributes: z.record(z.string(), z.unknown()),
  }),
  async handle(args, { pipeline, call }) {
    return pipeline.observe(call, {
      reuse: true,
      app: args.app,
      target: elementTargetOf(args),
      inspect: async ({ view, target, desktop }) => {
        const i = target?.index as number;
        const el = view.snapshot.elements[i];
        const platform = await desktop.elementDetails(el.id).catch((err: unknown) => ({
          error: `could not read platform attributes: ${(err as Error).message}`,
        }));
        const children: string[] = [];
        for (
          let j = i + 1;
          j < view.snapshot.elements.length && view.snapshot.elements[j].depth > el.depth;
          j++
        ) {
          if (view.snapshot.elements[j].parent === i) children.push(view.refs[j]);
        }
        return {
          found: true,
          element_ref: view.refs[i],
          attributes: {
            role: el.role,
            native_role: el.nativeRole,
            name: el.name,
            value: el.flags.includes('secure') ? '•••' : el.value,
            description: el.description,
            identifier: el.identifier,
            frame: el.frame,
            flags: el.flags,
            visible: view.visible[i],
            actions: el.actions,
            child_count: el.childCount,
            parent_ref: el.parent >= 0 ? view.refs[el.parent] : undefined,
            children_refs: children,
            platform_id: el.id,
            platform,
          },
        };
      },
      detail: args.detail,
      answer: (_seen, facts) => ({
        key: 'attributes',
        lines: attributeLines((facts.attributes as Record<string, unknown>) ?? {}),
      }),
      results: ({ target }) => ({ title: 'element', indices: [target?.index as number] }),
      describe: ({ target }, facts) =>
        `Attributes of ${target?.label}: ${Object.keys((facts.attributes as object) ?? {}).length} fields (in full in structured output)`,
    });
  },
});

export const getValue = defineTool({
  name: 'ax_get_value',
  title: "Get an element's value",
  description:
    "Read an element's value fresh: text, number, check state, else name. Never a password.",
  kind: 'read',
  input: z.object({ ...elementTargetShape, detail: detailArg }),
  output: z.object({
    found: z.boolean(),
    value: z.string().optional(),
    role: z.string().optional(),
    title: z.string().optional(),
    element_ref: z.string().optional(),
    secure: z.boolean().optional(),
  }),
  async handle(args, { pipeline, call }) {
    return pipeline.observe(call, {
      reuse: true,
      app: args.app,
      target: elementTargetOf(args),
      inspect: async ({ view, target, desktop }) => {
        const i = target?.index as number;
        const el = view.snapshot.elements[i];
        const base = { found: true, role: el.role, title: el.name, element_ref: view.refs[i] };
        if (el.flags.includes('secure')) return { ...base, value: '•••', secure: true };
        const text = await desktop.readText(el.id).catch(() => undefined);
        if (text !== undefined) return { ...base, value: text };
        const num = await desktop.readValue(el.id).catch(() => undefined);
        if (num) return { ...base, value: String(num.value) };
        return { ...base, value: checkedValue(el) ?? el.value ?? el.name };
      },
      detail: args.detail,
      answer: (_seen, facts) => ({ key: 'value', value: String(facts.value ?? '') }),
      results: ({ target }) => ({ title: 'element', indices: [target?.index as number] }),
      describe: ({ target }, facts) =>
        facts.secure
          ? `${target?.label} is a password field: its value is never read`
          : `Read the value of ${target?.label}`,
    });
  },
});

export const waitIdle = defineTool({
  name: 'ax_wait_idle',
  title: 'Wait until the app is idle',
  description: 'Wait until the app stops changing (quiet_ms), up to timeout_ms, then snapshot it.',
  kind: 'read',
  input: z.object({
    app: appArg,
    timeout_ms: z.number().int().min(0).max(120_000).optional().describe('Default 5000.'),
    quiet_ms: z
      .number()
      .int()
      .min(10)
      .max(10_000)
      .optional()
      .describe('How long without changes counts as idle (default 200).'),
    detail: detailArg,
  }),
  output: z.object({ idle: z.boolean(), waited_ms: z.number(), events: z.number() }),
  async handle(args, { pipeline, call, signal }) {
    const app = await pipeline.resolveApp(args.app, call.asking);
    const waited = await pipeline.waitIdle(
      app.pid,
      call,
      args.quiet_ms ?? 200,
      args.timeout_ms ?? 5000,
      signal,
    );
    return pipeline.observe(call, {
      app: app.pid,
      detail: args.detail,
      inspect: async () => ({ idle: waited.idle, waited_ms: waited.ms, events: waited.events }),
      describe: () =>
        waited.idle
          ? `${app.name} was idle after ${waited.ms} ms (${waited.events} change events)`
          : `${app.name} was still changing after ${waited.ms} ms (${waited.events} change events)`,
      failure: () =>
        waited.idle
          ? undefined
          : `timed out after ${waited.ms} ms: the app kept changing; raise timeout_ms or check what is animating`,
    });
  },
});

export const waitFor = defineTool({
  name: 'ax_wait_for',
  title: 'Wait for an element to appear or disappear',
  description:
    "Wait until a query's element appears (or disappears), up to timeout_ms; returns its ref.",
  kind: 'read',
  input: z.object({
    app: appArg,
    query: queryArg,
    strategy: strategyArg.optional(),
    state: z.enum(['appear', 'disappear']).optional().describe('Default appear.'),
    visible_only: z.boolean().optional().describe('Count only visible matches (default true).'),
    timeout_ms: z.number().int().min(0).max(120_000).optional().describe('Default 5000.'),
    detail: detailArg,
  }),
  output: z.object({
    satisfied: z.boolean(),
    waited_ms: z.number(),
    element_ref: z.string().optional(),
    count: z.number(),
  }),
  async handle(args, { pipeline, call, signal }) {
    let query;
    try {
      query = parseQuery(args.query, args.strategy ?? 'auto');
    } catch (err) {
      if (err instanceof QueryError) throw new AxError('bad_query', err.message);
      throw err;
    }
    const app = await pipeline.resolveApp(args.app, call.asking);
    const want = args.state ?? 'appear';
    const visibleOnly = args.visible_only ?? true;
    const count = (view: SnapshotView): ReturnType<typeof findMatches> =>
      findMatches(view.snapshot, query, { visible: view.visible, includeHidden: !visibleOnly });
    const waited = await pipeline.waitUntil(
      app.pid,
      call,
      (view) => count(view).total > 0 === (want === 'appear'),
      args.timeout_ms ?? 5000,
      signal,
    );
    return pipeline.observe(call, {
      reuse: true,
      app: app.pid,
      detail: args.detail,
      inspect: async ({ view }) => {
        const result = count(view);
        return {
          satisfied: waited.satisfied,
          waited_ms: waited.ms,
          count: result.total,
          element_ref: result.matches[0] ? view.refs[result.matches[0].index] : undefined,
        };
      },
      results: ({ view }) => ({
        title: `matches for '${args.query}'`,
        indices: count(view).matches.map((m) => m.index),
      }),
      describe: (_seen, facts) =>
        waited.satisfied
          ? `'${args.query}' ${want === 'appear' ? `appeared (${String(facts.element_ref)})` : 'disappeared'} after ${waited.ms} ms`
          : `'${args.query}' did not ${want} within ${waited.ms} ms`,
      failure: () =>
        waited.satisfied
          ? undefined
          : `timed out after ${waited.ms} ms waiting for '${args.query}' to ${want}; check the query against the tree file or raise timeout_ms`,
    });
  },
});

/** Matches the summary lists (all are in the file). */
const MAX_MATCHES_LISTED = 10;

export function titleOf(el: Element): string {
  return el.name || el.description || '';
}

export const findTools = [find, getAttributes, getValue, waitIdle, waitFor];
