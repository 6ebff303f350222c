/**
 * Walking some apps makes them announce states again that did not change (GTK re-sends
 * the check state of hidden popover items when they are read). A subscription must not
 * report its own reads as changes: a state event that the last view already shows, or
 * that concerns a hidden element, is not a change of the tree.
 */
import type { SnapshotView } from '../model/view.js';
import type { Change } from '../platform/desktop.js';

export function isReannouncement(view: SnapshotView | undefined, change: Change): boolean {
  if (!view || change.flag === undefined || change.elementId === '') return false;
  const el = view.snapshot.elements.find((e) => e.id === change.elementId);
  if (!el) return false;
  return el.flags.includes('offscreen') || el.flags.includes(change.flag) === change.on;
}
