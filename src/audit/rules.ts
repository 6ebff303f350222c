/**
 * The accessibility rule set: each rule an id, a title, the WCAG success criteria it
 * stands for, a severity and a check over a presented snapshot (and, for contrast, the
 * screenshot's pixels). docs/a11y-rules.md explains every rule and its known false
 * positives; keep the two in step.
 */
import type { Element, Rect } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import { CONTROL_ROLES, TEXT_ROLES } from '../model/roles.js';
import { estimateContrast, hexOf, type Pixels } from './contrast.js';

export const RULE_IDS = [
  'control-name',
  'image-alt',
  'keyboard',
  'duplicate-name',
  'contrast',
  'target-size',
] as const;
export type RuleId = (typeof RULE_IDS)[number];

export type Severity = 'error' | 'warning';

export interface WcagRef {
  /** Success criterion number, e.g. "4.1.2". */
  sc: string;
  name: string;
  level: 'A' | 'AA';
}

/**
 * The screenshot the call took, as pixels, and the screen point of its top-left pixel;
 * one pixel per point, as the Linux capture is (a scaled capture would need its scale).
 */
export interface ShotPixels {
  image: Pixels;
  origin: { x: number; y: number };
}

export interface AuditContext {
  view: SnapshotView;
  /** Absent when there is no screenshot (off, or the capture failed). */
  shot?: ShotPixels;
}

/** One element that breaks a rule; `index` is its place in the view's elements. */
export interface Finding {
  rule: RuleId;
  index: number;
  detail: string;
}

export interface Rule {
  id: RuleId;
  title: string;
  wcag: WcagRef[];
  severity: Severity;
  /** Why the rule could not run at all (e.g. no screenshot), or undefined. */
  unavailable?: (ctx: AuditContext) => string | undefined;
  check: (ctx: AuditContext) => Array<Omit<Finding, 'rule'>>;
}

/** WCAG 2.5.8 Target Size (Minimum): 24 by 24 CSS pixels (one screen point here). */
export const MIN_TARGET = 24;
/** WCAG 1.4.3 Contrast (Minimum) for normal-size text. */
export const MIN_CONTRAST = 4.5;
/** Smaller text regions than this (points) hold too few pixels to judge a contrast. */
const MIN_TEXT_REGION = { w: 6, h: 8 };

/**
 * Controls a keyboard user must be able to reach with Tab: every control but those reached
 * with arrows or through a parent (menu items, tabs, parts of a date field or a stepper).
 */
const NOT_TAB_STOPS = new Set([
  'AXDateField',
  'AXStepper',
  'AXColorWell',
  'AXDisclosureTriangle',
  'AXTab',
  'AXMenuItem',
  'AXMenuBarItem',
]);
const TAB_STOP_ROLES: ReadonlySet<string> = new Set(
  [...CONTROL_ROLES].filter((role) => !NOT_TAB_STOPS.has(role)),
);

const nameOf = (el: Element): string => el.name.trim();
const disabled = (el: Element): boolean => el.flags.includes('disabled');
const hasArea = (f: Rect | undefined): f is Rect => f !== undefined && f.w > 0 && f.h > 0;

/** The nearest ancestor that is a control, if any (a part of a composite widget). */
function controlAncestor(els: readonly Element[], i: number): Element | undefined {
  for (let p = els[i].parent; p >= 0; p = els[p].parent) {
    if (CONTROL_ROLES.has(els[p].role)) return els[p];
  }
  return undefined;
}

/** Whether an element below `i` (its subtree follows it in tree order) takes focus. */
function hasFocusableDescendant(els: readonly Element[], i: number): boolean {
  const depth = els[i].depth;
  for (let j = i + 1; j < els.length && els[j].depth > depth; j++) {
    if (els[j].flags.includes('focusable')) return true;
  }
  return false;
}

function indicesWhere(view: SnapshotView, test: (el: Element, i: number) => boolean): number[] {
  const out: number[] = [];
  view.snapshot.elements.forEach((el, i) => {
    if (test(el, i)) out.push(i);
  });
  return out;
}

const controlName: Rule = {
  id: 'control-name',
  title: 'Controls have an accessible name',
  wcag: [{ sc: '4.1.2', name: 'Name, Role, Value', level: 'A' }],
  severity: 'error',
  check: ({ view }) =>
    indicesWhere(view, (el) => CONTROL_ROLES.has(el.role) && nameOf(el) === '').map((index) => {
      const el = view.snapshot.elements[index];
      const description = el.description?.trim();
      return {
        index,
        detail: description ? `no name (a description "${description}" is not a name)` : 'no name',
      };
    }),
};

const imageAlt: Rule = {
  id: 'image-alt',
  title: 'Images have a text alternative',
  wcag: [{ sc: '1.1.1', name: 'Non-text Content', level: 'A' }],
  severity: 'warning',
  check: ({ view }) => {
    const els = view.snapshot.elements;
    return indicesWhere(
      view,
      (el, i) =>
        el.role === 'AXImage' &&
        nameOf(el) === '' &&
        !el.description?.trim() &&
        hasArea(el.frame) &&
        // An icon inside a named control is part of it: the control's name covers it.
        !(controlAncestor(els, i)?.name.trim() ?? ''),
    ).map((index) => ({ index, detail: 'no name or description' }));
  },
};

const keyboard: Rule = {
  id: 'keyboard',
  title: 'Controls can take the keyboard focus',
  wcag: [{ sc: '2.1.1', name: 'Keyboard', level: 'A' }],
  severity: 'warning',
  check: ({ view }) => {
    const els = view.snapshot.elements;
    return indicesWhere(
      view,
      (el, i) =>
        TAB_STOP_ROLES.has(el.role) &&
        !disabled(el) &&
        !el.flags.includes('focusable') &&
        (el.actions.length > 0 || el.flags.includes('editable')) &&
        // Parts of a composite (a combo box's button) are reached through the whole, and
        // a whole through a focusable part.
        controlAncestor(els, i) === undefined &&
        !hasFocusableDescendant(els, i),
    ).map((index) => ({ index, detail: 'operable but not focusable' }));
  },
};

const duplicateName: Rule = {
  id: 'duplicate-name',
  title: 'Sibling controls have distinct names',
  wcag: [
    { sc: '2.4.6', name: 'Headings and Labels', level: 'AA' },
    { sc: '1.3.1', name: 'Info and Relationships', level: 'A' },
  ],
  severity: 'warning',
  check: ({ view }) => {
    const els = view.snapshot.elements;
    const first = new Map<string, number>();
    const out: Array<Omit<Finding, 'rule'>> = [];
    els.forEach((el, i) => {
      const name = nameOf(el).toLowerCase();
      if (!CONTROL_ROLES.has(el.role) || name === '') return;
      const key = `${el.parent}\u0000${el.role}\u0000${name}`;
      const earlier = first.get(key);
      if (earlier === undefined) first.set(key, i);
      else out.push({ index: i, detail: `same role and name as sibling ${view.refs[earlier]}` });
    });
    return out;
  },
};

const contrast: Rule = {
  id: 'contrast',
  title: 'Text has enough contrast (estimated from the screenshot)',
  wcag: [{ sc: '1.4.3', name: 'Contrast (Minimum)', level: 'AA' }],
  severity: 'error',
  unavailable: ({ shot }) => (shot ? undefined : 'no screenshot to sample'),
  check: ({ view, shot }) => {
    if (!shot) return [];
    const out: Array<Omit<Finding, 'rule'>> = [];
    view.snapshot.elements.forEach((el, index) => {
      const f = el.frame;
      if (
        !TEXT_ROLES.has(el.role) ||
        nameOf(el) === '' ||
        !view.visible[index] ||
        disabled(el) ||
        el.flags.includes('secure') ||
        !f ||
        f.w < MIN_TEXT_REGION.w ||
        f.h < MIN_TEXT_REGION.h
      ) {
        return;
      }
      const rect = { x: f.x - shot.origin.x, y: f.y - shot.origin.y, w: f.w, h: f.h };
      // Judge only what the screenshot shows whole: a clipped label may lose its text.
      if (
        rect.x < 0 ||
        rect.y < 0 ||
        rect.x + rect.w > shot.image.width ||
        rect.y + rect.h > shot.image.height
      ) {
        return;
      }
      const estimate = estimateContrast(shot.image, rect);
      if (!estimate || estimate.ratio >= MIN_CONTRAST) return;
      out.push({
        index,
        detail: `~${estimate.ratio.toFixed(2)}:1 (${hexOf(estimate.foreground)} on ${hexOf(estimate.background)}), needs ${MIN_CONTRAST}:1 (estimate)`,
      });
    });
    return out;
  },
};

/**
 * The spacing exception of 2.5.8: a 24-point circle centred on the small target meets no
 * other target, and no other small target's circle. `others` are every target's frames,
 * the target's own among them (it contains itself and is skipped like its parts).
 */
function spacedEnough(target: Rect, others: readonly Rect[]): boolean {
  const r = MIN_TARGET / 2;
  const cx = target.x + target.w / 2;
  const cy = target.y + target.h / 2;
  for (const o of others) {
    // Cheap first: a target more than a diameter away in x or y cannot be in reach.
    if (o.x > cx + 2 * r || o.x + o.w < cx - 2 * r || o.y > cy + 2 * r || o.y + o.h < cy - 2 * r) {
      continue;
    }
    // The control's own parts and the control it is part of are not "other" targets.
    if (contains(o, target) || contains(target, o)) continue;
    if (o.w < MIN_TARGET || o.h < MIN_TARGET) {
      const ox = o.x + o.w / 2;
      const oy = o.y + o.h / 2;
      if (Math.hypot(cx - ox, cy - oy) < 2 * r) return false;
    }
    const nx = Math.max(o.x, Math.min(cx, o.x + o.w));
    const ny = Math.max(o.y, Math.min(cy, o.y + o.h));
    if (Math.hypot(cx - nx, cy - ny) < r) return false;
  }
  return true;
}

const targetSize: Rule = {
  id: 'target-size',
  title: 'Targets are at least 24 by 24 points, or spaced apart',
  wcag: [{ sc: '2.5.8', name: 'Target Size (Minimum)', level: 'AA' }],
  severity: 'warning',
  check: ({ view }) => {
    const els = view.snapshot.elements;
    const targets = indicesWhere(
      view,
      (el, i) =>
        CONTROL_ROLES.has(el.role) &&
        view.visible[i] &&
        !disabled(el) &&
        hasArea(el.frame) &&
        // An inline link in text is exempt (its size is the text's).
        !(el.role === 'AXLink' && el.parent >= 0 && TEXT_ROLES.has(els[el.parent].role)),
    );
    const frames = targets.map((i) => els[i].frame as Rect);
    return targets
      .filter((i, k) => {
        const f = frames[k];
        return (f.w < MIN_TARGET || f.h < MIN_TARGET) && !spacedEnough(f, frames);
      })
      .map((index) => {
        const f = els[index].frame as Rect;
        return {
          index,
          detail: `${f.w}x${f.h} points, under ${MIN_TARGET}x${MIN_TARGET} and too close to other targets`,
        };
      });
  },
};

/** Whether `outer` contains `inner` (a control's own parts or its container control). */
function contains(outer: Rect, inner: Rect): boolean {
  return (
    inner.x >= outer.x &&
    inner.y >= outer.y &&
    inner.x + inner.w <= outer.x + outer.w &&
    inner.y + inner.h <= outer.y + outer.h
  );
}

export const RULES: readonly Rule[] = [
  controlName,
  imageAlt,
  keyboard,
  duplicateName,
  contrast,
  targetSize,
];
