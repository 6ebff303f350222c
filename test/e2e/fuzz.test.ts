/**
 * Bad arguments for every tool, generated from the input schemas the server lists
 * (seeded, so a failure is reproducible): wrong types, huge values, control and lone
 * surrogate characters, hostile refs and queries. Every call must end with a clear error
 * or a valid result, the server must stay up, and the fixture app, whose own log records
 * every change, must see no input at all.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';
import { rng } from '../unit/helpers/synthetic.js';
import { eventsOf, mark } from './helpers/oracle.js';

const SEEDS = (process.env.AXPAGE_FUZZ_SEEDS ?? '1,2,3').split(',').map(Number);
const CALLS = Number(process.env.AXPAGE_FUZZ_CALLS ?? 300);

let session: Session;
let form: LaunchedApp;

beforeAll(async () => {
  session = await Session.start();
  form = await session.launchFixture('form.py');
});

afterAll(async () => {
  await session?.close();
});

/** Strings no field should accept as something to type, press or find. */
const HOSTILE_STRINGS = [
  '\ud800',
  'a\udfffb',
  '\u0000',
  '\u001b[2J',
  '\u0007\u0008',
  '/(a+)+$/',
  `title:/(a+)+$/ value:/${'a'.repeat(30)}!/`,
  '"unclosed',
  'role:',
  '//*[@title=',
  'e0',
  'e99999999999',
  ' e-1 ',
  '../../../../etc/passwd',
  '\u202e\u0000evil',
  'x'.repeat(100_000),
  '\ufffe\uffff',
];

const HOSTILE_NUMBERS = [-1, -1e308, 1e308, Number.MAX_SAFE_INTEGER + 2, 0.5, -0, 99_999];

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  enum?: unknown[];
  anyOf?: Schema[];
  items?: Schema;
};

/** A value that is wrong for the field: the wrong type, or hostile content of the right type. */
function badValue(name: string, schema: Schema, pick: <T>(xs: T[]) => T): unknown {
  const wrongTypes: unknown[] = [null, [], {}, true, { $ne: 1 }, [[[]]], 'ü'.repeat(3000)];
  if (pick([true, false, false])) return pick(wrongTypes);
  const types = new Set(
    [schema.type, ...(schema.anyOf ?? []).map((s) => s.type)].flat().filter(Boolean),
  );
  if (schema.enum) return pick(['', 'NOT-A-CHOICE', '\u0000', 42]);
  // The app field: a bad app name, or the fixture's own pid with bad fields beside it.
  if (name === 'app') return pick(['\u0000', 'no-such-app-\ud800', -5, 0, form.pid]);
  if (types.has('string')) return pick(HOSTILE_STRINGS);
  if (types.has('number') || types.has('integer')) return pick(HOSTILE_NUMBERS);
  if (types.has('boolean')) return pick(['true', 1, null]);
  if (types.has('array')) return pick([['\ud800'], [null], new Array(5000).fill('ctrl')]);
  if (types.has('object')) return pick([{ role: '\ud800' }, { titleContains: 5 }, []]);
  return pick(wrongTypes);
}

it.each(SEEDS)(
  `${CALLS} bad calls with seed %i: each a clear error or a valid result; the app saw nothing`,
  async (SEED) => {
    const { tools } = await session.client.listTools();
    const random = rng(SEED);
    const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
    const eventsBefore = mark(form);
    let errors = 0;
    for (let i = 0; i < CALLS; i++) {
      const tool = pick(tools);
      const props = Object.entries((tool.inputSchema as Schema).properties ?? {});
      const args: Record<string, unknown> = {};
      for (const [name, schema] of props) {
        if (random() < 0.5) args[name] = badValue(name, schema, pick);
      }
      // At least one field is bad, so no call is a valid action by accident.
      const fields = props.filter(([name]) => name !== 'app');
      if (fields.length > 0 && Object.keys(args).every((k) => k === 'app')) {
        const [name, schema] = pick(fields);
        args[name] = badValue(name, schema, pick);
      }
      const what = `${tool.name} ${JSON.stringify(args).slice(0, 300)}`;
      const r = await session.client.callTool({ name: tool.name, arguments: args });
      const text = (r.content as Array<{ type: string; text?: string }>)
        .filter((c) => c.type === 'text')
        .map((c) => c.text ?? '')
        .join('\n');
      // A value the schema refuses is a result like any other error (bad_argument), not a
      // protocol error.
      expect(text, what).toMatch(/^status: (success|error)/);
      if (r.isError) {
        errors++;
        // Clear: an error line that says something, not a stack trace.
        expect(text, what).toMatch(/\nerror: .{10,}/);
        expect(text, what).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/);
      }
      expect(Buffer.byteLength(text), what).toBeLessThanOrEqual(2048);
    }
    // Still up and answering.
    await session.client.ping();
    const after = await session.call('ax_get_value', { app: form.pid, query: 'Name' });
    expect(after.isError, after.text).toBe(false);
    // The fixture logs every change, click, toggle and selection: none happened.
    expect(eventsOf(form, eventsBefore)).toEqual([]);
    console.log(`fuzz: ${CALLS} calls, ${errors} errors, seed ${SEED}`);
  },
);
