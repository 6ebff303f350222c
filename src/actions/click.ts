/**
 * Clicking: a press action through accessibility in the background (no focus needed), a
 * real pointer click with the app fronted in the foreground.
 */
import { PRESS_ACTIONS } from '../model/actions.js';
import type { Element, Rect } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import type { MouseButton } from '../platform/desktop.js';
import { AxError } from '../errors.js';
import { clickPoint } from './aim.js';
import { backgroundImpossible } from './escalation.js';
import { fronted } from './front.js';
import { watchElement } from './read-back.js';
import type { ActionTarget, Delivered, Delivery, Scene } from './types.js';
import { assertEnabled, assertOnScreen } from './validate.js';
import { guardContextMenu, guardPress } from './password-guard.js';
import { irreversible, restoreToggle } from './undo.js';

export type ClickType = 'single' | 'double' | 'right';

export interface ClickRequest {
  target: ActionTarget;
  clickType: ClickType;
  mode?: Delivery;
  /** The rectangle a point target was given as (x,y,w,h), checked against the screen. */
  rect?: Rect;
}

export function pressAction(el: Element): string | undefined {
  const lower = el.actions.map((a) => a.toLowerCase());
  for (const name of PRESS_ACTIONS) {
    const i = lower.indexOf(name);
    if (i >= 0) return el.actions[i];
  }
  return undefined;
}

const VERBS: Record<ClickType, string> = {
  single: 'Clicked',
  double: 'Double-clicked',
  right: 'Right-clicked',
};

export async function deliverClick(scene: Scene, req: ClickRequest): Promise<Delivered> {
  const { desktop, view } = scene;
  const { target, clickType } = req;
  const background = req.mode !== 'foreground';
  if (!target.element) await assertOnScreen(desktop, req.rect ?? requirePoint(target));
  // A point names the element under it: pressed through accessibility in the background,
  // and checked for being disabled in either mode.
  const element = target.element ?? (target.point ? elementAt(view, target.point) : undefined);
  const label = target.element
    ? target.label
    : element
      ? `${target.label} (${elementName(element)})`
      : target.label;
  assertEnabled({ ...target, element, label });
  if (clickType === 'right') guardContextMenu(scene, element, label);
  guardPress(scene, element, label, background ? 'action' : 'pointer');
  const verb = VERBS[clickType];
  // A single click toggles a check box or selects a radio button: that can be taken back.
  const undo =
    clickType === 'single' && element
      ? restoreToggle(view, view.snapshot.elements.indexOf(element))
      : irreversible(`a ${clickType} click cannot be reversed`);
  if (background) {
    const route = element && clickType === 'single' ? desktop.clickRoute(element) : undefined;
    if (!element || !route || route.via === 'none') {
      const why = !element
        ? 'no element is under that point'
        : clickType !== 'single'
          ? `a ${clickType} click has no accessibility action`
          : `${label} offers no action a click does (it has: ${element.actions.join(', ') || 'none'})`;
      throw backgroundImpossible('click', why, 'Name another element');
    }
    const touched = await watchElement(desktop, element.id);
    if (route.via === 'focus') return focusInstead(scene, element, label, touched, undo);
    await scene.transfers?.beforePress(element, clickType);
    await desktop.doAction(element.id, route.action);
    return {
      did: `${verb} ${label} (action '${route.action}')`,
      route: 'ax',
      delivery: 'background',
      touched,
      mayDismiss: mayDismiss(element),
      undo,
    };
  }
  // Inside a text field's own text, never on its arrows or icons (a spin button's centre
  // may be its minus button).
  const point = (target.element && clickPoint(target.element)) ?? requirePoint(target);
  if (target.element) await assertOnScreen(desktop, point);
  const touched = element ? await watchElement(desktop, element.id) : undefined;
  const button: MouseButton = clickType === 'right' ? 'right' : 'left';
  const { restore } = await fronted(scene, async () => {
    await scene.transfers?.beforePress(element, clickType);
    await desktop.click(point.x, point.y, button, clickType === 'double' ? 2 : 1);
  });
  return {
    // A point target's label already is its coordinates.
    did: target.element ? `${verb} ${label} at (${point.x},${point.y})` : `${verb} ${label}`,
    route: scene.desktop.inputRoute,
    delivery: 'foreground',
    restore,
    touched,
    mayDismiss: mayDismiss(element),
    undo,
  };
}

/**
 * A click on an element that takes text, without a pointer: the keyboard focus, which is
 * what the click gives it (its own "activate" is Enter, which would submit a dialog).
 */
async function focusInstead(
  scene: Scene,
  element: Element,
  label: string,
  touched: (() => Promise<boolean>) | undefined,
  undo: Delivered['undo'],
): Promise<Delivered> {
  const { desktop } = scene;
  try {
    await desktop.focusElement(element.id);
  } catch {
    throw backgroundImpossible(
      'click',
      `${label} takes text, and did not take the keyboard focus through accessibility`,
      'Click it with delivery_mode "foreground" (a real click inside its text)',
    );
  }
  return {
    did: `Clicked ${label}: gave it the keyboard focus (it takes text, so no action is run)`,
    route: 'ax-focus',
    delivery: 'background',
    touched,
    probe: async () => ((await desktop.hasFocus(element.id)) ? 'landed' : 'absent'),
    undo,
  };
}

/** A button (or whatever is under a point) may close its dialog; a check box does not. */
function mayDismiss(element: { role: string } | undefined): boolean {
  return element === undefined || element.role === 'AXButton';
}

export function requirePoint(target: ActionTarget): { x: number; y: number } {
  if (target.point) return target.point;
  throw new AxError(
    'action_failed',
    `${target.label} has no position on screen (it may be hidden or scrolled away)`,
    'Scroll it into view (ax_scroll) or use a background action',
  );
}

function elementName(el: Element): string {
  return el.name ? `[${el.role}] "${el.name}"` : `[${el.role}]`;
}

/** The deepest visible element under a point, preferring ones with a press action. */
export function elementAt(view: SnapshotView, p: { x: number; y: number }): Element | undefined {
  let best: Element | undefined;
  let bestArea = Infinity;
  view.snapshot.elements.forEach((el, i) => {
    const f = el.frame;
    if (!f || !view.visible[i] || p.x < f.x || p.y < f.y || p.x >= f.x + f.w || p.y >= f.y + f.h)
      return;
    const area = f.w * f.h - (pressAction(el) ? 1e12 : 0);
    if (area < bestArea) {
      bestArea = area;
      best = el;
    }
  });
  return best;
}
