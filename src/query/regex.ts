/**
 * Query regexes run on RE2JS, a linear-time engine: a pattern like /(a+)+$/ that takes
 * JavaScript's backtracking engine seconds per element (doubling with each character)
 * and would stall every other call of the server, matches here in time proportional to
 * the text. The price: no backreferences and no lookaround, refused with a clear error.
 */
import { RE2JS } from 're2js';

/** What a compiled query regex offers: a test, like RegExp's. */
export interface LinearRegex {
  test(text: string): boolean;
}

/** Flags a query regex may carry (i, m, s; u and v are what RE2 always does). */
export const REGEX_FLAGS = 'imsuv';

/** Compiles, or throws the engine's message (for a QueryError). */
export function compileLinear(source: string, flags: string): LinearRegex {
  let bits = 0;
  if (flags.includes('i')) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) bits |= RE2JS.MULTILINE;
  if (flags.includes('s')) bits |= RE2JS.DOTALL;
  let re: RE2JS;
  try {
    re = RE2JS.compile(source, bits);
  } catch (err) {
    const message = (err as Error).message.replace(/^error parsing regexp: /, '');
    throw new Error(
      /backreference|Perl syntax|escape sequence: `\\\d/.test(message)
        ? `${message} (queries use a linear-time regex engine: no backreferences or lookaround)`
        : message,
      { cause: err },
    );
  }
  return { test: (text) => re.matcher(text).find() };
}
