/**
 * Safe mode's guard on password fields for the delivery functions (its rules are in
 * src/actions/password-guard.ts), and the one answer to "is this element a password
 * field" that every input route asks.
 */
import type { Element } from '../model/element.js';
import type { PasswordGuard } from '../actions/index.js';
import type { Policy } from '../guard/policy.js';
import type { AxError } from '../errors.js';
import { isSecure } from '../tree/index.js';

/** Today: the element says it is secure (its role is a password field's). */
export function isPasswordField(el: Element): boolean {
  return isSecure(el);
}

/** The guard for one action, or none when the policy lets input reach password fields. */
export function passwordGuardOf(policy: Policy): PasswordGuard | undefined {
  // Asked, not re-derived from the settings: the policy alone says what safe mode refuses.
  if (!policy.secureTypingRefusal('a password field')) return undefined;
  return {
    isPasswordField,
    // The policy does not change within a call: it refuses here as it did above.
    refusal: (label) => policy.secureTypingRefusal(label) as AxError,
  };
}
