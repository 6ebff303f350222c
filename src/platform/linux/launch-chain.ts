/**
 * What a launch really runs, worked out before anything is spawned: the program's real
 * file (every symlink hop followed), the interpreter of a `#!` script, the script an
 * interpreter is given (`python3 notes.py`: a script is a program), the command `env` runs, and whether a launcher in the chain runs a command of its own choosing that we
 * cannot follow (xargs, find -exec, nice, sudo, busybox, `sh -c`, `python3 -c`...). The
 * dynamic loader run directly (`ld-linux-x86-64.so.2 [options] program`, under any name or
 * as a copy) is followed to its program like `env`. The
 * policy checks every name found here, so neither a link's name nor a wrapper hides what
 * runs. Reads the file system only; spawns nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ProgramIdentity } from './program-identity.js';
import { findOnPath, isExecutableFile } from './launch-lookup.js';
import { isInterpreter, scriptOperand } from './script-operand.js';

export interface LaunchChain {
  /** The real file of the program argv[0] names: what is spawned. */
  executable: string;
  /**
   * Every name of every program the launch runs, in order: each symlink hop's file name
   * and the real file's, then the same for a `#!` interpreter or the command `env` runs.
   */
  programs: string[];
  /** Real files of those programs, in the same order (no duplicates). */
  executables: string[];
  /** A launcher in the chain that runs a command we cannot follow, and how (e.g. "xargs"). */
  wrapper?: string;
}

export class ChainError extends Error {
  override name = 'ChainError';
}

/**
 * Programs whose job is to run another command named in their arguments (or read from
 * their input), by their real file's name. Their argument syntaxes differ too much to
 * follow safely, so they are reported as wrappers rather than parsed.
 */
const EXEC_WRAPPERS = new Set([
  'xargs',
  'find',
  'nice',
  'nohup',
  'timeout',
  'setsid',
  'sudo',
  'doas',
  'su',
  'runuser',
  'pkexec',
  'busybox',
  'toybox',
  'stdbuf',
  'ionice',
  'chrt',
  'taskset',
  'flock',
  'watch',
  'script',
  'unshare',
  'nsenter',
  'chroot',
  'setpriv',
  'setarch',
  'linux32',
  'linux64',
  'prlimit',
  'numactl',
  'strace',
  'ltrace',
  'gdb',
  'valgrind',
  'time',
  'catchsegv',
  'dbus-launch',
  'dbus-run-session',
  'xvfb-run',
  'systemd-run',
  'run-parts',
  'parallel',
  'firejail',
  'bwrap',
  'fakeroot',
  'faketime',
  'torsocks',
  'proxychains',
  'proxychains4',
  'start-stop-daemon',
  'chpst',
  'sg',
  'expect',
  'rlwrap',
  'entr',
  // They open files and start other installed apps, whichever the system picks.
  'xdg-open',
  'gio',
  'gtk-launch',
  'exo-open',
  'kioclient',
  'kioclient5',
  'xdg-terminal-exec',
]);

/** Terminal emulators: each runs a shell (or the command after -e) for whoever types in it. */
const TERMINALS =
  /^(?:x-terminal-emulator|xterm|uxterm|koi8rxterm|lxterm|rxvt|urxvt|rxvt-unicode|lxterminal|xfce4-terminal|gnome-terminal|mate-terminal|konsole|qterminal|terminator|tilix|sakura|alacritty|kitty|st|foot|wezterm|terminology|guake|tilda|yakuake|deepin-terminal|cool-retro-term)(?:\.wrapper|\.real)?$/;

/** Shells: `-c` makes their argument a command line. */
const SHELLS = /^(?:sh|bash|rbash|dash|ash|zsh|ksh|ksh93|mksh|pdksh|posh|yash|fish|csh|tcsh)$/;

/**
 * Interpreters that run code given in an argument (`python3 -c`, `perl -e`), by the option
 * that gives it; `always`: the program text is always an argument (awk, whose system()
 * runs a shell).
 */
const CODE_RUNNERS: Array<{ program: RegExp; option?: RegExp; always?: boolean }> = [
  { program: /^python[\d.]*$/, option: /^-[a-zA-Z]*c/ },
  { program: /^(?:perl|ruby)[\d.]*$/, option: /^-[a-zA-Z]*[eE]/ },
  { program: /^(?:node|nodejs)$/, option: /^(?:-e|-p|--eval|--print)(?:=|$)/ },
  { program: /^php[\d.]*$/, option: /^-r$/ },
  { program: /^lua[\d.]*$/, option: /^-e$/ },
  { program: /^(?:awk|gawk|mawk|nawk)$/, always: true },
];

/**
 * The dynamic loader's options (glibc's ld.so, musl's ld-musl) that take a value; those
 * that load code of their own into the program (`--preload`, `--audit`) make it a wrapper.
 */
const LOADER_VALUE_OPTIONS = new Set([
  '--library-path',
  '--inhibit-rpath',
  '--audit',
  '--preload',
  '--argv0',
  '--glibc-hwcaps-prefer',
  '--glibc-hwcaps-mask',
]);
const LOADER_FLAGS = new Set(['--list', '--verify', '--inhibit-cache']);
/** Options after which the loader runs no program (it prints and exits). */
const LOADER_INFO = new Set(['--help', '--version', '--list-tunables', '--list-diagnostics']);
const LOADER_CODE_OPTIONS = new Set(['--preload', '--audit']);

const identity = new ProgramIdentity();

/** How deep `#!` interpreters and `env` may nest before the chain is refused. */
const MAX_DEPTH = 8;
/** Symlink hops followed before a loop is assumed. */
const MAX_HOPS = 40;

/**
 * The chain of what `argv` runs. Throws ChainError when the program is not there or not
 * executable, or when the chain cannot be worked out (a loop, too deep, a bad `env` line).
 */
export function resolveChain(argv: readonly string[], env: NodeJS.ProcessEnv): LaunchChain {
  const chain: LaunchChain = { executable: '', programs: [], executables: [] };
  follow(argv, env, chain, 0);
  return chain;
}

function follow(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  chain: LaunchChain,
  depth: number,
): void {
  if (depth > MAX_DEPTH) {
    throw new ChainError(`${argv[0]} starts a chain of more than ${MAX_DEPTH} interpreters`);
  }
  const [program, ...args] = argv;
  const located = locate(program, env);
  const { names, real } = realFile(located);
  if (depth === 0) chain.executable = real;
  chain.programs.push(...names.filter((n) => !chain.programs.includes(n)));
  if (!chain.executables.includes(real)) chain.executables.push(real);
  const base = path.basename(real);

  const interpreter = shebang(real);
  if (interpreter) {
    // The kernel runs: interpreter [its one argument] script args...
    follow([...interpreter, real, ...args], env, chain, depth + 1);
    return;
  }
  if (identity.isLoader(real)) {
    const inner = loaderCommand(base, args);
    if (inner.wrapper !== undefined) chain.wrapper ??= inner.wrapper;
    if (inner.argv) follow(inner.argv, env, chain, depth + 1);
    return;
  }
  if (base === 'env') {
    const inner = envCommand(args, env);
    if (inner) follow(inner.argv, inner.env, chain, depth + 1);
    return;
  }
  if (base === 'busybox' || base === 'toybox') {
    // Which applet runs: the name it was called by, else its first argument.
    const applet = path.basename(program) !== base ? path.basename(program) : args[0];
    if (applet && !chain.programs.includes(applet)) chain.programs.push(applet);
  }
  for (const name of names) chain.wrapper ??= wrapperOf(name, args);
  // An interpreter given a script runs that script: it is a program of the launch too.
  const script = isInterpreter(base) ? scriptOperand(base, args) : undefined;
  if (script !== undefined) addScript(script, chain);
}

/**
 * A script file an interpreter runs, by every name it goes by and its real file; nothing
 * when it is no file (the interpreter fails on it). A relative path is the server's
 * working directory's, where a launch by command runs.
 */
function addScript(script: string, chain: LaunchChain): void {
  const file = path.resolve(script);
  try {
    if (!fs.statSync(file).isFile()) return;
  } catch {
    return;
  }
  const { names, real } = realFile(file);
  chain.programs.push(...names.filter((n) => !chain.programs.includes(n)));
  if (!chain.executables.includes(real)) chain.executables.push(real);
}

/** The file a program name runs: an absolute path as it is, else the first on PATH. */
function locate(program: string, env: NodeJS.ProcessEnv): string {
  if (program === undefined || program === '') throw new ChainError('no program to run');
  if (program.includes('/')) {
    if (!path.isAbsolute(program)) {
      throw new ChainError(`${program} is a relative path; give the full path or a name on PATH`);
    }
    if (!isExecutableFile(program)) throw new ChainError(`${program} is not an executable file`);
    return program;
  }
  const found = findOnPath(program, env, { absoluteDirsOnly: true });
  if (found === undefined)
    throw new ChainError(`${program} is not on PATH (${env.PATH ?? 'unset'})`);
  return found;
}

/** Every name a file goes by on the way to its real file (each symlink hop), and that file. */
function realFile(file: string): { names: string[]; real: string } {
  const names = [path.basename(file)];
  let current = file;
  for (let hop = 0; ; hop++) {
    let target: string;
    try {
      target = fs.readlinkSync(current);
    } catch {
      break;
    }
    if (hop >= MAX_HOPS) throw new ChainError(`${file} is a symlink loop`);
    current = path.resolve(path.dirname(current), target);
    names.push(path.basename(current));
  }
  // Directories on the way may be links too (/bin -> usr/bin).
  let real: string;
  try {
    real = fs.realpathSync(current);
  } catch (err) {
    throw new ChainError(`cannot resolve ${file}: ${(err as Error).message}`);
  }
  if (!names.includes(path.basename(real))) names.push(path.basename(real));
  return { names, real };
}

/** A `#!` script's interpreter and its optional one argument, as the kernel splits them. */
function shebang(file: string): string[] | undefined {
  let head: Buffer;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      head = Buffer.alloc(256);
      head = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (head[0] !== 0x23 || head[1] !== 0x21) return undefined;
  const line = head.toString('latin1', 2).split('\n')[0].trim();
  const m = /^(\S+)(?:\s+(.*))?$/.exec(line);
  if (!m) throw new ChainError(`${file} starts with #! but names no interpreter`);
  return m[2] ? [m[1], m[2].trim()] : [m[1]];
}

/**
 * The command GNU env runs, with the environment it runs it in (its NAME=VALUE settings,
 * which may change PATH); undefined when it runs none (it only prints the environment).
 */
export function envCommand(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): { argv: string[]; env: NodeJS.ProcessEnv } | undefined {
  const rest = [...args];
  let inner: NodeJS.ProcessEnv = { ...env };
  const withValue = new Set(['-u', '--unset', '-C', '--chdir', '-a', '--argv0']);
  while (rest.length > 0) {
    const a = rest[0];
    if (a === '--') {
      rest.shift();
      break;
    }
    if (a === '-' || a === '-i' || a === '--ignore-environment') {
      inner = {};
      rest.shift();
    } else if (a === '-S' || a === '--split-string' || /^(?:-S|--split-string=)./.test(a)) {
      rest.shift();
      const text =
        a === '-S' || a === '--split-string'
          ? rest.shift()
          : a.replace(/^(?:-S|--split-string=)/, '');
      if (text === undefined) throw new ChainError('env -S needs a string');
      rest.unshift(...text.split(/\s+/).filter(Boolean));
    } else if (withValue.has(a)) {
      rest.shift();
      const value = rest.shift();
      if (value === undefined) throw new ChainError(`env ${a} needs a value`);
      if (a === '-u' || a === '--unset') delete inner[value];
    } else if (/^-u./.test(a) || a.startsWith('--unset=')) {
      delete inner[a.startsWith('-u') ? a.slice(2) : a.slice('--unset='.length)];
      rest.shift();
    } else if (/^(?:-C.|--chdir=|-a.|--argv0=)/.test(a)) {
      rest.shift();
    } else if (
      /^(?:-0|--null|-v|--debug|--(?:block|default|ignore)-signal(?:=.*)?|--list-signal-handling)$/.test(
        a,
      )
    ) {
      rest.shift();
    } else if (a.startsWith('-')) {
      throw new ChainError(`env option ${a} is not one this server can follow`);
    } else {
      break;
    }
  }
  while (rest.length > 0 && /^[^=]+=/.test(rest[0])) {
    const setting = rest.shift() as string;
    const eq = setting.indexOf('=');
    inner[setting.slice(0, eq)] = setting.slice(eq + 1);
  }
  if (rest.length === 0) return undefined;
  // env looks the command up on the PATH it was given (execvp's default when unset).
  return { argv: rest, env: { ...inner, PATH: inner.PATH ?? '/usr/local/bin:/usr/bin:/bin' } };
}

/**
 * The program the dynamic loader runs, past its options, and whether one of them loads code
 * we cannot follow. The loader opens a program named without a slash from its library
 * path, not from PATH: only a full path is followed.
 */
export function loaderCommand(
  loader: string,
  args: readonly string[],
): { argv?: string[]; wrapper?: string } {
  let wrapper: string | undefined;
  let i = 0;
  for (; i < args.length && args[i].startsWith('--'); i++) {
    const a = args[i];
    if (a === '--') {
      i++;
      break;
    }
    if (LOADER_INFO.has(a)) return {};
    if (LOADER_FLAGS.has(a)) continue;
    if (!LOADER_VALUE_OPTIONS.has(a)) {
      throw new ChainError(
        `${loader} (the dynamic loader) option ${a} is not one this server can follow`,
      );
    }
    if (args[i + 1] === undefined) throw new ChainError(`${loader} ${a} needs a value`);
    if (LOADER_CODE_OPTIONS.has(a))
      wrapper ??= `${loader} ${a} (the dynamic loader loading code of its choosing)`;
    i++;
  }
  const program = args[i];
  if (program === undefined)
    throw new ChainError(`${loader} (the dynamic loader) names no program to run`);
  if (!path.isAbsolute(program)) {
    throw new ChainError(
      `${loader} (the dynamic loader) runs ${program}, which is not a full path; give the program's full path`,
    );
  }
  return { argv: args.slice(i), ...(wrapper !== undefined ? { wrapper } : {}) };
}

/** How a program runs a command or code we cannot follow, or undefined when it does not. */
export function wrapperOf(base: string, args: readonly string[]): string | undefined {
  if (EXEC_WRAPPERS.has(base)) return base;
  if (TERMINALS.test(base)) return `${base} (a terminal, which runs a shell)`;
  // The options before the first operand (a script file, or the code itself).
  const firstOperand = args.findIndex((a) => !a.startsWith('-'));
  const options = firstOperand === -1 ? args : args.slice(0, firstOperand);
  if (SHELLS.test(base)) {
    const c = options.find((a) => /^-[a-zA-Z]*c/.test(a) || a === '--command');
    return c === undefined ? undefined : `${base} ${c}`;
  }
  const runner = CODE_RUNNERS.find((r) => r.program.test(base));
  if (!runner) return undefined;
  if (runner.always) return base;
  const code = options.find((a) => runner.option?.test(a));
  return code === undefined ? undefined : `${base} ${code}`;
}
