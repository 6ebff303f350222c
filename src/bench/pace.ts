/**
 * Actions at the app's pace: per toolkit and per action, our MCP round trip beside (a) the
 * observation of the same app in the same run (`ax_get_tree`) and (b) the floor, a minimal
 * pyatspi client doing the same action and polling the one element until the effect shows
 * (bench/pyatspi_act.py). Each toolkit runs the matrix fixture of the action-matrix tests
 * on a desktop and server of its own, so no other app is on screen or in the server.
 * Rounds interleave observation, actions and floors, so drifting load hits all alike.
 */
import fs from 'node:fs';
import path from 'node:path';
import { FIREFOX, launchFirefox } from '../harness/browser.js';
import { packageRoot, Session } from '../harness/session.js';
import { readHeader } from './context.js';
import { PyatspiActor, type FloorStep } from './pyatspi-act.js';
import { fmt, out, table, verdict } from './report.js';
import { stats } from './stats.js';

const ROUNDS = Number(process.env.AXPAGE_PACE_ROUNDS ?? 7);
const WARMUP = 1;
/** Target: an action's p50 at most this many times the observation's p50. */
const TARGET_RATIO = 2;
/** How long the floor polls an effect before it gives up. */
const FLOOR_MAX_MS = 2000;

/** pyatspi role names of the fixture's widgets, per toolkit (any of them matches). */
const ROLES = {
  check: ['check box'],
  radio: ['radio button', 'check box'],
  entry: ['text', 'entry'],
  slider: ['slider'],
  status: ['label', 'paragraph', 'static', 'section'],
};

interface Kit {
  title: string;
  /** Starts the app on the session's desktop: its pid, and how to stop it. */
  start(session: Session): Promise<{ pid: number; stop: () => Promise<void> }>;
  /** Why it cannot run here, if it cannot. */
  missing?: () => string | undefined;
  /**
   * Clicks offer no accessibility action (GTK 4.8): ours go as real input, and the floor
   * clicks the element's centre through the registry.
   */
  foreground?: boolean;
  /**
   * Text edits through accessibility are ignored (Firefox): ours types as real input, and
   * the floor sends the text as key presses.
   */
  typesByKeys?: boolean;
}

const fixtureKit = (title: string, file: string, foreground = false): Kit => ({
  title: `${title} (${file})`,
  foreground,
  start: async (session) => {
    const app = await session.launchFixture(file, [], { timeoutMs: 60_000 });
    return { pid: app.pid, stop: async () => void (await app.stop().catch(() => undefined)) };
  },
});

const KITS: Kit[] = [
  fixtureKit('GTK 3', 'gtk3_matrix.py'),
  fixtureKit('GTK 4', 'gtk4_matrix.py', true),
  fixtureKit('Qt 5', 'qt5_matrix.py'),
  {
    title: 'Firefox ESR (matrix.html)',
    typesByKeys: true,
    missing: () => (fs.existsSync(FIREFOX) ? undefined : 'firefox-esr is not installed'),
    start: async (session) => {
      const page = path.join(packageRoot(), 'test', 'fixtures', 'web', 'matrix.html');
      const b = await launchFirefox(session, `file://${page}`, { name: 'firefox-pace' });
      return { pid: b.app.pid, stop: b.stop };
    },
  },
];

interface Action {
  label: string;
  tool: string;
  args: (round: number) => Record<string, unknown>;
  floor: (round: number) => FloorStep[];
}

/** Ours sets 30 and 70 by turns, the floor 50 after each: every call changes the value. */
const volume = (n: number): string => String(n % 2 === 0 ? 30 : 70);
const FLOOR_VOLUME = '50';

const ACTIONS: Action[] = [
  {
    label: 'click, with effect (check box "Remember")',
    tool: 'ax_click',
    args: () => ({ query: 'Remember' }),
    floor: () => [{ key: 'check', do: 'action', read: 'states' }],
  },
  {
    label: 'click, no effect (radio "Small", already on)',
    tool: 'ax_click',
    args: () => ({ query: 'Small' }),
    floor: () => [{ key: 'radio', do: 'action', read: 'states', once: true }],
  },
  {
    label: 'type "ab" (entry "Name")',
    tool: 'ax_type',
    args: () => ({ query: 'Name', text: 'ab' }),
    floor: () => [{ key: 'entry', do: 'insert', arg: 'ab', read: 'text' }],
  },
  {
    label: 'key Return (entry "Name"; the status label changes)',
    tool: 'ax_key_press',
    args: () => ({ query: 'Name', key: 'Return' }),
    floor: () => [{ key: 'entry', do: 'key', arg: 'Return', watch: 'status', read: 'text' }],
  },
  {
    label: 'set_value (slider "Volume" 30/70)',
    tool: 'ax_set_value',
    args: (n) => ({ query: 'Volume', value: volume(n) }),
    floor: () => [{ key: 'slider', do: 'value', arg: FLOOR_VOLUME, read: 'value' }],
  },
  {
    label: 'chain: click + type "x" + key Return ("Name")',
    tool: 'ax_click',
    args: () => ({ query: 'Name', text: 'x', key: 'Return' }),
    floor: () => [
      { key: 'entry', do: 'focus', read: 'states', once: true },
      { key: 'entry', do: 'insert', arg: 'x', read: 'text' },
      { key: 'entry', do: 'key', arg: 'Return', watch: 'status', read: 'text' },
    ],
  },
];

interface Samples {
  ours: number[];
  settle: number[];
  reasons: string[];
  effects: string[];
  floor: number[];
  floorChanged: number;
  floorRuns: number;
  errors: string[];
}

function countBy(values: string[]): string {
  const m = new Map<string, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m.entries()].map(([k, n]) => `${k} ${n}`).join(', ');
}

/** The first error of a kind, then only how many more. */
function errorNote(errors: string[]): string {
  if (errors.length === 0) return '';
  const first = errors[0].split('\n').slice(0, 2).join(' ').slice(0, 160);
  return `; ${errors.length} error(s): ${first}`;
}

async function findFloorTargets(actor: PyatspiActor, until: number): Promise<void> {
  const targets: Array<[string, string, string[]]> = [
    ['check', 'Remember', ROLES.check],
    ['radio', 'Small', ROLES.radio],
    ['entry', 'Name', ROLES.entry],
    ['slider', 'Volume', ROLES.slider],
    ['status', 'idle', ROLES.status],
  ];
  for (const [key, name, roles] of targets) {
    for (;;) {
      try {
        await actor.find(key, name, roles);
        break;
      } catch (err) {
        // A page still loading has no such element yet.
        if (performance.now() > until) throw err;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }
}

async function paceKit(kit: Kit): Promise<boolean> {
  out(`### ${kit.title}`);
  out();
  const missing = kit.missing?.();
  if (missing) {
    out(`not run: ${missing}`);
    out();
    return true;
  }
  const session = await Session.start();
  let app: { pid: number; stop: () => Promise<void> } | undefined;
  let actor: PyatspiActor | undefined;
  try {
    app = await kit.start(session);
    const pid = app.pid;
    actor = await PyatspiActor.start(pid, session.desktop.processEnv());
    await findFloorTargets(actor, performance.now() + 60_000);
    const observe: number[] = [];
    const per = ACTIONS.map((): Samples => ({
      ours: [],
      settle: [],
      reasons: [],
      effects: [],
      floor: [],
      floorChanged: 0,
      floorRuns: 0,
      errors: [],
    }));
    let okRounds = 0;
    for (let round = -WARMUP; round < ROUNDS; round++) {
      const counted = round >= 0;
      const tree = await session.call('ax_get_tree', { app: pid });
      if (tree.isError) throw new Error(`ax_get_tree failed:\n${tree.text}`);
      if (counted) observe.push(tree.ms);
      // The order turns round by round, so no action always follows the same one.
      for (let k = 0; k < ACTIONS.length; k++) {
        const i = (k + Math.max(0, round)) % ACTIONS.length;
        const a = ACTIONS[i];
        const s = per[i];
        const args = {
          app: pid,
          ...a.args(round),
          ...((kit.foreground && a.tool === 'ax_click') ||
          (kit.typesByKeys && (a.tool === 'ax_type' || 'text' in a.args(round)))
            ? { delivery_mode: 'foreground' }
            : {}),
        };
        const r = await session.call(a.tool, args);
        if (r.isError) {
          s.errors.push(r.text);
        } else if (counted) {
          s.ours.push(r.ms);
          const settle = r.structured.settle_ms;
          if (typeof settle === 'number') s.settle.push(settle);
          s.reasons.push(readHeader(r.fields.file).settleReason ?? '?');
          s.effects.push(String(r.structured.effect ?? r.structured.steps_passed ?? '?'));
        }
        try {
          const steps = a
            .floor(round)
            .map((st) =>
              kit.foreground && (st.do === 'action' || st.do === 'focus')
                ? { ...st, do: 'mouse' as const }
                : kit.typesByKeys && st.do === 'insert'
                  ? { ...st, do: 'keys' as const }
                  : st,
            );
          const f = await actor.act(steps, FLOOR_MAX_MS);
          if (counted) {
            s.floor.push(f.ms);
            s.floorRuns++;
            // The "no effect" step reads once: the effect it waits for is the last step's.
            if (f.changed[f.changed.length - 1] || a.floor(round).every((st) => st.once)) {
              s.floorChanged++;
            }
          }
        } catch (err) {
          s.errors.push(`floor: ${(err as Error).message}`);
        }
      }
      if (counted) okRounds++;
    }
    const obs = stats(observe);
    const rows: string[][] = [
      [
        'observation: ax_get_tree',
        String(obs.n),
        fmt(obs.median),
        fmt(obs.p90),
        '1x',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
      ],
    ];
    let pass = 0;
    for (let i = 0; i < ACTIONS.length; i++) {
      const s = per[i];
      const o = stats(s.ours);
      const f = stats(s.floor);
      const x = o.median / obs.median;
      const ok = Number.isFinite(x) && x <= TARGET_RATIO;
      if (ok) pass++;
      rows.push([
        ACTIONS[i].label,
        String(o.n),
        fmt(o.median),
        fmt(o.p90),
        Number.isFinite(x) ? `${fmt(x)}x` : '–',
        Number.isFinite(x) ? verdict(ok) : 'MISS',
        fmt(stats(s.settle).median),
        fmt(f.median),
        fmt(f.p90),
        Number.isFinite(o.median / f.median) ? `${fmt(o.median / f.median)}x` : '–',
        countBy(s.effects),
        countBy(s.reasons),
        `${s.floorChanged}/${s.floorRuns}${errorNote(s.errors)}`,
      ]);
    }
    table(
      [
        'action (MCP call)',
        'n',
        'p50 ms',
        'p90 ms',
        'p50 / observation',
        `≤${TARGET_RATIO}x`,
        'settle p50 ms',
        'floor p50 ms',
        'floor p90 ms',
        'p50 / floor',
        'effect (ours)',
        'settle (reason)',
        'floor saw the effect',
      ],
      rows,
    );
    for (let i = 0; i < ACTIONS.length; i++) {
      const e = per[i].errors[0];
      if (e) out(`- ${ACTIONS[i].label}, first error: ${e.replace(/\s+/g, ' ').slice(0, 400)}`);
    }
    out();
    out(
      `${kit.title}: ${pass}/${ACTIONS.length} actions within ${TARGET_RATIO}x of the observation at p50 ` +
        `(${okRounds} rounds after ${WARMUP} warm-up rounds, pid ${pid}).`,
    );
    out();
    return true;
  } finally {
    await actor?.close();
    await app?.stop();
    await session.close().catch(() => undefined);
  }
}

export async function paceSection(): Promise<void> {
  out(
    'Each round: `ax_get_tree` of the app (the observation), then every action through MCP, each followed by ' +
      'its floor (bench/pyatspi_act.py: the same action through pyatspi, then the one element read until ' +
      `the effect shows, at most ${FLOOR_MAX_MS} ms; for the click with no effect, read once). ` +
      'The chain\'s floor is focus, insert, key, each polled in turn. "settle p50": the server\'s settle_ms. ' +
      `Target: action p50 ≤ ${TARGET_RATIO}x the observation's p50 (information).`,
  );
  out();
  // Each toolkit guarded on its own: one that fails still lets the others run.
  for (const kit of KITS) {
    try {
      await paceKit(kit);
    } catch (err) {
      out(`**${kit.title} failed:** ${(err as Error).message}`);
      out();
    }
  }
}
