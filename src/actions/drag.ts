/** Dragging with a real pointer from one element or point to another, the app fronted. */
import { elementAt, requirePoint } from './click.js';
import { assertNoMenuAway, assertUncovered } from './covering.js';
import { guardPress, guardTarget } from './password-guard.js';
import { fronted } from './front.js';
import { watchElement } from './read-back.js';
import type { ActionTarget, Delivered, Scene } from './types.js';
import { assertEnabled, assertOnScreen } from './validate.js';

export interface DragRequest {
  from: ActionTarget;
  to: ActionTarget;
  durationMs: number;
  /** The call's: a cancelled or timed-out call lets the button go at once. */
  signal?: AbortSignal;
}

export async function deliverDrag(scene: Scene, req: DragRequest): Promise<Delivered> {
  const { desktop } = scene;
  assertEnabled(req.from);
  const start = requirePoint(req.from);
  const end = requirePoint(req.to);
  await assertOnScreen(desktop, start);
  await assertOnScreen(desktop, end);
  // A drag that starts on a toggle presses it; one that ends on a field drops text in it.
  const startsOn = req.from.element ?? elementAt(scene.view, start);
  const endsOn = req.to.element ?? elementAt(scene.view, end);
  guardPress(scene, startsOn, req.from.label, 'pointer');
  // A drop on a password field is refused as input into it, before it counts as a press.
  if (endsOn) await guardTarget(scene, { ...req.to, element: endsOn });
  guardPress(scene, endsOn, req.to.label, 'pointer');
  const touched = req.from.element ? await watchElement(desktop, req.from.element.id) : undefined;
  const { restore } = await fronted(scene, async () => {
    // With the app in front: a window over either end (a dialog of the app, a menu left
    // open) would take the press or the drop.
    if (req.from.element) {
      await assertUncovered(desktop, scene.view, req.from.element, req.from.label, start);
    } else await assertNoMenuAway(desktop, scene.view, req.from.label, start);
    if (req.to.element)
      await assertUncovered(desktop, scene.view, req.to.element, req.to.label, end);
    await scene.transfers?.beforeDrag(startsOn, endsOn, end);
    await desktop.drag(start, end, req.durationMs, req.signal);
  });
  return {
    did: `Dragged from ${req.from.label} to ${req.to.element ? req.to.label : `(${end.x},${end.y})`}`,
    route: scene.desktop.inputRoute,
    delivery: 'foreground',
    restore,
    touched,
  };
}
