/**
 * The action matrix: every action that applies to a kind of widget, on GTK 3, GTK 4, Qt 5
 * and a web page in Firefox ESR, through `axpage serve` and the MCP SDK client. Each cell
 * checks two things against what a person would expect of the action:
 *   - the app's own account of its state (the fixture's log, test/fixtures/apps/*_matrix.py,
 *     or the page's own script, test/fixtures/web/matrix.html): the widget changed as
 *     expected, and nothing else did;
 *   - axpage's summary of the last call: verdict `confirmed`, and the change it names.
 * Then the same actions on a Debian app per toolkit (gtk3-widget-factory,
 * gtk4-widget-factory, FeatherPad), read back by pyatspi. A cell that fails fails its
 * test. The whole matrix is printed as markdown tables, and written to
 * docs/action-matrix.md when every cell ran.
 *
 * One desktop per toolkit serves all its cells, its fixture's first: before each fixture
 * cell the app puts every widget back to its start (a signal to the fixture, a message to
 * the page) and axpage walks it once, so the cell's summary shows only what the cell did.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as prettier from 'prettier';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { FIREFOX, launchFirefox, type LaunchedBrowser } from '../../src/harness/browser.js';
import {
  packageRoot,
  Session,
  type CallResult,
  type HarnessDesktop,
} from '../../src/harness/session.js';
import {
  describeNeeding,
  file,
  program,
  pythonGtk,
  pythonModule,
  type Need,
} from './helpers/needs.js';
import { SWAY_SESSION_NEEDS } from './helpers/sway-needs.js';
import { readNth, type AtspiElement } from './helpers/oracle.js';
import { servePage, type PageServer } from './helpers/page-server.js';

type Kit = 'gtk3' | 'gtk4' | 'qt5' | 'firefox';
/** The desktop a column runs on: the X11 one, or a headless sway (Wayland) session. */
type Kind = 'x11' | 'sway';
type Mode = 'background' | 'foreground';
type State = Record<string, unknown>;

const KITS: ReadonlyArray<{ kit: Kit; kind: Kind; title: string }> = [
  { kit: 'gtk3', kind: 'x11', title: 'GTK 3' },
  { kit: 'gtk4', kind: 'x11', title: 'GTK 4' },
  { kit: 'qt5', kind: 'x11', title: 'Qt 5' },
  { kit: 'firefox', kind: 'x11', title: 'Firefox ESR' },
  { kit: 'gtk3', kind: 'sway', title: 'GTK 3 on sway' },
  { kit: 'gtk4', kind: 'sway', title: 'GTK 4 on sway' },
  { kit: 'qt5', kind: 'sway', title: 'Qt 5 on sway' },
];

const DOC = path.join(packageRoot(), 'docs', 'action-matrix.md');
const COMMAND = 'npm run build && npx vitest run test/e2e/action-matrix.test.ts';

interface Step {
  tool: string;
  args: Record<string, unknown>;
}

interface Row {
  widget: string;
  action: string;
  /** The calls, given how the toolkit's widget is queried. */
  steps: (target: (name: string) => string) => Step[];
  /** The app's state afterwards: these widgets changed, every other one as it was. */
  expect: State;
  /** What the last call's summary must name among its changes (each must match a line). */
  names: RegExp[];
  /** Toolkits without this kind of widget, and why. */
  absent?: Partial<Record<Kit, string>>;
}

/**
 * How each toolkit's widget is found when its name alone does not find it the way a
 * person would: a Qt combo box is named by its current item; a GTK 4 tree row's expander
 * is a button of its own.
 */
const TARGETS: Partial<Record<Kit, Record<string, string>>> = {
  gtk4: { Europe: 'button:Expand' },
  qt5: { Colour: 'AXComboBox' },
};

const mode = (m: Mode): Record<string, unknown> =>
  m === 'foreground' ? { delivery_mode: 'foreground' } : {};
const click = (query: string, m: Mode): Step => ({
  tool: 'ax_click',
  args: { query, ...mode(m) },
});

/** One row per delivery mode of the same clicks. */
function clicks(
  widget: string,
  steps: (target: (name: string) => string, m: Mode) => Step[],
  expected: State,
  names: RegExp[],
  absent?: Row['absent'],
  how = 'ax_click',
): Row[] {
  return (['background', 'foreground'] as const).map((m) => ({
    widget,
    action: `${how}, ${m}`,
    steps: (t) => steps(t, m),
    expect: expected,
    names,
    absent,
  }));
}

const NO_SWITCH = { qt5: 'Qt has no switch widget' };
const WEB_ONLY = {
  gtk3: 'web only',
  gtk4: 'web only',
  qt5: 'web only',
};

const ROWS: Row[] = [
  ...clicks('button', (t, m) => [click(t('Press'), m)], { button: 1 }, [/-> 'pressed 1'/]),
  ...clicks('toggle button', (t, m) => [click(t('Bold'), m)], { toggle: true }, [
    /"Bold".*-> (checked|pressed)$/,
  ]),
  ...clicks('check box', (t, m) => [click(t('Remember'), m)], { check: true }, [
    /"Remember".*unchecked -> checked/,
  ]),
  {
    widget: 'check box',
    action: 'ax_set_value "true"',
    steps: (t) => [{ tool: 'ax_set_value', args: { query: t('Remember'), value: 'true' } }],
    expect: { check: true },
    names: [/"Remember".*unchecked -> checked/],
  },
  ...clicks('radio button', (t, m) => [click(t('Large'), m)], { radio: 'Large' }, [
    /"Large".*unchecked -> checked/,
  ]),
  ...clicks(
    'switch',
    (t, m) => [click(t('Wi-Fi'), m)],
    { switch: true },
    [/"Wi-Fi".*unchecked -> checked/],
    NO_SWITCH,
  ),
  {
    widget: 'entry',
    action: 'ax_type',
    steps: (t) => [{ tool: 'ax_type', args: { query: t('Name'), text: 'hello' } }],
    expect: { entry: 'hello' },
    names: [/"Name".*'' -> 'hello'/],
  },
  {
    widget: 'entry',
    action: 'ax_type, foreground',
    steps: (t) => [
      { tool: 'ax_type', args: { query: t('Name'), text: 'hello', ...mode('foreground') } },
    ],
    expect: { entry: 'hello' },
    names: [/"Name".*'' -> 'hello'/],
  },
  {
    widget: 'entry',
    action: 'ax_type + key Return',
    steps: (t) => [{ tool: 'ax_type', args: { query: t('Name'), text: 'hi', key: 'Return' } }],
    expect: { entry: 'hi', 'entry-activate': 1 },
    names: [/"Name".*'' -> 'hi'/, /-> 'submitted 1'/],
  },
  {
    widget: 'entry',
    action: 'ax_set_value',
    steps: (t) => [{ tool: 'ax_set_value', args: { query: t('Name'), value: 'set' } }],
    expect: { entry: 'set' },
    names: [/"Name".*'' -> 'set'/],
  },
  {
    widget: 'entry',
    action: 'ax_key_press Return, with target',
    steps: (t) => [{ tool: 'ax_key_press', args: { query: t('Name'), key: 'Return' } }],
    expect: { 'entry-activate': 1 },
    names: [/-> 'submitted 1'/],
  },
  {
    widget: 'text view',
    action: 'ax_type',
    steps: (t) => [{ tool: 'ax_type', args: { query: t('Notes'), text: 'line' } }],
    expect: { notes: 'line' },
    names: [/"Notes".*'' -> 'line'/],
  },
  {
    widget: 'text view',
    action: 'ax_type + key Return',
    steps: (t) => [{ tool: 'ax_type', args: { query: t('Notes'), text: 'line', key: 'Return' } }],
    expect: { notes: 'line\n' },
    names: [/"Notes".*'' -> 'line\\n'/],
  },
  {
    widget: 'spin button',
    action: 'ax_type (replace)',
    steps: (t) => [
      { tool: 'ax_type', args: { query: t('Amount'), text: '42', clear_first: true } },
    ],
    expect: { spin: 42 },
    names: [/"Amount".*'5' -> '42'/],
  },
  {
    widget: 'spin button',
    action: 'ax_type (replace), foreground',
    steps: (t) => [
      {
        tool: 'ax_type',
        args: { query: t('Amount'), text: '42', clear_first: true, ...mode('foreground') },
      },
    ],
    expect: { spin: 42 },
    names: [/"Amount".*'5' -> '42'/],
  },
  {
    widget: 'spin button',
    action: 'ax_set_value',
    steps: (t) => [{ tool: 'ax_set_value', args: { query: t('Amount'), value: '17' } }],
    expect: { spin: 17 },
    names: [/"Amount".*'5' -> '17'/],
  },
  {
    widget: 'spin button',
    action: 'ax_key_press Up, with target',
    steps: (t) => [{ tool: 'ax_key_press', args: { query: t('Amount'), key: 'Up' } }],
    expect: { spin: 6 },
    names: [/"Amount".*'5' -> '6'/],
  },
  ...clicks(
    'combo box',
    (t, m) => [click(t('Colour'), m), click(t('Green'), m)],
    { combo: 'Green' },
    [/Green/],
    undefined,
    'ax_click it, then the item',
  ),
  {
    widget: 'slider',
    action: 'ax_set_value',
    steps: (t) => [{ tool: 'ax_set_value', args: { query: t('Volume'), value: '70' } }],
    expect: { slider: 70 },
    names: [/"Volume".*'20' -> '70'/],
  },
  ...clicks('list row', (t, m) => [click(t('Banana'), m)], { list: 'Banana' }, [
    /Banana.*unselected -> selected/,
  ]),
  ...clicks('tree expander', (t, m) => [click(t('Europe'), m)], { tree: ['Europe'] }, [
    /Europe.*collapsed -> expanded/,
  ]),
  ...clicks('notebook tab', (t, m) => [click(t('Advanced'), m)], { tabs: 'Advanced' }, [
    /"Advanced".*unselected -> selected|-> 'Advanced'/,
  ]),
  ...clicks(
    '<details> summary',
    (t, m) => [click(t('More options'), m)],
    { details: true },
    [/"More options".*collapsed -> expanded/],
    WEB_ONLY,
  ),
  ...clicks(
    'menu item',
    (t, m) => [click(t('File'), m), click(t('Open'), m)],
    { open: 1 },
    [/-> 'opened 1'/],
    undefined,
    'ax_click the menu, then the item',
  ),
];

/**
 * Cells where the toolkit gives accessibility no way to do the action (no action, no
 * editable text), by `widget|action` then toolkit, with why. What a person expects there is
 * an honest refusal: the call fails before anything changes, offering the foreground (the
 * foreground row of the same widget does it). Such a cell passes only when it is refused
 * with that advice and the app is unchanged; if a route appears, the cell fails until it
 * leaves this table.
 */
const GECKO_NO_TEXT = 'Gecko takes no text through accessibility';
const GTK4_NO_CHECK_ACTION = 'GTK 4.8 check buttons offer no action';
const NO_BACKGROUND_ROUTE: Record<string, Partial<Record<Kit | AppKit, string>>> = {
  'check box|ax_click, background': {
    gtk4: GTK4_NO_CHECK_ACTION,
    'gtk4-widget-factory': GTK4_NO_CHECK_ACTION,
  },
  'check box|ax_set_value "true"': { gtk4: GTK4_NO_CHECK_ACTION },
  'radio button|ax_click, background': {
    gtk4: GTK4_NO_CHECK_ACTION,
    'gtk4-widget-factory': GTK4_NO_CHECK_ACTION,
  },
  'entry|ax_type': { firefox: GECKO_NO_TEXT },
  'entry|ax_type + key Return': { firefox: GECKO_NO_TEXT },
  'entry|ax_set_value': { firefox: GECKO_NO_TEXT },
  'text view|ax_type': { firefox: GECKO_NO_TEXT },
  'text view|ax_type + key Return': { firefox: GECKO_NO_TEXT },
  'spin button|ax_type (replace)': { firefox: GECKO_NO_TEXT },
  'combo box|ax_click it, then the item, background': {
    gtk4: "GTK 4.8 drop-down rows have no action, and its list's selection does not choose",
    qt5: "Qt 5's combo list items only select in the list (Toggle), never in the combo",
  },
  'tree expander|ax_click, background': { qt5: 'Qt 5 offers no action that expands a tree row' },
  'menu item|ax_click the menu, then the item, background': {
    gtk4: "GTK 4.8's popover menu bar items offer no action",
  },
};

/**
 * Cells where the app does what a person expects and axpage says `confirmed`, but its
 * summary names the change only at times, by `widget|action` then app, with what is known.
 * Such a cell is held to all but the naming (the app changed, the verdict confirmed), and
 * shows in the table as a known gap, not as a pass.
 */
const SUMMARY_GAPS: Record<string, Partial<Record<AppKit, string>>> = {
  'toggle button|ax_click, background': {
    'gtk4-widget-factory':
      "GTK 4.8 sets the toggle's pressed state after its action returns and says nothing; the target read once more after the walk catches it in most runs, not all",
  },
};

const noRoute = (row: { widget: string; action: string }, kit: Kit | AppKit) =>
  NO_BACKGROUND_ROUTE[`${row.widget}|${row.action}`]?.[kit];

const NO_POPUP_PLACE =
  'a Wayland compositor tells no client where a popup is, so its items cannot be aimed at; the background row does it';

/**
 * Cells a session kind cannot do, by `widget|action`, then kind and toolkit, with why.
 * What a person expects there is an honest refusal: the call fails and the app is
 * unchanged. Such a cell passes only so; if the session learns to do it, the cell fails
 * until it leaves this table.
 */
const SESSION_LIMITS: Record<string, Partial<Record<Kind, Partial<Record<Kit, string>>>>> = {
  'menu item|ax_click the menu, then the item, foreground': {
    sway: { gtk3: NO_POPUP_PLACE, gtk4: NO_POPUP_PLACE, qt5: NO_POPUP_PLACE },
  },
  'combo box|ax_click it, then the item, foreground': {
    sway: { gtk3: NO_POPUP_PLACE, gtk4: NO_POPUP_PLACE },
  },
};

const sessionLimit = (row: Row, kit: Kit, kind: Kind) =>
  SESSION_LIMITS[`${row.widget}|${row.action}`]?.[kind]?.[kit];

/**
 * A cell with no background route: refused, offering the foreground, the app unchanged.
 * Undefined when it holds; else what went otherwise.
 */
function refusedHonestly(refused: CallResult | undefined, unchanged: boolean): string | undefined {
  if (!refused)
    return 'not refused, though this toolkit offers no route: take it out of NO_BACKGROUND_ROUTE';
  if (!/escalation: foreground|delivery_mode: "foreground"/.test(refused.text)) {
    return `refused without offering the foreground: ${errorOf(refused)}`;
  }
  return unchanged ? undefined : 'refused, but the app changed';
}

// ---------------------------------------------------------------------------------------
// The apps, each with its own account of its state.

/** A running app whose widgets can be put back to their start and whose state can be read. */
interface Rig {
  session: Session<HarnessDesktop>;
  pid: number;
  /** Puts every widget back to its start; resolves with that state. */
  reset(): Promise<State>;
  /** The app's state once input it already received is handled. */
  ping(): Promise<State>;
}

/** A fixture app answering SIGUSR1 (reset) and SIGUSR2 (ping) with its state. */
function fixtureRig(session: Session<HarnessDesktop>, app: LaunchedApp): Rig {
  const counts = { reset: 0, pong: 0 };
  const ask = async (signal: 'SIGUSR1' | 'SIGUSR2', event: 'reset' | 'pong') => {
    const n = ++counts[event];
    process.kill(app.pid, signal);
    const e = await app.output!.waitForEvent((x) => x.event === event && x.n === n, {
      timeoutMs: 15_000,
    });
    return e.state as State;
  };
  return {
    session,
    pid: app.pid,
    reset: () => ask('SIGUSR1', 'reset'),
    ping: () => ask('SIGUSR2', 'pong'),
  };
}

/** The web page, told to reset or answer through the server that serves it. */
function pageRig(session: Session, browser: LaunchedBrowser, page: PageServer): Rig {
  const counts = { reset: 0, pong: 0 };
  const ask = async (command: 'reset' | 'ping', event: 'reset' | 'pong') => {
    const n = ++counts[event];
    if (!page.send(command)) throw new Error('the page is not listening for commands');
    const e = await page.waitFor((x) => x.event === event && x.n === n);
    return e.state as State;
  };
  return {
    session,
    pid: browser.app.pid,
    reset: () => ask('reset', 'reset'),
    ping: () => ask('ping', 'pong'),
  };
}

/** The state once two reads in a row agree: whatever the calls set off has landed. */
async function steadyState(rig: Rig): Promise<State> {
  let last = await rig.ping();
  for (let i = 0; i < 50; i++) {
    const next = await rig.ping();
    if (JSON.stringify(next) === JSON.stringify(last)) return next;
    last = next;
  }
  throw new Error(`the app's state never came to rest: ${JSON.stringify(last)}`);
}

// ---------------------------------------------------------------------------------------
// One cell: act, read the app, read the summary.

interface Outcome {
  pass: boolean;
  /** A passing cell's note for the table (no background route, refused as it should be). */
  note?: string;
  /** Short and stable (no refs, points or times): what the table shows. */
  reason: string;
  /** Everything, for the failure message. */
  detail: string;
}

const results = new Map<string, Outcome>();
const cellKey = (row: Row, kit: Kit, kind: Kind) => `${row.widget}|${row.action}|${kit}|${kind}`;

/** Refs, points and quoting that change from run to run, taken out of a summary line. */
function stable(text: string): string {
  return text
    .replace(/ e\d+\b/g, '')
    .replace(/ at \(\d+,\d+\)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function effectOf(r: CallResult): string {
  return /effect: (\w+)/.exec(r.text)?.[1] ?? 'none';
}

/** The changes a summary names: its state and text change lines. */
function changesOf(r: CallResult): string[] {
  return [...(r.lists.state_changes ?? []), ...(r.lists.text_changes ?? [])];
}

function errorOf(r: CallResult): string {
  const error = r.fields.error ?? r.text.split('\n')[0];
  // The first sentence: what was refused and why; the advice after it, and an
  // explanation in parentheses that holds parentheses of its own, are in the detail.
  return stable(error.split(/\. (?=[A-Z])/)[0].replace(/ \([^()]*\([^()]*\)[^()]*\)/g, ''));
}

const show = (v: unknown) => JSON.stringify(v);

async function runCell(rig: Rig, row: Row, kit: Kit, kind: Kind): Promise<Outcome> {
  const before = await rig.reset();
  // A walk after the reset: the cell's summary is measured from the app at its start.
  const look = await rig.session.call('ax_get_tree', { app: rig.pid });
  if (look.isError) throw new Error(`ax_get_tree failed: ${look.text}`);
  const target = (name: string) => TARGETS[kit]?.[name] ?? name;
  const calls: Array<{ step: Step; result: CallResult }> = [];
  for (const step of row.steps(target)) {
    const result = await rig.session.call(step.tool, { app: rig.pid, ...step.args });
    calls.push({ step, result });
    if (result.isError) break;
  }
  const after = await steadyState(rig);
  const want = { ...before, ...row.expect };
  const problems: string[] = [];
  const why = noRoute(row, kit);
  if (why) {
    const refusal = calls.find((c) => c.result.isError)?.result;
    const wrongly = refusedHonestly(refusal, show(after) === show(before));
    const detail = [
      `${row.widget}, ${row.action} on ${kit} (no background route: ${why})`,
      ...calls.map(({ step, result }) => `--- ${step.tool} ${show(step.args)}\n${result.text}`),
      `--- app before: ${show(before)}`,
      `--- app after:  ${show(after)}`,
    ].join('\n');
    return wrongly
      ? { pass: false, reason: wrongly, detail }
      : {
          pass: true,
          reason: '',
          note: `no background route (${why}): refused, foreground offered`,
          detail,
        };
  }

  const refused = calls.find((c) => c.result.isError);
  const limit = sessionLimit(row, kit, kind);
  if (limit) {
    const detail = [
      `${row.widget}, ${row.action} on ${kit} on ${kind} (a limit of the session: ${limit})`,
      ...calls.map(({ step, result }) => `--- ${step.tool} ${show(step.args)}\n${result.text}`),
      `--- app before: ${show(before)}`,
      `--- app after:  ${show(after)}`,
    ].join('\n');
    if (!refused) {
      return { pass: false, reason: 'not refused: take it out of SESSION_LIMITS', detail };
    }
    return show(after) === show(before)
      ? { pass: true, reason: '', note: `a limit of ${kind} (${limit}): refused`, detail }
      : { pass: false, reason: 'refused, but the app changed', detail };
  }
  if (refused) problems.push(`refused: ${errorOf(refused.result)}`);
  const wrong = Object.keys({ ...want, ...after }).filter((k) => show(want[k]) !== show(after[k]));
  if (wrong.length > 0 && refused && show(after) === show(before)) {
    problems.push('app unchanged');
  } else if (wrong.length > 0) {
    const saw = wrong.map((k) => `${k} ${show(after[k])}, expected ${show(want[k])}`);
    problems.push(`app: ${saw.join('; ')}`);
  }
  const last = calls[calls.length - 1].result;
  if (!refused) {
    const effect = effectOf(last);
    const named = changesOf(last);
    const missing = row.names.filter((re) => !named.some((line) => re.test(line)));
    if (effect !== 'confirmed' || missing.length > 0 || wrong.length > 0) {
      const what = named.length > 0 ? named.map(stable).join('; ') : 'no change';
      problems.push(`axpage: effect ${effect}, names ${what}`);
    }
  }
  const detail = [
    `${row.widget}, ${row.action} on ${kit}`,
    ...calls.map(({ step, result }) => `--- ${step.tool} ${show(step.args)}\n${result.text}`),
    `--- app before: ${show(before)}`,
    `--- app after:  ${show(after)}`,
    `--- expected:   ${show(want)}`,
    `--- summary must name: ${row.names.map(String).join(', ')}`,
  ].join('\n');
  return { pass: problems.length === 0, reason: problems.join(' — '), detail };
}

/** The tests of one toolkit's column: one per row that applies to it. */
function column(kit: Kit, kind: Kind, rig: () => Rig): void {
  for (const row of ROWS) {
    if (row.absent?.[kit]) continue;
    it(`${row.widget}: ${row.action}`, async () => {
      let outcome: Outcome;
      try {
        outcome = await runCell(rig(), row, kit, kind);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        outcome = { pass: false, reason: `error: ${stable(message)}`, detail: message };
      }
      results.set(cellKey(row, kit, kind), outcome);
      expect(outcome.pass, `${outcome.reason}\n${outcome.detail}`).toBe(true);
    });
  }
}

// ---------------------------------------------------------------------------------------
// Debian apps: the same actions on apps as shipped, read back by pyatspi (another
// accessibility client). No app resets itself: each cell acts on a widget of its own.

type AppKit = 'gtk3-widget-factory' | 'gtk4-widget-factory' | 'featherpad';
const APPS: ReadonlyArray<{ kit: AppKit; title: string }> = [
  { kit: 'gtk3-widget-factory', title: 'gtk3-widget-factory (GTK 3)' },
  { kit: 'gtk4-widget-factory', title: 'gtk4-widget-factory (GTK 4)' },
  { kit: 'featherpad', title: 'FeatherPad (Qt 5)' },
];

/** One element line of a tree file: its role as AT-SPI names it, its name, ref and flags. */
interface TreeLine {
  atspiRole: string;
  name: string;
  ref: string;
  flags: string;
}

function treeLines(file: string): TreeLine[] {
  const out: TreeLine[] = [];
  const re =
    /^\s*[~+-]?\s*\[\S+ \(([^)]+)\)\] "((?:[^"\\]|\\.)*)"(?: \(\d+ chars\))?(?: value:"(?:[^"\\]|\\.)*")?(?: desc:"(?:[^"\\]|\\.)*")? (e\d+)(.*)$/;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = re.exec(line);
    if (m) out.push({ atspiRole: m[1], name: m[2], ref: m[3], flags: m[4] });
  }
  return out;
}

const has = (line: TreeLine, ...flags: string[]) =>
  flags.every((f) => new RegExp(`\\b${f}\\b`).test(line.flags));
const lacks = (line: TreeLine, ...flags: string[]) =>
  flags.every((f) => !new RegExp(`\\b${f}\\b`).test(line.flags));

interface AppRow {
  widget: string;
  action: string;
  /** Per app: which element of the walk the cell acts on; an app without one has none. */
  pick: Partial<Record<AppKit, (line: TreeLine) => boolean>>;
  steps: (ref: string) => Step[];
  /** Where the effect shows, when not on the element acted on. */
  readBack?: (line: TreeLine) => boolean;
  /** The effect, on that element as pyatspi reads it. */
  landed: (el: AtspiElement) => boolean;
  /** What the expected effect is, for the failure reason. */
  wanted: string;
  names: RegExp[];
}

/** The first element of one of these roles named `name`, enabled, neither on nor mixed. */
const enabledOff =
  (name: string, ...roles: string[]) =>
  (l: TreeLine) =>
    roles.includes(l.atspiRole) &&
    l.name === name &&
    has(l, 'enabled') &&
    lacks(l, 'checked', 'pressed', 'mixed');
/** A page tab named `name`. */
const tab = (name: string) => (l: TreeLine) => l.atspiRole === 'page tab' && l.name === name;

const APP_ROWS: AppRow[] = [
  {
    widget: 'check box',
    action: 'ax_click, background',
    pick: {
      'gtk3-widget-factory': enabledOff('checkbutton', 'check box'),
      'gtk4-widget-factory': enabledOff('checkbutton', 'check box'),
    },
    steps: (ref) => [{ tool: 'ax_click', args: { ref } }],
    landed: (el) => el.states.includes('checked'),
    wanted: 'checked',
    names: [/unchecked -> checked/],
  },
  {
    widget: 'toggle button',
    action: 'ax_click, background',
    pick: {
      'gtk3-widget-factory': enabledOff('togglebutton', 'toggle button'),
      // GTK 4.8 gives a toggle button the role of a push button.
      'gtk4-widget-factory': enabledOff('togglebutton', 'push button'),
    },
    steps: (ref) => [{ tool: 'ax_click', args: { ref } }],
    landed: (el) => el.states.includes('checked') || el.states.includes('pressed'),
    wanted: 'checked or pressed',
    names: [/-> (checked|pressed)$/],
  },
  {
    widget: 'radio button',
    action: 'ax_click, background',
    pick: {
      'gtk3-widget-factory': enabledOff('radiobutton', 'radio button'),
      // GTK 4.8 gives a radio button the role of a check box.
      'gtk4-widget-factory': enabledOff('radiobutton', 'check box'),
    },
    steps: (ref) => [{ tool: 'ax_click', args: { ref } }],
    landed: (el) => el.states.includes('checked'),
    wanted: 'checked',
    names: [/unchecked -> checked/],
  },
  {
    widget: 'entry',
    action: 'ax_type',
    pick: {
      'gtk3-widget-factory': (l) =>
        l.atspiRole === 'text' && l.name === 'entry' && has(l, 'enabled'),
      'gtk4-widget-factory': (l) =>
        l.atspiRole === 'text' && l.name === 'entry' && has(l, 'enabled'),
    },
    steps: (ref) => [{ tool: 'ax_type', args: { ref, text: 'hello' } }],
    landed: (el) => (el.text ?? '').endsWith('hello'),
    wanted: 'text ending "hello"',
    names: [/hello'$/],
  },
  {
    widget: 'text view',
    action: 'ax_type',
    pick: {
      'gtk3-widget-factory': (l) => l.atspiRole === 'text' && has(l, 'multiline', 'enabled'),
      'gtk4-widget-factory': (l) => l.atspiRole === 'text' && has(l, 'multiline', 'enabled'),
      featherpad: (l) => l.atspiRole === 'text' && has(l, 'multiline', 'enabled'),
    },
    steps: (ref) => [{ tool: 'ax_type', args: { ref, text: 'hello' } }],
    landed: (el) => (el.text ?? '').includes('hello'),
    wanted: 'text holding "hello"',
    names: [/hello/],
  },
  {
    widget: 'spin button',
    action: 'ax_set_value',
    pick: {
      'gtk3-widget-factory': (l) => l.atspiRole === 'spin button' && has(l, 'enabled'),
      'gtk4-widget-factory': (l) => l.atspiRole === 'spin button' && has(l, 'enabled'),
    },
    steps: (ref) => [{ tool: 'ax_set_value', args: { ref, value: '42' } }],
    landed: (el) => el.value === 42,
    wanted: 'value 42',
    names: [/-> '42'/],
  },
  {
    widget: 'slider',
    action: 'ax_set_value',
    pick: {
      'gtk3-widget-factory': (l) =>
        l.atspiRole === 'slider' && l.name === '50' && has(l, 'enabled'),
      'gtk4-widget-factory': (l) =>
        l.atspiRole === 'slider' && l.name === '50' && has(l, 'enabled'),
    },
    steps: (ref) => [{ tool: 'ax_set_value', args: { ref, value: '70' } }],
    landed: (el) => el.value === 70,
    wanted: 'value 70',
    names: [/-> '70'/],
  },
  {
    widget: 'notebook tab',
    action: 'ax_click, foreground',
    pick: {
      'gtk3-widget-factory': tab('page 2'),
      'gtk4-widget-factory': tab('page 2'),
    },
    steps: (ref) => [{ tool: 'ax_click', args: { ref, delivery_mode: 'foreground' } }],
    landed: (el) => el.states.includes('selected'),
    wanted: 'selected',
    names: [/unselected -> selected/],
  },
  {
    widget: 'menu item',
    action: 'ax_click the menu, then the item, background',
    pick: { featherpad: (l) => l.atspiRole === 'menu item' && l.name === 'Options' },
    steps: (ref) => [
      { tool: 'ax_click', args: { ref } },
      { tool: 'ax_click', args: { query: 'Line Numbers' } },
    ],
    readBack: (l) => l.atspiRole === 'menu item' && l.name === 'Line Numbers',
    landed: (el) => el.states.includes('checked'),
    wanted: 'Options > Line Numbers checked',
    names: [],
  },
];

const appKey = (row: AppRow, kit: AppKit) => `app|${row.widget}|${row.action}|${kit}`;

/**
 * The element pyatspi reads for a line of the walk: the same role, the same place among
 * the elements of that role (both walk depth first).
 */
async function counterpart(
  session: Session,
  pid: number,
  lines: TreeLine[],
  line: TreeLine,
): Promise<AtspiElement> {
  const ours = lines.filter((l) => l.atspiRole === line.atspiRole);
  const theirs = await readNth(session, pid, line.atspiRole, ours.indexOf(line));
  if (theirs.count !== ours.length || !theirs.element) {
    throw new Error(
      `the walk has ${ours.length} elements of role ${line.atspiRole}, pyatspi ${theirs.count}: cannot tell which is which`,
    );
  }
  return theirs.element;
}

async function runAppCell(
  session: Session,
  pid: number,
  row: AppRow,
  kit: AppKit,
): Promise<Outcome> {
  const look = await session.call('ax_get_tree', { app: pid, include_invisible: true });
  if (look.isError) throw new Error(`ax_get_tree failed: ${look.text}`);
  const lines = treeLines(look.fields.file);
  const picked = lines.find(row.pick[kit]!);
  if (!picked) throw new Error(`no element to act on in the walk of ${kit}`);
  const shows = row.readBack ? lines.find(row.readBack) : picked;
  if (!shows) throw new Error(`no element to read the effect from in the walk of ${kit}`);
  const calls: Array<{ step: Step; result: CallResult }> = [];
  for (const step of row.steps(picked.ref)) {
    const result = await session.call(step.tool, { app: pid, ...step.args });
    calls.push({ step, result });
    if (result.isError) break;
  }
  // A read by another client, through the app's main loop: what it was sent before is handled.
  const after = await counterpart(session, pid, lines, shows);
  const why = noRoute(row, kit);
  if (why) {
    const refusal = calls.find((c) => c.result.isError)?.result;
    const wrongly = refusedHonestly(refusal, !row.landed(after));
    const detail = `${row.widget}, ${row.action} on ${kit} (no background route: ${why})\n${calls
      .map(({ step, result }) => `--- ${step.tool} ${show(step.args)}\n${result.text}`)
      .join('\n')}`;
    return wrongly
      ? { pass: false, reason: wrongly, detail }
      : {
          pass: true,
          reason: '',
          note: `no background route (${why}): refused, foreground offered`,
          detail,
        };
  }
  const problems: string[] = [];
  const refused = calls.find((c) => c.result.isError);
  if (refused) problems.push(`refused: ${errorOf(refused.result)}`);
  const ok = row.landed(after);
  const gap = SUMMARY_GAPS[`${row.widget}|${row.action}`]?.[kit];
  if (gap) {
    const last = calls[calls.length - 1].result;
    const named = changesOf(last);
    // Held to everything but naming the change: the app changed, the verdict says so.
    const held = !refused && ok && effectOf(last) === 'confirmed';
    const isNamed = row.names.every((re) => named.some((l) => re.test(l)));
    const detail = `${row.widget}, ${row.action} on ${kit} (known summary gap: ${gap})\n${last.text}\n(named this run: ${isNamed})`;
    return held
      ? {
          pass: true,
          reason: '',
          note: `known gap: the app changes and axpage confirms it; the summary names the change only at times (${gap})`,
          detail,
        }
      : { pass: false, reason: 'the app did not change, or the verdict is not confirmed', detail };
  }
  if (!ok) problems.push(refused ? 'app unchanged' : `app: not ${row.wanted}`);
  if (!refused) {
    const last = calls[calls.length - 1].result;
    const effect = effectOf(last);
    const named = changesOf(last);
    const missing = row.names.filter((re) => !named.some((l) => re.test(l)));
    if (effect !== 'confirmed' || missing.length > 0 || !ok) {
      const what = named.length > 0 ? named.map(stable).join('; ') : 'no change';
      problems.push(`axpage: effect ${effect}, names ${what}`);
    }
  }
  const detail = [
    `${row.widget}, ${row.action} on ${kit}: acting on ${picked.ref} "${picked.name}" ${picked.flags.trim()}`,
    ...calls.map(({ step, result }) => `--- ${step.tool} ${show(step.args)}\n${result.text}`),
    `--- pyatspi after: ${show(after)}`,
    `--- expected: ${row.wanted}; summary must name: ${row.names.map(String).join(', ')}`,
  ].join('\n');
  return { pass: problems.length === 0, reason: problems.join(' — '), detail };
}

/** The tests of one Debian app: one per row it has a widget for. */
function appColumn(kit: AppKit, app: () => { session: Session; pid: number }): void {
  for (const row of APP_ROWS) {
    if (!row.pick[kit]) continue;
    it(`${row.widget}: ${row.action}`, async () => {
      let outcome: Outcome;
      try {
        const { session, pid } = app();
        outcome = await runAppCell(session, pid, row, kit);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        outcome = { pass: false, reason: `error: ${stable(message)}`, detail: message };
      }
      results.set(appKey(row, kit), outcome);
      expect(outcome.pass, `${outcome.reason}\n${outcome.detail}`).toBe(true);
    });
  }
}

// ---------------------------------------------------------------------------------------
// The table.

function cellText(key: string, absent?: string): string {
  if (absent) return `n/a (${absent})`;
  const outcome = results.get(key);
  if (!outcome) return 'not run';
  if (outcome.pass) return outcome.note ?? 'pass';
  return `**fail**: ${outcome.reason}`;
}

function markdown(header: string[], rows: string[][]): string {
  const escape = (s: string) => s.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/\n/g, ' ');
  return [
    `| ${header.map(escape).join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((cells) => `| ${cells.map(escape).join(' | ')} |`),
  ].join('\n');
}

function fixtureTable(): string {
  return markdown(
    ['widget', 'action', ...KITS.map((k) => k.title)],
    ROWS.map((row) => [
      row.widget,
      row.action,
      ...KITS.map((k) => cellText(cellKey(row, k.kit, k.kind), row.absent?.[k.kit])),
    ]),
  );
}

function appTable(): string {
  return markdown(
    ['widget', 'action', ...APPS.map((a) => a.title)],
    APP_ROWS.map((row) => [
      row.widget,
      row.action,
      ...APPS.map((a) =>
        cellText(appKey(row, a.kit), row.pick[a.kit] ? undefined : 'no such widget'),
      ),
    ]),
  );
}

function complete(): boolean {
  return (
    ROWS.every((row) =>
      KITS.every((k) => row.absent?.[k.kit] || results.has(cellKey(row, k.kit, k.kind))),
    ) &&
    APP_ROWS.every((row) => APPS.every((a) => !row.pick[a.kit] || results.has(appKey(row, a.kit))))
  );
}

function docText(fixtures: string, apps: string): string {
  const outcomes = [...results.values()];
  const passed = outcomes.filter((o) => o.pass && !o.note).length;
  const refused = outcomes.filter(
    (o) => o.pass && o.note?.startsWith('no background route'),
  ).length;
  const gaps = outcomes.filter((o) => o.pass && o.note?.startsWith('known gap')).length;
  const limited = outcomes.filter((o) => o.pass && o.note?.startsWith('a limit of')).length;
  const failed = outcomes.filter((o) => !o.pass).length;
  return `# Action matrix

What each action does to each kind of widget, per toolkit, checked end to end through
\`axpage serve\` and a real MCP client on a headless desktop. In each cell the effect of
the action is read back by something other than axpage and compared with what a person
would expect of the action, and with what axpage's summary of the last call says: its
verdict (\`effect: confirmed\`) and the change it names. "pass" means all of them agree; a
failing cell says what was refused, what the app saw ("app: ...") and what axpage said
("axpage: ..."). A cell marked "no background route" is one where the toolkit gives
accessibility no way to do the action (no action, no editable text): it passes only when
the call is refused before anything changes, offering the foreground, whose row does it.

Written by the test run, do not edit it by hand:

    ${COMMAND}

on Debian 12 with \`scripts/install-system-deps.sh\` (the file is written only when every
cell ran; rows and columns are in a fixed order). Of ${outcomes.length} cells, ${passed}
pass, ${refused} are refused as they should be (no background route in that toolkit), ${gaps}
${gaps === 1 ? 'is a known gap' : 'are known gaps'} (the summary names the change only at
times), ${limited} are refused as a limit of their session kind, and ${failed} fail.

## Fixture apps

One app per toolkit with one widget of each kind
(\`test/fixtures/apps/gtk3_matrix.py\`, \`gtk4_matrix.py\`, \`qt5_matrix.py\`, and the page
\`test/fixtures/web/matrix.html\` in Firefox ESR). The reader is the app's own account of
its state: the fixtures log every widget's state, the page's script posts its own. A cell
passes only when the widget changed as expected and nothing else did. Before each cell
the app puts every widget back to its start.

The columns "on sway" run the same fixtures on a headless sway (Wayland) session, the
others on the X11 desktop: with \`test/e2e/contract.test.ts\` they are the backend
contract every session kind is held to ([porting.md](porting.md)). A cell marked "a limit
of sway" is one that session cannot do (a Wayland compositor tells no client where a
popup is): it passes only when the call is refused and the app is unchanged.

${fixtures}

## Debian apps

The same actions on apps as Debian ships them; the reader is pyatspi, another
accessibility client, reading the element acted on.

${apps}
`;
}

afterAll(async () => {
  const fixtures = fixtureTable();
  const apps = appTable();
  console.log(`\n${fixtures}\n\n${apps}\n`);
  if (complete()) {
    // Laid out as the repository's formatter lays out markdown, so the lint check passes.
    const options = await prettier.resolveConfig(DOC);
    const text = await prettier.format(docText(fixtures, apps), {
      ...options,
      filepath: DOC,
    });
    if (!fs.existsSync(DOC) || fs.readFileSync(DOC, 'utf8') !== text) fs.writeFileSync(DOC, text);
  } else {
    console.log(`${path.relative(packageRoot(), DOC)} not written: not every cell ran`);
  }
});

// ---------------------------------------------------------------------------------------
// The columns.

const GTK3 = pythonGtk('3.0', 'gir1.2-gtk-3.0');
const GTK4 = pythonGtk('4.0', 'gir1.2-gtk-4.0');
const PYQT5 = pythonModule('PyQt5.QtWidgets', 'python3-pyqt5');
const FIREFOX_NEED = file(FIREFOX, 'firefox-esr');

const GTK3_FACTORY = program('gtk3-widget-factory', 'gtk-3-examples');
const GTK4_FACTORY = program('gtk4-widget-factory', 'gtk-4-examples');
const FEATHERPAD = program('featherpad', 'featherpad');

const homes: string[] = [];
afterAll(() => {
  for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
});

interface DebianApp {
  kit: AppKit;
  need: Need;
  launch: (session: Session) => Promise<LaunchedApp>;
}

/** A toolkit's column: its fixture's cells, then a Debian app's, on the same desktop. */
function fixtureColumn(
  kit: Kit,
  title: string,
  fixture: string,
  need: Need,
  debian: DebianApp,
): void {
  describeNeeding([need], `${title} (${fixture})`, () => {
    let session: Session | undefined;
    let rig: Rig | undefined;
    beforeAll(async () => {
      session = await Session.start();
      const app = await session.launchFixture(fixture, [], { timeoutMs: 60_000 });
      rig = fixtureRig(session, app);
    }, 120_000);
    afterAll(async () => {
      await session?.close();
    });
    column(kit, 'x11', () => {
      if (!rig) throw new Error(`${fixture} did not start (see beforeAll)`);
      return rig;
    });
    describeNeeding([debian.need], debian.kit, () => {
      let app: LaunchedApp | undefined;
      beforeAll(async () => {
        if (!session) throw new Error(`the desktop did not start (see beforeAll)`);
        app = await debian.launch(session);
      }, 120_000);
      appColumn(debian.kit, () => {
        if (!session || !app) throw new Error(`${debian.kit} did not start (see beforeAll)`);
        return { session, pid: app.pid };
      });
    });
  });
}

fixtureColumn('gtk3', 'GTK 3', 'gtk3_matrix.py', GTK3, {
  kit: 'gtk3-widget-factory',
  need: GTK3_FACTORY,
  launch: (session) => session.launch('gtk3-widget-factory', [], { timeoutMs: 60_000 }),
});
fixtureColumn('gtk4', 'GTK 4', 'gtk4_matrix.py', GTK4, {
  kit: 'gtk4-widget-factory',
  need: GTK4_FACTORY,
  // With GTK's GL renderer on Xvfb's software GL, the app is busy drawing for minutes
  // before it registers with AT-SPI; the cairo renderer draws the same widgets.
  launch: (session) =>
    session.launch('gtk4-widget-factory', [], {
      timeoutMs: 60_000,
      env: { GSK_RENDERER: 'cairo' },
    }),
});
fixtureColumn('qt5', 'Qt 5', 'qt5_matrix.py', PYQT5, {
  kit: 'featherpad',
  need: FEATHERPAD,
  launch: (session) => {
    // A home of its own: no settings or session of the user's, and none left behind.
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-matrix-home-'));
    homes.push(home);
    return session.launch('featherpad', ['-s'], {
      timeoutMs: 60_000,
      env: { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') },
    });
  },
});

/**
 * A toolkit's fixture column on a headless sway session: the same cells, the same fixture,
 * another desktop. Debian apps are not repeated there.
 */
function swayColumn(kit: Kit, title: string, fixture: string, need: Need): void {
  describeNeeding([need, ...SWAY_SESSION_NEEDS], `${title} on sway (${fixture})`, () => {
    let session: Session<HarnessDesktop> | undefined;
    let rig: Rig | undefined;
    beforeAll(async () => {
      session = await Session.startSway();
      const app = await session.launchFixture(fixture, [], { timeoutMs: 60_000 });
      rig = fixtureRig(session, app);
    }, 120_000);
    afterAll(async () => {
      await session?.close();
    });
    column(kit, 'sway', () => {
      if (!rig) throw new Error(`${fixture} did not start on sway (see beforeAll)`);
      return rig;
    });
  });
}

swayColumn('gtk3', 'GTK 3', 'gtk3_matrix.py', GTK3);
swayColumn('gtk4', 'GTK 4', 'gtk4_matrix.py', GTK4);
swayColumn('qt5', 'Qt 5', 'qt5_matrix.py', PYQT5);

describeNeeding([FIREFOX_NEED], 'Firefox ESR (matrix.html)', () => {
  let session: Session | undefined;
  let browser: LaunchedBrowser | undefined;
  let page: PageServer | undefined;
  let rig: Rig | undefined;
  beforeAll(async () => {
    page = await servePage('matrix.html');
    session = await Session.start();
    browser = await launchFirefox(session, page.url);
    await page.waitFor((e) => e.event === 'ready', 0, 60_000);
    rig = pageRig(session, browser, page);
  }, 120_000);
  afterAll(async () => {
    await browser?.stop();
    await session?.close();
    await page?.close();
  });
  column('firefox', 'x11', () => {
    if (!rig) throw new Error('Firefox did not start on the page (see beforeAll)');
    return rig;
  });
});
