/**
 * Section 11: a frozen app beside the one in use. Two fixture apps are frozen in turn
 * beside form.py: toggles.py stopped (SIGSTOP) and stall.py stuck in a busy main loop
 * (SIGUSR1; its process keeps running). Right after each freeze, through the bench's
 * server: ax_list_apps, ax_get_tree on the frozen app (refused), and ax_get_tree on the
 * other app by name (which lists the apps) and by pid. Reps alternate which of the first
 * two comes first, so each is timed as the first call after a freeze, the one that used
 * to wait out the call timeout. Beside them, in the same run: the same calls with nothing
 * frozen, and the baseline without a liveness check, an unchecked read of the frozen
 * app's root (what the first call waited before), against the check itself. Printed,
 * never asserted.
 */
import type { LaunchedApp } from '../desktop/apps.js';
import type { CallResult } from '../harness/session.js';
import { AtspiBus } from '../platform/linux/atspi/bus.js';
import { LIVENESS_DEADLINE_MS } from '../platform/linux/atspi/liveness.js';
import { IFACE } from '../platform/linux/atspi/read.js';
import type { BenchContext } from './context.js';
import { fmt, out, table } from './report.js';
import { stats } from './stats.js';

const REPS = 6;

type Mode = 'alone' | 'stopped' | 'stuck';
const MODES: Mode[] = ['alone', 'stopped', 'stuck'];

const ROWS = {
  list: 'ax_list_apps, first call after the freeze',
  frozenTree: 'ax_get_tree of the frozen app (pid), first call after the freeze',
  otherByName: 'ax_get_tree of the other app by name, right after',
  otherByPid: 'ax_get_tree of the other app by pid, right after',
  unchecked: 'baseline: an unchecked read of its root (what the first call waited before)',
  check: 'its liveness check (Desktop.appsAnswering)',
} as const;
type Row = keyof typeof ROWS;

export async function frozenSection(ctx: BenchContext): Promise<void> {
  const { session, backend } = ctx;
  const address = session.desktop.processEnv().AT_SPI_BUS_ADDRESS;
  if (!address) throw new Error('the desktop has no AT_SPI_BUS_ADDRESS');
  const other = await session.launchFixture('form.py');
  const victims: Record<Exclude<Mode, 'alone'>, LaunchedApp> = {
    stopped: await session.launchFixture('toggles.py'),
    stuck: await session.launchFixture('stall.py'),
  };
  const bus = await AtspiBus.connect(address);
  const samples = new Map<string, number[]>();
  const add = (row: Row, mode: Mode, ms: number): void => {
    const key = `${row}/${mode}`;
    samples.set(key, [...(samples.get(key) ?? []), ms]);
  };
  const timed = async (tool: string, args: Record<string, unknown>): Promise<CallResult> =>
    session.call(tool, args);
  let refusedWrong = 0;
  try {
    for (const v of [other, victims.stopped, victims.stuck]) {
      await ctx.call('ax_get_tree', { app: v.pid });
    }
    await ctx.call('ax_list_apps');
    const registered = await bus.registeredApps();
    const rootOf = (pid: number): { bus: string; path: string } => {
      const hit = registered.find((a) => a.pid === pid);
      if (!hit) throw new Error(`pid ${pid} is not on the accessibility bus`);
      return hit;
    };

    for (let i = 0; i < REPS; i++) {
      for (const mode of MODES) {
        const victim = mode === 'alone' ? victims.stopped : victims[mode];
        await freeze(mode, victim);
        const first: Row[] = i % 2 === 0 ? ['list', 'frozenTree'] : ['frozenTree', 'list'];
        for (const row of first) {
          const r =
            row === 'list'
              ? await timed('ax_list_apps', {})
              : await timed('ax_get_tree', { app: victim.pid });
          // Only the call that came first counts as the first call after the freeze.
          if (row === first[0]) add(row, mode, r.ms);
          const refused = r.structured.error_code === 'app_not_responding';
          if (row === 'frozenTree' && refused !== (mode !== 'alone')) refusedWrong++;
        }
        add('otherByName', mode, (await ctx.call('ax_get_tree', { app: 'Fixture Form' })).ms);
        add('otherByPid', mode, (await ctx.call('ax_get_tree', { app: other.pid })).ms);
        if (i === 0) {
          const root = rootOf(victim.pid);
          let t0 = performance.now();
          await bus
            .getProperty(root.bus, root.path, IFACE.Accessible, 'ChildCount')
            .catch(() => undefined);
          add('unchecked', mode, performance.now() - t0);
          t0 = performance.now();
          await backend.appsAnswering([victim.pid]);
          add('check', mode, performance.now() - t0);
        }
        await thaw(mode, victim);
      }
    }
  } finally {
    // A rep that failed half way must not leave an app frozen behind.
    signal(victims.stopped.pid, 'SIGCONT');
    signal(victims.stuck.pid, 'SIGUSR2');
    bus.disconnect();
    await other.stop().catch(() => undefined);
    for (const v of Object.values(victims)) await v.stop().catch(() => undefined);
  }

  out(
    `form.py beside toggles.py stopped by SIGSTOP, or stall.py stuck in a busy main loop; ${REPS} reps (each of the first two rows is the first call after the freeze in half of them). Median ms (n); the call timeout is ${bus.callTimeoutMs} ms, the liveness check's deadline ${LIVENESS_DEADLINE_MS} ms.`,
  );
  out();
  const cell = (row: Row, mode: Mode): string => {
    const s = stats(samples.get(`${row}/${mode}`) ?? []);
    return s.n === 0 ? '–' : `${fmt(s.median)} (${s.n})`;
  };
  table(
    ['call', 'nothing frozen', 'beside a stopped app', 'beside a stuck app'],
    (Object.keys(ROWS) as Row[]).map((row) => [ROWS[row], ...MODES.map((m) => cell(row, m))]),
  );
  out(
    refusedWrong === 0
      ? '_Every call on a frozen app was refused with app_not_responding; none on a running one._'
      : `**${refusedWrong} calls on the frozen app were not answered as expected (refused when frozen, walked when not).**`,
  );
  out();

  async function freeze(mode: Mode, app: LaunchedApp): Promise<void> {
    if (mode === 'stopped') process.kill(app.pid, 'SIGSTOP');
    if (mode === 'stuck') {
      const from = app.output!.events.length;
      process.kill(app.pid, 'SIGUSR1');
      await app.output!.waitForEvent((e) => e.event === 'stalled', { from });
    }
  }

  /** Lets the app run again and waits until a call on it succeeds. */
  async function thaw(mode: Mode, app: LaunchedApp): Promise<void> {
    if (mode === 'stopped') process.kill(app.pid, 'SIGCONT');
    if (mode === 'stuck') {
      const from = app.output!.events.length;
      process.kill(app.pid, 'SIGUSR2');
      await app.output!.waitForEvent((e) => e.event === 'released', { from });
    }
    for (let i = 0; i < 100; i++) {
      if (!(await session.call('ax_get_tree', { app: app.pid })).isError) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`pid ${app.pid} did not answer again after it was let go`);
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}
