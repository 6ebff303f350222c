/**
 * Walk, capture and click round trips per session kind: the same fixture app on the X11
 * desktop and on a headless sway session, each driven through its own `axpage serve` by
 * the MCP client, the two interleaved call by call so drifting load (other processes on a
 * small machine) hits both alike. Sway's figures are printed beside X11's of the same run.
 */
import { execFileSync } from 'node:child_process';
import type { LaunchedApp } from '../desktop/apps.js';
import { Session, type HarnessDesktop } from '../harness/session.js';
import { helperPath } from '../platform/linux/wayland/input.js';
import { fmt, out, table } from './report.js';
import { stats, type Stats } from './stats.js';

const ROUNDS = 15;
const WARMUP = 5;
const FIXTURE = 'gtk3_matrix.py';

interface Kind {
  name: string;
  session: Session<HarnessDesktop>;
  app: LaunchedApp;
}

/** What the sway session needs that the machine lacks, or undefined. */
function swayMissing(): string | undefined {
  for (const program of ['sway', 'grim']) {
    try {
      execFileSync('which', [program], { stdio: 'ignore' });
    } catch {
      return `${program} is not installed`;
    }
  }
  return helperPath() === undefined ? 'axpage-wl-input is not built (npm ci)' : undefined;
}

/** The calls timed, each given the app's pid. */
const MEASURES: Array<{ label: string; tool: string; args: Record<string, unknown> }> = [
  { label: 'walk: ax_get_tree', tool: 'ax_get_tree', args: {} },
  {
    label: 'capture: ax_screenshot, full screen',
    tool: 'ax_screenshot',
    args: { full_screen: true },
  },
  { label: 'click, background (accessibility action)', tool: 'ax_click', args: { query: 'Press' } },
  {
    label: 'click, foreground (real pointer)',
    tool: 'ax_click',
    args: { query: 'Press', delivery_mode: 'foreground' },
  },
];

async function timed(kind: Kind, tool: string, args: Record<string, unknown>): Promise<number> {
  const t0 = performance.now();
  const r = await kind.session.call(tool, { app: kind.app.pid, ...args });
  const ms = performance.now() - t0;
  if (r.isError) throw new Error(`${kind.name} ${tool} failed: ${r.text.split('\n')[0]}`);
  return ms;
}

export async function sessionKindsSection(): Promise<void> {
  const missing = swayMissing();
  if (missing) {
    out(`sway not measured: ${missing}.`);
    out();
    return;
  }
  const kinds: Kind[] = [];
  const sessions: Array<Session<HarnessDesktop>> = [];
  const start = async (name: string, open: () => Promise<Session<HarnessDesktop>>) => {
    const session = await open();
    sessions.push(session);
    kinds.push({ name, session, app: await session.launchFixture(FIXTURE) });
  };
  try {
    await start('X11', () => Session.start());
    await start('sway', () => Session.startSway());
    const samples = new Map<string, number[]>();
    for (let round = -WARMUP; round < ROUNDS; round++) {
      for (const m of MEASURES) {
        for (const kind of kinds) {
          const ms = await timed(kind, m.tool, m.args);
          if (round < 0) continue;
          const key = `${kind.name}|${m.label}`;
          samples.set(key, [...(samples.get(key) ?? []), ms]);
        }
      }
    }
    out(
      `${FIXTURE} on each session, ${ROUNDS} rounds after ${WARMUP} unmeasured, the kinds ` +
        `interleaved call by call; round trips through the MCP client, in ms.`,
    );
    out();
    const of = (kind: string, label: string): Stats => stats(samples.get(`${kind}|${label}`) ?? []);
    table(
      ['round trip', 'X11 median', 'X11 p90', 'sway median', 'sway p90', 'sway / X11'],
      MEASURES.map(({ label }) => {
        const [x, s] = [of('X11', label), of('sway', label)];
        return [
          label,
          fmt(x.median),
          fmt(x.p90),
          fmt(s.median),
          fmt(s.p90),
          `${fmt(s.median / x.median)}x`,
        ];
      }),
    );
  } finally {
    for (const session of sessions.reverse()) await session.close().catch(() => undefined);
  }
}
