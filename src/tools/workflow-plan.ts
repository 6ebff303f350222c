/**
 * A workflow's steps checked before the first one runs, and their `${id.path}` references
 * filled in from earlier results as they run. Pure: no pipeline, no desktop.
 *
 * Reference syntax: `${id.path}` where `id` is an earlier step's id (its `id`, else
 * `s1`, `s2`, ... by position) and `path` is dot-separated keys of that step's
 * structuredContent, a number indexing a list: `${find1.matches.0.ref}`. An argument that
 * is one reference alone takes the value as it is (a number stays a number); inside a
 * longer string the value is written as text. `$${` writes a literal `${`.
 */
import type { z } from 'zod';
import { AxError } from '../errors.js';
import type { ToolDefinition } from './define.js';

export interface StepSpec {
  tool: string;
  args?: Record<string, unknown>;
  id?: string;
  timeout_ms?: number;
}

export interface PlannedStep {
  /** 1-based position. */
  n: number;
  id: string;
  // Tools differ in input type; a workflow holds them side by side.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  def: ToolDefinition<any>;
  args: Record<string, unknown>;
  timeoutMs: number;
}

export const DEFAULT_STEP_TIMEOUT_MS = 30_000;
export const MAX_STEP_TIMEOUT_MS = 600_000;

const ID = /^[A-Za-z_][A-Za-z0-9_-]{0,39}$/;
/** `${...}`, or `$${...}` (an escaped literal). */
const REFERENCE = /(\$?)\$\{([^}]*)\}/g;
const WHOLE = /^\$\{([^}]*)\}$/;

export interface Reference {
  id: string;
  path: string[];
  /** As written, for error messages. */
  text: string;
}

/** `find1.matches.0.ref` → id find1, path [matches, 0, ref]; a bad form is an error. */
export function parseReference(expr: string, where: string): Reference {
  const text = `\${${expr}}`;
  const parts = expr.trim().split('.');
  const [id, ...path] = parts;
  if (!ID.test(id ?? '') || path.length === 0 || path.some((p) => p === '')) {
    throw new AxError(
      'bad_argument',
      `${where}: ${text} is not a reference`,
      'Write ${id.field}, e.g. ${find1.matches.0.ref} (step id, then dot-separated fields; numbers index lists)',
    );
  }
  return { id, path, text };
}

/** Every reference in a value (strings at any depth), escaped ones left out. */
export function referencesIn(value: unknown, where: string): Reference[] {
  if (typeof value === 'string') {
    const found: Reference[] = [];
    for (const m of value.matchAll(REFERENCE)) {
      if (m[1] === '') found.push(parseReference(m[2], where));
    }
    return found;
  }
  if (Array.isArray(value)) return value.flatMap((v) => referencesIn(v, where));
  if (value !== null && typeof value === 'object') {
    return Object.values(value).flatMap((v) => referencesIn(v, where));
  }
  return [];
}

function stepName(n: number, id: string, tool: string): string {
  return `step ${n} (${id}, ${tool})`;
}

/**
 * Checks every step before anything runs: known tool, unique ids, references only to
 * earlier steps, argument names, and every argument without a reference against the
 * tool's schema (those with one are checked once filled in).
 */
export function planWorkflow(
  steps: readonly StepSpec[],
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  tools: ReadonlyMap<string, ToolDefinition<any>>,
  maxSteps = Infinity,
): PlannedStep[] {
  if (steps.length === 0 || steps.length > maxSteps) {
    throw new AxError(
      'bad_argument',
      `a workflow takes 1 to ${maxSteps} steps, not ${steps.length}`,
      'Split a longer run into several workflows; nothing was run',
    );
  }
  const seen = new Set<string>();
  return steps.map((step, i) => {
    const n = i + 1;
    const def = tools.get(step.tool);
    if (!def) {
      throw new AxError(
        'bad_argument',
        `step ${n}: '${step.tool}' cannot be a workflow step`,
        `Use one of ${[...tools.keys()].join(', ')}; nothing was run`,
      );
    }
    const id = step.id ?? `s${n}`;
    const where = stepName(n, id, step.tool);
    if (!ID.test(id)) {
      throw new AxError(
        'bad_argument',
        `${where}: id '${id}' is not a name`,
        'Use letters, digits, _ and - (starting with a letter), e.g. "find1"; nothing was run',
      );
    }
    if (seen.has(id)) {
      throw new AxError(
        'bad_argument',
        `${where}: id '${id}' is used by an earlier step`,
        'Give each step its own id; nothing was run',
      );
    }
    const timeout = step.timeout_ms;
    if (
      timeout !== undefined &&
      !(Number.isInteger(timeout) && timeout >= 1 && timeout <= MAX_STEP_TIMEOUT_MS)
    ) {
      throw new AxError(
        'bad_argument',
        `${where}: timeout_ms ${timeout} is not a whole number of ms in 1..${MAX_STEP_TIMEOUT_MS}`,
        'Pass e.g. 10000; nothing was run',
      );
    }
    const args = step.args ?? {};
    const shape = (def.input as z.ZodObject).shape;
    const unknown = Object.keys(args).filter((k) => !Object.hasOwn(shape, k));
    if (unknown.length > 0) {
      throw new AxError(
        'bad_argument',
        `${where}: unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`,
        `${step.tool} takes ${Object.keys(shape).join(', ')}; nothing was run`,
      );
    }
    const deferred: Record<string, true> = {};
    for (const [key, value] of Object.entries(args)) {
      const refs = referencesIn(value, `${where}, ${key}`);
      for (const ref of refs) {
        if (!seen.has(ref.id)) {
          throw new AxError(
            'bad_argument',
            `${where}, ${key}: ${ref.text} names '${ref.id}', which is not an earlier step`,
            `Refer to the id of a step before this one (${[...seen].join(', ') || 'none'}); nothing was run`,
          );
        }
      }
      if (refs.length > 0) deferred[key] = true;
    }
    const checked = (def.input as z.ZodObject).omit(deferred).safeParse(args);
    if (!checked.success) throw argumentError(where, checked.error);
    seen.add(id);
    return { n, id, def, args, timeoutMs: step.timeout_ms ?? DEFAULT_STEP_TIMEOUT_MS };
  });
}

/** A schema failure as one error naming the step and each argument. */
export function argumentError(where: string, error: z.ZodError): AxError {
  const problems = error.issues.map((i) => `${i.path.join('.') || 'args'}: ${i.message}`);
  return new AxError(
    'bad_argument',
    `${where}: ${problems.join('; ')}`,
    'Fix the arguments of that step; nothing was run',
  );
}

/** A field of a result, or `undefined` (not found) when a key or index is missing. */
export function lookup(result: unknown, path: readonly string[]): { value: unknown } | undefined {
  let at: unknown = result;
  for (const key of path) {
    if (Array.isArray(at) && /^(0|[1-9][0-9]*)$/.test(key) && Number(key) < at.length) {
      at = at[Number(key)];
    } else if (
      at !== null &&
      typeof at === 'object' &&
      !Array.isArray(at) &&
      Object.hasOwn(at, key)
    ) {
      at = (at as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  return { value: at };
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The step's arguments with every reference filled in from `results` (structuredContent by
 * step id). A path that the result does not have is an error naming the step and the path.
 */
export function interpolate(
  step: Pick<PlannedStep, 'n' | 'id' | 'args'> & { def: { name: string } },
  results: ReadonlyMap<string, unknown>,
): Record<string, unknown> {
  const where = stepName(step.n, step.id, step.def.name);
  const resolve = (expr: string): unknown => {
    const ref = parseReference(expr, where);
    const found = lookup(results.get(ref.id), ref.path);
    if (!found) {
      const result = results.get(ref.id);
      const has =
        result !== null && typeof result === 'object' ? Object.keys(result).join(', ') : 'nothing';
      throw new AxError(
        'bad_argument',
        `${where}: ${ref.text}: the result of ${ref.id} has no ${ref.path.join('.')} (it has: ${has})`,
        'Check the path against that step’s structuredContent; this step was not run',
        { step: step.id, reference: ref.text },
      );
    }
    return found.value;
  };
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const whole = WHOLE.exec(value);
      if (whole) return resolve(whole[1]);
      return value.replace(REFERENCE, (_all, escaped: string, expr: string) =>
        escaped ? `\${${expr}}` : asText(resolve(expr)),
      );
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
    }
    return value;
  };
  return fill(step.args) as Record<string, unknown>;
}
