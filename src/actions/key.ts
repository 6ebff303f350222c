/** A key press (with modifiers) sent to the app's front window. */
import type { KeyCombo } from '../platform/desktop.js';
import { fronted } from './front.js';
import type { Delivered, Scene } from './types.js';
import { assertKnownKey } from './validate.js';
import { guardKey } from './password-guard.js';
import { irreversible } from './undo.js';

/** "ctrl+shift+s": the modifiers once, then the key. */
export function keyLabel(combo: KeyCombo): string {
  return [...combo.modifiers, combo.key].join('+');
}

export async function deliverKey(scene: Scene, combo: KeyCombo): Promise<Delivered> {
  assertKnownKey(scene.desktop, combo);
  // Checked with the window in front: fronting can move the focus the key goes to.
  const { restore } = await fronted(scene, async () => {
    await guardKey(scene, combo, keyLabel(combo));
    await scene.desktop.pressKey(combo);
  });
  return {
    did: `Pressed ${keyLabel(combo)}`,
    route: 'xtest',
    delivery: 'foreground',
    restore,
    mayDismiss: DISMISS_KEYS.has(combo.key),
    undo: irreversible('a key press cannot be reversed (what it did depends on the app)'),
  };
}

/** Keys that activate a dialog's default or cancel button. */
const DISMISS_KEYS: ReadonlySet<string> = new Set(['Return', 'KP_Enter', 'Escape', 'space']);
