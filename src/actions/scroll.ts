/**
 * Scrolling: the scroll bar's value moved through accessibility in the background, wheel
 * events over the area in the foreground.
 */
import type { SnapshotView } from '../model/view.js';
import { AxError } from '../errors.js';
import { backgroundImpossible } from './escalation.js';
import { fronted } from './front.js';
import { scrollActionName, scrollActionTarget } from './scroll-actions.js';
import type { ActionTarget, Delivered, Delivery, Reading, Scene } from './types.js';

export type Direction = 'up' | 'down' | 'left' | 'right';

export interface ScrollRequest {
  target?: ActionTarget;
  direction: Direction;
  /** Pixels. */
  amount: number;
  mode?: Delivery;
}

export async function deliverScroll(scene: Scene, req: ScrollRequest): Promise<Delivered> {
  const { desktop, view } = scene;
  const vertical = req.direction === 'up' || req.direction === 'down';
  const sign = req.direction === 'down' || req.direction === 'right' ? 1 : -1;
  const area = scrollAreaFor(view, req.target?.index);
  const areaLabel =
    area !== undefined ? `[${view.snapshot.elements[area].role}] ${view.refs[area]}` : 'the window';
  if (req.mode !== 'foreground') {
    const bar = area !== undefined ? scrollBarOf(view, area, vertical) : undefined;
    const byAction =
      bar === undefined ? scrollActionTarget(view, req.target?.index, req.direction) : undefined;
    if (bar === undefined && byAction !== undefined) {
      const el = view.snapshot.elements[byAction];
      await desktop.doAction(el.id, scrollActionName(req.direction));
      return {
        did: `Scrolled [${el.role}] ${view.refs[byAction]} ${req.direction} by a page (its '${scrollActionName(req.direction)}' action)`,
        route: 'ax',
        delivery: 'background',
      };
    }
    if (bar === undefined) {
      throw backgroundImpossible(
        'scroll',
        `no scroll bar with a value was found for ${areaLabel}`,
        req.target ? undefined : 'Name the scroll area (ref or query)',
      );
    }
    const el = view.snapshot.elements[bar];
    const range = await desktop.readValue(el.id);
    const next = Math.min(range.max, Math.max(range.min, range.value + sign * req.amount));
    if (next !== range.value) await desktop.setValue(el.id, next);
    const moved = Math.round(Math.abs(next - range.value));
    // Qt's scroll bars count lines or items: "by 40 px" would misstate how far it went.
    const unit = range.steps ? 'steps' : 'px';
    return {
      did:
        next === range.value
          ? `Did not scroll ${areaLabel} ${req.direction}: it is already at the ${sign > 0 ? 'end' : 'start'} (scroll bar ${Math.round(range.value)} of ${Math.round(range.max)})`
          : `Scrolled ${areaLabel} ${req.direction} by ${moved} ${unit} (scroll bar ${Math.round(range.value)} -> ${Math.round(next)} of ${Math.round(range.max)})`,
      route: 'ax',
      delivery: 'background',
      probe:
        next === range.value
          ? undefined
          : async () =>
              Math.abs((await desktop.readValue(el.id)).value - next) < 0.5 ? 'landed' : 'absent',
      // At the end already: there is nothing further to scroll, in either mode.
      escalate: next !== range.value,
    };
  }
  // A wheel scrolls the innermost scrollable under the pointer: over the element named
  // when it scrolls its own content (a web page's list), not over the page around it.
  const inner = innerScroller(view, req.target?.index, area);
  const over = inner ?? area;
  const overLabel =
    inner !== undefined ? `[${view.snapshot.elements[inner].role}] ${view.refs[inner]}` : areaLabel;
  const frame =
    inner !== undefined
      ? shownPart(view.snapshot.elements[inner].frame, area, view)
      : area !== undefined
        ? view.snapshot.elements[area].frame
        : view.viewport;
  if (!frame) {
    throw new AxError(
      'action_failed',
      'the scroll target has no position on screen',
      'Name another element',
    );
  }
  const x = Math.round(frame.x + frame.w / 2);
  const y = Math.round(frame.y + frame.h / 2);
  // The amount is rounded to the wheel steps of the platform's toolkits.
  const steps = Math.max(1, Math.round(req.amount / desktop.traits.wheelStepPx));
  const samples = contentSamples(view, over, frame, sign > 0);
  const { restore } = await fronted(scene, () =>
    desktop.scroll(x, y, vertical ? 0 : sign * steps, vertical ? sign * steps : 0),
  );
  return {
    // The wheel steps were sent; whether the content moved is the probe's to say.
    did: `Sent ${steps} wheel steps ${req.direction} over ${overLabel} at (${x},${y})`,
    route: scene.desktop.inputRoute,
    delivery: 'foreground',
    restore,
    probe: samples.length > 0 ? () => contentMoved(desktop, samples) : undefined,
  };
}

/**
 * The innermost element from `index` up to (not including) the scroll area `area` that
 * scrolls its own content: one whose children reach beyond its frame, above or below, with
 * no scroll bar the tree shows (Gecko keeps a scrolling <div>'s bars out of it).
 */
function innerScroller(
  view: SnapshotView,
  index: number | undefined,
  area: number | undefined,
): number | undefined {
  const els = view.snapshot.elements;
  for (let i = index; i !== undefined && i >= 0 && i !== area;) {
    if (clipsContent(view, i)) return i;
    i = els[i].parent >= 0 ? els[i].parent : undefined;
  }
  return undefined;
}

function clipsContent(view: SnapshotView, index: number): boolean {
  const els = view.snapshot.elements;
  const f = els[index].frame;
  if (!f || f.w <= 0 || f.h <= 0 || !view.visible[index]) return false;
  for (let i = index + 1; i < els.length && els[i].depth > els[index].depth; i++) {
    const c = els[i].frame;
    if (els[i].depth !== els[index].depth + 1 || !c || c.w <= 0 || c.h <= 0) continue;
    if (c.x + c.w <= f.x || c.x >= f.x + f.w) continue;
    if (c.y + c.h > f.y + f.h + 1 || c.y < f.y - 1) return true;
  }
  return false;
}

/** The part of `frame` inside the scroll area around it (what shows of it). */
function shownPart(
  frame: { x: number; y: number; w: number; h: number } | undefined,
  area: number | undefined,
  view: SnapshotView,
): { x: number; y: number; w: number; h: number } | undefined {
  const outer = area !== undefined ? view.snapshot.elements[area].frame : view.viewport;
  if (!frame || !outer) return frame;
  const x = Math.max(frame.x, outer.x);
  const y = Math.max(frame.y, outer.y);
  const w = Math.min(frame.x + frame.w, outer.x + outer.w) - x;
  const h = Math.min(frame.y + frame.h, outer.y + outer.h) - y;
  return w > 0 && h > 0 ? { x, y, w, h } : frame;
}

interface Sample {
  id: string;
  x: number;
  y: number;
}

/**
 * Up to three leaf elements shown inside the scroll area, the last ones in tree order for
 * a scroll down or right (the first ones up or left): those stay in view as the content
 * moves, unless it moves further than a page. Containers and bars as tall as the area do
 * not move with its content.
 */
function contentSamples(
  view: SnapshotView,
  area: number | undefined,
  frame: { x: number; y: number; w: number; h: number },
  forward: boolean,
): Sample[] {
  if (area === undefined) return [];
  const els = view.snapshot.elements;
  const inside: Sample[] = [];
  for (let i = area + 1; i < els.length && els[i].depth > els[area].depth; i++) {
    const f = els[i].frame;
    if (!view.visible[i] || !f || els[i].childCount > 0 || f.w <= 0 || f.h <= 0) continue;
    if (f.h * 2 > frame.h) continue;
    if (f.y < frame.y || f.y + f.h > frame.y + frame.h || f.x < frame.x) continue;
    inside.push({ id: els[i].id, x: f.x, y: f.y });
  }
  return forward ? inside.slice(-3) : inside.slice(0, 3);
}

/**
 * Whether the content moved, by the samples' positions read fresh: 'landed' when one
 * moved, 'unreadable' when none could be read (a list may drop the widgets it scrolled
 * away), else 'absent'.
 */
async function contentMoved(desktop: Scene['desktop'], samples: Sample[]): Promise<Reading> {
  let read = 0;
  for (const s of samples) {
    const f = await desktop
      .readElement(s.id)
      .then((e) => e.frame)
      .catch(() => undefined);
    if (!f) continue;
    read++;
    if (Math.abs(f.x - s.x) >= 1 || Math.abs(f.y - s.y) >= 1) return 'landed';
  }
  return read === 0 ? 'unreadable' : 'absent';
}

function scrollAreaFor(view: SnapshotView, index: number | undefined): number | undefined {
  const els = view.snapshot.elements;
  for (
    let i = index;
    i !== undefined && i >= 0;
    i = els[i].parent >= 0 ? els[i].parent : undefined
  ) {
    if (els[i].role === 'AXScrollArea' || ownsScrollBar(view, i)) return i;
  }
  if (index !== undefined) {
    // The target itself may contain the scroll area (e.g. a list's container).
    for (let i = index + 1; i < els.length && els[i].depth > els[index].depth; i++) {
      if (els[i].role === 'AXScrollArea') return i;
    }
    // None the tree shows (a Qt list keeps its scroll bar out of it): the wheel goes over
    // the element named, never elsewhere in the window.
    return index;
  }
  let best: number | undefined;
  let bestArea = 0;
  els.forEach((el, i) => {
    if (!(el.role === 'AXScrollArea' || ownsScrollBar(view, i)) || !view.visible[i] || !el.frame)
      return;
    const area = el.frame.w * el.frame.h;
    if (area > bestArea) {
      bestArea = area;
      best = i;
    }
  });
  return best;
}

/**
 * A scrollable element that is no scroll area: Qt's text edits and views carry their own
 * scroll bars (in a container child) and no AXScrollArea around them.
 */
function ownsScrollBar(view: SnapshotView, index: number): boolean {
  const els = view.snapshot.elements;
  const el = els[index];
  if (el.role === 'AXScrollBar' || el.role === 'AXWindow') return false;
  for (let i = index + 1; i < els.length && els[i].depth > el.depth; i++) {
    if (els[i].depth <= el.depth + 2 && els[i].role === 'AXScrollBar' && els[i].frame) return true;
  }
  return false;
}

function scrollBarOf(view: SnapshotView, area: number, vertical: boolean): number | undefined {
  const els = view.snapshot.elements;
  for (let i = area + 1; i < els.length && els[i].depth > els[area].depth; i++) {
    const el = els[i];
    // A bar the walk read no value from has no Value interface (GTK 4.8's): nothing to set.
    if (el.role !== 'AXScrollBar' || !el.frame || el.value === undefined) continue;
    const isVertical = el.frame.h >= el.frame.w;
    if (isVertical === vertical) return i;
  }
  return undefined;
}
