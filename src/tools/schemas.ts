/**
 * Argument fragments shared by every tool, so the same parameter means the same thing
 * (and is described the same way) wherever it appears.
 */
import { z } from 'zod';
import { AxError } from '../errors.js';
import type { Target } from '../pipeline/target.js';
import type { Strategy } from '../query/index.js';

export const appArg = z
  .union([z.string().min(1), z.number().int().min(1).max(2_147_483_647)])
  .describe('App name ("gedit"), pid, window title or alias.');

/** The app of a tool that works on the frontmost app when none is named. */
export const optionalAppArg = appArg
  .optional()
  .describe('App name, pid, title or alias (default frontmost).');

export const refArg = z
  .string()
  // A refinement, not a pattern: the description says the format, and tools/list stays short.
  .refine((v) => /^\s*e[1-9][0-9]*\s*$/.test(v), 'a ref looks like e42')
  .describe('Element ref, e.g. "e42".');

export const queryArg = z
  .string()
  .min(1)
  .describe('Element query, e.g. "button:Save" (syntax: ax_find).');

/** The query syntax in full, said once (ax_find's query) rather than on every tool. */
export const QUERY_SYNTAX =
  'Plain text ("Save"), role:title ("button:Save"), key:value terms (role:button title~save), a regex (title:/^Save/i) or a path (window:"Main" > button:OK). Quote text with spaces, colons or * ("Save as:"). nth:2 picks the 2nd match in tree order.';

export const strategyArg = z
  .enum(['auto', 'exact', 'contains', 'regex', 'role', 'identifier', 'xpath'])
  .describe('Query mode (default auto).');

/** An element named by ref or query (tools that read or set one element). */
export const elementTargetShape = {
  app: optionalAppArg,
  ref: refArg.optional(),
  query: queryArg.optional(),
  strategy: strategyArg.optional(),
};

/** Target fragment: ref, query, or coordinates (x,y; with w,h the centre is used). */
export const targetShape = {
  ref: refArg.optional(),
  query: queryArg.optional(),
  strategy: strategyArg.optional(),
  x: z
    .number()
    .optional()
    .describe('Screen x in points (with y); with w,h: the centre of x,y,w,h.'),
  y: z.number().optional().describe('Screen y in points.'),
  w: z.number().positive().optional().describe('Width (with h).'),
  h: z.number().positive().optional().describe('Height (with w).'),
};

export const deliveryArg = z
  .enum(['background', 'foreground'])
  .describe('background (default): via accessibility, focus kept; foreground: real input.');

export const rectShape = z.object({
  x: z.number(),
  y: z.number(),
  w: z.number().positive(),
  h: z.number().positive(),
});

interface TargetArgs {
  ref?: string;
  query?: string;
  strategy?: Strategy;
  x?: number;
  y?: number;
  w?: number;
  h?: number;
}

/**
 * The one place arguments become a Target: exactly one of ref, query or a point (x and
 * y; with w and h the centre). Anything else is an error before any side effect.
 * Undefined when nothing was given and `required` is false.
 */
export function targetOf(
  args: TargetArgs,
  opts: { point?: boolean; required?: boolean; what?: string } = {},
): Target | undefined {
  const what = opts.what ?? (opts.point ? 'ref, query, or x and y' : 'ref or query');
  const hasPoint = [args.x, args.y, args.w, args.h].some((v) => v !== undefined);
  const given = [args.ref !== undefined, args.query !== undefined, hasPoint].filter(Boolean).length;
  if (given > 1) {
    throw new AxError(
      'bad_argument',
      `give one target, not several (got ${[
        args.ref !== undefined ? 'ref' : '',
        args.query !== undefined ? 'query' : '',
        hasPoint ? 'coordinates' : '',
      ]
        .filter(Boolean)
        .join(' and ')})`,
      `Pass only one of ${what}`,
    );
  }
  if (args.strategy !== undefined && args.query === undefined) {
    throw new AxError(
      'bad_argument',
      'strategy applies to a query, and no query was given',
      'Pass query with strategy, or drop strategy',
    );
  }
  if (args.ref !== undefined) return { kind: 'ref', ref: args.ref.trim() };
  if (args.query !== undefined)
    return { kind: 'query', query: args.query, strategy: args.strategy };
  if (hasPoint) {
    if (!opts.point) {
      throw new AxError(
        'bad_argument',
        'this tool takes an element, not coordinates',
        `Pass ${what}`,
      );
    }
    if (args.x === undefined || args.y === undefined) {
      throw new AxError(
        'bad_argument',
        'a point needs both x and y',
        'Pass x and y (screen points, top-left origin)',
      );
    }
    if ((args.w === undefined) !== (args.h === undefined)) {
      throw new AxError(
        'bad_argument',
        'w and h go together',
        'Pass both w and h (the centre of x,y,w,h is used), or neither',
      );
    }
    const { x, y, w, h } = args;
    return w !== undefined && h !== undefined
      ? { kind: 'point', x: x + w / 2, y: y + h / 2 }
      : { kind: 'point', x, y };
  }
  if (opts.required) {
    throw new AxError(
      'bad_argument',
      'no target given',
      `Pass ${what} (e.g. ref "e42" from a summary, or query "button:Save")`,
    );
  }
  return undefined;
}

/** The target of a one-element tool: a ref or a query, required. */
export function elementTargetOf(args: TargetArgs): Target {
  return targetOf(args, { required: true }) as Target;
}
