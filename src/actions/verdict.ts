/**
 * The one verdict on an action's effect, from evidence read after it: whether the app's
 * tree changed, what the intended effect reads back as, whether the target itself
 * changed. Foreground is advised only when nothing at all was seen and sending the input
 * again cannot do harm.
 */
import type { Delivery, Reading } from './types.js';

export type Effect = 'confirmed' | 'unverifiable' | 'suspected_noop';

export interface Evidence {
  /** The tree changed (diff), another app came to the front, or the app exited. */
  changed: boolean;
  /** The intended effect read back from the app (when the action has one). */
  reading?: Reading;
  /** The target's own states, value or name changed. */
  touched?: boolean;
  delivery: Delivery;
  /** False when the input may have landed unseen or a repeat would do harm. */
  escalate?: boolean;
}

export interface Verdict {
  effect: Effect;
  escalation?: { recommended: 'foreground'; reason: string };
}

export function judge(e: Evidence): Verdict {
  if (e.reading === 'landed') return { effect: 'confirmed' };
  if (e.reading === 'unreadable') return { effect: 'unverifiable' };
  const somethingChanged = e.changed || e.touched === true;
  if (e.reading === 'absent') {
    // Something else changed: the input did something, just not what reads back.
    if (somethingChanged) return { effect: 'unverifiable' };
    return noop(e, 'the value did not read back as set, and nothing else changed');
  }
  if (somethingChanged) return { effect: 'confirmed' };
  return noop(
    e,
    'nothing changed in the app, read back after a wait (an action with no visible effect may still have landed: check before repeating it)',
  );
}

function noop(e: Evidence, reason: string): Verdict {
  return e.delivery === 'background' && e.escalate !== false
    ? { effect: 'suspected_noop', escalation: { recommended: 'foreground', reason } }
    : { effect: 'suspected_noop' };
}

/** Whether the evidence is already conclusive, so no extra wait is needed. */
export function conclusive(e: Evidence): boolean {
  if (e.reading === 'landed' || e.reading === 'unreadable') return true;
  if (e.reading === 'absent') return false;
  return e.changed || e.touched === true;
}
