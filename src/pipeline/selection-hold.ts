/**
 * Safe mode's last word on pastes into a password field: while an action goes to an app
 * whose focused or last text field is a password field, the clipboard and the primary
 * selection offer nothing. Whatever the action turns out to press (a Paste button under
 * another name, a toolbar icon, a menu item reached by keys, an accelerator of the app's
 * own), a paste then inserts nothing: there is no list of paste commands to fall behind.
 * Their text is offered again after the action, by this server (formats other than text
 * are not kept), unless someone copied meanwhile: that copy stands.
 */
import { AxError } from '../errors.js';
import type { Clipboard } from '../platform/desktop.js';

type Selection = 'clipboard' | 'primary';
const SELECTIONS: readonly Selection[] = ['clipboard', 'primary'];

/** Empties both selections; resolves to the function that gives their text back. */
export async function holdSelections(clipboard: Clipboard): Promise<() => Promise<void>> {
  if (!clipboard.owns || !clipboard.release) {
    throw cannotHold('this platform cannot tell whether a selection is still what it wrote');
  }
  const kept = new Map<Selection, string>();
  const restore = async (): Promise<void> => {
    for (const [selection, text] of kept) {
      // Someone copied during the action: what they copied is what the selection holds now.
      if (!clipboard.owns!(selection)) continue;
      if (text) await clipboard.write(text, selection).catch(() => undefined);
      else await clipboard.release!(selection).catch(() => undefined);
    }
  };
  try {
    for (const selection of SELECTIONS) {
      const text = await clipboard.read(selection);
      await clipboard.write('', selection);
      kept.set(selection, text);
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
