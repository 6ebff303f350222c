/**
 * When a call asks, and what it does when the person cannot be asked. The three kinds of
 * moment: a pick (several equally good matches), a destructive action (per the
 * confirm-destructive setting) and a guarded action (what safe mode refuses).
 */
import { AxError } from '../errors.js';
import type { Asking } from './asking.js';
import type { Question } from './questions.js';

/** `--confirm-destructive`: ask when the client can (else go on and say so); always; never. */
export type ConfirmDestructive = 'ask' | 'always' | 'never';
export const CONFIRM_DESTRUCTIVE: readonly ConfirmDestructive[] = ['ask', 'always', 'never'];

const NO_CLIENT = 'the client takes no questions';

/**
 * Several candidates fit: the person picks one when the client can ask; otherwise the
 * error that lists them (what the agent gets without asking) stands.
 */
export async function pickOrThrow<T>(
  asking: Asking | undefined,
  question: Question<T>,
  unasked: AxError,
): Promise<T> {
  if (!asking?.canAsk) throw unasked;
  return asking.ask(question);
}

/**
 * Before an action on an element that says it destroys something. `never`: no question.
 * With a client that can be asked, the person confirms or nothing is done. Without one,
 * `ask` goes ahead and the summary says it went ahead unasked (an agent's client that
 * cannot ask would otherwise never click a Delete button); `always` refuses.
 */
export async function confirmDestructive(
  asking: Asking | undefined,
  setting: ConfirmDestructive,
  question: Question<true>,
): Promise<void> {
  if (setting === 'never') return;
  if (asking?.canAsk) {
    await asking.ask(question);
    return;
  }
  if (setting === 'ask') {
    asking?.notAsked(question.kind, question.subject, 'went_ahead', NO_CLIENT);
    return;
  }
  asking?.notAsked(question.kind, question.subject, 'stopped', NO_CLIENT);
  throw new AxError(
    'confirmation_required',
    `${question.subject}: this server confirms destructive actions with the person first, and this client cannot ask; nothing was done`,
    'Use a client that supports MCP elicitation (form mode), or do it by hand; whoever runs the server may set --confirm-destructive ask (AXPAGE_CONFIRM_DESTRUCTIVE)',
  );
}

/**
 * An action safe mode refuses: the person may allow it for this one call when the client
 * can ask; otherwise the refusal stands.
 */
export async function allowOrRefuse(
  asking: Asking | undefined,
  question: Question<true>,
  refusal: AxError,
): Promise<void> {
  if (!asking?.canAsk) throw refusal;
  await asking.ask(question);
}
