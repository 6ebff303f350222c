/**
 * How a field once seen as a password field is known again when its app builds it anew: a
 * web page that turns its password input into a plain one makes Firefox build a new
 * accessible for it (a new element, a new id), and a page that replaces the input by a new
 * one does the same in every browser. What the field was is then told by what identifies
 * it apart from its id: its name (its label), where it is (on screen, and in its window),
 * its parent, and its window. Pure data: no I/O, no platform.
 *
 * The rule errs on secrecy. A field that takes text, in a look at the app where a
 * remembered field is missing, succeeds it when it has
 * - the remembered field's name (not empty), and its parent, its window or its place; or
 * - the remembered field's parent and its place, whatever its name (a page that renames
 *   the field as it shows it).
 * A different field that the app puts there after the password field went (the same label
 * in the same window, or the same spot in the same container) is then a password field too:
 * its text is not read, and safe mode types nothing into it. That is the cost, paid only
 * where a password field was.
 *
 * A web page's DOM id (an object attribute in Gecko) would tell the field too, but a walk
 * reads no object attributes (a call per element for every app); the label, the place and
 * the container tell it in both browsers, which keep them when they build the input anew.
 */
import type { Element, Rect, Snapshot } from './element.js';

/** What identifies a field apart from its id. Never its text. */
export interface FieldTraits {
  /** Its name (label), with any text of the field masked, at most MAX_TRAIT_NAME characters. */
  name?: string;
  /** Where it was on screen. */
  frame?: Rect;
  /** Where it was in its window: its frame less its window's origin. */
  spot?: Rect;
  /** Its parent's id. */
  parent?: string;
  /** Its window's (its top-level ancestor's) id. */
  window?: string;
}

/** A field remembered as a password field: its id, and what identifies it otherwise. */
export interface RememberedField extends FieldTraits {
  id: string;
}

/** Longest name kept: a label, not a paragraph. */
export const MAX_TRAIT_NAME = 120;

/** How much two frames must share to be one place: half their union. */
const SAME_SPOT = 0.5;

/** Whether two frames are the same place: they overlap by at least half of their union. */
export function sameSpot(a: Rect | undefined, b: Rect | undefined): boolean {
  if (!a || !b || a.w <= 0 || a.h <= 0 || b.w <= 0 || b.h <= 0) return false;
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return false;
  const shared = w * h;
  return shared >= SAME_SPOT * (a.w * a.h + b.w * b.h - shared);
}

/** An element that can show a field's text: a text field, or anything editable. */
export function takesText(el: Pick<Element, 'role' | 'flags'>): boolean {
  return el.role === 'AXTextField' || el.role === 'AXTextArea' || el.flags.includes('editable');
}

/** Whether a field with traits `candidate` is the remembered field `gone`, built anew. */
export function succeeds(candidate: FieldTraits, gone: FieldTraits): boolean {
  const named = gone.name !== undefined && gone.name !== '' && candidate.name === gone.name;
  const sameParent = gone.parent !== undefined && candidate.parent === gone.parent;
  const sameWindow = gone.window !== undefined && candidate.window === gone.window;
  const place = sameSpot(candidate.frame, gone.frame) || sameSpot(candidate.spot, gone.spot);
  return named ? sameParent || sameWindow || place : sameParent && place;
}

/** What stands for a field's text in a name that holds it (as the tree shows a secret). */
const TEXT_MASK = '•••';

/**
 * An element's name as a trait, without its text: a toolkit that names a text field by
 * its content would otherwise put the secret in the memory.
 */
export function traitNameOf(el: Pick<Element, 'name' | 'value'>): string | undefined {
  return traitName(el.value ? el.name.split(el.value).join(TEXT_MASK) : el.name);
}

/** A name as a trait: capped, and none when empty. */
export function traitName(name: string): string | undefined {
  const trimmed = name.trim();
  return trimmed === '' ? undefined : trimmed.slice(0, MAX_TRAIT_NAME);
}

/** The traits of element `index` of a walk. */
export function traitsIn(snapshot: Snapshot, index: number): FieldTraits {
  const els = snapshot.elements;
  const el = els[index];
  const out: FieldTraits = {};
  const named = traitNameOf(el);
  if (named !== undefined) out.name = named;
  if (el.frame) out.frame = { ...el.frame };
  if (el.parent >= 0 && els[el.parent]?.id) out.parent = els[el.parent].id;
  let top = index;
  for (let hops = 0; els[top].parent >= 0 && hops < els.length; hops++) top = els[top].parent;
  if (top !== index && els[top].id) {
    out.window = els[top].id;
    const origin = els[top].frame;
    if (el.frame && origin) {
      out.spot = {
        x: el.frame.x - origin.x,
        y: el.frame.y - origin.y,
        w: el.frame.w,
        h: el.frame.h,
      };
    }
  }
  return out;
}

/** Whether two sets of traits say the same (so nothing new needs saving). */
export function sameTraits(a: FieldTraits, b: FieldTraits): boolean {
  const rect = (r?: Rect): string => (r ? `${r.x},${r.y},${r.w},${r.h}` : '');
  return (
    a.name === b.name &&
    a.parent === b.parent &&
    a.window === b.window &&
    rect(a.frame) === rect(b.frame) &&
    rect(a.spot) === rect(b.spot)
  );
}
