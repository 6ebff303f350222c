/** Starting and quitting apps: ax_launch_app hands the agent over to what it started. */
import { z } from 'zod';
import { AxError } from '../errors.js';
import { commandArgv, deliverQuit } from '../actions/launch.js';
import { launchApp } from '../pipeline/launch.js';
import { defineTool } from './define.js';
import { appArg } from './schemas.js';

export const launchAppTool = defineTool({
  name: 'ax_launch_app',
  title: 'Launch app',
  description: 'Start an app by command or desktop name, and observe it.',
  kind: 'action',
  input: z.object({
    command: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .describe('argv or line split like sh.'),
    desktop: z.string().optional().describe('Desktop file id/name.'),
  }),
  async handle(args, { pipeline, signal, call }) {
    if (args.desktop !== undefined && args.desktop.trim() === '') {
      throw new AxError('bad_argument', 'desktop is empty', 'Pass an app name, e.g. "galculator"');
    }
    if ((args.command === undefined) === (args.desktop === undefined)) {
      throw new AxError(
        'bad_argument',
        args.command === undefined ? 'nothing to launch' : 'give command or desktop, not both',
        'Pass command (e.g. ["mousepad"]) or desktop (e.g. "galculator")',
      );
    }
    if (args.command !== undefined) assertCommandSize(commandArgv(args.command));
    await pipeline.readyToAct();
    pipeline.policy.admitLaunch(isRunning);
    const response = await launchApp(pipeline, {
      ...call,
      request:
        args.command !== undefined
          ? { command: commandArgv(args.command) }
          : { app: args.desktop as string },
      timeoutMs: LAUNCH_WAIT_MS,
      signal,
    });
    const launched = response.structured.launched as
      { app_pid?: number; handed_off?: boolean } | undefined;
    // A handoff started nothing that stays: the running instance was there before.
    if (launched?.app_pid !== undefined && !launched.handed_off) {
      pipeline.policy.recordLaunched(launched.app_pid);
    }
    return response;
  },
});

/**
 * Longest command line a launch takes, in bytes. A GUI app needs nothing near it; a system
 * refuses far less than its total limit for one argument (Linux: 128 KiB) with a bare E2BIG.
 */
const MAX_COMMAND_BYTES = 128 * 1024;

function assertCommandSize(argv: readonly string[]): void {
  const bytes = argv.reduce((n, a) => n + Buffer.byteLength(a) + 1, 0);
  if (bytes > MAX_COMMAND_BYTES) {
    throw new AxError(
      'bad_argument',
      `command is ${bytes} bytes long, more than the ${MAX_COMMAND_BYTES} a launch takes; nothing was started`,
      'Pass large input through a file the app opens, not on its command line',
    );
  }
}

/** Whether a process still runs (signal 0 checks without sending; EPERM: it runs, not ours). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * How long a launch waits for the app's window. Generous: the wait ends as soon as the
 * window shows, and a cold start on a loaded machine takes seconds.
 */
const LAUNCH_WAIT_MS = 20_000;

/** How long a quit waits for the app to exit (or to ask) before it reports or, with force, ends it. */
const QUIT_WAIT_MS = 5000;

export const quitAppTool = defineTool({
  name: 'ax_quit_app',
  title: 'Quit app',
  description: 'Close an app like a user.',
  kind: 'action',
  input: z.object({
    // Required, never the frontmost by default: quitting is not a thing to guess.
    app: appArg.describe('Name, pid, title or alias.'),
    force: z.boolean().optional().describe('SIGTERM it if still running after 5 s.'),
  }),
  async handle(args, { pipeline, call, signal }) {
    const opts = { force: args.force ?? false, waitMs: QUIT_WAIT_MS, signal };
    return pipeline.act(call, {
      app: args.app,
      perform: (scene) => deliverQuit(scene, opts),
      extra: () => ({ exited: false }),
    });
  },
});

export const launchTools = [launchAppTool, quitAppTool];
