/**
 * The one masking rule for every place a call is recorded: the session log, the audit
 * log, the viewer and replay. It walks the arguments whole (nested objects, arrays, the
 * steps of a workflow and their own arguments) and decides by each field's name:
 *
 * - locator fields (which app, which element, how to act) are kept, capped;
 * - key fields (`key`) are kept only when the call succeeded and the key is a
 *   named key that prints nothing (Return, Tab, F5) or a shortcut held with ctrl, alt or
 *   super (ctrl+s); any other key (one printable character, with shift or not, or a name
 *   not known here) may be typed text and is masked like it, and a failed call's key is
 *   withheld with its text (an unknown key name may be a password typed as one);
 * - clipboard contents (what ax_clipboard_write puts there) are never kept, not even with
 *   keepText: docs/session-log-and-viewer.md promises the clipboard's text is never logged;
 * - every other string is content (typed text, a value set or asserted, a script, the
 *   clipboard's text) and is masked. Unknown names count as content: a field added to a
 *   tool is masked until it is named a locator here (test/unit/mask-schemas.test.ts walks
 *   every tool's schema against these lists).
 *
 * A secret call (text typed, set, asserted or keys pressed into a password field) keeps
 * nothing of its content or keys, not even a length; a failed call keeps no content either.
 */

import { escapeText } from '../tree/index.js';

/** What a masked content string becomes. */
export type MaskedText =
  /** Content not kept: its length (session log), or nothing of it (audit log). */
  | { masked: 'text'; length?: number }
  /** Content of a call to a password field: nothing, not even its length. */
  | { masked: 'secret' }
  /** A failed call: its target may have been a password field that the error kept us from knowing. */
  | { masked: 'withheld' }
  /** Clipboard contents: never kept, whatever keepText says. */
  | { masked: 'clipboard' };

export interface MaskOptions {
  /** Keep content strings as given (opt-in replay, never for a secret or failed call). */
  keepText?: boolean;
  /** The call typed into, set or copied from a password field: nothing of its content, nor its keys. */
  secret?: boolean;
  /** The call failed: nothing of its content, not even the length, and never kept. */
  withhold?: boolean;
  /** Keep the length of masked content (default; the session log does, so a replay can say what it skipped). */
  lengths?: boolean;
  /** The content is what goes on the clipboard: never kept, not even its length. */
  clipboard?: boolean;
}

/**
 * Fields that say where and how a call acts, not what it types: kept (capped). A name
 * here is a locator at every depth of every tool's arguments.
 */
export const LOCATOR_FIELDS: ReadonlySet<string> = new Set([
  'app',
  'alias',
  'detail',
  'root',
  'root_query',
  'query',
  'strategy',
  'scope',
  'element',
  'element_types',
  'role',
  'title',
  'titleContains',
  'descriptionContains',
  'ref',
  'click_type',
  'delivery_mode',
  'modifiers',
  'direction',
  'from_ref',
  'from_query',
  'to_ref',
  'to_query',
  'state',
  'command',
  'desktop',
  'rules',
  'language',
  'before',
  'after',
  'prompt',
  // A workflow step's tool and id.
  'tool',
  'id',
]);

/** Key names: kept only as keyKept says (a printable key is a letter of typed text). */
export const KEY_FIELDS: ReadonlySet<string> = new Set(['key']);

/** Tools whose content arguments are the clipboard's text. */
export const CLIPBOARD_TOOLS: ReadonlySet<string> = new Set(['ax_clipboard_write']);

/**
 * Names of keys that print nothing, lower case, as agents write them (see
 * src/tools/keys.ts): whatever else a call names as a key may be text. The X keysyms a
 * Linux server takes are here too: a log is masked the same wherever it is read (the
 * viewer and replay run no backend), so this list is not the running backend's.
 */
const SILENT_KEYS: ReadonlySet<string> = new Set([
  // eslint-disable-next-line axpage/platform-names -- masking must not depend on the platform
  ...['return', 'enter', 'ret', 'kp_enter', 'iso_enter', 'escape', 'esc', 'tab', 'iso_left_tab'],
  ...['backspace', 'bksp', 'delete', 'del', 'forwarddelete', 'insert', 'ins', 'home', 'end'],
  ...['page_up', 'pageup', 'pgup', 'prior', 'page_down', 'pagedown', 'pgdn', 'next'],
  ...['up', 'down', 'left', 'right', 'arrowup', 'arrowdown', 'arrowleft', 'arrowright'],
  ...['menu', 'contextmenu', 'caps_lock', 'capslock', 'print', 'printscreen', 'pause'],
  ...['num_lock', 'numlock', 'scroll_lock', 'scrolllock', 'sys_req', 'break', 'clear'],
  ...['shift_l', 'shift_r', 'control_l', 'control_r', 'alt_l', 'alt_r', 'super_l', 'super_r'],
]);
const FUNCTION_KEY = /^f([1-9]|[12][0-9]|3[0-5])$/i;
/** Modifiers that make a key a command rather than text (shift only changes the letter). */
const COMMAND_MODIFIERS: ReadonlySet<string> = new Set([
  ...['ctrl', 'control', 'ctl', 'alt', 'opt', 'option', 'super', 'cmd', 'command', 'meta', 'win'],
]);

/** "ctrl+s" → its modifiers and its key; a lone "+" and the last "+" of "ctrl++" are the key. */
function splitKey(key: string): { modifiers: string[]; main: string } {
  if (key.length <= 1 || !key.includes('+')) return { modifiers: [], main: key };
  if (key.endsWith('++')) return { modifiers: key.slice(0, -2).split('+'), main: '+' };
  const parts = key.split('+');
  return { modifiers: parts.slice(0, -1), main: parts[parts.length - 1] };
}

/**
 * Whether a key argument may be kept: the call succeeded (a key name it did not know
 * may be a password typed as one), nothing of it went to a password field, and the key
 * prints nothing or is held with a command modifier.
 */
export function keyKept(key: string, modifiers: readonly unknown[], opts: MaskOptions): boolean {
  if (opts.secret || opts.withhold) return false;
  const split = splitKey(key);
  const mods = [...split.modifiers, ...modifiers].map((m) => String(m).toLowerCase());
  if (split.main === '') return false;
  if (mods.some((m) => COMMAND_MODIFIERS.has(m))) return true;
  return SILENT_KEYS.has(split.main.toLowerCase()) || FUNCTION_KEY.test(split.main);
}

/**
 * The fields known to carry content (masked like any unknown one): listed so the schema
 * test can tell a known content field from one nobody has looked at yet.
 */
export const CONTENT_FIELDS: ReadonlySet<string> = new Set([
  'text',
  'value',
  'script',
  'contains_text',
  'valueContains',
]);

/** Arguments that are safe to record, capped. */
export const MAX_ARG_CHARS = 200;

function capped(value: string): string {
  return value.length > MAX_ARG_CHARS ? `${value.slice(0, MAX_ARG_CHARS)}…` : value;
}

export function isMasked(value: unknown): value is MaskedText {
  return (
    typeof value === 'object' &&
    value !== null &&
    'masked' in value &&
    ['text', 'secret', 'withheld', 'clipboard'].includes((value as MaskedText).masked)
  );
}

type FieldKind = 'locator' | 'key' | 'content';

function kindOf(field: string): FieldKind {
  if (LOCATOR_FIELDS.has(field)) return 'locator';
  if (KEY_FIELDS.has(field)) return 'key';
  return 'content';
}

/** A content string as the options keep it. */
function maskedContent(value: string, opts: MaskOptions): string | MaskedText {
  if (opts.secret) return { masked: 'secret' };
  if (opts.withhold) return { masked: 'withheld' };
  if (opts.clipboard) return { masked: 'clipboard' };
  if (opts.keepText) return value;
  return opts.lengths === false ? { masked: 'text' } : { masked: 'text', length: value.length };
}

/**
 * One value under a field of kind `kind`: strings by their kind, numbers and booleans as
 * they are, arrays item by item and objects field by field (each field by its own name).
 * A value already masked stays as it is, unless the call is secret: a log read back
 * (the viewer, replay) is masked by the same rule without giving anything back.
 */
function maskValue(
  value: unknown,
  kind: FieldKind,
  opts: MaskOptions,
  modifiers: readonly unknown[] = [],
): unknown {
  if (isMasked(value)) return opts.secret ? { masked: 'secret' } : value;
  if (typeof value === 'string') {
    if (kind === 'locator') return capped(value);
    if (kind === 'key') {
      return keyKept(value, modifiers, opts) ? capped(value) : maskedContent(value, opts);
    }
    return maskedContent(value, opts);
  }
  if (Array.isArray(value)) return value.map((item) => maskValue(item, kind, opts, modifiers));
  if (typeof value === 'object' && value !== null) {
    return maskFields(value as Record<string, unknown>, opts);
  }
  return value;
}

/** The modifiers a call's key is held with (its sibling `modifiers` field). */
function modifiersOf(fields: Record<string, unknown>): unknown[] {
  return Array.isArray(fields.modifiers) ? fields.modifiers : [];
}

/** A workflow step of a clipboard tool: its arguments are the clipboard's text. */
function clipboardStep(fields: Record<string, unknown>): boolean {
  return typeof fields.tool === 'string' && CLIPBOARD_TOOLS.has(fields.tool);
}

function maskFields(fields: Record<string, unknown>, opts: MaskOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const stepOpts = clipboardStep(fields) ? { ...opts, clipboard: true } : opts;
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    // A number given where text goes (a PIN as a value) is content too.
    const given = CONTENT_FIELDS.has(field) && typeof value === 'number' ? String(value) : value;
    const fieldOpts = field === 'args' ? stepOpts : opts;
    out[field] = maskValue(given, kindOf(field), fieldOpts, modifiersOf(fields));
  }
  return out;
}

/**
 * A call's arguments as a record keeps them (see the module comment). A workflow's steps
 * are walked like any other field: each step's `tool` and `id` are locators, its `args`
 * are the step tool's own arguments, field by field.
 */
export function maskArgs(
  args: Record<string, unknown>,
  opts: MaskOptions = {},
): Record<string, unknown> {
  return maskFields(args, opts);
}

/** Each string of the arguments at any depth with its field's kind and its key's modifiers. */
function walkStrings(
  args: Record<string, unknown>,
  visit: (value: string, kind: FieldKind, modifiers: readonly unknown[]) => void,
): void {
  const walk = (value: unknown, kind: FieldKind, modifiers: readonly unknown[]): void => {
    if (typeof value === 'string') {
      if (value !== '') visit(value, kind, modifiers);
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item, kind, modifiers);
    } else if (typeof value === 'object' && value !== null && !isMasked(value)) {
      const fields = value as Record<string, unknown>;
      for (const [field, v] of Object.entries(fields)) {
        const given = CONTENT_FIELDS.has(field) && typeof v === 'number' ? String(v) : v;
        walk(given, kindOf(field), modifiersOf(fields));
      }
    }
  };
  walk(args, 'locator', []);
}

/**
 * The keys a call's arguments name that a record does not keep (see keyKept, by `opts`):
 * a summary naming the key pressed must not show them either.
 */
export function maskedKeys(
  args: Record<string, unknown>,
  opts: Pick<MaskOptions, 'secret' | 'withhold'> = {},
): string[] {
  const out: string[] = [];
  walkStrings(args, (value, kind, modifiers) => {
    if (kind === 'key' && !keyKept(value, modifiers, opts)) out.push(value);
  });
  return out;
}

/**
 * Every content string of a call's arguments, at any depth (a workflow step's text
 * included), and every key a record does not keep (maskedKeys): what a logged summary
 * must not show either.
 */
export function contentStrings(
  args: Record<string, unknown>,
  opts: Pick<MaskOptions, 'secret' | 'withhold'> = {},
): string[] {
  const out: string[] = [];
  walkStrings(args, (value, kind, modifiers) => {
    if (kind === 'content' || (kind === 'key' && !keyKept(value, modifiers, opts))) out.push(value);
  });
  return out;
}

/** Each masked value of recorded arguments, with the path to it (`steps[1].args.text`). */
export function maskedFields(args: Record<string, unknown>): Array<[string, MaskedText]> {
  const out: Array<[string, MaskedText]> = [];
  const walk = (value: unknown, at: string): void => {
    if (isMasked(value)) out.push([at, value]);
    else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${at}[${i}]`));
    else if (typeof value === 'object' && value !== null) {
      for (const [field, v] of Object.entries(value)) walk(v, at === '' ? field : `${at}.${field}`);
    }
  };
  walk(args, '');
  return out;
}

/** Each string of recorded arguments that was cut to MAX_ARG_CHARS, with its path. */
export function cutFields(args: Record<string, unknown>): string[] {
  const out: string[] = [];
  const walk = (value: unknown, at: string): void => {
    if (typeof value === 'string') {
      if (value.length > MAX_ARG_CHARS && value.endsWith('…')) out.push(at);
    } else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${at}[${i}]`));
    else if (typeof value === 'object' && value !== null && !isMasked(value)) {
      for (const [field, v] of Object.entries(value)) walk(v, at === '' ? field : `${at}.${field}`);
    }
  };
  walk(args, '');
  return out;
}

/** What typed text is replaced by in a logged summary. */
export const TYPED_MASK = '(typed text)';
/** Shorter typed text is masked only inside quoted values, not in running text. */
export const MIN_MASK_ANYWHERE = 3;
const QUOTED = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g;

/**
 * The summary as the session log keeps it. A secret call (password field): nothing. Else
 * each of `typed` is masked wherever the summary shows it: as typed, as escaped in a
 * quoted value, and as a cut piece of it (a long value is shown cut, ending or starting
 * with `…`).
 */
export function loggedSummary(
  text: string,
  typed: readonly string[],
  opts: { secret: boolean; keys?: readonly string[] },
): string | undefined {
  if (opts.secret) return undefined;
  let out = text;
  // A key not kept is masked wherever it stands as a word ("Pressed x."), short or not:
  // a key press summary names its key outside quotes.
  for (const key of opts.keys ?? []) {
    const main = splitKey(key).main;
    for (const k of new Set([key, main])) {
      if (k === '') continue;
      const word = new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(k)}(?![\\p{L}\\p{N}_])`, 'gu');
      out = out.replace(word, TYPED_MASK);
    }
  }
  for (const t of typed) {
    if (t === '') continue;
    const forms = [...new Set([t, escapeText(t, '"'), escapeText(t, "'"), escapeText(t, '')])];
    const short = charCount(t) < MIN_MASK_ANYWHERE;
    if (!short) for (const form of forms) out = out.split(form).join(TYPED_MASK);
    out = out.replace(QUOTED, (whole: string, dq?: string, sq?: string) => {
      const inner = dq ?? sq ?? '';
      return showsTyped(inner, forms, short) ? whole[0] + TYPED_MASK + whole[0] : whole;
    });
  }
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function charCount(text: string): number {
  return [...text].length;
}

/**
 * A quoted value that still shows the typed text once its whole occurrences are masked.
 * A short text (a letter or two) counts only as the value or its end (typing appends at
 * the caret), so it does not mask every label that has the letter. A long one counts
 * when the value is cut (`…`) and its piece next to the cut is part of the typed text.
 */
function showsTyped(inner: string, forms: readonly string[], short: boolean): boolean {
  if (inner === '') return false;
  if (short) return forms.some((f) => inner === f || inner.endsWith(f));
  const cutStart = inner.startsWith('…');
  const cutEnd = inner.endsWith('…');
  const parts = inner.replace(/^…/, '').replace(/…$/, '').split(TYPED_MASK);
  const partOfTyped = (piece: string) =>
    charCount(piece) >= MIN_MASK_ANYWHERE && forms.some((f) => f.includes(piece));
  return (cutEnd && partOfTyped(parts[parts.length - 1])) || (cutStart && partOfTyped(parts[0]));
}
