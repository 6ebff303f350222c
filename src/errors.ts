/**
 * What a platform backend reports when it cannot do what was asked: facts only, in the
 * platform's terms. Backends never name axpage tools or commands; the pipeline turns
 * these into AxErrors with the next step (src/pipeline/platform-errors.ts).
 */
export type PlatformErrorCode =
  /** The app left the accessibility bus (exited, crashed, or closed its connection). */
  | 'app_gone'
  /** The app (or the bus) did not answer in time: busy or hung. */
  | 'not_responding'
  /** The element is no longer in the app (destroyed or re-created). */
  | 'element_gone'
  /** No X display: DISPLAY unset, or the server cannot be opened. */
  | 'no_display'
  /** No accessibility bus: no address, or the bus does not answer. */
  | 'no_bus'
  /** The accessibility registry does not answer. */
  | 'no_registry'
  /** No window manager fronted the window: focus and input need one. */
  | 'no_window_manager'
  /** The app has no window on screen to bring to the front. */
  | 'no_window'
  /** A key name the platform cannot type. */
  | 'bad_key'
  /** The platform cannot do this at all. */
  | 'unsupported'
  /** The platform refused or failed the call for another reason (its message says why). */
  | 'failed';

export class PlatformError extends Error {
  override name = 'PlatformError';
  constructor(
    readonly code: PlatformErrorCode,
    message: string,
    /** Facts for the next step (pid, display, bus address, key). */
    readonly facts: Record<string, string | number> = {},
  ) {
    super(message);
  }
}

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
  | 'app_gone'
  | 'app_not_responding'
  | 'action_failed'
  | 'blocked'
  | 'rate_limited'
  | 'unsupported'
  /** The artifact dir has no room for a call's pair: nothing was done. */
  | 'disk_full'
  /** The artifact dir cannot be written (read-only, no permission): nothing was done. */
  | 'artifacts_unwritable'
  /** The person behind the client declined or cancelled what the call asked: nothing was done. */
  | 'declined'
  /** The settings want the person to confirm, and this client cannot be asked: nothing was done. */
  | 'confirmation_required';

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
