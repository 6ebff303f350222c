/** Check boxes and their kin: facts that actions and read tools both need. */
import type { Element } from '../model/element.js';

const CHECKABLE_ROLES = new Set(['AXCheckBox', 'AXRadioButton', 'AXToggleButton']);

/** Check boxes, radio buttons and toggles: their value is their checked state. */
export function isCheckable(el: Element): boolean {
  return CHECKABLE_ROLES.has(el.role);
}

/** "true"/"false" for checkable elements, else undefined. */
export function checkedValue(el: Element): string | undefined {
  return isCheckable(el) ? String(el.flags.includes('checked')) : undefined;
}
