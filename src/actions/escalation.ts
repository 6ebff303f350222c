/**
 * Background delivery found no semantic action that fits: the call fails and says that
 * foreground input would do it, rather than stealing the focus unasked.
 */
import { AxError } from '../errors.js';

export function backgroundImpossible(what: string, why: string, instead: string): AxError {
  return new AxError(
    'action_failed',
    `cannot ${what} in the background: ${why}`,
    `${instead}, or retry with delivery_mode: "foreground" (real input, the window is fronted then restored)`,
    { escalation: { recommended: 'foreground', reason: why } },
  );
}
