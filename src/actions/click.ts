/**
 * Clicking: a press action through accessibility in the background (no focus needed), a
 * real pointer click with the app fronted in the foreground.
 */
import type { Element, Rect } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import { vocabulary } from '../model/vocabulary.js';
import type { MouseButton } from '../platform/desktop.js';
import { AxError, PlatformError } from '../errors.js';
import { clickPoint } from './aim.js';
import { backgroundImpossible } from './escalation.js';
import { fronted } from './front.js';
import { watchElement } from './read-back.js';
import type { ActionTarget, Delivered, Delivery, Scene } from './types.js';
import { assertEnabled, assertOnScreen } from './validate.js';
import { assertNoMenuAway, assertUncovered, elementsInWindow, windowOnTop } from './covering.js';
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
  for (const name of vocabulary().pressActions) {
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
  const element =
    target.element ??
    (target.point ? await elementOnTop(scene, target.point, background, target.label) : undefined);
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
    const parent = element ? parentOf(view, element) : undefined;
    const route =
      element && clickType === 'single' ? desktop.clickRoute(element, parent) : undefined;
    // A label with no action of its own, in a row or tab chosen by selection: the pointer
    // would choose that row, and so does this click.
    const holder =
      element && clickType === 'single' && route?.via === 'none' && element.actions.length === 0
        ? chosenHolder(scene, element)
        : undefined;
    if (holder) {
      const delivered = await selectInstead(scene, holder.element, holder.label, undo);
      return { ...delivered, did: `${verb} ${label}, in ${delivered.did.slice(verb.length + 1)}` };
    }
    if (!element || !route || route.via === 'none') {
      const said = route?.via === 'none' ? route.why : undefined;
      const why = !element
        ? 'no element is under that point'
        : clickType !== 'single'
          ? `a ${clickType} click has no accessibility action`
          : said
            ? `${label} ${said}`
            : `${label} offers no action a click does (it has: ${element.actions.join(', ') || 'none'})`;
      const around = element && clickType === 'single' ? chosenHolder(scene, element) : undefined;
      throw backgroundImpossible(
        'click',
        why,
        around ? `Click the ${around.label} it is in` : said ? undefined : 'Name another element',
      );
    }
    if (route.via === 'select') return selectInstead(scene, element, label, undo);
    // An element that is a part of its parent (an expander's arrow) runs the parent's action.
    const actor = route.via === 'action' && route.on === 'parent' && parent ? parent : element;
    const touched = await watchElement(desktop, actor.id);
    if (route.via === 'focus') {
      return focusInstead(scene, element, label, touched, undo, route.effect);
    }
    await scene.transfers?.beforePress(element, clickType);
    await desktop.doAction(actor.id, route.action);
    const whose = actor === element ? '' : `its ${elementName(actor)}'s `;
    // An app may tell such an action from a click: the foreground is the click itself.
    const caveat = route.caveat
      ? `, which ${route.caveat}: delivery_mode "foreground" clicks it`
      : '';
    return {
      did: `${verb} ${label} (${whose}action '${route.action}'${caveat})`,
      route: 'ax',
      delivery: 'background',
      touched,
      mayDismiss: mayDismiss(element),
      undo,
    };
  }
  // Inside a text field's own text, never on its arrows or icons (a spin button's centre
  // may be its minus button). An element whose click is done by one part of it (an
  // expander by its arrow) is clicked on that part.
  const part = target.element && clickType === 'single' ? actingPart(scene, target) : undefined;
  // A part the toolkit draws beside the element and reports no element for (a tree row's
  // expander arrow, in its indentation): the backend says where it is.
  const spot =
    !part && target.element && clickType === 'single'
      ? desktop.clickSpot?.(target.element, parentOf(view, target.element))
      : undefined;
  const point =
    (part && centerOf(part.element)) ??
    spot ??
    (target.element && clickPoint(target.element)) ??
    requirePoint(target);
  if (target.element) await assertOnScreen(desktop, point, label);
  const touched = element ? await watchElement(desktop, element.id) : undefined;
  const button: MouseButton = clickType === 'right' ? 'right' : 'left';
  const { restore } = await fronted(scene, async () => {
    // With the app in front: what is on top at the point now is what the click reaches.
    if (target.element) await assertUncovered(desktop, view, target.element, label, point);
    // A point is where it is aimed; but a menu of the app open elsewhere takes the click.
    else await assertNoMenuAway(desktop, view, label, point);
    await scene.transfers?.beforePress(element, clickType);
    await desktop.click(point.x, point.y, button, clickType === 'double' ? 2 : 1);
  });
  const on = part ? ` on its ${part.label}` : spot ? ` on its ${spot.part}` : '';
  return {
    // A point target's label already is its coordinates.
    did: target.element ? `${verb} ${label} at (${point.x},${point.y})${on}` : `${verb} ${label}`,
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
 * `effect`: what the focus does there otherwise, as the route says (a tree cell's row
 * selected).
 */
async function focusInstead(
  scene: Scene,
  element: Element,
  label: string,
  touched: (() => Promise<boolean>) | undefined,
  undo: Delivered['undo'],
  effect?: string,
): Promise<Delivered> {
  const { desktop } = scene;
  try {
    await desktop.focusElement(element.id);
  } catch {
    throw backgroundImpossible(
      'click',
      `${label} ${effect ? 'is chosen by the keyboard focus' : 'takes text'}, and did not take the keyboard focus through accessibility`,
      'Click it with delivery_mode "foreground" (a real click inside its text)',
    );
  }
  return {
    did: effect
      ? `Clicked ${label}: ${effect}`
      : `Clicked ${label}: gave it the keyboard focus (it takes text, so no action is run)`,
    route: 'ax-focus',
    delivery: 'background',
    touched,
    probe: async () => ((await desktop.hasFocus(element.id)) ? 'landed' : 'absent'),
    undo,
  };
}

/**
 * A click on a row or a tab that offers no action: it is chosen in its container's
 * selection, which is what the click changes. What else a click may do (a row's
 * activation) has no route through accessibility; the summary says so.
 */
async function selectInstead(
  scene: Scene,
  element: Element,
  label: string,
  undo: Delivered['undo'],
): Promise<Delivered> {
  const { desktop } = scene;
  const touched = await watchElement(desktop, element.id);
  try {
    await desktop.selectElement(element.id);
  } catch (err) {
    if (!(err instanceof PlatformError) || err.code !== 'failed') throw err;
    throw backgroundImpossible('click', `${label} offers no action of its own, and ${err.message}`);
  }
  const container = containerWord(scene, element);
  // A row may also be activated by a click (a list that acts on one): that is not sent.
  const only = container === 'list' ? ' (selected only, not activated as Enter would)' : '';
  return {
    did: `${VERBS.single} ${label}: selected it through its ${container}'s selection${only}`,
    route: 'ax-select',
    delivery: 'background',
    touched,
    probe: async () =>
      (await desktop.readElement(element.id)).flags.includes('selected') ? 'landed' : 'absent',
    undo,
  };
}

/** What a row or tab is chosen in, for summaries. */
function containerWord(scene: Scene, element: Element): string {
  const parent = parentOf(scene.view, element);
  return element.role === 'AXRadioButton' || parent?.role === 'AXTabGroup' ? 'tab list' : 'list';
}

/**
 * The child of the target that does the target's click when clicked itself (the platform
 * routes that child's click to the target's action: an expander's arrow), shown on screen.
 */
function actingPart(
  scene: Scene,
  target: ActionTarget,
): { element: Element; label: string } | undefined {
  const { view, desktop } = scene;
  const els = view.snapshot.elements;
  const index = target.index ?? (target.element ? els.indexOf(target.element) : -1);
  if (index < 0) return undefined;
  for (let i = index + 1; i < els.length && els[i].depth > els[index].depth; i++) {
    const el = els[i];
    if (el.parent !== index || !view.visible[i] || !centerOf(el)) continue;
    const route = desktop.clickRoute(el, els[index]);
    if (route.via === 'action' && route.on === 'parent') {
      return { element: el, label: `${elementName(el)} ${view.refs[i]}` };
    }
  }
  return undefined;
}

function centerOf(el: Element): { x: number; y: number } | undefined {
  const f = el.frame;
  if (!f || f.w <= 0 || f.h <= 0) return undefined;
  return { x: Math.round(f.x + f.w / 2), y: Math.round(f.y + f.h / 2) };
}

function parentOf(view: SnapshotView, element: Element): Element | undefined {
  return view.snapshot.elements[element.parent];
}

/**
 * For an element a click cannot reach in the background (a row's label): the row or tab it
 * is in, within a few levels, when that one is chosen by selection, labelled `[role] "name" ref`.
 */
function chosenHolder(
  scene: Scene,
  element: Element,
): { element: Element; label: string } | undefined {
  const { view, desktop } = scene;
  const els = view.snapshot.elements;
  let i = element.parent;
  for (let up = 0; i >= 0 && up < 4; up++, i = els[i].parent) {
    const el = els[i];
    if (desktop.clickRoute(el, parentOf(view, el)).via === 'select') {
      return { element: el, label: `${elementName(el)} ${view.refs[i]}` };
    }
  }
  return undefined;
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
    'Scroll it into view with ax_scroll naming the list or pane that holds it (delivery_mode "foreground" wheels over that list), or use a background action',
  );
}

function elementName(el: Element): string {
  return el.name ? `[${el.role}] "${el.name}"` : `[${el.role}]`;
}

/**
 * The element of this app a person sees at a point: of the window on top there (a dialog
 * over the main window hides the main window's buttons). Undefined when another app's
 * window is on top, which a foreground click reaches and the background cannot: refused
 * there.
 */
async function elementOnTop(
  scene: Scene,
  p: { x: number; y: number },
  background: boolean,
  label: string,
): Promise<Element | undefined> {
  const { desktop, view } = scene;
  const top = await windowOnTop(desktop, p);
  const owner = top && (top.hostPid ?? top.pid);
  if (top && owner !== view.snapshot.pid) {
    if (!background) return undefined;
    throw new AxError(
      'action_failed',
      `${label} is on a window of another app${owner === null ? '' : ` (pid ${owner})`}, in front of this one: no element of this app is there to act on in the background, so nothing was done`,
      `Call with that app${owner === null ? '' : ` (app ${owner})`} to act there, or click with delivery_mode "foreground" (the click lands on what is there)`,
    );
  }
  return elementAt(view, p, top ? elementsInWindow(view, top.area) : undefined);
}

/**
 * The deepest visible element under a point, preferring ones with a press action; only
 * among `within` (element indices) when given.
 */
export function elementAt(
  view: SnapshotView,
  p: { x: number; y: number },
  within?: ReadonlySet<number>,
): Element | undefined {
  let best: Element | undefined;
  let bestArea = Infinity;
  view.snapshot.elements.forEach((el, i) => {
    const f = el.frame;
    if (within && !within.has(i)) return;
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
