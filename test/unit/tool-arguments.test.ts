/**
 * rejectUnknownArguments: a call naming an argument its tool does not take is refused
 * with the closest known name and the full list, instead of acting as if it were absent.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AxError } from '../../src/errors.js';
import { rejectUnknownArguments } from '../../src/tools/define.js';
import { allTools } from '../../src/tools/index.js';

const input = z.object({ app: z.string().optional(), query: z.string().optional() });

function refusal(args: unknown): AxError {
  try {
    rejectUnknownArguments('ax_click', input, args);
  } catch (err) {
    if (err instanceof AxError) return err;
    throw err;
  }
  throw new Error('no error');
}

describe('rejectUnknownArguments', () => {
  it('passes known arguments and no arguments', () => {
    expect(() => rejectUnknownArguments('ax_click', input, { app: 'x', query: 'y' })).not.toThrow();
    expect(() => rejectUnknownArguments('ax_click', input, {})).not.toThrow();
    expect(() => rejectUnknownArguments('ax_click', input, undefined)).not.toThrow();
  });

  it('names the typo, the closest argument and every argument', () => {
    const err = refusal({ app: 'x', qurey: 'Save' });
    expect(err.code).toBe('bad_argument');
    expect(err.actionable).toBe(
      'unknown argument "qurey" for ax_click. Did you mean "query"? Arguments: app, query',
    );
    expect(err.details).toEqual({ unknown_arguments: ['qurey'] });
  });

  it('offers no guess for a name far from every argument, and lists the others', () => {
    const err = refusal({ colour: 1, zzz: 2 });
    expect(err.message).toBe('unknown argument "colour" (and "zzz") for ax_click');
    expect(err.hint).toBe('Arguments: app, query');
  });

  it('knows every argument of every registered tool', () => {
    for (const tool of allTools) {
      const args = Object.fromEntries(Object.keys(tool.input.shape).map((k) => [k, 1]));
      expect(() => rejectUnknownArguments(tool.name, tool.input, args), tool.name).not.toThrow();
    }
  });
});
