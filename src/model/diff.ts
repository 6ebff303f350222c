/** What changed between two snapshots of one app. Indices point into each snapshot's elements. */

export type ChangedField =
  'frame' | 'name' | 'value' | 'description' | 'flags' | 'role' | 'actions';

export interface FieldChange {
  field: ChangedField;
  /** Rendered old and new values (frame as "x,y wxh", flags space-joined). */
  old: string;
  new: string;
}

export interface Modification {
  /** Index in the before snapshot. */
  before: number;
  /** Index in the after snapshot. */
  after: number;
  changes: FieldChange[];
  /** Only the frame's position changed (scrolling, reflow): reported as `moved`, not as remove+add. */
  moved: boolean;
}

export interface TreeDiff {
  /** After-snapshot indices of elements with no match before. */
  added: number[];
  /** Before-snapshot indices of elements with no match after. */
  removed: number[];
  modified: Modification[];
  /** For each after-snapshot element, the index of its match in the before snapshot, or -1. */
  matchOf: Int32Array;
}

/** A notable text change for the summary's text_changes lines. */
export interface TextChange {
  role: string;
  /** The element's label (name), for the reader. */
  label: string;
  ref: string;
  old: string;
  new: string;
}
