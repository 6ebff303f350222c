/**
 * One call's way to the person behind the client (MCP elicitation, form mode), and what was
 * asked and answered in it. A call whose client did not declare form elicitation cannot
 * ask: the caller then does what the settings say (destructive.ts's callers) or what it
 * did before there was asking (an error listing the candidates, a refusal).
 */
import { AxError } from '../errors.js';
import type { Question, QuestionKind } from './questions.js';

/** How the person answered; `not_asked` when the client could not be asked. */
export type AnswerKind = 'accept' | 'decline' | 'cancel' | 'not_asked';

/** One question of a call as the audit log and the summary keep it: never the form's text. */
export interface AskedEntry {
  question: QuestionKind;
  subject: string;
  answer: AnswerKind;
  /** What the call did with it: went on (with the pick), stopped, or went on unasked. */
  outcome: 'went_ahead' | 'stopped';
  /** The pick, for a choice (a pid, a ref). */
  picked?: string;
  /** Why it was not asked, when it was not. */
  reason?: string;
}

/** The elicitation request as the MCP SDK's sendRequest takes it (form mode). */
export interface FormRequest {
  mode: 'form';
  message: string;
  requestedSchema: Question<unknown>['requestedSchema'];
}

export interface FormResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

/** Sends one form to the client of this call and waits for the person's answer. */
export type SendForm = (request: FormRequest) => Promise<FormResult>;

/** Masks what the server knows to be secret in a text shown to the person. */
export type Scrub = (text: string) => string;

export class Asking {
  readonly entries: AskedEntry[] = [];
  /** Answers given in this call: the same question is asked once per call. */
  private readonly answered = new Map<string, unknown>();

  constructor(
    private readonly send?: SendForm,
    private readonly scrub: Scrub = (t) => t,
  ) {}

  /** Whether this call's client takes form questions. */
  get canAsk(): boolean {
    return this.send !== undefined;
  }

  /**
   * Asks and gives the parsed answer; a decline, a cancel or an answer that is no valid
   * pick throws the `declined` error (nothing was done), and so does a client that fails
   * to answer.
   */
  async ask<T>(question: Question<T>): Promise<T> {
    if (!this.send) throw new Error('asked without a client that takes questions');
    const key = `${question.kind}\n${question.subject}`;
    if (this.answered.has(key)) return this.answered.get(key) as T;
    let result: FormResult;
    try {
      result = await this.send({
        mode: 'form',
        message: this.scrub(question.message),
        requestedSchema: scrubSchema(question.requestedSchema, this.scrub),
      });
    } catch (err) {
      this.entries.push({
        question: question.kind,
        subject: this.scrub(question.subject),
        answer: 'cancel',
        outcome: 'stopped',
        reason: 'the client gave no answer',
      });
      throw new AxError(
        'declined',
        `the person could not be asked (${err instanceof Error ? err.message : String(err)}); nothing was done`,
        'Try again, or tell the person what the call needs',
        { question: question.kind },
      );
    }
    const value = result.action === 'accept' ? question.parse(result.content) : undefined;
    const entry: AskedEntry = {
      question: question.kind,
      subject: this.scrub(question.subject),
      answer: value === undefined && result.action === 'accept' ? 'decline' : result.action,
      outcome: value === undefined ? 'stopped' : 'went_ahead',
      ...(typeof value === 'string' || typeof value === 'number' ? { picked: String(value) } : {}),
    };
    this.entries.push(entry);
    if (value === undefined) throw declined(question, result.action);
    this.answered.set(key, value);
    return value;
  }

  /** The call went on (or stopped) without asking: said in its summary and audit line. */
  notAsked(
    kind: QuestionKind,
    subject: string,
    outcome: AskedEntry['outcome'],
    reason: string,
  ): void {
    this.entries.push({
      question: kind,
      subject: this.scrub(subject),
      answer: 'not_asked',
      outcome,
      reason,
    });
  }
}

function declined(question: Question<unknown>, action: FormResult['action']): AxError {
  const how =
    action === 'cancel'
      ? 'the person cancelled the question'
      : action === 'accept'
        ? 'the person did not confirm'
        : 'the person declined';
  return new AxError(
    'declined',
    `${how} (${question.subject}); nothing was done`,
    'Ask the person what to do instead; do not retry the same call unasked',
    { question: question.kind, answer: action },
  );
}

function scrubSchema(schema: FormRequest['requestedSchema'], scrub: Scrub) {
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([key, field]) => [
      key,
      field.type === 'string'
        ? {
            ...field,
            title: scrub(field.title),
            oneOf: field.oneOf.map((o) => ({ const: o.const, title: scrub(o.title) })),
          }
        : { ...field, title: scrub(field.title) },
    ]),
  );
  return { ...schema, properties };
}

/** A call no person can be asked in (the bench, a resource read, a test). */
export const NO_ASKING = new Asking();

/**
 * The `asked:` line of a summary: each question and how it went, in the words of the
 * audit log. Undefined when nothing was asked.
 */
export function askedLine(entries: readonly AskedEntry[]): string | undefined {
  if (entries.length === 0) return undefined;
  return `asked: ${entries
    .map((e) => {
      const how =
        e.answer === 'not_asked'
          ? `not asked (${e.reason ?? 'the client takes no questions'}), ${e.outcome === 'went_ahead' ? 'went ahead' : 'not done'}`
          : e.answer === 'accept'
            ? `the person ${e.picked !== undefined ? `picked ${e.picked}` : 'confirmed'}`
            : `the person ${e.answer === 'cancel' ? 'cancelled' : 'declined'}, not done`;
      return `${e.question.replace('_', ' ')} ${e.subject}: ${how}`;
    })
    .join('; ')}`;
}

/** A call's response with what it asked: the `asked:` line after its first, and `asked` beside. */
export function withAsked<R extends { text: string; structured: Record<string, unknown> }>(
  response: R,
  entries: readonly AskedEntry[] | undefined,
): R {
  const line = askedLine(entries ?? []);
  if (!line) return response;
  const lines = response.text.split('\n');
  lines.splice(1, 0, line);
  return {
    ...response,
    text: lines.join('\n'),
    structured: { ...response.structured, asked: entries!.map((e) => ({ ...e })) },
  };
}
