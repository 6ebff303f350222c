/**
 * Reading an element back from the app itself: its states, value and name as they are
 * now, compared with a reading taken just before the input was sent (not with the
 * cached tree, whose flags may have been computed at another moment).
 */
import type { Element } from '../model/element.js';
import type { Desktop } from '../platform/desktop.js';

/** A comparable digest of what an action can change about one element. */
function stateOf(el: Element): string {
  const flags = el.flags.filter((f) => f !== 'visible').sort();
  return JSON.stringify([flags, el.value ?? null, el.name]);
}

/**
 * Reads the element now and returns a function telling whether it has changed since; an
 * element that is gone afterwards has changed (a button that closed its dialog).
 */
export async function watchElement(
  desktop: Desktop,
  elementId: string,
): Promise<(() => Promise<boolean>) | undefined> {
  const before = await desktop.readElement(elementId).catch(() => undefined);
  if (!before) return undefined;
  const was = stateOf(before);
  return async () => {
    const now = await desktop.readElement(elementId).catch(() => undefined);
    return now === undefined || stateOf(now) !== was;
  };
}
