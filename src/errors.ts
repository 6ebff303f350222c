/**
 * Errors a user (an agent) can act on. The message says what went wrong, the hint what
 * to do next; both reach the summary's `error:` line. Anything else that is thrown is a
 * bug or a platform failure and is reported with its own message.
 */
export type ErrorCode =
  | 'no_desktop'
  | 'app_not_found'
  | 'app_ambiguous'
  | 'ambiguous_target'
  | 'stale_ref'
  | 'unknown_ref'
  | 'no_match'
  | 'bad_query'
  | 'bad_argument'
  | 'element_gone'
  | 'action_failed'
  | 'blocked'
  | 'rate_limited'
  | 'unsupported';

export class AxError extends Error {
  override name = 'AxError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly hint?: string,
    /** Extra structured facts (candidates, tried strategies) for structuredContent. */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  /** One line: message, then what to do. */
  get actionable(): string {
    return this.hint ? `${this.message}. ${this.hint}` : this.message;
  }
}

export function describeError(err: unknown): {
  message: string;
  code?: ErrorCode;
  details?: Record<string, unknown>;
} {
  if (err instanceof AxError)
    return { message: err.actionable, code: err.code, details: err.details };
  if (err instanceof Error) return { message: err.message };
  return { message: String(err) };
}
