/**
 * Argument fragments shared by every tool, so the same parameter means the same thing
 * (and is described the same way) wherever it appears.
 */
import { z } from 'zod';
import { AxError } from '../errors.js';

export const appArg = z
  .union([z.string().min(1), z.number().int().positive()])
  .describe(
    'The app: its name (e.g. "gtk3-widget-factory"), an alias from ax_connect, its pid, or a window title. No need to connect first.',
  );

export const refArg = z
  .string()
  .regex(/^\s*e[1-9][0-9]*\s*$/, 'a ref looks like e42')
  .describe('An element ref (e.g. "e42") from a summary or tree file. Names its app by itself.');

export const queryArg = z
  .string()
  .min(1)
  .describe(
    'Element query: plain text ("Save"), role:title ("button:Save"), key:value terms (role:button title~save), a regex (title:/^Save/i) or a path (window:"Main" > button:OK).',
  );

export const strategyArg = z
  .enum(['auto', 'exact', 'contains', 'regex', 'role', 'identifier', 'xpath'])
  .describe('How to read query (default auto: tries the forms in turn).');

/** An element named by ref or query (tools that read or set one element). */
export const elementTargetShape = {
  app: appArg.optional(),
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
    .describe('Screen x in points (with y). With w and h: the centre of x,y,w,h.'),
  y: z.number().optional().describe('Screen y in points.'),
  w: z.number().positive().optional().describe('Width: with x,y,h the click lands at the centre.'),
  h: z.number().positive().optional().describe('Height: with x,y,w the click lands at the centre.'),
};

export const deliveryArg = z
  .enum(['background', 'foreground'])
  .describe(
    'background (default): semantic accessibility actions, no focus change. foreground: real input events with the app fronted, then the previous window restored. Use foreground when a background attempt did not land.',
  );

export const rectShape = z.object({
  x: z.number(),
  y: z.number(),
  w: z.number().positive(),
  h: z.number().positive(),
});

/**
 * The target of a one-element tool from its arguments; an error when neither ref nor
 * query was given (the schema cannot say "one of").
 */
export function elementTargetOf(args: { ref?: string; query?: string; strategy?: string }): {
  ref?: string;
  query?: string;
  strategy?: string;
} {
  if (args.ref === undefined && args.query === undefined) {
    throw new AxError(
      'bad_argument',
      'no element given',
      'Pass ref (e.g. e42) or query (e.g. "button:Save")',
    );
  }
  return { ref: args.ref, query: args.query, strategy: args.strategy };
}
