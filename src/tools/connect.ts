/** Connection tools: is accessibility reachable, which apps run, connect one (with an alias). */
import { z } from 'zod';
import { defineTool, detailArg } from './define.js';
import { appArg } from './schemas.js';

export const isAccessible = defineTool({
  name: 'ax_is_accessible',
  title: 'Check accessibility access',
  description: 'Check the accessibility stack; when it fails, say why and what to do.',
  kind: 'read',
  input: z.object({}),
  output: z.object({
    enabled: z.boolean(),
    process_name: z.string().optional(),
    suggestion: z.string().optional(),
    details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  }),
  async handle(_args, { pipeline, call }) {
    // Denied apps are counted apart (left_out), never named, as in the status resource.
    const report = await pipeline.accessReport();
    return pipeline.report(call, {
      did: report.ok
        ? `Accessibility is enabled (${Object.entries(report.details)
            .map(([k, v]) => `${k}: ${v}`)
            .join(', ')})`
        : `Accessibility is NOT enabled: ${report.reason}`,
      error: report.ok ? undefined : `${report.reason}. ${report.suggestion ?? ''}`.trim(),
      extra: {
        enabled: report.ok,
        process_name: 'axpage',
        suggestion: report.suggestion,
        details: report.details,
      },
    });
  },
});

export const listApps = defineTool({
  name: 'ax_list_apps',
  title: 'List running applications',
  description: 'List running accessible apps: name, pid, windows, frontmost.',
  kind: 'read',
  input: z.object({}),
  output: z.object({
    apps: z.array(
      z.object({
        name: z.string(),
        pid: z.number(),
        windows: z.number(),
        frontmost: z.boolean(),
        connected: z.boolean(),
        alias: z.string().optional(),
        responding: z.boolean(),
      }),
    ),
    /** How many running apps the deny list left out of `apps`. */
    left_out: z.number().optional(),
  }),
  async handle(_args, { pipeline, call }) {
    const desktop = await pipeline.desktop();
    // Apps the deny list names are left out, counted and never named.
    const { apps, leftOut } = await pipeline.denied.visibleApps(desktop, await desktop.listApps());
    const rows = apps.map((a) => ({
      name: a.name,
      pid: a.pid,
      windows: a.windows,
      frontmost: a.active,
      connected: pipeline.views.last(a.pid) !== undefined,
      alias: pipeline.apps.aliasOf(a.pid),
      responding: a.responding !== false,
    }));
    const front = rows.find((r) => r.frontmost);
    const hidden = leftOut > 0 ? [leftOutNote(leftOut)] : [];
    // Not read, only listed from their last answer: said in the summary, not left to the file.
    const silent = rows.filter((r) => !r.responding).map((r) => `pid ${r.pid} not answering`);
    return pipeline.report(call, {
      did: [
        `${rows.length} apps with accessibility${front ? `; frontmost: ${front.name} (pid ${front.pid})` : ''}`,
        ...(silent.length > 0 ? [silent.join(', ')] : []),
        ...hidden,
      ].join('; '),
      listing: {
        title: 'apps (pid, name, windows, frontmost)',
        lines: [...hidden.map((h) => `# ${h}`), ...rows.map(rowLine)],
      },
      extra: { apps: rows, ...(leftOut > 0 ? { left_out: leftOut } : {}) },
    });
  },
});

/** How many apps a listing leaves out, as its summary and file say it. */
export function leftOutNote(count: number): string {
  return `${count} app${count === 1 ? '' : 's'} left out by this server's deny list`;
}

function rowLine(r: {
  pid: number;
  name: string;
  windows: number;
  frontmost: boolean;
  alias?: string;
  responding: boolean;
}): string {
  return `pid:${r.pid} "${r.name}" windows:${r.windows}${r.frontmost ? ' frontmost' : ''}${r.alias ? ` alias:${r.alias}` : ''}${r.responding ? '' : ' not responding'}`;
}

export const connect = defineTool({
  name: 'ax_connect',
  title: 'Connect to an application',
  description:
    'Connect to an app (optionally with an alias) and snapshot it. Optional: tools take app.',
  kind: 'session',
  input: z.object({
    app: appArg,
    alias: z
      .string()
      .regex(/^[A-Za-z][\w.-]{0,39}$/, 'an alias is a short name: letters, digits, . _ -')
      .optional()
      .describe('A short name for this app in later calls.'),
    detail: detailArg,
  }),
  output: z.object({
    connected: z.boolean(),
    app_name: z.string(),
    pid: z.number(),
    windows: z.number(),
    alias: z.string().optional(),
    matched_by: z.string(),
  }),
  async handle(args, { pipeline, call }) {
    const app = await pipeline.resolveApp(args.app, call.asking);
    if (args.alias) pipeline.apps.setAlias(args.alias, app.pid);
    return pipeline.observe(call, {
      app: app.pid,
      detail: args.detail,
      describe: ({ view }) =>
        `Connected to ${app.name} (pid ${app.pid}, matched by ${app.matchedBy})${args.alias ? ` as '${args.alias}'` : ''}: ${view.snapshot.windows.length} windows`,
      inspect: async ({ view }) => ({
        connected: true,
        app_name: app.name,
        pid: app.pid,
        windows: view.snapshot.windows.length,
        alias: args.alias,
        matched_by: app.matchedBy,
      }),
    });
  },
});

export const connectTools = [isAccessible, listApps, connect];
