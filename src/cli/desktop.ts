/**
 * `axpage desktop up|run|down|env|status`: the headless desktop from the shell.
 *
 *   eval "$(axpage desktop up)"     # stdout carries only `export NAME='value'` lines
 *   axpage desktop run -- gtk3-widget-factory
 *   axpage desktop down
 *
 * stdout carries only what a script consumes (exports, a pid, the status); progress, timings
 * and errors go to stderr. Exit codes: 0 ok, 1 failure, 2 usage error.
 */
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';

import type { LaunchOptions, WaitFor } from '../desktop/apps.js';
import type { DesktopState } from '../desktop/state.js';
import { releaseStrayInput } from '../platform/index.js';
import {
  DesktopError,
  HeadlessDesktop,
  findDesktop,
  formatExports,
  listDesktops,
  startDesktop,
} from '../desktop/headless.js';
import {
  SWAY_UNSET_VARS,
  SwaySession,
  findSwaySession,
  listSwaySessions,
  startSway,
} from '../desktop/sway.js';

const USAGE = `usage: axpage desktop <command> [options]

commands:
  up      [--display N] [--size WxHxD] [--no-wm] [--verbose]
          start a headless desktop (Xvfb, session bus, AT-SPI bus + registry, openbox);
          prints its environment as export lines: eval "$(axpage desktop up)"
  up      --session sway [--size WxH] [--verbose]
          start a headless sway (Wayland) session instead; its lines also unset DISPLAY and
          the other variables that would pull clients (and axpage) away from it
  run     [--display N | --session sway] [--wait window|registered|none] [--timeout MS] [--name NAME] -- CMD [ARGS...]
          start CMD in the desktop; prints its pid once it is registered with AT-SPI
  down    [--display N | --all | --session sway]   stop the desktop's recorded processes, remove its state
  env     [--display N | --session sway]           print the desktop's export lines again
  status  [--display N] [--json]  what is up, and which recorded processes still run (X11)

Without --display, commands act on the only desktop that is up, or the most recent one;
with --session sway, on the most recent sway session that is up.`;

class UsageError extends Error {}

const err = (line: string): void => {
  process.stderr.write(line + '\n');
};
const out = (text: string): void => {
  process.stdout.write(text + '\n');
};

function parseDisplay(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v.replace(/^:/, ''));
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`bad --display ${JSON.stringify(v)}`);
  return n;
}

function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** `--session`: x11 (the default) or sway. */
function parseSession(v: unknown): 'x11' | 'sway' {
  if (v === undefined || v === 'x11') return 'x11';
  if (v === 'sway') return 'sway';
  throw new UsageError(`bad --session ${JSON.stringify(v)}: x11 or sway`);
}

/** A sway session's lines: what it sets, and what a client must not keep from the shell. */
function swayExports(session: SwaySession): string {
  const unset = SWAY_UNSET_VARS.filter((k) => !(k in session.env));
  return `unset ${unset.join(' ')}\n${formatExports(session.env)}`;
}

async function upSway(values: Record<string, unknown>): Promise<number> {
  if (values.display !== undefined || values['no-wm'] !== undefined) {
    throw new UsageError('--display and --no-wm are for the X11 desktop, not --session sway');
  }
  const verbose = values.verbose === true;
  const session = await startSway({
    size: values.size as string | undefined,
    log: verbose ? (line) => err(`axpage desktop: ${line}`) : undefined,
  });
  try {
    session.save();
  } catch (e) {
    await session.stop();
    throw e;
  }
  out(swayExports(session));
  if (verbose) err(`axpage desktop: timings (ms) ${JSON.stringify(session.timings)}`);
  err(
    `axpage desktop: sway on ${session.waylandDisplay} up in ${session.timings.total} ms ` +
      `(state: ${session.stateDir}); stop it with: axpage desktop down --session sway`,
  );
  session.release();
  return 0;
}

async function up(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    display: { type: 'string' },
    size: { type: 'string' },
    'no-wm': { type: 'boolean' },
    session: { type: 'string' },
    verbose: { type: 'boolean', short: 'v' },
  });
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
  if (parseSession(values.session) === 'sway') return upSway(values);
  const verbose = values.verbose === true;
  const desktop = await startDesktop({
    display: parseDisplay(values.display as string | undefined),
    size: values.size as string | undefined,
    windowManager: values['no-wm'] !== true,
    log: verbose ? (line) => err(`axpage desktop: ${line}`) : undefined,
  });
  out(formatExports(desktop.env));
  if (verbose) err(`axpage desktop: timings (ms) ${JSON.stringify(desktop.timings)}`);
  err(
    `axpage desktop: :${desktop.display} up in ${desktop.timings.total} ms ` +
      `(state: ${desktop.stateDir}); stop it with: axpage desktop down --display ${desktop.display}`,
  );
  // The desktop keeps running; only this process's connections close.
  desktop.release();
  return 0;
}

async function run(args: string[]): Promise<number> {
  // Everything after the first `--` is the command, options included.
  const dash = args.indexOf('--');
  const own = dash >= 0 ? args.slice(0, dash) : args;
  const { values, positionals } = parse(own, {
    display: { type: 'string' },
    session: { type: 'string' },
    wait: { type: 'string' },
    timeout: { type: 'string' },
    name: { type: 'string' },
    verbose: { type: 'boolean', short: 'v' },
  });
  const command = dash >= 0 ? [...positionals, ...args.slice(dash + 1)] : positionals;
  if (command.length === 0)
    throw new UsageError('run needs a command: axpage desktop run -- CMD [ARGS...]');
  const wait = (values.wait as string | undefined) ?? 'window';
  if (!['window', 'registered', 'none'].includes(wait)) {
    throw new UsageError(`bad --wait ${JSON.stringify(wait)}: window, registered or none`);
  }
  const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeout !== undefined && !(timeout > 0))
    throw new UsageError(`bad --timeout ${String(values.timeout)}`);
  const options = {
    name: values.name as string | undefined,
    waitFor: wait as WaitFor,
    timeoutMs: timeout,
    detach: true,
  };
  if (parseSession(values.session) === 'sway') {
    if (values.display !== undefined) throw new UsageError('--display is for the X11 desktop');
    return runIn(findSwaySession(), 'sway', command, options, values.verbose === true);
  }
  const desktop = findDesktop(parseDisplay(values.display as string | undefined));
  await releaseHeld(desktop.display);
  return runIn(desktop, `:${desktop.display}`, command, options, values.verbose === true);
}

/** Starts the command in the session (X11 desktop or sway), prints its pid, lets go of the session. */
async function runIn(
  session: Pick<HeadlessDesktop, 'launch' | 'release'>,
  where: string,
  command: string[],
  options: LaunchOptions,
  verbose: boolean,
): Promise<number> {
  try {
    const app = await session.launch(command[0], command.slice(1), options);
    out(String(app.pid));
    if (verbose) {
      err(
        `axpage desktop: ${app.name} pid ${app.pid} on ${where} ready in ${app.readyMs} ms` +
          (app.logFile ? ` (log: ${app.logFile})` : ''),
      );
    }
    return 0;
  } finally {
    session.release();
  }
}

/**
 * Keys and buttons an axpage process killed mid-typing left held on the desktop, which X
 * would auto-repeat into its windows: released by every command that finds the desktop up.
 */
async function releaseHeld(display: number): Promise<void> {
  try {
    const n = await releaseStrayInput({ DISPLAY: `:${display}` });
    if (n > 0) err(`axpage desktop: released ${n} key(s) or button(s) left held on :${display}`);
  } catch {
    // X does not answer: status says so; nothing is held on a server that is gone.
  }
}

/** For `down`: the given display, else the only/most recent desktop up, else the most recent one. */
function pickForDown(display: number | undefined): DesktopState {
  const all = listDesktops();
  if (display !== undefined) {
    const hit = all.find((d) => d.state.display === display);
    if (!hit) throw new DesktopError(`no axpage desktop on :${display}`, 'not-up');
    return hit.state;
  }
  if (all.length === 0)
    throw new DesktopError('no axpage desktop is up; nothing to stop', 'not-up');
  const up = all.filter((d) => d.up);
  return (up.length ? up[up.length - 1] : all[all.length - 1]).state;
}

async function down(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    display: { type: 'string' },
    all: { type: 'boolean' },
    session: { type: 'string' },
    verbose: { type: 'boolean', short: 'v' },
  });
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
  if (parseSession(values.session) === 'sway') {
    if (values.display !== undefined) throw new UsageError('--display is for the X11 desktop');
    const saved = listSwaySessions();
    // The most recent one up, else the most recent one (its sway died: clean it up).
    const up = saved.filter((s) => s.up);
    const targets = values.all ? saved : [...(up.length ? up : saved)].slice(-1);
    if (targets.length === 0) {
      throw new DesktopError('no axpage sway session is up; nothing to stop', 'not-up');
    }
    let failed = false;
    for (const { state } of targets) {
      const report = await SwaySession.attach(state).stop();
      const n = report.terminated.length + report.killed.length;
      err(`axpage desktop: sway on ${state.env.WAYLAND_DISPLAY} down, ${n} processes stopped`);
      if (report.survivors.length) {
        err(`axpage desktop: still running after SIGKILL: ${report.survivors.join(', ')}`);
        failed = true;
      }
    }
    return failed ? 1 : 0;
  }
  const display = parseDisplay(values.display as string | undefined);
  if (values.all && display !== undefined)
    throw new UsageError('--all and --display exclude each other');
  const targets = values.all ? listDesktops().map((d) => d.state) : [pickForDown(display)];
  if (targets.length === 0)
    throw new DesktopError('no axpage desktop is up; nothing to stop', 'not-up');
  let failed = false;
  for (const state of targets) {
    const report = await HeadlessDesktop.attach(state).stop();
    const n = report.terminated.length + report.killed.length;
    err(`axpage desktop: :${state.display} down, ${n} processes stopped in ${report.ms} ms`);
    if (values.verbose) err(`axpage desktop: ${JSON.stringify(report)}`);
    if (report.survivors.length) {
      err(`axpage desktop: still running after SIGKILL: ${report.survivors.join(', ')}`);
      failed = true;
    }
  }
  return failed ? 1 : 0;
}

async function env(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    display: { type: 'string' },
    session: { type: 'string' },
  });
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
  if (parseSession(values.session) === 'sway') {
    out(swayExports(findSwaySession()));
    return 0;
  }
  const desktop = findDesktop(parseDisplay(values.display as string | undefined));
  await releaseHeld(desktop.display);
  out(formatExports(desktop.env));
  return 0;
}

async function status(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    display: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const display = parseDisplay(values.display as string | undefined);
  const all = listDesktops().filter((d) => display === undefined || d.state.display === display);
  for (const { state, up } of all) if (up) await releaseHeld(state.display);
  const reports = await Promise.all(
    all.map(async ({ state, up }) => {
      const health = await HeadlessDesktop.attach(state).health();
      return { display: state.display, up, state, health };
    }),
  );
  if (values.json) {
    out(
      JSON.stringify(
        reports.map((r) => ({
          display: r.display,
          up: r.up,
          created: r.state.created,
          size: r.state.size,
          stateDir: r.state.stateDir,
          timings: r.state.timings,
          x: r.health.x !== null,
          a11yLauncher: r.health.a11yLauncher,
          a11yBus: r.health.a11yBus,
          registry: r.health.registry,
          windowManager: r.health.windowManager,
          pids: r.health.pids.map((p) => ({ pid: p.pid, name: p.name, alive: p.alive })),
        })),
        null,
        2,
      ),
    );
  } else if (reports.length === 0) {
    out(display === undefined ? 'no axpage desktop is up' : `no axpage desktop on :${display}`);
  } else {
    for (const r of reports) {
      const h = r.health;
      const yn = (b: boolean | null): string => (b === null ? 'n/a' : b ? 'yes' : 'NO');
      out(
        `:${r.display} ${r.up ? 'up' : 'DOWN'} since ${r.state.created} (${r.state.size}, state ${r.state.stateDir})`,
      );
      out(
        `  X answers: ${yn(h.x !== null)}  a11y launcher: ${yn(h.a11yLauncher)}  a11y bus: ${yn(h.a11yBus)}` +
          `  registry: ${yn(h.registry)}  window manager: ${yn(h.windowManager)}`,
      );
      for (const p of h.pids)
        out(`  ${p.alive ? 'alive' : 'gone '} ${String(p.pid).padStart(7)} ${p.name}`);
    }
  }
  return reports.some((r) => r.up) ? 0 : 1;
}

const COMMANDS: Record<string, (args: string[]) => Promise<number>> = {
  up,
  run,
  down,
  env,
  status,
};

/** Entry point for `axpage desktop ...`; `argv` starts at the subcommand. Returns the exit code. */
export async function runDesktopCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    (sub === undefined ? err : out)(USAGE);
    return sub === undefined ? 2 : 0;
  }
  const cmd = COMMANDS[sub];
  if (!cmd) {
    err(`axpage desktop: unknown command ${JSON.stringify(sub)}\n\n${USAGE}`);
    return 2;
  }
  try {
    return await cmd(rest);
  } catch (e) {
    if (e instanceof UsageError) {
      err(`axpage desktop ${sub}: ${e.message}\n\n${USAGE}`);
      return 2;
    }
    err(`axpage desktop ${sub}: ${(e as Error).message}`);
    return 1;
  }
}
