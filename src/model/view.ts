import type { Rect, Snapshot, WindowInfo } from './element.js';

/**
 * A snapshot as the pipeline presents it: refs assigned, visibility computed.
 * `refs[i]` and `visible[i]` belong to `snapshot.elements[i]`.
 */
export interface SnapshotView {
  snapshot: Snapshot;
  /** Short id of the snapshot ("s7f3a"), named in stale-ref errors. */
  snapshotId: string;
  refs: string[];
  visible: boolean[];
  /** The region elements are visible in: the target window (or dialog) clipped to the screen. */
  viewport: Rect;
  /** The modal dialog/sheet that scopes the viewport, or null. */
  dialog: WindowInfo | null;
}
