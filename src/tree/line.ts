/**
 * One element as one line of the tree file:
 *
 *   [AXTextField (text)] "Name" value:"Hello" desc:"Your name" e12 x:10 y:20 w:200 h:24 visible enabled focused id:name-entry
 *
 * Order: role, text, ref, frame, flags, then optional id/actions/children. Every value
 * is escaped so the element stays on one line, and long text is cut with `…` and its
 * full length noted, so nothing is cut silently.
 */
import type { Element, Flag, Rect } from '../model/element.js';
import { FLAG_ORDER } from '../model/element.js';
import { isInteractiveRole } from '../model/roles.js';
import { SECURE_MASK, clipText, escapeText } from './text.js';

/** Default cap for each text value in the tree file (code points). */
export const TREE_TEXT_CHARS = 200;

export interface LineOptions {
  /** Cap for each of name/value/description (code points); default TREE_TEXT_CHARS. */
  maxTextChars?: number;
  /** Children the walk actually produced; `children:walked/reported` appears when fewer. */
  walkedChildren?: number;
}

/**
 * The texts of an element as shown to a reader, raw (unescaped), secure values masked.
 *
 * Rule: the primary text is the name; when the name is empty, the value (unless
 * secure), else the description. `value` is shown separately when it is set, differs
 * from the name and is not already the primary text. `description` likewise when it
 * differs from both. A secure element always shows its value as `•••`, and a name or
 * description that contains a value a backend leaked is masked too.
 */
export interface ElementTexts {
  primary: string;
  value?: string;
  description?: string;
}

export function isSecure(el: Element): boolean {
  return el.flags.includes('secure');
}

/** Replaces a leaked secret inside another text of a secure element. */
export function maskLeak(text: string, secret: string | undefined): string {
  if (!secret) return text;
  return text.split(secret).join(SECURE_MASK);
}

export function elementTexts(el: Element): ElementTexts {
  const secure = isSecure(el);
  const name = secure ? maskLeak(el.name ?? '', el.value) : (el.name ?? '');
  const rawDesc = el.description ?? '';
  const description = secure ? maskLeak(rawDesc, el.value) : rawDesc;
  const value = secure ? SECURE_MASK : (el.value ?? '');
  const out: ElementTexts = { primary: '' };
  let valueUsed = false;
  let descUsed = false;
  if (name !== '') out.primary = name;
  else if (value !== '' && !secure) {
    out.primary = value;
    valueUsed = true;
  } else if (description !== '') {
    out.primary = description;
    descUsed = true;
  }
  if (!valueUsed && (secure || (value !== '' && value !== name))) out.value = value;
  if (!descUsed && description !== '' && description !== name && description !== value) {
    out.description = description;
  }
  return out;
}

/** The one text a short listing shows (summary, diff `~` lines): primary, else value. */
export function primaryText(el: Element): string {
  const t = elementTexts(el);
  return t.primary !== '' ? t.primary : (t.value ?? '');
}

/** `"text"` plus ` (N chars)` when cut. */
function quoted(text: string, max: number): string {
  const c = clipText(text, max, '"');
  return c.cut ? `"${c.text}" (${c.length} chars)` : `"${c.text}"`;
}

/** `[AXButton (push button)]`, or `[AXButton]` when the native role says nothing more. */
export function roleLabel(el: Element): string {
  const role = escapeText(el.role || 'AXUnknown', '');
  const native = el.nativeRole ?? '';
  if (native === '' || native === el.role) return `[${role}]`;
  return `[${role} (${escapeText(native, '')})]`;
}

/** A frame with finite numbers, or undefined. */
export function validFrame(frame: Rect | undefined): Rect | undefined {
  if (!frame) return undefined;
  const { x, y, w, h } = frame;
  return Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(w) && Number.isFinite(h)
    ? frame
    : undefined;
}

/** Rounds for display; never prints "-0". */
export function round(n: number): number {
  const r = Math.round(n);
  return r === 0 ? 0 : r;
}

export function frameTokens(frame: Rect | undefined): string {
  const f = validFrame(frame);
  if (!f) return '';
  return `x:${round(f.x)} y:${round(f.y)} w:${round(f.w)} h:${round(f.h)}`;
}

/** Flags in FLAG_ORDER, deduplicated; `visible` comes from the viewport, not the element. */
export function orderedFlags(flags: readonly Flag[], visible: boolean): Flag[] {
  // One pass over the fixed order: an element has a handful of flags, and this runs for
  // every line of every tree file.
  const out: Flag[] = [];
  for (const f of FLAG_ORDER) if (f === 'visible' ? visible : flags.includes(f)) out.push(f);
  return out;
}

const BARE_TOKEN = /^[A-Za-z0-9_.,:/#@+-]+$/;

/** `key:value`, quoting the value when it has spaces or anything unusual. */
function keyToken(key: string, value: string, max: number): string {
  if (value.length <= max && BARE_TOKEN.test(value)) return `${key}:${value}`;
  return `${key}:${quoted(value, max)}`;
}

/**
 * The element line without indentation or diff prefix. Actions are listed only for
 * roles that are not interactive already (a clickable cell-less group, a pressable
 * static text): for a button "click" says nothing, for a group it is the news, and
 * `grep actions:` then finds every unexpected target.
 */
export function formatElementLine(
  el: Element,
  ref: string,
  visible: boolean,
  opts: LineOptions = {},
): string {
  const max = opts.maxTextChars ?? TREE_TEXT_CHARS;
  const parts: string[] = [roleLabel(el)];
  const texts = elementTexts(el);
  parts.push(quoted(texts.primary, max));
  if (texts.value !== undefined) parts.push(`value:${quoted(texts.value, max)}`);
  if (texts.description !== undefined) parts.push(`desc:${quoted(texts.description, max)}`);
  if (ref) parts.push(escapeText(ref, ''));
  const frame = frameTokens(el.frame);
  if (frame) parts.push(frame);
  parts.push(...orderedFlags(el.flags, visible));
  if (el.identifier) parts.push(keyToken('id', el.identifier, 80));
  if (el.actions.length > 0 && !isInteractiveRole(el.role)) {
    const names = [...new Set(el.actions)].filter((a) => a !== '');
    if (names.length > 0) parts.push(keyToken('actions', names.join(','), 80));
  }
  if (opts.walkedChildren !== undefined && opts.walkedChildren < el.childCount) {
    parts.push(`children:${opts.walkedChildren}/${el.childCount}`);
  }
  return parts.join(' ');
}

/** Short form for diff `~` lines: role, primary text and ref. */
export function formatElementHead(
  el: Element,
  ref: string,
  maxTextChars = TREE_TEXT_CHARS,
): string {
  const parts = [roleLabel(el), quoted(primaryText(el), maxTextChars)];
  if (ref) parts.push(escapeText(ref, ''));
  return parts.join(' ');
}
