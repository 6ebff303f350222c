/**
 * The questions axpage puts to the person behind the client: each names the app (and its
 * pid), the window and the element exactly as the call found them, and what happens on
 * "yes". No question carries text typed or set, a field's value, a command's arguments or
 * anything else that may be a secret; the asker masks known secrets on top
 * (asking.ts), the builders never put one in.
 */
import type { Element, Snapshot } from '../model/element.js';

/** A form field the client shows: a choice among titled values, or a yes/no. */
export type FieldSchema =
  | {
      type: 'string';
      title: string;
      description?: string;
      oneOf: Array<{ const: string; title: string }>;
    }
  | { type: 'boolean'; title: string; description?: string; default: boolean };

/** What a question was about, for the audit log and the summary's `asked:` line. */
export type QuestionKind =
  'pick_app' | 'pick_element' | 'destructive' | 'password_typing' | 'launch' | 'script';

export interface Question<T> {
  kind: QuestionKind;
  /** One line naming what is asked about (app, window, element): no secret. */
  subject: string;
  message: string;
  requestedSchema: {
    type: 'object';
    properties: Record<string, FieldSchema>;
    required: string[];
  };
  /** The person's answer as the call uses it; undefined when the form holds no valid answer. */
  parse(content: Record<string, unknown> | undefined): T | undefined;
}

/** An element as a question names it: role, text, where, and the window and app it is in. */
export interface ElementSubject {
  /** The platform's own role name when it has one ("push button"), else the model's. */
  role: string;
  /** Its name, else its description: never a value. */
  text: string;
  at?: { x: number; y: number };
  ref?: string;
  window?: string;
  app: string;
  pid: number;
}

/** Longest text of one element or title a question shows. */
const MAX_TEXT = 60;

function clipped(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > MAX_TEXT ? `${one.slice(0, MAX_TEXT - 1)}…` : one;
}

function q(text: string): string {
  return JSON.stringify(clipped(text));
}

/** `the push button "Delete all"`: the element by role and text. */
export function elementName(e: Pick<ElementSubject, 'role' | 'text'>): string {
  return e.text ? `the ${e.role} ${q(e.text)}` : `a ${e.role} with no name`;
}

/** `in the window "Files" of Nautilus (pid 1234)`. */
export function placeOf(e: Pick<ElementSubject, 'window' | 'app' | 'pid'>): string {
  const win = e.window ? `in the window ${q(e.window)} of ` : 'in ';
  return `${win}${e.app || 'the app'} (pid ${e.pid})`;
}

/**
 * An element of a walked app as questions name it. The text is the element's name or
 * description, never its value: a field's value is what someone typed.
 */
export function elementSubject(
  snapshot: Pick<Snapshot, 'elements' | 'app' | 'pid'>,
  index: number,
  ref?: string,
): ElementSubject {
  const el = snapshot.elements[index];
  let top = index;
  while (top >= 0 && snapshot.elements[top].depth > 0 && snapshot.elements[top].parent >= 0) {
    top = snapshot.elements[top].parent;
  }
  const window = top >= 0 && top !== index ? snapshot.elements[top].name : undefined;
  return {
    role: roleName(el),
    text: el.name || el.description || '',
    ...(el.frame ? { at: { x: Math.round(el.frame.x), y: Math.round(el.frame.y) } } : {}),
    ...(ref ? { ref } : {}),
    ...(window ? { window } : {}),
    app: snapshot.app,
    pid: snapshot.pid,
  };
}

function roleName(el: Pick<Element, 'role' | 'nativeRole'>): string {
  return el.nativeRole || el.role;
}

/** One app an ambiguous name matched. */
export interface AppChoice {
  name: string;
  pid: number;
  windows: string[];
}

const CHOICE = 'choice';
const CONFIRM = 'confirm';

function choiceOf<T>(
  content: Record<string, unknown> | undefined,
  values: ReadonlyMap<string, T>,
): T | undefined {
  const picked = content?.[CHOICE];
  return typeof picked === 'string' ? values.get(picked) : undefined;
}

/** Several running apps match `text` equally well: which one is meant. */
export function pickAppQuestion(text: string, apps: readonly AppChoice[]): Question<number> {
  const values = new Map(apps.map((a) => [String(a.pid), a.pid]));
  return {
    kind: 'pick_app',
    subject: `${q(text)} matched ${apps.map((a) => `${a.name} (pid ${a.pid})`).join(', ')}`,
    message: `The agent named the app ${q(text)}, and ${apps.length} running apps match it equally well. Which one did you mean?`,
    requestedSchema: {
      type: 'object',
      properties: {
        [CHOICE]: {
          type: 'string',
          title: 'App',
          oneOf: apps.map((a) => ({
            const: String(a.pid),
            title: `${a.name} (pid ${a.pid})${a.windows.length > 0 ? `, window ${q(a.windows[0])}${a.windows.length > 1 ? ` +${a.windows.length - 1} more` : ''}` : ', no window'}`,
          })),
        },
      },
      required: [CHOICE],
    },
    parse: (content) => choiceOf(content, values),
  };
}

/** Several elements match an action's query equally well: which one to act on (its ref). */
export function pickElementQuestion(
  action: string,
  query: string,
  candidates: readonly ElementSubject[],
): Question<string> {
  const values = new Map(candidates.map((c, i) => [c.ref ?? String(i), c.ref ?? String(i)]));
  const first = candidates[0];
  const place = first ? ` ${placeOf(first)}` : '';
  return {
    kind: 'pick_element',
    subject: `${q(query)}${place}: ${candidates.length} elements`,
    message: `To ${action}, the agent asked for ${q(query)}${place}, and ${candidates.length} elements match it equally well. Which one?`,
    requestedSchema: {
      type: 'object',
      properties: {
        [CHOICE]: {
          type: 'string',
          title: 'Element',
          oneOf: candidates.map((c, i) => ({
            const: c.ref ?? String(i),
            title: `${elementName(c)}${c.at ? ` at ${c.at.x},${c.at.y}` : ''}${c.window && c.window !== first?.window ? ` in ${q(c.window)}` : ''}`,
          })),
        },
      },
      required: [CHOICE],
    },
    parse: (content) => choiceOf(content, values),
  };
}

function confirmation(
  kind: QuestionKind,
  subject: string,
  message: string,
  title: string,
): Question<true> {
  return {
    kind,
    subject,
    message,
    requestedSchema: {
      type: 'object',
      properties: { [CONFIRM]: { type: 'boolean', title, default: false } },
      required: [CONFIRM],
    },
    parse: (content) => (content?.[CONFIRM] === true ? true : undefined),
  };
}

/** An action on an element whose text says it destroys something. */
export function destructiveQuestion(
  action: string,
  element: ElementSubject,
  word: string,
): Question<true> {
  const what = `${action} ${elementName(element)} ${placeOf(element)}`;
  return confirmation(
    'destructive',
    `${what} (says ${q(word)})`,
    `The agent wants to ${what}. Its name says ${q(word)}: what it does may not be undone. Go ahead?`,
    `Yes, ${action} it`,
  );
}

/** Safe mode: text into a password field, which it refuses unless the person allows it. */
export function passwordTypingQuestion(action: string, field: ElementSubject): Question<true> {
  const what = `${action} into ${elementName(field)} ${placeOf(field)}`;
  return confirmation(
    'password_typing',
    what,
    `The agent wants to ${what}, a password field. This server runs in safe mode, which types into no password field unless you allow it for this one call (the text is not shown here). Allow it?`,
    'Yes, allow it this once',
  );
}

/** Safe mode: a program started by command that is not on the launch allow list. */
export function launchQuestion(program: string, argCount: number): Question<true> {
  const args = argCount === 0 ? '' : ` with ${argCount} argument${argCount === 1 ? '' : 's'}`;
  const what = `start ${q(program)}${args}`;
  return confirmation(
    'launch',
    what,
    `The agent wants to ${what}. This server runs in safe mode, and the program is not on its launch allow list. Start it this once?`,
    'Yes, start it',
  );
}

/** A script that may do anything an action can, shown whole (it is the agent's own text). */
export function scriptQuestion(language: string, script: string): Question<true> {
  const lines = script.split('\n').length;
  const shown = script.length > 2000 ? `${script.slice(0, 2000)}\n…` : script;
  return confirmation(
    'script',
    `a ${language} script of ${lines} line${lines === 1 ? '' : 's'}`,
    `The agent wants to run this ${language} script, which can do anything on this desktop:\n\n${shown}\n\nRun it?`,
    'Yes, run it',
  );
}
