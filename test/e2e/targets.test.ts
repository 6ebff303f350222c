/**
 * Targets an agent would name, on a keypad of GTK toggle buttons (as galculator's keys
 * are): the button family, ambiguous queries refused before any side effect, exact over
 * partial, stale refs whose advice is a call that works, and app names that match two
 * apps. The fixture prints every key press (the external oracle).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session, type CallResult } from '../../src/harness/session.js';
import { eventsOf } from './helpers/oracle.js';

let session: Session;
let keys: LaunchedApp;

beforeAll(async () => {
  session = await Session.start();
  keys = await session.launchFixture('targets_keys.py');
});

afterAll(async () => {
  await session?.close();
});

const events = (): Array<Record<string, unknown>> => eventsOf(keys);

/** Keys pressed since event number `from`. */
const pressedSince = (from: number): unknown[] =>
  events()
    .slice(from)
    .filter((e) => e.event === 'pressed')
    .map((e) => e.key);

async function press(args: Record<string, unknown>, key: string): Promise<CallResult> {
  const from = events().length;
  const r = await session.call('ax_click', { app: keys.pid, ...args });
  expect(r.isError, r.text).toBe(false);
  await keys.output?.waitForEvent((e) => e.event === 'pressed' && e.key === key, { from });
  return r;
}

/** The ref on the tree-file line matching `pattern`. */
function refIn(r: CallResult, pattern: RegExp): string {
  const line = fs
    .readFileSync(r.fields.file, 'utf8')
    .split('\n')
    .find((l) => pattern.test(l) && / e[0-9]+ /.test(l));
  if (!line) throw new Error(`no line matches ${pattern} in ${r.fields.file}`);
  return / (e[0-9]+) /.exec(line)?.[1] ?? '';
}

describe('the button family', () => {
  it('toggle buttons are [AXCheckBox (toggle button)] and button:7 presses one', async () => {
    const tree = await session.call('ax_get_tree', { app: keys.pid });
    expect(fs.readFileSync(tree.fields.file, 'utf8')).toMatch(
      /\[AXCheckBox \(toggle button\)\] "7" e[0-9]+/,
    );
    await press({ query: 'button:7' }, '7');
    await press({ query: 'role:button title:8' }, '8');
    // The push button is in the family too.
    await press({ query: 'button:=' }, '=');
  });

  it('ax_find with button: lists the toggle keys', async () => {
    const r = await session.call('ax_find', { app: keys.pid, query: 'button:MR' });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toMatch(/"MR"/);
  });
});

describe('ambiguous queries', () => {
  it('refuses "M" (MS, MR, M+ match equally) without pressing anything, then nth picks one', async () => {
    const from = events().length;
    const r = await session.call('ax_click', { app: keys.pid, query: 'M' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/'M' matches 3 elements equally well/);
    for (const k of ['"MS"', '"MR"', '"M+"']) expect(r.text).toContain(k);
    // A later press is processed after anything the refused call might have sent.
    await press({ query: 'button:=' }, '=');
    expect(pressedSince(from)).toEqual(['=']);
    // The pick the error lists for MR, added to the query, presses MR.
    const pick = /\[AXCheckBox\] "MR" at [0-9]+,[0-9]+ (nth:[0-9]+)/.exec(r.text);
    expect(pick, r.text).not.toBeNull();
    await press({ query: `M ${pick?.[1]}` }, 'MR');
  });

  it('an exact match wins over partial ones: "C" presses C, not CE', async () => {
    const from = events().length;
    await press({ query: 'C' }, 'C');
    expect(pressedSince(from)).toEqual(['C']);
  });

  it('reads still answer with the best match (the one ax_find ranks first) and the count', async () => {
    const found = await session.call('ax_find', { app: keys.pid, query: 'M' });
    expect(found.isError, found.text).toBe(false);
    const { count, candidates } = found.structured as {
      count: number;
      candidates: Array<{ ref: string }>;
    };
    expect(count, found.text).toBeGreaterThanOrEqual(3);
    const r = await session.call('ax_get_value', { app: keys.pid, query: 'M' });
    expect(r.isError, r.text).toBe(false);
    expect(r.structured).toMatchObject({ found: true, role: 'AXCheckBox', value: 'false' });
    expect(['MS', 'MR', 'M+']).toContain(r.structured.title);
    expect(r.structured.element_ref).toBe(candidates[0].ref);
    expect(r.text).toContain(`"${String(r.structured.title)}" ${candidates[0].ref}`);
    expect(r.structured.other_matches, r.text).toBe(count - 1);
    expect(r.text).toContain(`the best of ${count} matches`);
  });
});

describe('stale refs', () => {
  it('names the re-created element by its new ref, and that ref presses it', async () => {
    const tree = await session.call('ax_get_tree', { app: keys.pid });
    const old = refIn(tree, /\[AXCheckBox \(toggle button\)\] "7"/);
    let from = events().length;
    await session.call('ax_click', { app: keys.pid, query: 'button:"Drop 7"' });
    await keys.output?.waitForEvent((e) => e.event === 'removed', { from });
    from = events().length;
    await session.call('ax_click', { app: keys.pid, query: 'button:"Add 7"' });
    await keys.output?.waitForEvent((e) => e.event === 'added', { from });
    const stale = await session.call('ax_click', { ref: old });
    expect(stale.isError).toBe(true);
    const now = /the same element is now (e[0-9]+)/.exec(stale.text);
    expect(now, stale.text).not.toBeNull();
    expect(now?.[1]).not.toBe(old);
    await press({ ref: now?.[1] }, '7');
    // The suggested query works as well.
    const query = /\(or query: "([^"]+)"\)/.exec(stale.text);
    expect(query, stale.text).not.toBeNull();
    await press({ query: query?.[1] }, '7');
  });
});

describe('app names', () => {
  it('a name two apps share is an error listing pids and windows; a title picks one', async () => {
    const second = await session.launchFixture('targets_keys.py', ['Second Keys']);
    const name = (await session.call('ax_get_tree', { app: keys.pid })).fields.app;
    expect(name).toBeTruthy();
    const r = await session.call('ax_click', { app: name, query: 'button:8' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/matches 2 apps/);
    expect(r.text).toContain(`pid ${keys.pid}, window "Fixture Keys"`);
    expect(r.text).toContain(`pid ${second.pid}, window "Second Keys"`);
    const from = eventsOf(second).length;
    const ok = await session.call('ax_click', { app: 'Second Keys', query: 'button:8' });
    expect(ok.isError, ok.text).toBe(false);
    await second.output?.waitForEvent((e) => e.event === 'pressed' && e.key === '8', { from });
    await second.stop();
  });
});

describe('galculator (Debian package): keys are GTK toggle buttons', () => {
  /** The line of the element in a fresh tree file of the app. */
  async function lineOf(pid: number, pattern: RegExp): Promise<string> {
    const tree = await session.call('ax_get_tree', { app: pid });
    const line = fs
      .readFileSync(tree.fields.file, 'utf8')
      .split('\n')
      .find((l) => pattern.test(l));
    if (!line) throw new Error(`no line matches ${pattern} in ${tree.fields.file}`);
    return line;
  }

  it('button:7 types 7; "M" (MS, MR, M+) is refused; its pick for MS saves to memory', async () => {
    // A private HOME: galculator writes its settings there on exit.
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-galculator-'));
    const calc = await session.launch('galculator', [], { env: { HOME: home } });
    try {
      const display = /\[AXTextArea \(text\)\] "([^"]*)"/;
      const r = await session.call('ax_click', { app: calc.pid, query: 'button:7' });
      expect(r.isError, r.text).toBe(false);
      expect(display.exec(await lineOf(calc.pid, display))?.[1]).toBe('7');
      // MR is disabled while the memory is empty: it is the app's own record of MS.
      expect(await lineOf(calc.pid, /\] "MR" /)).toMatch(/ disabled /);
      const m = await session.call('ax_click', { app: calc.pid, query: 'M' });
      expect(m.isError).toBe(true);
      expect(m.text).toMatch(/'M' matches 3 elements equally well/);
      // Nothing was pressed: MS would have opened its "save here" menu.
      const after = await session.call('ax_get_tree', { app: calc.pid });
      expect(fs.readFileSync(after.fields.file, 'utf8')).not.toContain('"save here"');
      const pick = /\[AXCheckBox\] "MS" at [0-9]+,[0-9]+ (nth:[0-9]+)/.exec(m.text);
      expect(pick, m.text).not.toBeNull();
      const ms = await session.call('ax_click', { app: calc.pid, query: `M ${pick?.[1]}` });
      expect(ms.isError, ms.text).toBe(false);
      // MS opens galculator's "save here" menu; choosing it stores 7 and enables MR.
      const save = await session.call('ax_click', { app: calc.pid, query: 'menuitem:"save here"' });
      expect(save.isError, save.text).toBe(false);
      expect(await lineOf(calc.pid, /\] "MR" /)).not.toMatch(/ disabled /);
    } finally {
      await calc.stop();
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
