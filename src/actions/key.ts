/**
 * A key press (with modifiers) sent to the app's front window: to the element it is aimed
 * at (the focus moved there and checked first), else to what has the focus. Either way
 * the summary names the element that had the focus when the key went, and the key counts
 * as landed only when that element changed (or, for Return and Escape, what it drives).
 */
import type { Element } from '../model/element.js';
import type { KeyCombo, KeyKind } from '../platform/desktop.js';
import { FOCUS_UNCONFIRMED, focusedNow, takeFocus, watchFocused, type Focused } from './aim.js';
import { fronted } from './front.js';
import type { ActionTarget, Delivered, Reading, Scene } from './types.js';
import { assertEnabled, assertKnownKey } from './validate.js';
import { guardKey, guardTarget, keyIsHarmless } from './password-guard.js';
import { irreversible } from './undo.js';

/** "ctrl+shift+s": the modifiers once, then the key. */
export function keyLabel(combo: KeyCombo): string {
  return [...combo.modifiers, combo.key].join('+');
}

export interface KeyAim {
  /** The element the key must reach: the focus is moved there, and checked, before it goes. */
  target: ActionTarget;
  /** The key follows text just typed into the target: the caret goes to the text's end first. */
  afterText?: boolean;
}

export async function deliverKey(scene: Scene, combo: KeyCombo, aim?: KeyAim): Promise<Delivered> {
  assertKnownKey(scene.desktop, combo);
  const label = keyLabel(combo);
  const kind = scene.desktop.keyKind(combo.key);
  if (aim) {
    assertEnabled(aim.target);
    // Refused before the focus moves into a password field, not after.
    if (!keyIsHarmless(kind, combo, 'field')) await guardTarget(scene, aim.target);
  }
  let focus: Focused | undefined;
  let touched: (() => Promise<boolean>) | undefined;
  let caretMoved: (() => Promise<boolean>) | undefined;
  // Checked with the window in front: fronting can move the focus the key goes to.
  const { restore } = await fronted(scene, async () => {
    if (aim) {
      const { focused, unconfirmed } = await takeFocus(scene, aim.target, `${label} was not sent`);
      focus = unconfirmed ? { ...focused, label: focused.label + FOCUS_UNCONFIRMED } : focused;
      // The key belongs after the text typed, wherever the caret was (typed text may go
      // in at the end, or focusing may put the caret back where it was).
      if (aim.afterText && focused.element.flags.includes('editable')) {
        const multiline = focused.element.flags.includes('multiline');
        await scene.desktop.pressKey({ key: 'End', modifiers: multiline ? ['ctrl'] : [] });
      }
    } else {
      focus = await focusedNow(scene);
    }
    await guardKey(scene, combo, label);
    if (focus) touched = await watchFocused(scene, focus.element);
    if (focus && kind === 'caret') caretMoved = await watchCaret(scene, focus.element);
    await scene.transfers?.beforeKey(combo, focus?.element);
    await scene.desktop.pressKey(combo);
    await scene.transfers?.afterKey(combo, focus?.element);
  });
  return {
    did: focus
      ? `Pressed ${label} in ${focus.label}`
      : `Pressed ${label} (no element said it had the keyboard focus)`,
    route: scene.desktop.inputRoute,
    delivery: 'foreground',
    restore,
    touched,
    probe: touched && landsInPlace(kind, combo) ? probeOf(touched, kind, caretMoved) : undefined,
    mayDismiss: dismisses(kind, combo),
    undo: irreversible('a key press cannot be reversed (what it did depends on the app)'),
  };
}

/**
 * Whether the key's effect shows on the element that had the focus. Return, Space and
 * Escape drive something else as well (a dialog's default button, a menu closing), and so
 * do shortcuts (Ctrl+S saves the document): any change in the app counts for them.
 */
export function landsInPlace(kind: KeyKind, combo: KeyCombo): boolean {
  if (kind === 'activate' || kind === 'cancel' || combo.key === 'space') return false;
  // Ctrl moves a caret further (a word, the text's start), still in the element.
  if (kind === 'caret') return combo.modifiers.every((m) => m === 'shift' || m === 'ctrl');
  return combo.modifiers.every((m) => m === 'shift');
}

/**
 * Landed when the focused element changed, or its caret moved. A caret that shows nowhere
 * cannot tell after a caret key (it may have been where the key sends it); after any
 * other key an unchanged element means the key did nothing there.
 */
function probeOf(
  changed: () => Promise<boolean>,
  kind: KeyKind,
  caretMoved?: () => Promise<boolean>,
): () => Promise<Reading> {
  return async () => {
    if (await changed()) return 'landed';
    if (kind !== 'caret') return 'absent';
    return (await caretMoved?.().catch(() => false)) ? 'landed' : 'unreadable';
  };
}

/** Where the element's caret and selection are now, and a check of whether they moved since. */
async function watchCaret(
  scene: Scene,
  element: Element,
): Promise<(() => Promise<boolean>) | undefined> {
  const read = async (): Promise<string | undefined> => {
    const place = await scene.desktop.textPlace?.(element.id).catch(() => undefined);
    return place && JSON.stringify([place.caret, place.selection ?? null]);
  };
  const was = await read();
  if (was === undefined) return undefined;
  return async () => {
    const now = await read();
    return now !== undefined && now !== was;
  };
}

/**
 * Keys that activate a dialog's default or cancel button: what the platform calls an
 * activating or cancelling key (Return and the keypad's Enter, Escape), and space.
 */
function dismisses(kind: KeyKind, combo: KeyCombo): boolean {
  return kind === 'activate' || kind === 'cancel' || combo.key === 'space';
}
