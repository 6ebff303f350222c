/**
 * Leave out what the app itself reports as not showing (hidden notebook pages,
 * unmapped windows), with the whole subtree below it. Rows and cells stay even when not
 * showing: toolkits flag rows scrolled out of a list that way, and the agent may scroll
 * to them.
 */
import type { Snapshot } from './element.js';

const SCROLLED_ITEM_ROLES = new Set(['AXRow', 'AXCell', 'AXOutlineRow']);

export function dropHidden(snapshot: Snapshot): { snapshot: Snapshot; dropped: number } {
  const { elements } = snapshot;
  const newIndex = new Int32Array(elements.length).fill(-1);
  const kept = [];
  // Below a kept row or cell everything stays: its text is what the agent looks for.
  const underItem = new Uint8Array(elements.length);
  for (let i = 0; i < elements.length; i++) {
    const el = elements[i];
    const parentGone = el.parent >= 0 && newIndex[el.parent] < 0;
    if (parentGone) continue;
    const item = SCROLLED_ITEM_ROLES.has(el.role) || (el.parent >= 0 && underItem[el.parent] === 1);
    if (el.flags.includes('offscreen') && !item) continue;
    if (item) underItem[i] = 1;
    newIndex[i] = kept.length;
    kept.push({ ...el, parent: el.parent >= 0 ? newIndex[el.parent] : -1 });
  }
  const windows = snapshot.windows
    .filter((w) => newIndex[w.index] >= 0)
    .map((w) => ({ ...w, index: newIndex[w.index] }));
  return {
    snapshot: { ...snapshot, elements: kept, windows },
    dropped: elements.length - kept.length,
  };
}
