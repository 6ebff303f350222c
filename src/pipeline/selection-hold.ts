/**
 * Safe mode's last word on pastes into a password field: while an action goes to an app
 * whose focused or last text field is a password field, the clipboard and the primary
 * selection offer nothing. Whatever the action turns out to press (a Paste button under
 * another name, a toolbar icon, a menu item reached by keys, an accelerator of the app's
 * own), a paste then inserts nothing: there is no list of paste commands to fall behind.
 * What they offered is offered again after the action, by this server, in every format
 * they offered it in (text, an image, a list of files) up to HOLD_MAX_BYTES in all, unless
 * someone copied meanwhile: that copy stands. A format too big to keep is named in a note
 * (the call's log) before the action: it is not offered again.
 */
import { AxError } from '../errors.js';
import type { Clipboard, HeldSelection } from '../platform/desktop.js';

type Selection = 'clipboard' | 'primary';
const SELECTIONS: readonly Selection[] = ['clipboard', 'primary'];

/** Most a selection's formats are kept of, together (an image copied from an editor fits). */
export const HOLD_MAX_BYTES = 32 * 1024 * 1024;

/**
 * Empties both selections; resolves to the function that gives what they held back.
 * `note`: told of formats too big to keep.
 */
export async function holdSelections(
  clipboard: Clipboard,
  note: (message: string) => void = () => {},
): Promise<() => Promise<void>> {
  if (!clipboard.owns || !clipboard.release) {
    throw cannotHold('this platform cannot tell whether a selection is still what it wrote');
  }
  const kept = new Map<Selection, string | HeldSelection>();
  const restore = async (): Promise<void> => {
    for (const [selection, held] of kept) {
      // Someone copied during the action: what they copied is what the selection holds now.
      if (!clipboard.owns!(selection)) continue;
      if (typeof held !== 'string') {
        await clipboard.offer!(held, selection).catch(() => undefined);
      } else if (held) await clipboard.write(held, selection).catch(() => undefined);
      else await clipboard.release!(selection).catch(() => undefined);
    }
  };
  try {
    for (const selection of SELECTIONS) {
      const held =
        clipboard.hold && clipboard.offer
          ? await clipboard.hold(selection, HOLD_MAX_BYTES)
          : await clipboard.read(selection);
      await clipboard.write('', selection);
      kept.set(selection, held);
      if (typeof held !== 'string' && held.tooBig.length > 0) {
        note(
          `the ${selection} selection offered ${held.tooBig.join(', ')} beyond the ${HOLD_MAX_BYTES / 1024 / 1024} MB safe mode keeps while it empties it for this action: ${held.tooBig.length === 1 ? 'that format is' : 'those formats are'} not offered again after it (${held.formats.length > 0 ? `${held.formats.map((f) => f.type).join(', ')} ${held.formats.length === 1 ? 'is' : 'are'}` : 'nothing else is'})`,
        );
      }
    }
  } catch (err) {
    await restore();
    throw cannotHold((err as Error).message);
  }
  return restore;
}

function cannotHold(why: string): AxError {
  return new AxError(
    'blocked',
    `the app's text field with the keyboard focus is a password field, and this server runs in safe mode: the clipboard could not be emptied for the action (${why}), so nothing was sent, lest it paste there`,
    'Move the keyboard focus to another field first (Tab, or a click on it), or let the person do this step',
  );
}
