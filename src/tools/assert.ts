/** Assertions: does an element have the expected state? Pass/fail with every failure listed. */
import { z } from 'zod';
import { AxError } from '../errors.js';
import { defineTool, detailArg } from './define.js';
import { checkedValue } from '../actions/index.js';
import { elementTargetOf, elementTargetShape } from './schemas.js';

const assertionsShape = z.object({
  exists: z.boolean().optional(),
  enabled: z.boolean().optional(),
  focused: z.boolean().optional(),
  value: z.string().optional().describe('Exact value, e.g. "hello", "42", "true" (checked).'),
  title: z.string().optional().describe('Exact name.'),
  role: z.string().optional().describe('AXButton or a native role (push button).'),
  visible: z.boolean().optional(),
  contains_text: z.string().optional().describe('In the name, value or description (any case).'),
  checked: z.boolean().optional(),
});

type Assertions = z.infer<typeof assertionsShape>;
interface Failure {
  property: string;
  expected: unknown;
  actual: unknown;
}

export const assertTool = defineTool({
  name: 'ax_assert',
  title: 'Assert element state',
  description: "Check an element's state: passed, or each failure with expected and actual.",
  kind: 'read',
  input: z.object({
    ...elementTargetShape,
    assertions: assertionsShape.describe(
      'Expected state; all given must hold, e.g. {"enabled": true, "value": "42"}.',
    ),
    detail: detailArg,
  }),
  output: z.object({
    passed: z.boolean(),
    checked_properties: z.array(z.string()),
    failures: z.array(
      z.object({ property: z.string(), expected: z.unknown(), actual: z.unknown() }),
    ),
    element_ref: z.string().optional(),
  }),
  async handle(args, { pipeline, call }) {
    const target = elementTargetOf(args);
    const keys = Object.keys(args.assertions).filter(
      (k) => args.assertions[k as keyof Assertions] !== undefined,
    );
    if (keys.length === 0) {
      throw new AxError(
        'bad_argument',
        'assertions is empty',
        'Give at least one of exists, enabled, focused, value, title, role, visible, contains_text, checked',
      );
    }
    return pipeline.observe(call, {
      reuse: true,
      app: args.app,
      detail: args.detail,
      // The verdict is the answer: the visible list shrinks to its count.
      answer: (_seen, facts) => {
        const failures = facts.failures as Failure[];
        return failures.length === 0
          ? { key: 'passed', value: keys.join(', ') }
          : {
              key: 'failures',
              lines: failures.map(
                (f) =>
                  `${f.property}: expected ${JSON.stringify(f.expected)}, got ${JSON.stringify(f.actual)}`,
              ),
            };
      },
      inspect: async ({ view, desktop }) => {
        let index: number | undefined;
        try {
          index = pipeline.resolveTarget(view, target).index;
        } catch (err) {
          if (!(err instanceof AxError) || !['no_match', 'stale_ref'].includes(err.code)) throw err;
        }
        const failures: Failure[] = [];
        const a = args.assertions;
        const exists = index !== undefined;
        if (a.exists !== undefined && a.exists !== exists)
          failures.push({ property: 'exists', expected: a.exists, actual: exists });
        if (index !== undefined) {
          const el = view.snapshot.elements[index];
          const value = el.flags.includes('secure')
            ? undefined
            : ((await desktop.readText(el.id).catch(() => undefined)) ??
              checkedValue(el) ??
              el.value);
          const check = (
            property: string,
            expected: unknown,
            actual: unknown,
            ok = expected === actual,
          ): void => {
            if (!ok) failures.push({ property, expected, actual });
          };
          if (a.enabled !== undefined) check('enabled', a.enabled, !el.flags.includes('disabled'));
          if (a.focused !== undefined) check('focused', a.focused, el.flags.includes('focused'));
          if (a.visible !== undefined) check('visible', a.visible, view.visible[index]);
          if (a.checked !== undefined) check('checked', a.checked, el.flags.includes('checked'));
          // A nameless element's name is its description, as a name query reads it.
          if (a.title !== undefined) check('title', a.title, el.name || (el.description ?? ''));
          if (a.value !== undefined) {
            check(
              'value',
              a.value,
              el.flags.includes('secure') ? '(secure: not readable)' : (value ?? null),
            );
          }
          if (a.role !== undefined) {
            const want = a.role.toLowerCase();
            const ok = [
              el.role.toLowerCase(),
              el.role.toLowerCase().replace(/^ax/, ''),
              el.nativeRole.toLowerCase(),
            ].includes(want);
            check('role', a.role, `${el.role} (${el.nativeRole})`, ok);
          }
          if (a.contains_text !== undefined) {
            const hay = [el.name, value ?? '', el.description ?? ''].join('\n').toLowerCase();
            check(
              'contains_text',
              a.contains_text,
              clip(`${el.name} ${value ?? ''}`),
              hay.includes(a.contains_text.toLowerCase()),
            );
          }
        } else {
          for (const k of keys.filter((k) => k !== 'exists'))
            failures.push({
              property: k,
              expected: args.assertions[k as keyof Assertions],
              actual: 'element not found',
            });
        }
        return {
          passed: failures.length === 0,
          checked_properties: keys,
          failures,
          element_ref: index !== undefined ? view.refs[index] : undefined,
        };
      },
      results: ({ view }) => {
        const ref = args.ref?.trim();
        const i = ref ? view.refs.indexOf(ref) : -1;
        return i >= 0 ? { title: 'asserted element', indices: [i] } : undefined;
      },
      describe: (_seen, facts) => {
        const failures = facts.failures as Failure[];
        const what = args.ref ?? `'${args.query}'`;
        if (failures.length === 0)
          return `PASSED: ${what} ${keys.join(', ')} (${keys.length} checks)`;
        return `FAILED ${failures.length} of ${keys.length} checks on ${what}: ${failures
          .slice(0, 3)
          .map(
            (f) =>
              `${f.property} expected ${JSON.stringify(f.expected)} got ${JSON.stringify(f.actual)}`,
          )
          .join('; ')}${failures.length > 3 ? '; …' : ''}`;
      },
    });
  },
});

function clip(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > 80 ? `${one.slice(0, 79)}…` : one;
}

export const assertTools = [assertTool];
