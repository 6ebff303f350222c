/**
 * ax_workflow: several action, find, wait and assert steps in one call. Every step is
 * checked before the first one runs (workflow-plan.ts), then each runs through its own
 * tool handler (so each writes its own tree file and screenshot) with its own timeout;
 * the first failure stops the run, and with `rollback` the completed steps that the undo
 * journal can take back are undone, newest first. The one summary lists the steps and
 * their files; the workflow's own file is that index with each step's summary in full.
 */
import path from 'node:path';
import { z } from 'zod';
import { AxError, describeError } from '../errors.js';
import { abortAfter } from '../model/timeout.js';
import type { NestedCall, ToolResponse } from '../pipeline/response.js';
import { click, clickAt, drag, keyPress, scroll, setValue, type } from './act.js';
import { assertTool } from './assert.js';
import type { ToolContext } from './context.js';
import { defineTool, type ToolDefinition } from './define.js';
import { find, getAttributes, getValue, waitFor, waitIdle } from './find.js';
import { undo, undoEntry } from './undo.js';
import { argumentError, interpolate, planWorkflow, type PlannedStep } from './workflow-plan.js';

export const MAX_STEPS = 50;

/** What a step may be: the tools that act, find, wait or check (never a workflow). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const STEP_TOOLS: ReadonlyMap<string, ToolDefinition<any>> = new Map(
  [
    click,
    clickAt,
    type,
    setValue,
    keyPress,
    scroll,
    drag,
    find,
    getValue,
    getAttributes,
    waitFor,
    waitIdle,
    assertTool,
  ].map((t) => [t.name, t]),
);

// Bounds (step count, timeout) are checked by planWorkflow with errors that name the step,
// not listed in the schema: every session pays for tools/list bytes.
const stepShape = z.object({
  tool: z.string().describe('An action, find, wait or assert tool.'),
  args: z.looseObject({}).optional().describe('"${id.field}": an earlier result.'),
  id: z.string().optional().describe('Default s1, s2...'),
  timeout_ms: z.number().optional().describe('Default 30000.'),
});

export interface StepOutcome {
  id: string;
  tool: string;
  status: 'passed' | 'failed' | 'timed_out';
  /** Basename of its tree file (the PNG shares it), when it wrote one. */
  pair?: string;
  summary?: string;
  error?: string;
}

export const workflow = defineTool({
  name: 'ax_workflow',
  title: 'Run steps',
  description: 'Run tool steps in order, stopping at the first failure.',
  kind: 'action',
  input: z.object({
    steps: z.array(stepShape).describe('In order.'),
    rollback: z.boolean().optional().describe('Undo done steps on failure.'),
  }),
  output: z.object({
    steps_run: z.number(),
    steps_passed: z.number(),
    steps: z.array(
      z.object({
        id: z.string(),
        tool: z.string(),
        status: z.enum(['passed', 'failed', 'timed_out']),
        pair: z.string().optional(),
        error: z.string().optional(),
      }),
    ),
    failed_step: z.string().optional(),
    rolled_back: z.array(z.object({ tool: z.string(), pair: z.string().optional() })).optional(),
    not_rolled_back: z.array(z.object({ tool: z.string(), reason: z.string() })).optional(),
  }),
  async handle(args, ctx) {
    const plan = planWorkflow(args.steps, STEP_TOOLS, MAX_STEPS);
    return runWorkflow(plan, args.rollback ?? false, ctx);
  },
});

async function runWorkflow(
  plan: PlannedStep[],
  rollback: boolean,
  ctx: ToolContext,
): Promise<ToolResponse> {
  const { pipeline } = ctx;
  // The journal's seq ranges of the steps: rollback takes back only what they recorded,
  // not an action another call of this session made meanwhile.
  const windows: Array<[number, number]> = [];
  const results = new Map<string, unknown>();
  const outcomes: StepOutcome[] = [];
  const texts: string[][] = [];
  // Each step's own call, for the session recorder: masked and checked for a password
  // field like a call of its own.
  const calls: NestedCall[] = [];
  let failed: StepOutcome | undefined;
  for (const step of plan) {
    if (ctx.signal.aborted) break;
    ctx.call.notify.progress(`step ${step.n}/${plan.length}: ${step.id} ${step.def.name}`);
    const before = pipeline.journal.mark;
    const { outcome, response, call } = await runStep(step, results, ctx);
    if (call) calls.push(call);
    windows.push([before, pipeline.journal.mark]);
    outcomes.push(outcome);
    texts.push(response?.text.split('\n') ?? []);
    if (response) results.set(step.id, response.structured);
    if (outcome.status !== 'passed') {
      failed = outcome;
      break;
    }
  }
  const rolled = failed && rollback ? await rollBack(ctx, windows) : undefined;
  const response = await report(
    ctx,
    plan.length,
    outcomes,
    texts,
    failed,
    rolled,
    ctx.signal.aborted,
  );
  return { ...response, calls };
}

/** One step through its own handler, bounded by its timeout and the call's cancellation. */
async function runStep(
  step: PlannedStep,
  results: ReadonlyMap<string, unknown>,
  ctx: ToolContext,
): Promise<{ outcome: StepOutcome; response?: ToolResponse; call?: NestedCall }> {
  const base = { id: step.id, tool: step.def.name };
  const { signal, clear } = abortAfter(ctx.signal, step.timeoutMs);
  let response: ToolResponse;
  // What the step was given, as far as it got: the plan's, then filled in.
  let args: Record<string, unknown> = step.args;
  try {
    const filled = interpolate(step, results);
    args = filled;
    const parsed = step.def.input.safeParse(filled);
    if (!parsed.success) {
      throw argumentError(`step ${step.n} (${step.id}, ${step.def.name})`, parsed.error);
    }
    // The step is its tool's own call, telling this workflow's client.
    const call = { tool: step.def.name, notify: ctx.call.notify, asking: ctx.call.asking };
    const run = step.def.handle(parsed.data, { ...ctx, signal, call });
    response = await Promise.race([run, aborted(signal)]);
  } catch (err) {
    if (signal.aborted && !ctx.signal.aborted) {
      return {
        outcome: {
          ...base,
          status: 'timed_out',
          error: `${step.id} (${step.def.name}) did not finish within ${step.timeoutMs} ms`,
        },
      };
    }
    response = ctx.pipeline.errorResponse(step.def.name, err);
  } finally {
    clear();
  }
  const s = response.structured;
  // An assertion that does not hold is a result for ax_assert, but stops a workflow.
  const passed = !response.isError && s.passed !== false;
  const view = typeof s.pid === 'number' ? ctx.pipeline.views.last(s.pid) : undefined;
  return {
    response,
    call: { tool: step.def.name, args, response, view },
    outcome: {
      ...base,
      status: passed ? 'passed' : 'failed',
      pair: typeof s.file === 'string' ? path.basename(s.file, '.txt') : undefined,
      summary: typeof s.summary === 'string' ? s.summary : undefined,
      error: passed ? undefined : stepError(s),
    },
  };
}

function stepError(s: Record<string, unknown>): string {
  if (typeof s.error === 'string') return s.error;
  const failures = Array.isArray(s.failures) ? s.failures : [];
  return failures.length > 0
    ? `assertion failed: ${failures
        .map(
          (f: { property?: string; expected?: unknown; actual?: unknown }) =>
            `${f.property} expected ${JSON.stringify(f.expected)}, got ${JSON.stringify(f.actual)}`,
        )
        .join('; ')}`
    : 'the step failed';
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(new AxError('action_failed', 'aborted'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

interface RolledBack {
  undone: Array<{ tool: string; pair?: string }>;
  notUndone: Array<{ tool: string; reason: string }>;
  texts: string[][];
}

/** Takes back what the journal recorded during the steps, newest first. */
async function rollBack(
  { pipeline, call }: ToolContext,
  windows: ReadonlyArray<[number, number]>,
): Promise<RolledBack> {
  const rolled: RolledBack = { undone: [], notUndone: [], texts: [] };
  const first = windows[0]?.[0] ?? pipeline.journal.mark;
  const ofSteps = pipeline.journal
    .since(first)
    .filter((e) => windows.some(([from, to]) => e.seq > from && e.seq <= to));
  for (const entry of ofSteps) {
    if (entry.reversal.kind === 'none') {
      rolled.notUndone.push({ tool: entry.tool, reason: entry.reversal.reason });
      continue;
    }
    call.notify.progress(`rollback: undoing ${entry.tool}`);
    try {
      const response = await undoEntry(pipeline, { tool: undo.name, notify: call.notify }, entry);
      const file = response.structured.file;
      rolled.texts.push(response.text.split('\n'));
      if (response.isError) {
        rolled.notUndone.push({ tool: entry.tool, reason: String(response.structured.error) });
      } else {
        rolled.undone.push({
          tool: entry.tool,
          pair: typeof file === 'string' ? path.basename(file, '.txt') : undefined,
        });
      }
    } catch (err) {
      rolled.notUndone.push({ tool: entry.tool, reason: describeError(err).message });
    }
  }
  return rolled;
}

function report(
  { pipeline, call }: ToolContext,
  total: number,
  outcomes: StepOutcome[],
  texts: string[][],
  failed: StepOutcome | undefined,
  rolled: RolledBack | undefined,
  cancelled: boolean,
): Promise<ToolResponse> {
  const passed = outcomes.filter((o) => o.status === 'passed').length;
  const last = outcomes[outcomes.length - 1];
  const parts = [
    failed
      ? `Ran ${outcomes.length} of ${total} steps: ${passed} passed, ${failed.id} (${failed.tool}) ${failed.status === 'timed_out' ? 'timed out' : 'failed'}`
      : cancelled
        ? `Cancelled after ${outcomes.length} of ${total} steps`
        : `Ran ${total} steps, all passed`,
  ];
  if (rolled) {
    parts.push(
      `rolled back ${rolled.undone.length} action${rolled.undone.length === 1 ? '' : 's'}` +
        (rolled.notUndone.length > 0 ? `, ${rolled.notUndone.length} not reversible` : ''),
    );
  }
  if (last?.summary && !failed) parts.push(`last (${last.id}): ${last.summary}`);
  const stepLines = outcomes.map(
    (o) => `${o.id} ${o.tool} ${o.status}${o.pair ? ` ${o.pair}` : ''}`,
  );
  const rollbackLines = rolled
    ? [
        ...rolled.undone.map((u) => `undo ${u.tool} passed${u.pair ? ` ${u.pair}` : ''}`),
        ...rolled.notUndone.map((u) => `not undone: ${u.tool} (${u.reason})`),
      ]
    : [];
  const listing = [
    ...outcomes.flatMap((o, i) => [`## ${stepLines[i]}`, ...texts[i].map((l) => `  ${l}`)]),
    ...(outcomes.length < total ? [`## not run: ${total - outcomes.length} later step(s)`] : []),
    ...(rolled
      ? ['## rollback', ...rollbackLines, ...rolled.texts.flatMap((t) => t.map((l) => `  ${l}`))]
      : []),
  ];
  return pipeline.report(call, {
    did: parts.join('; '),
    error: failed ? `${failed.id} (${failed.tool}): ${failed.error}` : undefined,
    listing: { title: `${outcomes.length} of ${total} steps`, lines: listing },
    answer: { key: 'steps', lines: [...stepLines, ...rollbackLines] },
    extra: {
      steps_run: outcomes.length,
      steps_passed: passed,
      steps: outcomes.map(({ summary: _s, ...o }) => o),
      ...(failed ? { failed_step: failed.id } : {}),
      ...(rolled ? { rolled_back: rolled.undone, not_rolled_back: rolled.notUndone } : {}),
    },
  });
}

export const workflowTools = [workflow];
