/**
 * Safe mode's guard on password fields, whatever route the input takes: text typed or set
 * into a field, keys and pastes sent to whatever has the focus, a click followed by text,
 * a drop on a field, and the reveal controls that would put a field's text in plain view
 * (isRevealToggle: it errs on the side of refusing, since a control it fails to recognise
 * leaves the text in plain view for every later read). The decision is made from the
 * element that will receive the input, read as the input is about to go (the focus after
 * the window was fronted), never from the tool that sends it. A refusal comes before
 * anything is sent.
 *
 * Keys that reach a password field: those that move the focus, the caret or the selection
 * (Tab, arrows, Home, End, Page keys, not the keypad's, which type digits under Num Lock),
 * Escape and Return, alone or with Shift or Ctrl. Every other key may type, delete, paste
 * (Ctrl+V, Shift+Insert) or run a shortcut that inserts text, and is refused. A reveal
 * toggle with the focus takes no Space or Return. (Keys that click the pointer are sent by
 * no tool, in any mode: validate.ts.)
 *
 * Text is typed key by key, and a character the platform types as a key that moves the
 * focus (Tab) would send the rest of the text wherever the focus goes: into a password
 * field, or a Space onto a reveal toggle, after every check on the field named. Such text
 * is refused whole before anything is sent (see guardTextKeys).
 */
import type { Element } from '../model/element.js';
import { pollFor, scaledByLoad } from '../model/timeout.js';
import type { KeyCombo, KeyKind } from '../platform/desktop.js';
import { AxError, PlatformError } from '../errors.js';
import type { ActionTarget, Scene } from './types.js';
import { editCommand } from './edit-commands.js';

/** What safe mode gives the delivery functions; absent when input may reach password fields. */
export interface PasswordGuard {
  /** Whether an element is a password field: the one predicate every route asks. */
  isPasswordField(element: Element): boolean;
  /** The policy's refusal of input into the password field `label`. */
  refusal(label: string): AxError;
  /** The text field of the app that had the keyboard focus last (a menu takes it meanwhile). */
  lastField?(): Pick<Element, 'id' | 'flags'> | undefined;
}

/** Kinds of key that put nothing into a password field (see the module comment). */
const HARMLESS_IN_FIELD: ReadonlySet<KeyKind> = new Set(['focus', 'caret', 'cancel', 'activate']);
/** ... and that do not press a focused toggle (Return and Space do). */
const HARMLESS_ON_TOGGLE: ReadonlySet<KeyKind> = new Set(['focus', 'caret', 'cancel']);
/** Modifiers that keep those keys what they are; Alt runs mnemonics, Super the window manager. */
const PLAIN_MODIFIERS: ReadonlySet<string> = new Set(['shift', 'ctrl']);

/** Controls that a press may turn into a reveal: toggles of every kind, and push buttons. */
const TOGGLE_ROLES: ReadonlySet<string> = new Set([
  'AXCheckBox',
  'AXToggleButton',
  'AXSwitch',
  'AXRadioButton',
]);
const BUTTON_ROLES: ReadonlySet<string> = new Set(['AXButton']);
/** Elements that only hold others: a press on one lands on something the tree does not show. */
const CONTAINER_ROLES: ReadonlySet<string> = new Set([
  'AXGroup',
  'AXWindow',
  'AXScrollArea',
  'AXUnknown',
]);
/** Menus that open a menu (their items are what is pressed). */
const MENU_OPENERS: ReadonlySet<string> = new Set(['AXMenuBarItem', 'AXMenu', 'AXMenuButton']);
/** What else a click presses in forms: links, icons, and any element offering an action. */
const PRESSABLE_ROLES: ReadonlySet<string> = new Set(['AXLink', 'AXImage']);
/** Menu items (plain, check and radio ones): a reveal by their name, in any window of the app. */
const MENU_ROLES: ReadonlySet<string> = new Set(['AXMenuItem']);
/**
 * Words that name a reveal, matched at the start of a word (so "Plaintext", "Displayed"):
 * English and the common translations of "show". A CJK word stands anywhere.
 */
const REVEAL_WORDS =
  /👁|(?<![\p{L}\p{N}])(show|reveal|visib|unmask|unhide|peek|display|plain|clear|hide|toggle|character|view|eye|anzeigen|zeigen|einblenden|afficher|montrer|mostrar|mostra|tonen|weergeven|visa|näytä|pokaż|pokaz|показать|отобразить|zobrazit|göster)|显示|顯示|表示|보기/iu;
/** Words that say the control hides: checked, it is a reveal when pressed. */
const HIDE_WORDS = /(?<![\p{L}\p{N}])(hide|mask|conceal|verbergen|ausblenden|masquer|ocultar)/iu;

/** Index of the top-level window an element is in (its depth-0 ancestor). */
function windowOf(elements: readonly Element[], index: number): number {
  let i = index;
  while (i >= 0 && elements[i].parent >= 0 && elements[i].depth > 0) i = elements[i].parent;
  return i;
}

/** The element's parent and grandparent, short of the top-level window (which holds all). */
function containersOf(elements: readonly Element[], index: number): number[] {
  const out: number[] = [];
  let i = elements[index].parent;
  while (out.length < 2 && i >= 0 && elements[i].depth > 0) {
    out.push(i);
    i = elements[i].parent;
  }
  return out;
}

/**
 * Whether pressing the element may show a password field's text. In a window with a
 * password field, a toggle (check box, toggle button, switch, radio button), push button,
 * link, icon or anything else offering an action is taken for a reveal control when it
 * stands beside a field (its parent or grandparent is the field's parent or grandparent,
 * the window aside: a toggle there of any name, the others when their name says no word,
 * an eye icon or "[o]"), or when its name says reveal anywhere in the window (show, view,
 * eye, 👁, peek, plain, clear, hide... and translations of "show"). A menu item is one by
 * its name, with a password field anywhere in the app. A checked control is
 * passed over (pressing it hides again) unless it says hide. The price is a "Remember me"
 * check box in the password's container: refused too.
 */
export function isRevealToggle(
  elements: readonly Element[],
  index: number,
  isPasswordField: (el: Element) => boolean,
  fieldsUnseen = false,
): boolean {
  const el = elements[index];
  if (!el) return false;
  const toggle = TOGGLE_ROLES.has(el.role);
  const menu = MENU_ROLES.has(el.role);
  const button = BUTTON_ROLES.has(el.role);
  // Links, icons, a clickable span: pressed by a click all the same. Fields are not presses.
  const other =
    !toggle &&
    !menu &&
    !button &&
    !el.flags.includes('editable') &&
    !isPasswordField(el) &&
    !MENU_OPENERS.has(el.role) &&
    (PRESSABLE_ROLES.has(el.role) || el.actions.length > 0);
  if (!toggle && !menu && !button && !other) return false;
  const text = `${el.name} ${el.description ?? ''}`.trim();
  if ((toggle || menu) && el.flags.includes('checked') && !HIDE_WORDS.test(text)) return false;
  const byWindow = passwordFieldsByWindow(elements, isPasswordField);
  // By its name, a control reveals a field in any window of the app (a menu opens in a
  // window of its own; an options window may hold the toggle), or one the walk did not
  // reach (cut short: `fieldsUnseen`).
  if (REVEAL_WORDS.test(text) && (byWindow.size > 0 || fieldsUnseen)) return true;
  if (menu) return false;
  const fields = byWindow.get(windowOf(elements, index)) ?? [];
  if (fields.length === 0) return false;
  // Beside a field: a toggle of any name; a button, link or icon that shows no word (an
  // eye, "[o]", nothing at all).
  if (!toggle && !iconOnly(text)) return false;
  const mine = containersOf(elements, index);
  return fields.some((f) => containersOf(elements, f).some((c) => mine.includes(c)));
}

/** Per elements list (a walk is never changed once made): its password fields by window. */
const fieldsMemo = new WeakMap<
  readonly Element[],
  { of: (el: Element) => boolean; byWindow: Map<number, number[]> }
>();

/**
 * The password fields of a walk, by the index of their window: found once per walk, since
 * every control of a tree is asked about (a key checks them all) and each needs them.
 */
function passwordFieldsByWindow(
  elements: readonly Element[],
  isPasswordField: (el: Element) => boolean,
): Map<number, number[]> {
  const memo = fieldsMemo.get(elements);
  if (memo && memo.of === isPasswordField) return memo.byWindow;
  const byWindow = new Map<number, number[]>();
  elements.forEach((e, i) => {
    if (!isPasswordField(e)) return;
    const win = windowOf(elements, i);
    byWindow.set(win, [...(byWindow.get(win) ?? []), i]);
  });
  fieldsMemo.set(elements, { of: isPasswordField, byWindow });
  return byWindow;
}

/** A name that says no word: empty, symbols, or letters no longer than two in a row. */
function iconOnly(text: string): boolean {
  return !/\p{L}{3}/u.test(text);
}

/** Whether the walk in hand was cut short: password fields may lie beyond what it read. */
function walkCut(scene: Scene): boolean {
  return scene.view.snapshot.truncated !== null;
}

/** Whether the key, with its modifiers, stays out of a password field or a focused toggle. */
export function keyIsHarmless(kind: KeyKind, combo: KeyCombo, on: 'field' | 'toggle'): boolean {
  const kinds = on === 'field' ? HARMLESS_IN_FIELD : HARMLESS_ON_TOGGLE;
  return kinds.has(kind) && combo.modifiers.every((m) => PLAIN_MODIFIERS.has(m));
}

function revealRefusal(label: string, how: string): AxError {
  return new AxError(
    'blocked',
    `${label} would show a password field's text in plain view, and this server runs in safe mode, which reveals none; ${how}`,
    'Leave the password hidden (its field can still be typed into by a person), or run the server with AXPAGE_ALLOW_SECURE_TYPING=1 (--allow-secure-typing)',
  );
}

function labelOf(el: Element, ref: string | undefined): string {
  const name = el.name ? ` "${el.name}"` : '';
  return `[${el.role}]${name}${ref ? ` ${ref}` : ''}`;
}

/**
 * A named target (ax_type's field, ax_set_value's element, a drop's end) that is a password
 * field, in the view or read now: refused. Throws; resolves when the input may go.
 */
export async function guardTarget(scene: Scene, target: ActionTarget): Promise<void> {
  const guard = scene.passwordGuard;
  const element = target.element;
  if (!guard || !element) return;
  if (guard.isPasswordField(element)) throw guard.refusal(target.label);
  const now = await readNow(scene, element);
  if (now === 'unknown' || (now && guard.isPasswordField(now))) throw guard.refusal(target.label);
}

/**
 * Text that carries a key moving the focus, refused before anything is sent, whatever the
 * field and the delivery: a Tab always (send it with a key press, then type the rest); a
 * line break, typed as Return, when the app shows a password field or a reveal toggle
 * (Return in a login form's user name often moves the focus to its password).
 */
export function guardTextKeys(scene: Scene, text: string): void {
  const guard = scene.passwordGuard;
  if (!guard) return;
  const kinds = new Set([...new Set(text)].map((ch) => scene.desktop.keyKind(ch)));
  if (kinds.has('focus')) {
    throw new AxError(
      'blocked',
      'the text holds a Tab, which moves the keyboard focus as it is typed, so the rest would go wherever the focus lands (a password field?), and this server runs in safe mode; nothing was typed',
      'Type the text in parts: press Tab with ax_key_press (or the key argument), then type the rest into the field you name',
    );
  }
  if (!kinds.has('activate')) return;
  const elements = scene.view.snapshot.elements;
  const guarded = elements.some(
    (el, i) =>
      guard.isPasswordField(el) ||
      isRevealToggle(elements, i, guard.isPasswordField, walkCut(scene)),
  );
  if (guarded) {
    throw new AxError(
      'blocked',
      'the text holds a line break, typed as Return, which may move the keyboard focus into the password field of this app (or press its show-password toggle), and this server runs in safe mode; nothing was typed',
      'Type the text without line breaks, and press Return with the key argument (it goes to the field typed into)',
    );
  }
}

/**
 * A press (click, click at a point, drag from or onto it, set to checked) of a reveal
 * control: refused. So is a press on a part of a password field (the icons some fields
 * keep inside, one of which often shows the text), and a pointer press anywhere on the
 * field itself, which may land on such an icon where no accessible part says so.
 * `element` is what the press lands on (the target, or what is under the point).
 */
export function guardPress(
  scene: Scene,
  element: Element | undefined,
  label: string,
  by: 'pointer' | 'action',
): void {
  const guard = scene.passwordGuard;
  if (!guard || !element) return;
  const elements = scene.view.snapshot.elements;
  const index = elements.indexOf(element);
  if (index < 0) return;
  if (isRevealToggle(elements, index, guard.isPasswordField, walkCut(scene))) {
    throw revealRefusal(label, 'nothing was pressed');
  }
  if (insidePasswordField(elements, index, guard.isPasswordField)) {
    throw revealRefusal(
      `${label}, a part of a password field (its icons may show the text),`,
      'nothing was pressed',
    );
  }
  // A point on a bare container: something the tree does not show may be drawn there (an
  // icon that reacts to the pointer and offers no action), in a window with a password field.
  const win = windowOf(elements, index);
  if (
    by === 'pointer' &&
    CONTAINER_ROLES.has(element.role) &&
    element.actions.length === 0 &&
    (passwordFieldsByWindow(elements, guard.isPasswordField).get(win)?.length ?? 0) > 0
  ) {
    throw revealRefusal(
      `A pointer press on ${label}, a bare container,`,
      'nothing was pressed (in a window with a password field, a control the tree does not show may be drawn there, such as an icon; aim at an element the tree shows)',
    );
  }
  // The app's own Paste (a button, a menu item) pastes into its focused field.
  if (editCommand(element) === 'paste') {
    const focused = elements.find((e) => e.flags.includes('focused') && guard.isPasswordField(e));
    const last = guard.lastField?.();
    const field =
      focused ?? elements.find((e) => last && e.id === last.id && guard.isPasswordField(e));
    if (field || (last && last.flags.includes('secure'))) {
      const err = guard.refusal(
        field ? `[${field.role}] "${field.name}"` : 'the password field it would paste into',
      );
      throw new AxError(
        err.code,
        `${label} pastes into the app's focused field, a password field: ${err.message}; nothing was pressed`,
        'Move the focus to an ordinary field first (ax_click it), then paste',
      );
    }
  }
  if (by === 'pointer' && guard.isPasswordField(element)) {
    const err = guard.refusal(label);
    throw new AxError(
      err.code,
      `${err.message}; a pointer press on it may land on an icon inside that shows its text, so nothing was pressed`,
      'ax_click it in the background (delivery_mode "background"): it takes the keyboard focus without a pointer; or Tab to it',
    );
  }
}

/** Whether an ancestor of the element is a password field. */
function insidePasswordField(
  elements: readonly Element[],
  index: number,
  isPasswordField: (el: Element) => boolean,
): boolean {
  for (let i = elements[index].parent; i >= 0; i = elements[i].parent) {
    if (isPasswordField(elements[i])) return true;
  }
  return false;
}

/**
 * A right click on a password field opens its context menu, whose Paste and Insert items
 * put text into it: refused like a paste.
 */
export function guardContextMenu(scene: Scene, element: Element | undefined, label: string): void {
  const guard = scene.passwordGuard;
  if (!guard || !element || !guard.isPasswordField(element)) return;
  const err = guard.refusal(label);
  throw new AxError(
    err.code,
    `${err.message}; its context menu pastes and inserts text, so it was not right-clicked`,
    err.hint,
  );
}

/**
 * A click that types or presses a key afterwards, checked before the click: on a password
 * field, text and any key that may put text there are refused with nothing clicked (a
 * click would focus the field, or activate it and submit its dialog); anywhere, text that
 * carries a focus key (guardTextKeys).
 */
export async function guardClickFollowUps(
  scene: Scene,
  clicked: ActionTarget,
  text: string | undefined,
  key: KeyCombo | undefined,
): Promise<void> {
  const guard = scene.passwordGuard;
  if (guard && text !== undefined) guardTextKeys(scene, text);
  const element = clicked.element;
  if (!guard || !element) return;
  const keyTypes =
    key !== undefined && !keyIsHarmless(scene.desktop.keyKind(key.key), key, 'field');
  if (text === undefined && !keyTypes) return;
  try {
    await guardTarget(scene, clicked);
  } catch (err) {
    if (!(err instanceof AxError)) throw err;
    throw new AxError(err.code, `${err.message}; nothing was clicked`, err.hint);
  }
}

/**
 * A key about to be sent to whatever has the focus: refused when a password field has it
 * and the key may put text there, when a reveal toggle has it and the key presses it, or
 * when it is an Alt shortcut in a window with a reveal toggle (a mnemonic may press it).
 * Call it with the app fronted, right before the key goes.
 */
export async function guardKey(scene: Scene, combo: KeyCombo, keyName: string): Promise<void> {
  const guard = scene.passwordGuard;
  if (!guard) return;
  const kind = scene.desktop.keyKind(combo.key);
  const elements = scene.view.snapshot.elements;
  // Any control's mnemonic may be a reveal the rules above do not recognise.
  const guarded = elements.some((el) => guard.isPasswordField(el));
  if (guarded && !combo.modifiers.every((m) => PLAIN_MODIFIERS.has(m)) && kind === 'other') {
    throw revealRefusal(
      'an Alt or Super shortcut to an app that shows a password field',
      `${keyName} was not sent (a mnemonic may press a control that shows it)`,
    );
  }
  const focus = await focusNow(scene, guard);
  if (!focus) return;
  if (focus.password && !keyIsHarmless(kind, combo, 'field')) {
    throw refusedAtFocus(guard, focus.label, `${keyName} was not sent`);
  }
  if (focus.reveal && !keyIsHarmless(kind, combo, 'toggle')) {
    throw revealRefusal(`${focus.label}, which has the focus,`, `${keyName} was not sent`);
  }
}

/**
 * Text about to be typed into whatever has the focus (no field named): refused when a
 * password field has it, or when a reveal toggle has it and the text would press it.
 */
export async function guardTextAtFocus(scene: Scene, text: string): Promise<void> {
  const guard = scene.passwordGuard;
  if (!guard) return;
  const focus = await focusNow(scene, guard);
  if (focus?.password) throw refusedAtFocus(guard, focus.label, 'nothing was typed');
  if (focus?.reveal && /[ \r\n]/.test(text)) {
    throw revealRefusal(`${focus.label}, which has the focus,`, 'nothing was typed');
  }
}

/** How long a character may take to show in the field it was typed into, at least and at most. */
const CHAR_SHOWS_MS = 300;
const CHAR_SHOWS_MAX_MS = 3000;

/**
 * Text typed with key events in safe mode: a character at a time, each sent only once the
 * one before has shown in the field (so the app has handled it, with whatever focus move it
 * made in doing so) and while the field typed into still has the keyboard focus and is not a
 * password field. An app can move the focus by itself mid-text (a login form jumping to its
 * password field after the user name), or turn the field itself into one (a prompt reusing
 * its entry after Return, a PIN field masking itself): the rest would go there, past every
 * check made before typing began. With no field known, each character is checked like text
 * to the focus (guardTextAtFocus).
 *
 * `startsAs`: what the field reads once the keys sent before (a clear) are handled. Throws
 * a refusal when the focus has left the field, after calling `takeBack` (which puts back
 * the text the field held); the error says how many characters went in.
 */
export async function typeKeyByKey(
  scene: Scene,
  text: string,
  field: ActionTarget,
  takeBack: () => Promise<boolean>,
  startsAs?: string,
): Promise<void> {
  const { desktop } = scene;
  const element = field.element;
  const chars = [...text];
  const waitMs = scaledByLoad(CHAR_SHOWS_MS, CHAR_SHOWS_MAX_MS);
  // Keys sent just before (a clear, End) are handled before the first check is made.
  if (element && startsAs !== undefined) {
    await pollFor(
      async () => (await desktop.readText(element.id).catch(() => startsAs)) === startsAs,
      waitMs,
    );
  }
  const guard = scene.passwordGuard;
  for (let i = 0; i < chars.length; i++) {
    if (!element) {
      await guardTextAtFocus(scene, chars[i]);
    } else {
      const [focused, now] = await Promise.all([
        desktop.hasFocus(element.id).catch(() => false),
        readNow(scene, element),
      ]);
      // A field can turn into a password field mid-text (a login prompt reusing its entry
      // after Return, a PIN field masking itself): what went in before stays, nothing is
      // written into it to take that back.
      const masked = now === 'unknown' || (now !== undefined && guard?.isPasswordField(now));
      if (!focused || masked) {
        const back = i > 0 && !masked && (await takeBack().catch(() => false));
        const typed =
          i === 0
            ? 'nothing was typed'
            : `${i} of ${chars.length} characters went in before${back ? ' (taken back since)' : ''}, the rest was not typed`;
        throw new AxError(
          'blocked',
          masked
            ? `${field.label} became a password field (or could not be read) while the text was being typed, and this server runs in safe mode, which types into none; ${typed}`
            : `${field.label} lost the keyboard focus while the text was being typed (the app moved it, maybe into a password field), and this server runs in safe mode, which types only while the field named keeps the focus; ${typed}`,
          masked
            ? 'Type the rest yourself, or run the server with AXPAGE_ALLOW_SECURE_TYPING=1 (--allow-secure-typing)'
            : 'Read the app again (ax_get_tree) to see where the focus went; type the rest in the background (delivery_mode "background"), which needs no focus',
        );
      }
    }
    const before = element ? await desktop.readText(element.id).catch(() => undefined) : undefined;
    await desktop.typeText(chars[i]);
    // A field may refuse a character: the wait ends unmet, and the focus check still runs.
    if (element && before !== undefined) {
      await pollFor(
        async () => (await desktop.readText(element.id).catch(() => before)) !== before,
        waitMs,
      );
    }
  }
}

function refusedAtFocus(guard: PasswordGuard, label: string, what: string): AxError {
  const err = guard.refusal(`${label}, which has the focus,`);
  return new AxError(
    err.code,
    `${err.message}; ${what} (only Tab, arrows, Home, End, Page keys, Escape and Return, with Shift or Ctrl at most, reach a password field; the keypad's keys type digits under Num Lock)`,
    err.hint,
  );
}

interface Focus {
  label: string;
  password: boolean;
  reveal: boolean;
}

/**
 * Which of the elements that matter has the keyboard focus now: the view's password
 * fields, reveal toggles and focused elements, each read fresh (a field the app turned
 * into a password field since the walk is one). A password field or toggle that cannot
 * be read, or whose window never says it is active, counts as having the focus: the
 * guard fails closed.
 */
async function focusNow(scene: Scene, guard: PasswordGuard): Promise<Focus | undefined> {
  const elements = scene.view.snapshot.elements;
  const watched = elements.flatMap((el, i) => {
    const reveal = isRevealToggle(elements, i, guard.isPasswordField, walkCut(scene));
    const password = guard.isPasswordField(el);
    return password || reveal || el.flags.includes('focused') ? [{ el, i, password, reveal }] : [];
  });
  const guarded = watched.filter((w) => w.password || w.reveal);
  if (guarded.length > 0 && !(await windowActive(scene))) {
    const { el, i, password, reveal } = guarded[0];
    return {
      label: `${labelOf(el, scene.view.refs[i])} (its window is not yet active)`,
      password,
      reveal,
    };
  }
  const read = await Promise.all(watched.map(({ el }) => readNow(scene, el)));
  for (let k = 0; k < watched.length; k++) {
    const { el, i, password, reveal } = watched[k];
    const now = read[k];
    const label = labelOf(el, scene.view.refs[i]);
    if (now === 'unknown' && (password || reveal)) return { label, password, reveal };
    if (!now || now === 'unknown' || !now.flags.includes('focused')) continue;
    return { label, password: guard.isPasswordField(now), reveal };
  }
  return undefined;
}

/** How long a window just fronted may take to say it is active (a loaded machine is slow). */
const ACTIVE_WAIT_MS = 1500;
const POLL_MS = 20;

/**
 * Whether one of the app's windows says it is active, polled for a bounded time. A
 * toolkit marks its focus widget focused only once it has handled the window's activation:
 * read before that, no element says it has the focus, though a key would go to it.
 */
async function windowActive(scene: Scene): Promise<boolean> {
  const { elements, windows } = scene.view.snapshot;
  return pollFor(
    async () => {
      const read = await Promise.all(windows.map((w) => readNow(scene, elements[w.index])));
      return read.some((el) => el && el !== 'unknown' && el.flags.includes('active'));
    },
    ACTIVE_WAIT_MS,
    POLL_MS,
  );
}

/** The element read fresh; undefined when it has gone, 'unknown' when it cannot be read. */
async function readNow(scene: Scene, el: Element): Promise<Element | undefined | 'unknown'> {
  try {
    return await scene.desktop.readElement(el.id);
  } catch (err) {
    return err instanceof PlatformError && err.code === 'element_gone' ? undefined : 'unknown';
  }
}
