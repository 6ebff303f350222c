/** ax_workflow's checks before the first step runs, and `${id.path}` references. */
import { describe, expect, it } from 'vitest';
import { AxError } from '../../src/errors.js';
import { STEP_TOOLS } from '../../src/tools/workflow.js';
import {
  interpolate,
  lookup,
  planWorkflow,
  referencesIn,
  type StepSpec,
} from '../../src/tools/workflow-plan.js';

function planError(steps: StepSpec[]): AxError {
  try {
    planWorkflow(steps, STEP_TOOLS, 50);
  } catch (err) {
    expect(err).toBeInstanceOf(AxError);
    return err as AxError;
  }
  throw new Error('planWorkflow accepted the steps');
}

describe('planWorkflow', () => {
  it('names steps by id, else s1, s2 ... by position, with the default timeout', () => {
    const plan = planWorkflow(
      [
        { tool: 'ax_find', args: { query: 'button:7' }, id: 'seven' },
        { tool: 'ax_click', args: { ref: '${seven.element_ref}' }, timeout_ms: 5000 },
      ],
      STEP_TOOLS,
    );
    expect(plan.map((s) => [s.n, s.id, s.def.name, s.timeoutMs])).toEqual([
      [1, 'seven', 'ax_find', 30_000],
      [2, 's2', 'ax_click', 5000],
    ]);
  });

  it('refuses a tool that cannot be a step (itself, an unknown name), naming the step', () => {
    expect(
      planError([{ tool: 'ax_click', args: { query: 'a' } }, { tool: 'ax_workflow' }]).message,
    ).toBe("step 2: 'ax_workflow' cannot be a workflow step");
    expect(planError([{ tool: 'ax_clik' }]).message).toMatch(/^step 1: 'ax_clik' cannot/);
  });

  it('refuses an unknown argument and a bad one before anything runs', () => {
    const unknown = planError([{ tool: 'ax_click', args: { query: 'a', button: 'left' } }]);
    expect(unknown.message).toBe('step 1 (s1, ax_click): unknown argument button');
    const bad = planError([
      { tool: 'ax_click', args: { query: 'a' } },
      { tool: 'ax_scroll', args: { direction: 'sideways' } },
    ]);
    expect(bad.message).toMatch(/^step 2 \(s2, ax_scroll\): direction: /);
    expect(bad.hint).toMatch(/nothing was run/);
  });

  it('refuses a reference to a later step, to itself, or to no step', () => {
    const later = planError([
      { tool: 'ax_click', args: { ref: '${f.element_ref}' } },
      { tool: 'ax_find', args: { query: 'x' }, id: 'f' },
    ]);
    expect(later.message).toBe(
      "step 1 (s1, ax_click), ref: ${f.element_ref} names 'f', which is not an earlier step",
    );
    expect(
      planError([{ tool: 'ax_find', id: 'f', args: { query: '${f.count}' } }]).message,
    ).toMatch(/names 'f', which is not an earlier step/);
  });

  it('refuses a malformed reference, duplicate ids, bad timeouts and an empty run', () => {
    expect(planError([{ tool: 'ax_find', args: { query: '${nodot}' } }]).message).toMatch(
      /\$\{nodot\} is not a reference/,
    );
    expect(
      planError([
        { tool: 'ax_find', args: { query: 'a' }, id: 'x' },
        { tool: 'ax_find', args: { query: 'b' }, id: 'x' },
      ]).message,
    ).toMatch(/id 'x' is used by an earlier step/);
    expect(planError([{ tool: 'ax_find', args: { query: 'a' }, timeout_ms: 0 }]).message).toMatch(
      /timeout_ms 0 is not/,
    );
    expect(planError([]).message).toMatch(/1 to 50 steps, not 0/);
  });

  it('checks an argument holding a reference only once it is filled in', () => {
    // `ref` must look like e42: the placeholder would fail that check now.
    const plan = planWorkflow(
      [
        { tool: 'ax_find', args: { query: 'x' }, id: 'f' },
        { tool: 'ax_click', args: { ref: '${f.element_ref}' } },
      ],
      STEP_TOOLS,
    );
    expect(plan).toHaveLength(2);
  });
});

describe('references', () => {
  const results = new Map<string, unknown>([
    [
      'f',
      {
        element_ref: 'e12',
        count: 3,
        candidates: [{ ref: 'e12' }, { ref: 'e14', title: 'Second' }],
        passed: false,
      },
    ],
  ]);
  const step = (args: Record<string, unknown>) => ({
    n: 2,
    id: 's2',
    def: { name: 'ax_click' },
    args,
  });

  it('fills a whole-string reference with the value as it is, and text in a longer string', () => {
    expect(
      interpolate(
        step({
          ref: '${f.candidates.1.ref}',
          n: '${f.count}',
          ok: '${f.passed}',
          text: 'found ${f.count}: ${f.candidates.1.title}',
          nested: { list: ['${f.element_ref}'] },
        }),
        results,
      ),
    ).toEqual({
      ref: 'e14',
      n: 3,
      ok: false,
      text: 'found 3: Second',
      nested: { list: ['e12'] },
    });
  });

  it('writes $${ as a literal ${ and does not read it as a reference', () => {
    expect(referencesIn('$${f.count} and ${f.count}', 'here')).toHaveLength(1);
    expect(interpolate(step({ text: 'cost $${f.count}' }), results)).toEqual({
      text: 'cost ${f.count}',
    });
  });

  it('a path the result does not have is an error naming the step and the path', () => {
    expect(() => interpolate(step({ ref: '${f.candidates.5.ref}' }), results)).toThrow(
      'step 2 (s2, ax_click): ${f.candidates.5.ref}: the result of f has no candidates.5.ref (it has: element_ref, count, candidates, passed)',
    );
  });

  it('lookup indexes lists by number only and reads own keys only', () => {
    expect(lookup({ a: [1, 2] }, ['a', '1'])).toEqual({ value: 2 });
    expect(lookup({ a: [1, 2] }, ['a', '01'])).toBeUndefined();
    expect(lookup({ a: [1, 2] }, ['a', 'length'])).toBeUndefined();
    expect(lookup({}, ['constructor'])).toBeUndefined();
  });
});
