/**
 * How an action can be taken back: the element's previous text, number or checked state,
 * read before the input was sent (the delivery functions read it anyway for their
 * verdict), or why it cannot be. The journal that keeps these lives in the pipeline.
 */
import type { SnapshotView } from '../model/view.js';
import { isCheckable } from './checkable.js';
import type { ActionTarget } from './types.js';

export type Reversal =
  /** Set the element's text (or number, or checked state) back to `previous`. */
  | {
      kind: 'restore';
      ref: string;
      label: string;
      previous: string;
      what: 'text' | 'value' | 'state';
    }
  | { kind: 'none'; reason: string };

/** Largest previous text kept for an undo (in UTF-16 units): the journal stays small. */
export const MAX_UNDO_TEXT = 256 * 1024;

export function irreversible(reason: string): Reversal {
  return { kind: 'none', reason };
}

export const SECRET_NOT_KEPT = irreversible(
  'the previous content of a password field is never kept, so it cannot be restored',
);

/** Text restored on undo, when the target has a ref and the text is small enough to keep. */
export function restoreText(target: ActionTarget, previous: string | undefined): Reversal {
  if (!target.ref) return irreversible(`${target.label} has no ref to come back to`);
  if (previous === undefined)
    return irreversible(`the previous text of ${target.label} could not be read before typing`);
  if (previous.length > MAX_UNDO_TEXT)
    return irreversible(`the previous text of ${target.label} was too long to keep`);
  return { kind: 'restore', ref: target.ref, label: target.label, previous, what: 'text' };
}

export function restoreValue(target: ActionTarget, previous: number): Reversal {
  if (!target.ref) return irreversible(`${target.label} has no ref to come back to`);
  return {
    kind: 'restore',
    ref: target.ref,
    label: target.label,
    previous: String(previous),
    what: 'value',
  };
}

/**
 * A toggle's way back, from the view before it was pressed: a check box or toggle button
 * goes back to its state; a radio button that was turned on re-selects the one of its group
 * that was on before (same parent), when there was one.
 */
export function restoreToggle(view: SnapshotView, index: number | undefined): Reversal {
  const els = view.snapshot.elements;
  const el = index !== undefined ? els[index] : undefined;
  if (index === undefined || !el || !isCheckable(el)) {
    return irreversible(
      'a click on anything but a check box, toggle or radio button cannot be reversed',
    );
  }
  const ref = view.refs[index];
  const label = `[${el.role}]${el.name ? ` "${el.name}"` : ''} ${ref}`;
  const checked = el.flags.includes('checked');
  if (el.role !== 'AXRadioButton' || checked) {
    return { kind: 'restore', ref, label, previous: String(checked), what: 'state' };
  }
  const before = els.findIndex(
    (e, i) =>
      i !== index &&
      e.parent === el.parent &&
      e.role === 'AXRadioButton' &&
      e.flags.includes('checked'),
  );
  if (before < 0)
    return irreversible(`no other radio button of ${label}'s group was selected before`);
  const other = els[before];
  return {
    kind: 'restore',
    ref: view.refs[before],
    label: `[${other.role}]${other.name ? ` "${other.name}"` : ''} ${view.refs[before]}`,
    previous: 'true',
    what: 'state',
  };
}
