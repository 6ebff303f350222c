/**
 * Scrolling by an element's own scroll actions, for toolkits whose scrollable areas have
 * no scroll bar with a value: web documents and scrollable web elements may offer an
 * action per direction that scrolls by a page (the backend's vocabulary names them).
 */
import type { SnapshotView } from '../model/view.js';
import { vocabulary } from '../model/vocabulary.js';
import type { Direction } from './scroll.js';

/** The action that scrolls by a page this way; '' when the platform names none. */
export function scrollActionName(direction: Direction): string {
  return vocabulary().scrollActions?.[direction] ?? '';
}

/**
 * The element to scroll with its action: the target or its nearest ancestor offering the
 * action, else (no target) the largest visible element that offers it.
 */
export function scrollActionTarget(
  view: SnapshotView,
  index: number | undefined,
  direction: Direction,
): number | undefined {
  const els = view.snapshot.elements;
  const action = scrollActionName(direction);
  if (action === '') return undefined;
  const offers = (i: number): boolean => els[i].actions.includes(action);
  if (index !== undefined) {
    for (let i: number = index; i >= 0; i = els[i].parent) if (offers(i)) return i;
    return undefined;
  }
  let best: number | undefined;
  let bestArea = 0;
  els.forEach((el, i) => {
    if (!offers(i) || !view.visible[i] || !el.frame) return;
    const area = el.frame.w * el.frame.h;
    if (area > bestArea) {
      bestArea = area;
      best = i;
    }
  });
  return best;
}
