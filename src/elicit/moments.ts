/**
 * The moments of a call where the pipeline asks the person: an app name or an action's
 * query that fits several equally well (pick one), an action on an element whose text
 * says it destroys (confirm, per the setting), text into a password field that safe mode
 * refuses (allow it once). The pipeline calls these; they build the question, ask through
 * the call's Asking and answer with what the call goes on with.
 */
import type { SnapshotView } from '../model/view.js';
import type { AxError } from '../errors.js';
import type { Asking } from './asking.js';
import {
  confirmDestructive,
  pickOrThrow,
  type ConfirmDestructive,
  allowOrRefuse,
} from './confirm.js';
import { DestructiveWords } from './destructive.js';
import {
  destructiveQuestion,
  elementSubject,
  passwordTypingQuestion,
  pickAppQuestion,
  pickElementQuestion,
  type AppChoice,
  type ElementSubject,
} from './questions.js';

/** What an action does to the element it is on, in words, when it activates it. */
export interface Activation {
  /** "click", "double-click", "press Return on". */
  action: string;
  /** Index of the element in the view the action activates. */
  index: number;
}

/** Keys that activate the focused element (a button takes Return and space). */
const ACTIVATING_KEYS = new Set(['return', 'enter', 'space']);

/** The action a key press is on the focused element, when it activates it. */
export function keyActivation(combo: {
  key: string;
  modifiers: readonly string[];
}): string | undefined {
  if (combo.modifiers.length > 0 || !ACTIVATING_KEYS.has(combo.key.toLowerCase())) return undefined;
  return `press ${combo.key} on`;
}

export class CallMoments {
  readonly words: DestructiveWords;

  constructor(
    private readonly settings: {
      confirmDestructive: ConfirmDestructive;
      destructiveWords: string[];
    },
  ) {
    this.words = new DestructiveWords(settings.destructiveWords);
  }

  /**
   * An app name matched several apps (AppDirectory's app_ambiguous error): the pid the
   * person picks, or the error itself when the client cannot ask.
   */
  async pickApp(asking: Asking | undefined, err: AxError, text: string): Promise<number> {
    const apps = (err.details?.candidates ?? []) as AppChoice[];
    return pickOrThrow(asking, pickAppQuestion(text, apps), err);
  }

  /**
   * An action's query matched several elements equally well (the ambiguous_target error):
   * the ref the person picks, or the error itself when the client cannot ask.
   */
  async pickElement(
    asking: Asking | undefined,
    err: AxError,
    view: SnapshotView,
    action: string,
    query: string,
  ): Promise<string> {
    const listed = (err.details?.candidates ?? []) as Array<{ ref: string }>;
    const subjects: ElementSubject[] = [];
    for (const c of listed) {
      const index = view.refs.indexOf(c.ref);
      if (index >= 0) subjects.push(elementSubject(view.snapshot, index, c.ref));
    }
    if (subjects.length < 2) throw err;
    return pickOrThrow(asking, pickElementQuestion(action, query, subjects), err);
  }

  /**
   * Before an action that activates an element whose name or description says it
   * destroys: confirmed as the setting says (confirm.ts). Throws when nothing may be done.
   */
  async beforeActivating(
    asking: Asking | undefined,
    view: SnapshotView,
    activation: Activation | undefined,
  ): Promise<void> {
    if (!activation || this.settings.confirmDestructive === 'never') return;
    const el = view.snapshot.elements[activation.index];
    if (!el) return;
    const word = this.words.match(el.name, el.description);
    if (!word) return;
    const subject = elementSubject(view.snapshot, activation.index, view.refs[activation.index]);
    await confirmDestructive(
      asking,
      this.settings.confirmDestructive,
      destructiveQuestion(activation.action, subject, word),
    );
  }

  /**
   * Text into a password field safe mode refuses (`refusal`): true when the person allows
   * it for this call; throws the refusal when the client cannot ask, `declined` when the
   * person says no.
   */
  async allowPasswordTyping(
    asking: Asking | undefined,
    view: SnapshotView,
    fieldIndex: number | undefined,
    refusal: AxError,
  ): Promise<true> {
    const subject =
      fieldIndex !== undefined && fieldIndex >= 0
        ? elementSubject(view.snapshot, fieldIndex, view.refs[fieldIndex])
        : {
            role: 'password field',
            text: '',
            app: view.snapshot.app,
            pid: view.snapshot.pid,
          };
    await allowOrRefuse(asking, passwordTypingQuestion('type', subject), refusal);
    return true;
  }
}
