/**
 * Aiming keyboard input: the keyboard focus moved to the element a key or text is aimed
 * at, and checked, before anything is sent; and which element had the focus when a key
 * went, for the summary and the verdict. Keys go wherever the toolkit's focus is, so an
 * element that does not have it afterwards gets nothing: the input is refused instead.
 */
import type { Element } from '../model/element.js';
import { pollFor } from '../model/timeout.js';
import { AxError, PlatformError } from '../errors.js';
import type { ActionTarget, Scene } from './types.js';
import { assertNoMenuAway, assertUncovered } from './covering.js';

/** How long the toolkit may take to report the focus it was asked to move (a loaded machine is slow). */
const FOCUS_WAIT_MS = 1000;
const POLL_MS = 20;

/** Roles whose centre may be a sub-control (a spin button's arrows), never clicked there. */
const STEPPER_ROLES: ReadonlySet<string> = new Set(['AXIncrementor']);

/** The element that has the keyboard focus, as the summary names it. */
export interface Focused {
  element: Element;
  label: string;
}

/**
 * Moves the keyboard focus to `target` (the app already fronted): the toolkit's focus call,
 * then, for a text field only, a real click inside it, which places the caret and changes
 * nothing else. Resolves to the element that has the focus (the target or the one part of
 * it that takes focus) and whether it had it already; throws when the focus could not be
 * put there, saying `consequence` ("nothing was typed") and advising `hint`.
 */
export async function takeFocus(
  scene: Scene,
  target: ActionTarget,
  consequence: string,
  hint = 'Aim at an element that takes keyboard input (a field, list or button: ax_get_attributes shows "focusable"), or leave the target out to send it to what has the focus now',
): Promise<{ focused: Focused; moved: boolean; unconfirmed?: boolean }> {
  const { desktop } = scene;
  const element = target.element;
  if (!element) {
    throw new AxError(
      'bad_argument',
      `${target.label} is a point, not an element`,
      'Name an element (ref or query)',
    );
  }
  const holder = focusHolder(scene, target);
  // An open menu or popover of the app takes the keys, whatever has the focus behind it.
  const f = holder.element.frame;
  const at =
    clickPoint(holder.element) ??
    (f && f.w > 0 && f.h > 0
      ? { x: f.x + Math.floor(f.w / 2), y: f.y + Math.floor(f.h / 2) }
      : undefined);
  if (at) await assertNoMenuAway(desktop, scene.view, holder.label, at);
  const id = holder.element.id;
  const check = async (): Promise<boolean> => desktop.hasFocus(id).catch(() => false);
  if (await check()) return { focused: holder, moved: false };
  // Taking the focus moves the caret and selection: GTK 3 selects an entry's whole text,
  // a click places the caret where it lands. Where they were is put back after it, so a
  // key aimed at the field acts where its caret and selection were.
  const place = holder.element.flags.includes('editable')
    ? await desktop.textPlace?.(id).catch(() => undefined)
    : undefined;
  const putBack = async (): Promise<void> => {
    if (place) await desktop.setTextPlace?.(id, place).catch(() => false);
  };
  await desktop.focusElement(id).catch(() => undefined);
  if (await poll(check)) {
    await putBack();
    return { focused: holder, moved: true };
  }
  const point = clickPoint(holder.element);
  if (point) {
    // A window over the field (a dialog of the app) would take the click, and close.
    await assertUncovered(desktop, scene.view, holder.element, holder.label, point);
    await desktop.click(point.x, point.y, 'left', 1);
    const focused = await poll(check);
    await putBack();
    if (focused) return { focused: holder, moved: true };
  }
  // A toolkit may say of no element that it has the focus (GTK 4.8's search entry hands
  // its keys to an inner text it leaves out of the tree): a text field just focused in the
  // active window, with nothing else claiming the focus, takes the keys unconfirmed.
  if (holder.element.flags.includes('editable') && (await noneFocused(scene, holder.element))) {
    return { focused: holder, moved: true, unconfirmed: true };
  }
  throw new AxError(
    'action_failed',
    `${target.label} did not take the keyboard focus, so ${consequence}`,
    hint,
  );
}

/** Said of an element taken as focused though its app reports no focus anywhere. */
export const FOCUS_UNCONFIRMED =
  ' (its app reports no element with the keyboard focus, so that it had it is not confirmed)';

/**
 * Whether the window holding `element` is active and no element of the app, walked again,
 * says it has the keyboard focus.
 */
async function noneFocused(scene: Scene, element: Element): Promise<boolean> {
  if (!scene.refresh) return false;
  await scene.refresh().catch(() => undefined);
  const els = scene.view.snapshot.elements;
  if (els.some((e) => e.flags.includes('focused'))) return false;
  let i = els.findIndex((e) => e.id === element.id);
  if (i < 0) return false;
  while (els[i].parent >= 0) i = els[i].parent;
  const win = await scene.desktop.readElement(els[i].id).catch(() => undefined);
  return win?.flags.includes('active') ?? false;
}

/**
 * What takes the focus for `target`: the target itself, or, when it is not focusable and
 * has exactly one focusable descendant (a combo box's entry), that descendant. A window or
 * pane holds many, and none of them is "the" one.
 */
export function focusHolder(scene: Scene, target: ActionTarget): Focused {
  const element = target.element as Element;
  const els = scene.view.snapshot.elements;
  const index = target.index ?? els.indexOf(element);
  if (element.flags.includes('focusable') || index < 0) return { element, label: target.label };
  const parts = descendants(els, index).filter((i) => els[i].flags.includes('focusable'));
  if (parts.length !== 1) return { element, label: target.label };
  return { element: els[parts[0]], label: scene.targetAt(parts[0]).label };
}

/** Indices of the elements below `index` (snapshots list a subtree right after its root). */
function descendants(els: readonly Element[], index: number): number[] {
  const out: number[] = [];
  for (let i = index + 1; i < els.length && els[i].depth > els[index].depth; i++) out.push(i);
  return out;
}

/**
 * Where a click focuses an element without doing anything else: inside a text field, left
 * of its centre (where its text starts, clear of the icons and arrows some keep on the
 * right); undefined for anything else, since a click would press it.
 */
export function clickPoint(el: Element): { x: number; y: number } | undefined {
  const f = el.frame;
  if (!f || f.w <= 0 || f.h <= 0 || !el.flags.includes('editable')) return undefined;
  if (STEPPER_ROLES.has(el.role) || el.flags.includes('multiline')) {
    // A spin button's arrows may sit at its centre; a text area's text starts top left.
    const inset = Math.min(8, Math.floor(f.w / 4));
    return {
      x: f.x + inset,
      y: el.flags.includes('multiline')
        ? f.y + Math.min(8, Math.floor(f.h / 4))
        : f.y + Math.floor(f.h / 2),
    };
  }
  return { x: f.x + Math.floor(f.w / 4), y: f.y + Math.floor(f.h / 2) };
}

/**
 * The element that has the keyboard focus now (the app fronted): the view's focused
 * elements read fresh, else the app walked again. Undefined when none says it has it.
 */
export async function focusedNow(scene: Scene): Promise<Focused | undefined> {
  const find = async (): Promise<Focused | undefined> => {
    const els = scene.view.snapshot.elements;
    for (let i = 0; i < els.length; i++) {
      if (!els[i].flags.includes('focused')) continue;
      if (await scene.desktop.hasFocus(els[i].id).catch(() => false)) {
        return { element: els[i], label: scene.targetAt(i).label };
      }
    }
    return undefined;
  };
  const seen = await find();
  if (seen || !scene.refresh) return seen;
  await scene.refresh();
  return find();
}

/**
 * Reads the element now and returns a function telling whether it has changed since (its
 * states, value, text or name), or is gone: what a key that landed on it shows.
 */
export async function watchFocused(
  scene: Scene,
  element: Element,
): Promise<(() => Promise<boolean>) | undefined> {
  const digest = async (): Promise<string | undefined> => {
    try {
      const now = await scene.desktop.readElement(element.id);
      const text = now.flags.includes('secure')
        ? undefined
        : await scene.desktop.readText(element.id).catch(() => undefined);
      const flags = now.flags.filter((f) => f !== 'visible').sort();
      return JSON.stringify([flags, now.value ?? null, now.name, text ?? null]);
    } catch (err) {
      if (err instanceof PlatformError && err.code === 'element_gone') return undefined;
      throw err;
    }
  };
  const before = await digest().catch(() => 'unreadable');
  if (before === undefined || before === 'unreadable') return undefined;
  return async () => (await digest()) !== before;
}

function poll(check: () => Promise<boolean>): Promise<boolean> {
  return pollFor(check, FOCUS_WAIT_MS, POLL_MS);
}
