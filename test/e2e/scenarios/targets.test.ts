/**
 * Issue 7, "Targets an agent would name": queries and app names resolved the way an agent
 * means them, checked by which widget the fixture app itself says was operated.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../../src/desktop/apps.js';
import { Session } from '../../../src/harness/session.js';
import { eventsOf, mark, readApp, settled } from '../helpers/oracle.js';

let session: Session;
/** Toggle keys MS, MR, M+, 7 (no key named "M"), app name calc-basic. */
let basic: LaunchedApp;
/** Toggle keys M, MS, MR, M+, 7, app name calc-sci. */
let sci: LaunchedApp;
let states: LaunchedApp;

beforeAll(async () => {
  session = await Session.start();
  await session.client.listTools();
  basic = await session.launchFixture('toggles.py', ['--prgname', 'calc-basic']);
  sci = await session.launchFixture('toggles.py', [
    '--prgname',
    'calc-sci',
    '--labels',
    'M,MS,MR,M+,7',
  ]);
  states = await session.launchFixture('states.py');
});

afterAll(async () => {
  await session?.close();
});

function toggled(app: LaunchedApp, from: number): unknown[] {
  return eventsOf(app, from)
    .filter((e) => e.event === 'toggled')
    .map((e) => e.widget);
}

describe('button: matches toggle buttons', () => {
  it('button:7 presses the toggle key "7"', async () => {
    const from = mark(basic);
    const r = await session.call('ax_click', { app: basic.pid, query: 'button:7' });
    expect(r.isError, r.text).toBe(false);
    await basic.output?.waitForEvent((e) => e.event === 'toggled' && e.widget === '7', { from });
    await settled(session, basic);
    expect(toggled(basic, from)).toEqual(['7']);
  });

  it('role:button with a title term presses the toggle key "MR"', async () => {
    const from = mark(basic);
    const r = await session.call('ax_click', { app: basic.pid, query: 'role:button title:MR' });
    expect(r.isError, r.text).toBe(false);
    await basic.output?.waitForEvent((e) => e.event === 'toggled' && e.widget === 'MR', { from });
    await settled(session, basic);
    expect(toggled(basic, from)).toEqual(['MR']);
  });
});

describe('a query that matches several elements equally well', () => {
  it('is an error listing the candidates, and nothing is clicked', async () => {
    const from = mark(basic);
    const r = await session.call('ax_click', { app: basic.pid, query: 'M' });
    expect(r.isError, r.text).toBe(true);
    for (const label of ['MS', 'MR', 'M+']) expect(r.text).toContain(`"${label}"`);
    expect(r.text).toMatch(/\be[0-9]+\b/); // candidates come with refs
    await settled(session, basic);
    expect(toggled(basic, from)).toEqual([]);
  });

  it('with nth picks one of them, the one the summary names', async () => {
    const from = mark(basic);
    const r = await session.call('ax_click', { app: basic.pid, query: 'title~M nth:2' });
    expect(r.isError, r.text).toBe(false);
    await basic.output?.waitForEvent((e) => e.event === 'toggled', { from });
    await settled(session, basic);
    const pressed = toggled(basic, from);
    expect(pressed).toHaveLength(1);
    expect(['MS', 'MR', 'M+']).toContain(pressed[0]);
    expect(r.fields.summary).toContain(`"${String(pressed[0])}"`);
  });

  it('an exact match beats partial ones: "M" presses the key named M', async () => {
    const from = mark(sci);
    const r = await session.call('ax_click', { app: sci.pid, query: 'M' });
    expect(r.isError, r.text).toBe(false);
    await sci.output?.waitForEvent((e) => e.event === 'toggled', { from });
    await settled(session, sci);
    expect(toggled(sci, from)).toEqual(['M']);
  });

  it('an app name that matches two apps is an error listing both, and nothing is clicked', async () => {
    const fromBasic = mark(basic);
    const fromSci = mark(sci);
    const r = await session.call('ax_click', { app: 'calc', query: 'button:7' });
    expect(r.isError, r.text).toBe(true);
    expect(r.text).toContain('calc-basic');
    expect(r.text).toContain('calc-sci');
    await settled(session, basic);
    await settled(session, sci);
    expect(toggled(basic, fromBasic)).toEqual([]);
    expect(toggled(sci, fromSci)).toEqual([]);
  });
});

describe('* is not a wildcard', () => {
  it('button:* finds no key in an app that has no key named "*"', async () => {
    const from = mark(basic);
    const r = await session.call('ax_click', { app: basic.pid, query: 'button:*' });
    expect(r.isError, r.text).toBe(true);
    await settled(session, basic);
    expect(toggled(basic, from)).toEqual([]);
  });
});

describe('ax_type with no target', () => {
  it('types into the one editable text of the front window when nothing has focus', async () => {
    const one = await session.launchFixture('entries.py', ['--count', '1']);
    expect(one.output?.events[0]?.focus).toBeNull();
    const from = mark(one);
    const r = await session.call('ax_type', { app: one.pid, text: 'hello there' });
    expect(r.isError, r.text).toBe(false);
    const e = await one.output?.waitForEvent((ev) => ev.event === 'changed', { from });
    expect(e).toMatchObject({ widget: 'field-1', value: 'hello there' });
    // The summary says which field it chose.
    expect(r.text).toContain('Field 1');
    await one.stop();
  });

  it('with several editable texts, is an error listing them, and types nothing', async () => {
    const two = await session.launchFixture('entries.py', ['--count', '2']);
    expect(two.output?.events[0]?.focus).toBeNull();
    const from = mark(two);
    const r = await session.call('ax_type', { app: two.pid, text: 'hello there' });
    expect(r.isError, r.text).toBe(true);
    expect(r.text).toContain('Field 1');
    expect(r.text).toContain('Field 2');
    await settled(session, two);
    expect(eventsOf(two, from)).toEqual([]);
    await two.stop();
  });
});

describe('a stale ref', () => {
  it('is an error whose advice leads to a call that works', async () => {
    const tree = await session.call('ax_get_tree', { app: states.pid });
    const file = fs.readFileSync(tree.fields.file, 'utf8');
    const old = /\[AXButton[^\]]*\] "Target" (e[0-9]+) /.exec(file)?.[1];
    expect(old, 'the Target button has a ref').toBeDefined();
    const rebuilt = mark(states);
    const rb = await session.call('ax_click', { app: states.pid, query: 'button:Rebuild' });
    expect(rb.isError, rb.text).toBe(false);
    await states.output?.waitForEvent((e) => e.event === 'rebuilt', { from: rebuilt });

    const from = mark(states);
    const stale = await session.call('ax_click', { ref: old });
    expect(stale.isError, stale.text).toBe(true);
    expect(stale.fields.error).toMatch(new RegExp(`ref ${old} is stale: .*"Target"`));
    // A round trip through the app's main loop: a click sent before it has been handled.
    await readApp(session, states.pid);
    expect(eventsOf(states, from).filter((e) => e.widget === 'target')).toEqual([]);

    // The advice names a query or a fresh ref; following it clicks the new Target.
    const query = /query:\s*(?:"((?:[^"\\]|\\.)+)"|'([^']+)'|`([^`]+)`)/.exec(stale.text);
    const fresh = [...stale.text.matchAll(/\b(e[0-9]+)\b/g)]
      .map((m) => m[1])
      .find((ref) => ref !== old);
    const follow = query
      ? { app: states.pid, query: query[1] ?? query[2] ?? query[3] }
      : fresh
        ? { ref: fresh }
        : undefined;
    expect(follow, `advice with a query or a fresh ref: ${stale.text}`).toBeDefined();
    const r = await session.call('ax_click', follow ?? {});
    expect(r.isError, r.text).toBe(false);
    const e = await states.output?.waitForEvent(
      (ev) => ev.event === 'clicked' && ev.widget === 'target',
      { from },
    );
    expect(e?.generation).toBe(2);
  });
});

describe('ax_get_tree with a root and max_depth', () => {
  it('walks below a root found by query, cut at max_depth below that root', async () => {
    const r = await session.call('ax_get_tree', {
      app: states.pid,
      root_query: 'button:Rebuild',
      max_depth: 1,
    });
    expect(r.isError, r.text).toBe(false);
    const file = fs.readFileSync(r.fields.file, 'utf8');
    const tree = file
      .slice(file.indexOf('\n# tree') + 1)
      .split('\n')
      .slice(1)
      .filter(Boolean);
    expect(tree[0]).toMatch(/"Rebuild"/);
    expect(file).not.toMatch(/"Apply"/);
  });

  it('walks below a root given by ref with max_depth 2', async () => {
    const full = await session.call('ax_get_tree', { app: states.pid });
    const text = fs.readFileSync(full.fields.file, 'utf8');
    // The box holding Target and Rebuild: the nearest line above Target indented less.
    const lines = text.split('\n');
    // (Rebuilt, Target is a toggle button: its role line may be any.)
    const at = lines.findIndex((l) => /\] "Target" e[0-9]+ /.test(l));
    const indent = (l: string): number => l.length - l.trimStart().length;
    const parent = lines.slice(0, at).findLast((l) => indent(l) < indent(lines[at]));
    const boxRef = / (e[0-9]+) /.exec(parent ?? '')?.[1];
    expect(boxRef, parent).toBeDefined();
    const r = await session.call('ax_get_tree', { app: states.pid, root: boxRef, max_depth: 2 });
    expect(r.isError, r.text).toBe(false);
    const file = fs.readFileSync(r.fields.file, 'utf8');
    expect(file).toMatch(/"Target"/);
    expect(file).toMatch(/"Rebuild"/);
    expect(file).not.toMatch(/"Apply"/);
  });
});
