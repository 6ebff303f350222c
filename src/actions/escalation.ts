/**
 * Background delivery found no semantic action that fits: the call fails and says that
 * foreground input would do it, rather than stealing the focus unasked.
 */
import { AxError, PlatformError } from '../errors.js';

export function backgroundImpossible(
  what: string,
  why: string,
  instead?: string,
  /** The call that does it with real input, for a tool that has no delivery_mode itself. */
  foregroundCall?: string,
): AxError {
  const retry = foregroundCall
    ? `use ${foregroundCall} with delivery_mode: "foreground" (real input, the window is fronted then restored)`
    : 'retry with delivery_mode: "foreground" (real input, the window is fronted then restored)';
  return new AxError(
    'action_failed',
    `cannot ${what} in the background: ${why}`,
    instead ? `${instead}, or ${retry}` : retry.charAt(0).toUpperCase() + retry.slice(1),
    { escalation: { recommended: 'foreground', reason: why } },
  );
}

/**
 * A field that takes no text through accessibility (a web field in Chromium has no
 * EditableText) as a background impossibility, so the agent is offered real input.
 */
export function textUnreachable(
  err: unknown,
  label: string,
  what = 'type',
  foregroundCall?: string,
): unknown {
  if (!(err instanceof PlatformError) || err.code !== 'unsupported') return err;
  return backgroundImpossible(
    what,
    `${label} takes no text through accessibility (${err.message})`,
    'Name another element',
    foregroundCall,
  );
}
