/**
 * Safe mode's guard on password fields for the delivery functions (its rules are in
 * src/actions/password-guard.ts), and the one answer to "is this element a password
 * field" that every input route asks.
 */
import type { Element } from '../model/element.js';
import type { PasswordGuard } from '../actions/index.js';
import type { Policy } from '../guard/policy.js';
import { AxError } from '../errors.js';
import { isSecure } from '../tree/index.js';

/** Today: the element says it is secure (its role is a password field's). */
export function isPasswordField(el: Element): boolean {
  return isSecure(el);
}

/** The policy's refusal of input into `label`, or undefined when it lets it through. */
function refusalOf(policy: Policy, label: string): AxError | undefined {
  try {
    policy.checkSecureTyping(label);
    return undefined;
  } catch (err) {
    if (err instanceof AxError) return err;
    throw err;
  }
}

/** The guard for one action, or none when the policy lets input reach password fields. */
export function passwordGuardOf(policy: Policy): PasswordGuard | undefined {
  // Asked, not re-derived from the settings: the policy alone says what safe mode refuses.
  if (!refusalOf(policy, 'a password field')) return undefined;
  return {
    isPasswordField,
    refusal: (label) =>
      refusalOf(policy, label) ??
      new AxError('blocked', `${label} is a password field, and this server types into none`),
  };
}
