/**
 * Starting and ending apps on Linux: what a launch runs (a command, or an installed app's
 * desktop file), spawning it detached with the environment accessibility needs, and the
 * process checks a quit needs. Windows are closed through the display session (index.ts).
 */
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import path from 'node:path';
import { PlatformError } from '../../errors.js';
import type { LaunchedProcess, LaunchOutput, LaunchPlan, LaunchRequest } from '../desktop.js';
import { ChainError, resolveChain } from './launch-chain.js';
import { notInMenus } from './launch-entry.js';
import { findDesktopEntry, LookupError } from './launch-lookup.js';
import { procStat } from './proc.js';
import { appBusEnv } from './atspi/qt.js';

/**
 * The app's environment: ours, with accessibility forced on. NO_AT_BRIDGE=1 keeps GTK off
 * the bus and GTK_A11Y=none (or atk) makes GTK4 expose nothing; Qt exposes its tree only
 * when asked. On X11 WAYLAND_DISPLAY goes too: the X11 session sees and drives X11
 * windows, and a toolkit that finds a Wayland display would not open one there. On sway
 * (SWAYSOCK and WAYLAND_DISPLAY, no DISPLAY) it stays, and the toolkits that would not
 * pick Wayland by themselves are told to (Qt tries X11 first, Firefox ESR too).
 */
export function launchEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  const sway = Boolean(env.SWAYSOCK && env.WAYLAND_DISPLAY && !env.DISPLAY);
  for (const k of ['NO_AT_BRIDGE', 'GTK_A11Y', ...(sway ? [] : ['WAYLAND_DISPLAY'])]) {
    delete out[k];
  }
  if (sway) {
    out.GDK_BACKEND ??= 'wayland';
    out.QT_QPA_PLATFORM ??= 'wayland';
    out.MOZ_ENABLE_WAYLAND ??= '1';
  }
  out.QT_LINUX_ACCESSIBILITY_ALWAYS_ON = '1';
  out.QT_ACCESSIBILITY = '1';
  // GTK2 and older toolkits load the bridge only when asked.
  out.GNOME_ACCESSIBILITY = '1';
  return out;
}

export function planLaunch(request: LaunchRequest, env: NodeJS.ProcessEnv): LaunchPlan {
  if ('command' in request) {
    const [program] = request.command;
    return {
      argv: request.command,
      names: [path.basename(program)],
      ...chainOf(request.command, env, (why) => why),
    };
  }
  let found;
  try {
    found = findDesktopEntry(request.app, env);
  } catch (err) {
    if (!(err instanceof LookupError)) throw err;
    throw new PlatformError('failed', err.message, {
      query: request.app,
      ...(err.suggestions.length > 0 ? { near: err.suggestions.join(', ') } : {}),
    });
  }
  const program = found.argv[0];
  const chain = chainOf(found.argv, env, (why) => `${found.file} runs ${program}: ${why}`);
  const names = [found.id, found.entry.name, path.basename(program)];
  if (found.entry.startupWMClass) names.push(found.entry.startupWMClass);
  const unlisted = notInMenus(
    found.entry,
    (env.XDG_CURRENT_DESKTOP ?? '').split(':').filter((d) => d !== ''),
  );
  return {
    argv: found.argv,
    names: [...new Set(names.filter(Boolean))],
    source: found.file,
    cwd: found.entry.path,
    ...chain,
    ...(unlisted !== undefined ? { unlisted } : {}),
  };
}

/** What the argv really runs (launch-chain.ts), or a PlatformError saying why not. */
function chainOf(
  argv: string[],
  env: NodeJS.ProcessEnv,
  explain: (why: string) => string,
): Pick<LaunchPlan, 'executable' | 'executables' | 'programs' | 'wrapper'> {
  try {
    const { executable, executables, programs, wrapper } = resolveChain(argv, env);
    return { executable, executables, programs, ...(wrapper !== undefined ? { wrapper } : {}) };
  } catch (err) {
    if (!(err instanceof ChainError)) throw err;
    throw new PlatformError('failed', explain(err.message), { program: argv[0] });
  }
}

/**
 * Spawns the plan in its own session (setsid: no controlling terminal, its own process
 * group, so our exit or a signal to ours never reaches it), stdin closed, stdout and
 * stderr to pipes the caller reads. Never through a shell. The real file the plan checked
 * is what runs (argv[0] stays as given): a link swapped after the check changes nothing.
 */
export async function spawnDetached(
  plan: LaunchPlan,
  env: NodeJS.ProcessEnv,
): Promise<LaunchedProcess> {
  const [program, ...args] = plan.argv;
  const child = spawn(plan.executable, args, {
    argv0: program,
    env: launchEnv(await appBusEnv(env)),
    cwd: plan.cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (err) =>
      reject(new PlatformError('failed', `cannot start ${program}: ${err.message}`, { program })),
    );
  });
  // The server may end before the app: it must not wait for it, nor for its output.
  child.unref();
  const { stdout, stderr } = child as unknown as { stdout: Socket; stderr: Socket };
  stdout.unref();
  stderr.unref();
  return { pid: child.pid as number, exited, output: pipedOutput([stdout, stderr]) };
}

/** The app's output pipes, read here until handed over (see LaunchOutput). */
export function pipedOutput(pipes: Socket[]): LaunchOutput {
  let sink: Parameters<LaunchOutput['read']>[0] | undefined;
  return {
    read(to) {
      sink = to;
      pipes.forEach((pipe, i) => {
        let ended = false;
        const end = (): void => {
          if (ended) return;
          ended = true;
          sink?.end(i);
        };
        pipe.on('data', (chunk: Buffer) => sink?.data(i, chunk));
        pipe.once('end', end);
        pipe.once('close', end);
        pipe.once('error', end);
      });
    },
    handOver(command, input, fd) {
      for (const [i, pipe] of pipes.entries()) {
        pipe.pause();
        pipe.removeAllListeners();
        pipe.on('error', () => undefined);
        for (let c = pipe.read() as Buffer | null; c; c = pipe.read() as Buffer | null) {
          sink?.data(i, c);
        }
      }
      sink = undefined;
      try {
        const [program, ...args] = command;
        const relay = spawn(program, args, {
          detached: true,
          stdio: ['pipe', 'ignore', 'ignore', pipes[0], pipes[1], fd],
        });
        relay.on('error', () => undefined);
        const stdin = relay.stdin!;
        relay.unref();
        return new Promise((resolve) => {
          stdin.once('error', () => resolve());
          stdin.end(input, () => resolve());
        });
      } finally {
        // The relay holds its own copies; ours close (nothing more is read here).
        for (const pipe of pipes) pipe.destroy();
      }
    },
  };
}

/** Running: /proc has it and it is neither a zombie nor dead. */
export function isRunning(pid: number): boolean {
  const st = procStat(pid);
  return st !== null && st.state !== 'Z' && st.state !== 'X';
}

export function terminate(pid: number, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): void {
  try {
    process.kill(pid, signal);
  } catch (err) {
    // Gone already is what was asked for.
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return;
    throw new PlatformError('failed', `cannot end pid ${pid}: ${(err as Error).message}`, { pid });
  }
}
