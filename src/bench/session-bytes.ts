/**
 * Section 6: the bytes an agent reads to finish scripted tasks. The same script of
 * calls (observe, act, find, read, dialog, handoff) on gtk3-widget-factory and our
 * fixture apps runs twice in this run, each through a fresh `axpage serve`: once as
 * shipped (session memory: visible_elements lists only what is new or changed), once
 * with `AXPAGE_VISIBLE=full` (the baseline: 30+10 visible elements on every call).
 * Fixture apps are started afresh for each pass, so both see the same screens.
 */
import type { LaunchedApp } from '../desktop/apps.js';
import { startServeClient } from '../harness/serve-client.js';
import type { BenchContext } from './context.js';
import { fmt, out, table, verdict } from './report.js';
import { stats } from './stats.js';

export const MEDIAN_TARGET = 700;
export const P90_TARGET = 1200;
export const CAP = 2048;

interface Call {
  tool: string;
  bytes: number;
  isError: boolean;
  structured: Record<string, unknown>;
  text: string;
}

type Caller = (tool: string, args: Record<string, unknown>) => Promise<Call>;

interface Server {
  call: Caller;
  close(): Promise<void>;
}

async function startServer(ctx: BenchContext, env: Record<string, string>): Promise<Server> {
  const server = await startServeClient({
    name: 'axpage-bench',
    env: {
      ...(ctx.session.desktop.processEnv() as Record<string, string>),
      AXPAGE_OUT: ctx.session.artifactDir,
      ...env,
    },
  });
  return {
    async call(tool, args) {
      const r = await server.call(tool, args);
      return {
        tool,
        bytes: Buffer.byteLength(r.text),
        isError: r.isError,
        structured: r.structured,
        text: r.text,
      };
    },
    close: () => server.close(),
  };
}

interface Apps {
  factory: LaunchedApp;
  form: LaunchedApp;
  dialog: LaunchedApp;
  launcher: LaunchedApp;
}

type Task = { name: string; run: (call: Caller, apps: Apps) => Promise<void> };

const TASKS: Task[] = [
  {
    name: 'observe (widget factory: tree, screenshot, windows, tree)',
    run: async (call, { factory }) => {
      await call('ax_get_tree', { app: factory.pid });
      await call('ax_screenshot', { app: factory.pid });
      await call('ax_list_windows', { app: factory.pid });
      await call('ax_get_tree', { app: factory.pid });
    },
  },
  {
    name: 'act (form: fill, tick, submit)',
    run: async (call, { form }) => {
      await call('ax_get_tree', { app: form.pid });
      await call('ax_type', { app: form.pid, query: 'Name', text: 'Ada Lovelace' });
      await call('ax_type', { app: form.pid, query: 'Email', text: 'ada@example.org' });
      await call('ax_click', { app: form.pid, query: 'Subscribe' });
      await call('ax_click', { app: form.pid, query: 'button:Submit' });
    },
  },
  {
    name: 'find and read (factory, form)',
    run: async (call, { factory, form }) => {
      await call('ax_find', { app: factory.pid, query: 'button' });
      await call('ax_find', { app: form.pid, query: 'Submit' });
      await call('ax_get_value', { app: form.pid, query: 'Name' });
      await call('ax_get_attributes', { app: form.pid, query: 'Subscribe' });
      await call('ax_assert', { app: form.pid, query: 'Subscribe', assertions: { checked: true } });
    },
  },
  {
    name: 'dialog (open, answer, back)',
    run: async (call, { dialog }) => {
      await call('ax_get_tree', { app: dialog.pid });
      await call('ax_click', { app: dialog.pid, query: 'Open Dialog' });
      await call('ax_get_tree', { app: dialog.pid });
      await call('ax_click', { app: dialog.pid, query: 'button:OK' });
      await call('ax_get_tree', { app: dialog.pid });
    },
  },
  {
    name: 'handoff (launcher starts zenity, OK closes it)',
    run: async (call, { launcher }) => {
      await call('ax_get_tree', { app: launcher.pid });
      const r = await call('ax_click', { app: launcher.pid, query: 'Launch Child' });
      const child = (r.structured.app_switch as { pid?: number } | undefined)?.pid;
      if (child !== undefined) {
        await call('ax_get_tree', { app: child });
        await call('ax_click', { app: child, query: 'button:OK' });
      }
      await call('ax_get_tree', { app: launcher.pid });
    },
  },
];

interface Pass {
  perTask: Map<string, Call[]>;
}

async function runPass(ctx: BenchContext, env: Record<string, string>): Promise<Pass> {
  const launched: LaunchedApp[] = [];
  const fixture = async (name: string): Promise<LaunchedApp> => {
    const app = await ctx.session.launchFixture(name);
    launched.push(app);
    return app;
  };
  const server = await startServer(ctx, env);
  const perTask = new Map<string, Call[]>();
  try {
    const apps: Apps = {
      factory: ctx.factory,
      form: await fixture('form.py'),
      dialog: await fixture('dialog.py'),
      launcher: await fixture('launcher.py'),
    };
    for (const task of TASKS) {
      const calls: Call[] = [];
      perTask.set(task.name, calls);
      const call: Caller = async (tool, args) => {
        const c = await server.call(tool, args);
        calls.push(c);
        return c;
      };
      await task.run(call, apps).catch((err: unknown) => {
        calls.push({
          tool: `(failed: ${(err as Error).message})`,
          bytes: 0,
          isError: true,
          structured: {},
          text: '',
        });
      });
    }
  } finally {
    await server.close().catch(() => undefined);
    for (const app of launched.reverse()) await app.stop().catch(() => undefined);
  }
  return { perTask };
}

function allBytes(pass: Pass): number[] {
  return [...pass.perTask.values()].flat().map((c) => c.bytes);
}

export async function sessionBytesSection(ctx: BenchContext): Promise<void> {
  out(
    'Scripted tasks, each call through a fresh `axpage serve`, run twice: **new** (as shipped: ' +
      'visible_elements lists only what this session has not shown or what changed) and ' +
      '**baseline** (`AXPAGE_VISIBLE=full`: the 30+10 best visible elements on every call). ' +
      'Bytes are UTF-8 of the summary text the agent reads.',
  );
  out();
  const fresh = await runPass(ctx, {});
  const base = await runPass(ctx, { AXPAGE_VISIBLE: 'full' });
  const rows: string[][] = [];
  for (const task of TASKS) {
    const a = fresh.perTask.get(task.name) ?? [];
    const b = base.perTask.get(task.name) ?? [];
    const sa = a.reduce((n, c) => n + c.bytes, 0);
    const sb = b.reduce((n, c) => n + c.bytes, 0);
    const errors = a.filter((c) => c.isError).length + b.filter((c) => c.isError).length;
    rows.push([
      task.name,
      String(a.length),
      String(sa),
      String(sb),
      sb > 0 ? `${fmt((100 * sa) / sb, 0)}%` : '–',
      String(errors),
    ]);
  }
  table(['task', 'calls', 'new bytes', 'baseline bytes', 'new / baseline', 'error results'], rows);
  const sNew = stats(allBytes(fresh));
  const sBase = stats(allBytes(base));
  table(
    ['summary bytes over all calls', 'n', 'median', 'p90', 'max'],
    [
      ['new', String(sNew.n), fmt(sNew.median, 0), String(sNew.p90), String(sNew.max)],
      ['baseline', String(sBase.n), fmt(sBase.median, 0), String(sBase.p90), String(sBase.max)],
    ],
  );
  out(
    `- median ${fmt(sNew.median, 0)} bytes ${verdict(sNew.median <= MEDIAN_TARGET)} (target <= ${MEDIAN_TARGET})`,
  );
  out(`- p90 ${sNew.p90} bytes ${verdict(sNew.p90 <= P90_TARGET)} (target <= ${P90_TARGET})`);
  out(`- max ${sNew.max} bytes ${verdict(sNew.max <= CAP)} (hard cap ${CAP})`);
  out();
  const failed = [...fresh.perTask.values()].flat().filter((c) => c.isError);
  for (const c of failed.slice(0, 3)) {
    out(
      `error result (new) ${c.tool}: ${c.text.split('\n').find((l) => l.startsWith('error:')) ?? ''}`,
    );
  }
  if (failed.length > 0) out();
}
