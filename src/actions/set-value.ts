/**
 * Setting a value directly: a check box's state (toggled through its action), a range
 * element's number (sliders, spin buttons: through the Value interface, inside its
 * bounds), or a text field's text. Every value is checked before anything is set.
 */
import { isCheckable } from './checkable.js';
import { backgroundImpossible, textUnreachable } from './escalation.js';
import { AxError } from '../errors.js';
import { pressAction } from './click.js';
import type { ActionTarget, Delivered, Reading, Scene } from './types.js';
import { assertEnabled } from './validate.js';
import { guardPress, guardTarget } from './password-guard.js';
import { restoreText, restoreToggle, restoreValue, SECRET_NOT_KEPT } from './undo.js';

/** Roles whose value is a number in a range even when they also take text. */
const RANGE_ROLES = new Set(['AXSlider', 'AXIncrementor', 'AXScrollBar']);

export async function deliverSetValue(
  scene: Scene,
  target: ActionTarget,
  value: string,
): Promise<Delivered> {
  const { desktop } = scene;
  const element = target.element;
  if (!element) {
    throw new AxError('bad_argument', 'ax_set_value needs an element', 'Pass ref or query');
  }
  assertEnabled(target);
  const { label } = target;
  if (isCheckable(element)) {
    const want = parseBool(value);
    const has = element.flags.includes('checked');
    if (want && !has) guardPress(scene, element, label, 'action');
    const action = pressAction(element);
    // Setting a radio button on turns its group's other one off: the way back is that one.
    const undo = restoreToggle(scene.view, target.index);
    if (want !== has) {
      if (!action) {
        throw backgroundImpossible(
          'set it',
          `${label} has no toggle action`,
          undefined,
          'ax_click on it',
        );
      }
      await desktop.doAction(element.id, action);
    }
    return {
      did: `Set ${label} to ${want ? 'checked' : 'unchecked'}${want === has ? ' (already was)' : ''}`,
      route: 'ax',
      delivery: 'background',
      undo,
      probe: async () =>
        (await desktop.readElement(element.id)).flags.includes('checked') === want
          ? 'landed'
          : 'absent',
    };
  }
  const editable = element.flags.includes('editable');
  const range =
    RANGE_ROLES.has(element.role) || !editable
      ? await desktop.readValue(element.id).catch(() => undefined)
      : undefined;
  if (range) {
    const number = value.trim() === '' ? NaN : Number(value);
    const bounds = `${range.min}..${range.max}`;
    if (!Number.isFinite(number)) {
      throw new AxError(
        'bad_argument',
        `'${value}' is not a number: ${label} takes a number in ${bounds}`,
        `Pass a number in ${bounds} (e.g. "${range.value}"); nothing was set`,
      );
    }
    if (number < range.min || number > range.max) {
      throw new AxError(
        'bad_argument',
        `${number} is outside ${label}'s range ${bounds}`,
        `Pass a value inside ${bounds}; nothing was set`,
      );
    }
    await desktop.setValue(element.id, number);
    // A value between steps may be snapped to the nearest one.
    const tolerance = Math.max(1e-9, range.step > 0 ? range.step / 2 : 0);
    return {
      did: `Set ${label} to ${number} (was ${range.value})`,
      route: 'ax',
      delivery: 'background',
      undo: restoreValue(target, range.value),
      probe: async () =>
        Math.abs((await desktop.readValue(element.id)).value - number) <= tolerance
          ? 'landed'
          : 'absent',
    };
  }
  if (editable) {
    await guardTarget(scene, target);
    const secure = element.flags.includes('secure');
    // Read for the undo journal only: a password's previous content is never read.
    const undo = secure
      ? SECRET_NOT_KEPT
      : restoreText(target, await desktop.readText(element.id).catch(() => undefined));
    await desktop.setText(element.id, value).catch((err: unknown) => {
      throw textUnreachable(err, label, 'set the text', 'ax_type with clear_first: true');
    });
    const probe = async (): Promise<Reading> =>
      secure ? 'unreadable' : (await desktop.readText(element.id)) === value ? 'landed' : 'absent';
    return {
      // A secret's length is a secret too.
      did: `Set the text of ${label}${secure ? '' : ` (${[...value].length} chars)`}`,
      route: 'ax',
      delivery: 'background',
      undo,
      probe,
    };
  }
  throw new AxError(
    'action_failed',
    `${label} has no settable value (not editable text, not a number, not a check box)`,
    'For combo boxes click them and pick the item; for other elements use ax_click or ax_type',
  );
}

export function parseBool(value: string): boolean {
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on', 'checked'].includes(v)) return true;
  if (['false', '0', 'no', 'off', 'unchecked'].includes(v)) return false;
  throw new AxError('bad_argument', `'${value}' is not a check box state`, 'Use "true" or "false"');
}
