/**
 * The desktop session a server was started from, when its client left it out. Clients
 * started from a desktop launcher pass their servers a bare environment (HOME, PATH,
 * SHELL, TERM, USER, LOGNAME): no DISPLAY, no session bus. The client itself runs in the
 * session, so the nearest ancestor of this process whose environment names a display (one
 * of ours: same user) says which session it is; its variables fill in what is missing.
 * Without such an ancestor, the user's runtime dir and its session bus are taken where
 * they exist (`/run/user/UID`, `…/bus`), and no display is guessed.
 */
import fs from 'node:fs';
import path from 'node:path';

/** What a client must pass, or an ancestor may give, for a desktop session. */
export const SESSION_VARS = [
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'XAUTHORITY',
  'XDG_RUNTIME_DIR',
  'DBUS_SESSION_BUS_ADDRESS',
  'AT_SPI_BUS_ADDRESS',
  'SWAYSOCK',
  'XDG_SESSION_TYPE',
  'XDG_CURRENT_DESKTOP',
] as const;

/** Where the missing variables were taken from; nothing when none were missing. */
export interface SessionEnvSource {
  /** The variables added, with their values. */
  added: Record<string, string>;
  /** An ancestor process (`pid`, its command name), or the user's runtime dir. */
  from: { pid: number; command: string } | { runtimeDir: string };
}

/** What this process's own environment was filled with (fillSessionEnv on process.env). */
let taken: SessionEnvSource | undefined;

/** Where this server's missing session variables came from, if any were filled. */
export function sessionEnvTaken(): SessionEnvSource | undefined {
  return taken;
}

/** The environment of a process as it was started, or undefined when it cannot be read. */
export function environOf(pid: number, procRoot = '/proc'): Record<string, string> | undefined {
  try {
    const raw = fs.readFileSync(path.join(procRoot, String(pid), 'environ'), 'latin1');
    const env: Record<string, string> = {};
    for (const entry of raw.split('\0')) {
      const eq = entry.indexOf('=');
      if (eq > 0) env[entry.slice(0, eq)] = Buffer.from(entry.slice(eq + 1), 'latin1').toString();
    }
    return env;
  } catch {
    return undefined;
  }
}

/** The parent pid and owner of a process, or undefined when it is gone or unreadable. */
function parentOf(
  pid: number,
  procRoot: string,
): { ppid: number; uid: number; command: string } | undefined {
  try {
    const status = fs.readFileSync(path.join(procRoot, String(pid), 'status'), 'utf8');
    const field = (name: string): string | undefined =>
      status.match(new RegExp(`^${name}:\\s*(.*)$`, 'm'))?.[1];
    const ppid = Number(field('PPid'));
    const uid = Number(field('Uid')?.split(/\s+/)[0]);
    if (!Number.isInteger(ppid) || !Number.isInteger(uid)) return undefined;
    return { ppid, uid, command: field('Name') ?? '?' };
  } catch {
    return undefined;
  }
}

/** Whether the environment already names a session: a display and a bus to find AT-SPI on. */
export function namesSession(env: NodeJS.ProcessEnv): boolean {
  return (
    Boolean(env.DISPLAY || env.WAYLAND_DISPLAY) &&
    Boolean(env.DBUS_SESSION_BUS_ADDRESS || env.AT_SPI_BUS_ADDRESS)
  );
}

/**
 * Fills the session variables `env` lacks, in place, and says from where; undefined when
 * it lacks none or nothing was found. `pid`'s ancestors are looked at, nearest first.
 */
export function fillSessionEnv(
  env: NodeJS.ProcessEnv,
  opts: { pid?: number; uid?: number; procRoot?: string; runtimeRoot?: string } = {},
): SessionEnvSource | undefined {
  if (namesSession(env)) return undefined;
  const procRoot = opts.procRoot ?? '/proc';
  const uid = opts.uid ?? process.getuid?.() ?? -1;
  const missing = SESSION_VARS.filter((name) => !env[name]);
  let pid = parentOf(opts.pid ?? process.pid, procRoot)?.ppid ?? 0;
  for (let hops = 0; pid > 1 && hops < 64; hops++) {
    const proc = parentOf(pid, procRoot);
    if (!proc) break;
    const theirs = proc.uid === uid ? environOf(pid, procRoot) : undefined;
    if (theirs && (theirs.DISPLAY || theirs.WAYLAND_DISPLAY)) {
      const added: Record<string, string> = {};
      for (const name of missing) {
        if (theirs[name]) added[name] = theirs[name];
      }
      return noted(env, { added, from: { pid, command: proc.command } });
    }
    pid = proc.ppid;
  }
  // No ancestor in a session: the user's runtime dir and its bus, where they are.
  const runtimeDir = env.XDG_RUNTIME_DIR || path.join(opts.runtimeRoot ?? '/run/user', String(uid));
  const added: Record<string, string> = {};
  if (!env.XDG_RUNTIME_DIR && ownDir(runtimeDir, uid)) added.XDG_RUNTIME_DIR = runtimeDir;
  const bus = path.join(runtimeDir, 'bus');
  if (!env.DBUS_SESSION_BUS_ADDRESS && !env.AT_SPI_BUS_ADDRESS && isSocket(bus)) {
    added.DBUS_SESSION_BUS_ADDRESS = `unix:path=${bus}`;
  }
  if (Object.keys(added).length === 0) return undefined;
  return noted(env, { added, from: { runtimeDir } });
}

function noted(env: NodeJS.ProcessEnv, source: SessionEnvSource): SessionEnvSource {
  Object.assign(env, source.added);
  if (env === process.env) taken = source;
  return source;
}

/** One line for the log: which variables were taken, from where (values of the display's only). */
export function describeSessionEnv(source: SessionEnvSource): string {
  const names = Object.entries(source.added)
    .map(([name, value]) =>
      name === 'DISPLAY' || name === 'WAYLAND_DISPLAY' ? `${name}=${value}` : name,
    )
    .join(', ');
  const where =
    'pid' in source.from
      ? `the environment of ${source.from.command} (pid ${source.from.pid}), the process that started this server or one above it`
      : `the user's runtime dir ${source.from.runtimeDir}`;
  return `the client passed no desktop session: took ${names} from ${where}`;
}

function ownDir(dir: string, uid: number): boolean {
  try {
    const st = fs.statSync(dir);
    return st.isDirectory() && st.uid === uid;
  } catch {
    return false;
  }
}

function isSocket(file: string): boolean {
  try {
    return fs.statSync(file).isSocket();
  } catch {
    return false;
  }
}
