/**
 * A secret's taint follows its text through the clipboard, the primary selection and a drag.
 * A password field's text copied (ctrl+c, the Copy item of a menu), or selected, and then
 * pasted into an ordinary field would be read there in plain text: so a paste of what this
 * server knows to be secret makes the field it goes into a password field, before the input
 * is sent (secretFields.learn: from then on no walk, read, log or capture shows its text).
 *
 * What is secret, per selection (X11 has two that apps paste from):
 * - CLIPBOARD: the text it holds right after a copy or cut whose source was a password field
 *   (the field with the keyboard focus for a key; for a menu or button item, the text field
 *   of the app that had the focus last), any text typed or set into a password field, and
 *   a text an action on an app showing a password field put there that the app shows
 *   nowhere (a command of its own, named Copy or not, copied the field's text), during
 *   the action or later: until the next call ends, the clipboard is compared with how it
 *   was when the action settled, at that call's start and end and at every read of it.
 *   Only keyed hashes are kept (SecretMemory). The taint is the text: it ends when the
 *   clipboard holds another text (anyone's copy, ax_clipboard_write), and comes back with
 *   the same text. When the clipboard cannot be read right after such a copy, every paste
 *   from it counts as secret until a copy from an ordinary field or ax_clipboard_write
 *   replaces it.
 * - PRIMARY (what a selection offers; Shift+Insert pastes it in terminals, a middle click
 *   everywhere, though no tool sends one): its text after an action in a password field, or
 *   one that leaves the focus in one (a selection made there). It may still hold an older
 *   selection then: that text counts as secret for pastes from PRIMARY too (never for
 *   ax_clipboard_read).
 *
 * Pastes: keys (ctrl+v and ctrl+shift+v, with any other modifier; shift+Insert, which some
 * toolkits paste CLIPBOARD with and terminals PRIMARY: both are read; the Paste key), and a
 * press on a menu item or button named Paste (the app's last text field receives it). A drag
 * that starts on a password field drops its selection where it ends: the element there (in
 * this app, or the app whose window is topmost there) becomes a password field first. After
 * a secret went in, every text field whose text changed in the action is made one too
 * (whatever the guess of where the paste went), and the app is walked again before anything
 * of it is written.
 */
import type { Element, Snapshot } from '../model/element.js';
import type { SnapshotView } from '../model/view.js';
import type { Desktop, KeyCombo } from '../platform/desktop.js';
import type { ClickType, TextTransfers } from '../actions/index.js';
import { SecretMemory } from './secrets.js';
import { HandedOnEchoes } from './launch-log.js';
import { scaledByLoad } from '../model/timeout.js';
import { holds, windowAt, windowStack } from '../actions/window-stack.js';
import { editCommand } from '../actions/edit-commands.js';
import { showsText } from './selection-owner.js';
import type { LingeringHold } from './lingering-hold.js';

export type SelectionName = 'clipboard' | 'primary';

/** Reads the text an X selection offers ('' when none). */
export interface SelectionReader {
  read(selection: SelectionName): Promise<string>;
}

export const COPIED = 'copied from a password field';
const COPIED_BESIDE =
  "copied by an app that shows a password field, and shown nowhere in it (the field's text?)";
const SELECTED = 'selected in a password field';
const UNREADABLE = 'it could not be read, and this session knows secrets';
/** How long after a copy from a password field the clipboard's next text counts as it. */
const LATE_COPY_MS = 5000;
const LATE_COPY_MAX_MS = 20_000;
/** Said when the owner could not be asked: no more than that. */
const OWNER_UNKNOWN = 'its owner could not be asked';

/** What this server can learn of who offers a selection (see selection-owner.ts). */
export interface SelectionOwner {
  /**
   * Why what it offers must not be read or pasted as plain text, or undefined. `text` reads
   * what it offers (called only when the answer needs it).
   */
  check(
    selection: SelectionName,
    text: () => Promise<string | undefined>,
  ): Promise<string | undefined>;
  /**
   * Whose its text is: this server's own write ('self'), an app's (its pid), nobody's an
   * app vouches for (null), or unknown (undefined: the platform cannot say).
   */
  whose(selection: SelectionName): Promise<'self' | number | null | undefined>;
}

/** An app as a later look finds it: what it shows, and whether a password field is there. */
export interface AppLook {
  elements: readonly Element[];
  showsSecret: boolean;
}

interface BesideMark {
  mark: string | undefined;
  pid: number;
  call: number;
  look: () => Promise<AppLook>;
}

const NO_OWNER: SelectionOwner = {
  check: async () => undefined,
  whose: async () => undefined,
};

/**
 * What this session knows to be secret on the desktop's selections (see the module
 * comment). One per server: the session recorder notes typed secrets in `memory` too.
 */
export class SelectionSecrets {
  /** Every secret known here, as text: masked wherever an app echoes it. */
  readonly echoes = new HandedOnEchoes();
  /** Typed or set into a password field, or copied from one: what clipboard reads mask. */
  readonly memory = new SecretMemory(this.echoes);
  /**
   * Selected in a password field: PRIMARY's texts that are secret (pastes only). Not looked
   * for as echoes: PRIMARY may still hold an older, ordinary selection then.
   */
  private readonly selected = new SecretMemory();
  /** A selection that held a secret when it could not be read: why. */
  private readonly unread = new Map<SelectionName, string>();
  private reader?: () => Promise<SelectionReader>;
  private owner: SelectionOwner = NO_OWNER;

  /** How the selections are read (the server's clipboard); without it none is. */
  readWith(reader: () => Promise<SelectionReader>): void {
    this.reader = reader;
  }

  /**
   * Who a selection's owner is may make its text secret to every read and paste, whatever
   * it is (a denied app's, one nothing vouches for: see selection-owner.ts).
   */
  askOwner(owner: SelectionOwner): void {
    this.owner = owner;
  }

  /** Why its owner makes a selection's text secret; the text is then known as one. */
  private async ownerReason(
    selection: SelectionName,
    textOf: () => Promise<string | undefined>,
  ): Promise<string | undefined> {
    const why = await this.owner.check(selection, textOf).catch(() => OWNER_UNKNOWN);
    if (why === undefined) return undefined;
    // Known from now on: a paste of it into a field the app echoes elsewhere is masked there.
    const text = await textOf().catch(() => undefined);
    if (text) this.memory.note(text, why);
    return why;
  }

  /** Why the clipboard's `text` must not be shown (a read of it), or undefined. */
  reason(text: string): string | undefined {
    return this.memory.reason(text) ?? this.unread.get('clipboard');
  }

  /** As reason(), its owner asked too (an app this server may not read). */
  async readReason(text: string): Promise<string | undefined> {
    await this.judgeBeside(text);
    await this.noteLate(text);
    return this.reason(text) ?? (await this.ownerReason('clipboard', async () => text));
  }

  /**
   * The clipboard was written by this server (ax_clipboard_write): it holds that text now.
   * A late copy still to come keeps its window: it lands after this.
   */
  written(): void {
    this.unread.delete('clipboard');
    // The agent's own text: no app's late copy is looked for from here on.
    this.besideMarks = [];
    if (this.lateCopy) this.lateCopy.superseded = true;
  }

  /**
   * A copy or cut went: from a password field, what the clipboard holds now is secret, and
   * so is the next text it takes within LATE_COPY_MS (an app may copy late: a password
   * store decrypts first).
   */
  async copied(fromSecret: boolean, pid: number): Promise<void> {
    if (!fromSecret) {
      // Another copy: what the clipboard takes next is that one's. (A late copy from a
      // password field keeps its window: it may land after this one.)
      this.unread.delete('clipboard');
      const late = this.lateCopy;
      if (late) {
        // What this copy put there is no late copy's, whoever owns it.
        late.superseded = true;
        const text = await this.read('clipboard');
        if (text) late.plain.add(text);
      }
      return;
    }
    const text = await this.read('clipboard');
    if (text === undefined) this.unread.set('clipboard', COPIED);
    else this.memory.note(text, COPIED);
    // A busy machine decrypts slower: the window grows with the load.
    this.lateCopy = {
      until: Date.now() + scaledByLoad(LATE_COPY_MS, LATE_COPY_MAX_MS),
      previous: text,
      pid,
      plain: new Set(),
    };
  }

  /**
   * An action on an app showing a password field changed the clipboard: a text the app
   * shows nowhere (`elements`: its walk after) is taken for the field's, copied by a command
   * of the app's own whatever its name. Unreadable, every read of it counts as secret.
   */
  async copiedBesideSecret(elements: readonly Element[]): Promise<void> {
    const text = await this.read('clipboard');
    if (text === undefined) this.unread.set('clipboard', COPIED_BESIDE);
    else if (text !== '' && !showsText(elements, text)) this.memory.note(text, COPIED_BESIDE);
  }

  /**
   * Actions on an app showing a password field, after they settled: the clipboard as it
   * was then (a keyed hash), watched until the next call ends or writes the clipboard. A
   * command may copy the field's text on a timer, after the call returned.
   */
  private besideMarks: BesideMark[] = [];
  /** Calls started so far (a mark lives through the call after the one that set it). */
  private calls = 0;

  /**
   * An action on app `pid`, which showed a password field, settled with the clipboard at
   * `mark`: a text it takes later that `look` (the app then) shows nowhere is the field's.
   */
  watchBeside(mark: string | undefined, pid: number, look: () => Promise<AppLook>): void {
    this.besideMarks = this.besideMarks.filter((m) => m.pid !== pid);
    this.besideMarks.push({ mark, pid, call: this.calls, look });
  }

  /** A call starts: a copy made since the last one is judged before it does anything. */
  async callStarted(): Promise<number> {
    const call = ++this.calls;
    await this.judgeBeside();
    return call;
  }

  /** Call `call` ends: what was copied during it judged, and marks older than it dropped. */
  async callEnded(call: number): Promise<void> {
    if (!this.besideMarks.some((m) => m.call < call)) return;
    await this.judgeBeside();
    this.besideMarks = this.besideMarks.filter((m) => m.call >= call);
  }

  /**
   * Whether the clipboard took a text since a mark: one the marked app offers (or whose
   * owner is unknown) and shows nowhere, while it shows a password field, is learned as a
   * secret. `known`: the clipboard's text, read already.
   */
  private async judgeBeside(known?: string): Promise<void> {
    if (this.besideMarks.length === 0) return;
    const text = known ?? (await this.read('clipboard'));
    if (text === undefined || text === '') return;
    const now = this.memory.fingerprint(text);
    for (const mark of [...this.besideMarks]) {
      if (mark.mark === now) continue;
      // Judged once per text: a later change is compared with this one.
      mark.mark = now;
      if (this.memory.reason(text)) continue;
      const whose = await this.owner.whose('clipboard').catch(() => undefined);
      if (whose === 'self' || (typeof whose === 'number' && whose !== mark.pid)) continue;
      const look = await mark.look().catch(() => undefined);
      // The app gone, nothing tells it showed the text: taken for the field's.
      if (look && (!look.showsSecret || showsText(look.elements, text))) continue;
      this.memory.note(text, COPIED_BESIDE);
    }
  }

  /** A copy from a password field, by app `pid`, whose text may not have reached the clipboard yet. */
  private lateCopy?: {
    until: number;
    previous: string | undefined;
    pid: number;
    /** Another copy or a write came after it (which one the clipboard holds, whose() tells). */
    superseded?: boolean;
    /** What ordinary copies since put on the clipboard. */
    plain: Set<string>;
  };

  /**
   * The clipboard now holds `text`: the late copy it may be is learned as secret, unless
   * the text is known to be another's (this server's write, another app's copy).
   */
  private async noteLate(text: string): Promise<void> {
    const late = this.lateCopy;
    if (!late) return;
    if (Date.now() > late.until) {
      this.lateCopy = undefined;
      return;
    }
    if (text === '' || text === late.previous || late.plain.has(text)) return;
    const whose = await this.owner.whose('clipboard').catch(() => undefined);
    if (whose === 'self' || (typeof whose === 'number' && whose !== late.pid)) return;
    if (whose === undefined && late.superseded) {
      // Nothing tells whose it is: the later copy or write is taken to be what it holds.
      this.lateCopy = undefined;
      return;
    }
    // What it holds now is that copy's (a text already known keeps its reason).
    if (!this.memory.reason(text)) this.memory.note(text, COPIED);
    this.lateCopy = undefined;
  }

  /** An action in a password field may have selected its text: PRIMARY's text is secret. */
  async selectedInSecret(): Promise<void> {
    const text = await this.read('primary');
    if (text === undefined) {
      this.unread.set('primary', SELECTED);
      return;
    }
    this.unread.delete('primary');
    this.selected.note(text, SELECTED);
  }

  /** Why a paste from `from` now would put a secret, or undefined (nothing to paste, or no secret). */
  async pasteSecret(from: readonly SelectionName[]): Promise<string | undefined> {
    // Each selection read once, by whichever asks first.
    const texts = new Map<SelectionName, Promise<string | undefined>>();
    const textOf = (selection: SelectionName) => {
      if (!texts.has(selection)) texts.set(selection, this.read(selection));
      return texts.get(selection)!;
    };
    for (const selection of from) {
      const why = await this.ownerReason(selection, () => textOf(selection));
      if (why) return why;
    }
    // Nothing known to be secret: nothing to read (an ordinary paste costs no round trip).
    if (this.memory.size + this.selected.size + this.unread.size === 0 && !this.lateCopy) {
      return undefined;
    }
    for (const selection of from) {
      const text = await textOf(selection);
      if (text === undefined) {
        const why =
          this.unread.get(selection) ??
          (this.memory.size + this.selected.size > 0 ? UNREADABLE : undefined);
        if (why) return why;
        continue;
      }
      if (text === '') continue;
      if (selection === 'clipboard') await this.noteLate(text);
      const why =
        this.memory.reason(text) ??
        (selection === 'primary' ? this.selected.reason(text) : undefined) ??
        this.unread.get(selection);
      if (why) return why;
    }
    return undefined;
  }

  /**
   * Whether the clipboard holds something else than when `mark` was taken: what a copy
   * did, as evidence (only a keyed hash of its text is kept meanwhile).
   */
  async clipboardMark(): Promise<string | undefined> {
    const text = await this.read('clipboard');
    return text === undefined ? undefined : this.memory.fingerprint(text);
  }

  /** The selection's text, or undefined when it cannot be read (no reader, no display). */
  private async read(selection: SelectionName): Promise<string | undefined> {
    if (!this.reader) return undefined;
    try {
      return await (await this.reader()).read(selection);
    } catch {
      return undefined;
    }
  }
}

/** The selections a key pastes from, or undefined when it pastes nothing (as toolkits bind them). */
export function pasteSource(combo: KeyCombo): SelectionName[] | undefined {
  const key = combo.key.toLowerCase();
  const mods = new Set(combo.modifiers);
  // "V" is shift+v: ctrl+V is the terminals' ctrl+shift+v.
  if (mods.has('ctrl') && key === 'v') return ['clipboard'];
  if (mods.has('shift') && key === 'insert') return ['clipboard', 'primary'];
  if (key === 'xf86paste') return ['clipboard'];
  return undefined;
}

/** Whether a key copies or cuts the selection: ctrl+c, ctrl+x, ctrl+Insert, shift+Delete, the Copy and Cut keys. */
export function copiesKey(combo: KeyCombo): boolean {
  const key = combo.key.toLowerCase();
  const mods = new Set(combo.modifiers);
  if (mods.has('ctrl') && (key === 'c' || key === 'x' || key === 'insert')) return true;
  if (mods.has('shift') && key === 'delete') return true;
  return key === 'xf86copy' || key === 'xf86cut';
}

/** Words that say a command's text is a secret ("Copy password", "Copy PIN"). */
const SECRET_WORD =
  /\b(pass(word|phrase|wd|code)?|pin|secret|token|passwort|mot de passe|contraseña|senha|пароль)\b|密码|パスワード/iu;

/** Whether the element's name says what it copies is a secret. */
function namesSecret(el: Element): boolean {
  return SECRET_WORD.test(el.name.replace(/_/g, ''));
}

/** What one action's transfers need of the pipeline. */
export interface TransferScene {
  pid: number;
  /** The app's view before the action. */
  before: SnapshotView;
  selections: SelectionSecrets;
  /** The desktop as tools see it (remembered password fields kept secret). */
  desktop: Desktop;
  /** Whether an element of app `pid` is, or once was, a password field. */
  isSecret(pid: number, element: Pick<Element, 'id' | 'flags'>): boolean;
  /** Makes these elements of app `pid` password fields for good. */
  learn(pid: number, ids: string[]): void;
  /** The text field of the app that had the keyboard focus last (a menu takes it meanwhile). */
  lastField(): Pick<Element, 'id' | 'flags'> | undefined;
  /** Walks another app (a drop on its window). */
  walk(pid: number): Promise<Snapshot>;
  /**
   * Safe mode: empties the selections until the returned function gives their text back
   * (selection-hold.ts). Called before input is sent while the app's focused or last text
   * field is a password field. Absent: full mode.
   */
  holdSelections?(): Promise<() => Promise<void>>;
  /**
   * Safe mode: where an action's hold goes when the app still shows a password field
   * after it, to stay empty until a later call gives it back (lingering-hold.ts).
   */
  lingering?: LingeringHold;
  /** Safe mode: whether the selections are still the empty ones this server offers. */
  selectionsStillHeld?(): Promise<boolean>;
}

/**
 * The transfers of one action: told by the delivery functions as the input goes (see
 * TextTransfers), then, once the app settled and was walked, settled() takes in the copies
 * and selections and says whether the walk must be made again.
 */
export class ActionTransfers implements TextTransfers {
  /** Copies and cuts sent, with whether their source was a password field. */
  private readonly copies: boolean[] = [];
  /** The input went to a password field (a selection may be made there). */
  private inSecret = false;
  /** A secret went into this app: every text field it changed becomes a password field. */
  private secretIn = false;
  /** The clipboard before the first copy key (a fingerprint), to tell whether it took. */
  private clipboardBefore?: Promise<string | undefined>;
  /** A copy key changed what the clipboard holds: its effect, though the app shows none. */
  clipboardChanged = false;
  /** The selections held empty for this action: what gives their text back. */
  private held?: Promise<() => Promise<void>>;
  /** Input went to an app that showed a password field: a copy it makes may be the field's. */
  private pressedBesideSecret = false;

  constructor(private readonly scene: TransferScene) {}

  /**
   * Safe mode: nothing can be pasted while input goes to an app that shows a password
   * field (see selection-hold.ts): whatever the input presses may move the focus there and
   * paste, or read the clipboard into the field. Throws, before anything is sent, when the
   * selections cannot be emptied.
   */
  private async holdOffPasswordField(focus: Element | undefined): Promise<void> {
    if (!this.scene.holdSelections || this.held) return;
    const lingering = this.scene.lingering;
    if (lingering?.active) {
      // Still empty since an earlier action: nothing to hold. Copied into since: that copy
      // is what a paste would take now, so it is held in turn.
      if ((await this.scene.selectionsStillHeld?.()) !== false) return;
      lingering.drop();
    }
    const beside = this.secret(focus) || this.secret(this.scene.lastField()) || this.showsSecret();
    if (!beside) return;
    this.held ??= this.scene.holdSelections();
    try {
      await this.held;
    } catch (err) {
      this.held = undefined;
      throw err;
    }
  }

  /** Safe mode: holds the selections empty now when the app shows a password field. */
  async holdBesidePasswordField(): Promise<void> {
    await this.holdOffPasswordField(undefined);
  }

  /**
   * Once the app has settled: gives the selections held for this action their text back,
   * or, while the app (as `after` shows it) still shows a password field, leaves them empty
   * until a later call gives it back: the app may paste later.
   */
  async done(after?: Snapshot): Promise<void> {
    const held = this.held;
    this.held = undefined;
    if (!held) return;
    const restore = await held.catch(() => async () => undefined);
    const stillBeside = (after ?? this.scene.before.snapshot).elements.some((el) =>
      this.secret(el),
    );
    if (this.scene.lingering && stillBeside) await this.scene.lingering.keep(restore);
    else await restore();
  }

  private secret(el: Pick<Element, 'id' | 'flags'> | undefined): boolean {
    return el !== undefined && this.scene.isSecret(this.scene.pid, el);
  }

  async beforeKey(combo: KeyCombo, focus: Element | undefined): Promise<void> {
    await this.holdOffPasswordField(focus);
    await this.markBesideSecret();
    if (this.secret(focus)) this.inSecret = true;
    // Read before the key goes: a copy lands within milliseconds.
    if (copiesKey(combo) && !this.clipboardBefore) {
      this.clipboardBefore = Promise.resolve(await this.scene.selections.clipboardMark());
    }
    const from = pasteSource(combo);
    if (from) await this.paste(from, focus ?? this.scene.lastField());
  }

  async afterKey(combo: KeyCombo, focus: Element | undefined): Promise<void> {
    if (!copiesKey(combo)) return;
    // A copy with no text field focused (a list row: a password manager's entry list
    // copies the entry's password) in an app showing a password field may copy it.
    const fromList = !focus?.flags.includes('editable') && this.showsSecret();
    this.copies.push(this.secret(focus ?? this.scene.lastField()) || fromList);
  }

  /**
   * In an app showing a password field, any command may copy the field's text, named Copy
   * or not (Share, an accelerator): the clipboard is marked before the input goes, so that
   * settled() can tell a text the app took there and shows nowhere.
   */
  private async markBesideSecret(): Promise<void> {
    if (this.pressedBesideSecret || !this.showsSecret()) return;
    this.pressedBesideSecret = true;
    // Read before the input goes: a copy lands within milliseconds.
    this.clipboardBefore ??= Promise.resolve(await this.scene.selections.clipboardMark());
  }

  /** Whether the app showed a password field before the action. */
  private showsSecret(): boolean {
    return this.scene.before.snapshot.elements.some((el) => this.secret(el));
  }

  async beforePress(element: Element | undefined, clickType: ClickType): Promise<void> {
    await this.holdOffPasswordField(element);
    if (this.secret(element)) this.inSecret = true;
    if (clickType === 'right') return;
    await this.markBesideSecret();
    const command = editCommand(element);
    if (command === 'paste') await this.paste(['clipboard'], this.scene.lastField());
    if (command === 'copy') {
      // "Copy password" copies a secret whatever field had the focus (a password manager's
      // button copies its entry's password while its user name is focused).
      // So does a Copy button in an app showing a password field: it may sit beside it.
      this.copies.push(
        this.secret(this.scene.lastField()) || namesSecret(element!) || this.showsSecret(),
      );
    }
  }

  async beforeDrag(
    from: Element | undefined,
    to: Element | undefined,
    end: { x: number; y: number },
  ): Promise<void> {
    await this.holdOffPasswordField(to);
    if (!this.secret(from)) return;
    // The drag selects in the field, and drops the selection where it ends.
    this.inSecret = true;
    this.secretIn = true;
    if (to) {
      this.scene.learn(this.scene.pid, [to.id]);
      return;
    }
    await this.dropElsewhere(end);
  }

  /**
   * After the action settled, given the app's walk after it: copies and selections taken in,
   * and text fields the secret went into made password fields. True when one was made just
   * now: the walk shows its text, and must be made again before anything is written.
   */
  async settled(after: SnapshotView): Promise<boolean> {
    const { selections } = this.scene;
    let now: string | undefined;
    if (this.clipboardBefore) {
      const was = await this.clipboardBefore;
      now = await selections.clipboardMark();
      this.clipboardChanged = now !== undefined && now !== was;
    }
    if (this.clipboardChanged && this.pressedBesideSecret) {
      await selections.copiedBesideSecret(after.snapshot.elements);
    }
    if (this.pressedBesideSecret) {
      const { pid } = this.scene;
      // Marked before the input went (markBesideSecret): `now` is the clipboard after it.
      selections.watchBeside(now, pid, async () => {
        const snapshot = await this.scene.walk(pid);
        return {
          elements: snapshot.elements,
          showsSecret: snapshot.elements.some((el) => this.scene.isSecret(pid, el)),
        };
      });
    }
    for (const fromSecret of this.copies) await selections.copied(fromSecret, this.scene.pid);
    const focusSecret = after.snapshot.elements.some(
      (e) => e.flags.includes('focused') && this.secret(e),
    );
    if (this.inSecret || focusSecret) await selections.selectedInSecret();
    if (!this.secretIn) return false;
    const changed = changedTextFields(this.scene.before.snapshot, after.snapshot).filter(
      (e) => !this.secret(e),
    );
    if (changed.length === 0) return false;
    this.scene.learn(
      this.scene.pid,
      changed.map((e) => e.id),
    );
    return true;
  }

  /** A paste from `from` into `into`: a secret there makes `into` a password field first. */
  private async paste(
    from: readonly SelectionName[],
    into: Pick<Element, 'id' | 'flags'> | undefined,
  ): Promise<void> {
    if (this.secret(into)) return;
    if ((await this.scene.selections.pasteSecret(from)) === undefined) return;
    this.secretIn = true;
    if (into) this.scene.learn(this.scene.pid, [into.id]);
  }

  /** A drop at `end` on another app's window: the text field there is made a password field. */
  private async dropElsewhere(end: { x: number; y: number }): Promise<void> {
    // Popups and plugs included: a drop on another app's completion list or on a plug in
    // this app's window lands in that process.
    const stack = await windowStack(this.scene.desktop).catch(() => []);
    const top = windowAt(stack, end);
    if (!top || top.pid === null || top.pid === this.scene.pid) return;
    const snapshot = await this.scene.walk(top.hostPid ?? top.pid).catch(() => undefined);
    const field = snapshot && textFieldAt(snapshot.elements, end);
    if (field) this.scene.learn(top.hostPid ?? top.pid, [field.id]);
  }
}

/** Whether an element takes text (its text is what a paste or drop changes; a label's is not). */
function takesText(el: Element): boolean {
  return el.flags.includes('editable');
}

/** The smallest element taking text under the point. */
function textFieldAt(
  elements: readonly Element[],
  p: { x: number; y: number },
): Element | undefined {
  let best: Element | undefined;
  for (const el of elements) {
    if (!el.frame || !holds(el.frame, p) || !takesText(el)) continue;
    if (!best || el.frame.w * el.frame.h < best.frame!.w * best.frame!.h) best = el;
  }
  return best;
}

/** Text fields whose text differs between the walks (by element identity), or that are new with text. */
export function changedTextFields(before: Snapshot, after: Snapshot): Element[] {
  const was = new Map(before.elements.filter((e) => e.id !== '').map((e) => [e.id, e]));
  return after.elements.filter((e) => {
    if (e.id === '' || !takesText(e)) return false;
    const old = was.get(e.id);
    return old === undefined ? (e.value ?? '') !== '' : old.value !== e.value;
  });
}
