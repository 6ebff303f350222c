/**
 * Which program a file is, by identity rather than by name: a hard link is the same
 * file (device and inode), a copy has the same content (size, then SHA-256), and an ELF
 * copy with bytes appended or data patched keeps its GNU build-id. A deny-list
 * name stands for the real executables it names on PATH and in the standard bin dirs, so
 * a denied app copied to /tmp/x/anything, hard-linked there, or run by the dynamic loader
 * is still recognised, at launch and while it runs (/proc/PID/exe reads the running
 * binary's content even when it was renamed or removed). A script is a program too: one
 * an interpreter runs is judged by its file, as a binary is. Reads the file system only.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gnuBuildIdOfFile } from './elf-build-id.js';
import { withFileRead } from './read-fd.js';
import { isInterpreter, scriptSource, type ScriptSource } from './script-operand.js';

/** Where programs are installed besides the server's PATH. */
const STANDARD_BIN_DIRS = [
  '/usr/local/sbin',
  '/usr/local/bin',
  '/usr/sbin',
  '/usr/bin',
  '/sbin',
  '/bin',
  '/usr/games',
  '/usr/local/games',
];

/** Where the dynamic loader lives (glibc and musl, every multiarch layout). */
const LOADER_DIRS = ['/lib', '/lib64', '/usr/lib', '/usr/lib64', '/lib32', '/usr/lib32', '/libx32'];
const LOADER_NAME =
  /^(?:ld-linux[\w.-]*\.so[\d.]*|ld\.so[\d.]*|ld64\.so[\d.]*|ld-musl-[\w.-]*\.so[\d.]*)$/;

/** How long a name's resolution through PATH is reused (a listing of /usr/bin is not free). */
const RESOLVE_TTL_MS = 5000;

interface Identity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

export class ProgramIdentity {
  private readonly resolved = new Map<string, { at: number; files: string[] }>();
  /** SHA-256 per file version (dev, inode, mtime, size): each binary is read once. */
  private readonly digests = new Map<string, string>();
  /** GNU build-id per file version ('' for none: a script, or an ELF without one). */
  private readonly buildIds = new Map<string, string>();
  /** Whether a file starts with `#!`, per file version. */
  private readonly shebangs = new Map<string, boolean>();
  /** The start of scripts interpreters run, per file version. */
  private readonly texts = new Map<string, string>();
  private loaders?: string[];

  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The first of `patterns` (deny-list entries: names, `*` wildcards; pids are skipped)
   * whose installed program `file` is: the same file or a copy of it.
   */
  ofFile(file: string, patterns: readonly string[]): string | undefined {
    const candidate = identityOf(file);
    if (!candidate) return undefined;
    return patterns.find((p) =>
      this.filesNamed(p).some((target) => this.same(file, candidate, target)),
    );
  }

  /**
   * The same for a running process: the binary it runs, and when that is the dynamic
   * loader (`ld-linux.so program`), every file it mapped, the program among them; when it
   * is an interpreter, the program text it runs (ofInterpreter).
   */
  ofProcess(
    pid: number,
    patterns: readonly string[],
    unseen: 'denied' | 'allowed' = 'denied',
  ): string | undefined {
    const exe = `/proc/${pid}/exe`;
    const hit = this.ofFile(exe, patterns);
    if (hit !== undefined) return hit;
    const interpreter = interpreterOf(pid);
    if (interpreter !== undefined) {
      const script = this.ofInterpreter(pid, interpreter, patterns, unseen);
      if (script !== undefined) return script;
    }
    if (!this.isLoader(exe)) return undefined;
    for (const file of mappedFiles(pid)) {
      const mapped = this.ofFile(file, patterns);
      if (mapped !== undefined) return mapped;
    }
    return undefined;
  }

  /**
   * A running interpreter is the script it runs, wherever the text came from: a file
   * operand (from the process's working directory; `/dev/fd/N` is the file open there),
   * its standard input when that is a file, any file it holds open, and a file its code
   * names by path (`-c "exec(open('x').read())"`, a one-line script that loads another).
   * When its text cannot be known at all (code in an argument, a module, standard input
   * or a `/dev/fd` that is a pipe or a terminal) and a pattern names a script, it is taken
   * for that script (`unseen` 'denied'): a deny list cannot vouch for code it cannot see.
   */
  private ofInterpreter(
    pid: number,
    { source, cwd }: { source: ScriptSource; cwd?: string },
    patterns: readonly string[],
    unseen: 'denied' | 'allowed',
  ): string | undefined {
    const files: string[] = [];
    let unknown = false;
    if (source.kind === 'code') {
      unknown = true;
      files.push(...pathsNamedIn(source.code, cwd));
    } else {
      const fd = source.kind === 'stdin' ? 0 : fdNamed(source.path, pid);
      if (fd !== undefined) {
        const target = `/proc/${pid}/fd/${fd}`;
        if (identityOf(target) !== undefined) files.push(target);
        else unknown = true;
      } else if (source.kind === 'file') {
        const file = path.isAbsolute(source.path)
          ? source.path
          : cwd !== undefined
            ? path.resolve(cwd, source.path)
            : undefined;
        if (file === undefined) unknown = true;
        else files.push(file, ...pathsNamedIn(this.scriptText(file), path.dirname(file), cwd));
      }
    }
    files.push(...openFiles(pid));
    for (const file of files) {
      const names = namesOf(file);
      const named = patterns.find(
        (p) => !/^\d+$/.test(p.trim()) && names.some(nameMatcher(p.trim())),
      );
      if (named !== undefined) return named;
      const copied = this.ofFile(file, patterns);
      if (copied !== undefined) return copied;
    }
    return unknown && unseen === 'denied' ? patterns.find((p) => this.namesScript(p)) : undefined;
  }

  /**
   * Whether a deny-list pattern names a script: a program on PATH whose file starts with
   * `#!`, or a name that is installed nowhere and reads as a script's (`notes.py`).
   */
  namesScript(pattern: string): boolean {
    const p = pattern.trim();
    if (p === '' || /^\d+$/.test(p)) return false;
    const files = this.filesNamed(p);
    if (files.length === 0) return SCRIPT_NAME.test(p);
    return files.some((file) => {
      const id = identityOf(file);
      if (!id) return false;
      const key = versionKey(id);
      let script = this.shebangs.get(key);
      if (script === undefined) {
        script =
          withFileRead(file, (fd) => {
            const head = Buffer.alloc(2);
            return fs.readSync(fd, head, 0, 2, 0) === 2 && head.toString('latin1') === '#!';
          }) ?? false;
        this.shebangs.set(key, script);
      }
      return script;
    });
  }

  /** The start of a script file, as text (a loader is a line or two). */
  private scriptText(file: string): string {
    const id = identityOf(file);
    if (!id) return '';
    const key = versionKey(id);
    let text = this.texts.get(key);
    if (text === undefined) {
      text =
        withFileRead(file, (fd) => {
          const buf = Buffer.alloc(SCRIPT_SCAN_BYTES);
          const n = fs.readSync(fd, buf, 0, buf.length, 0);
          return buf.subarray(0, n).toString('utf8');
        }) ?? '';
      if (this.texts.size > 256) this.texts.clear();
      this.texts.set(key, text);
    }
    return text;
  }

  /** Whether the file is the dynamic loader (under any name, or a copy of it). */
  isLoader(file: string): boolean {
    if (LOADER_NAME.test(path.basename(file))) return true;
    const candidate = identityOf(file);
    if (!candidate) return false;
    this.loaders ??= findLoaders();
    return this.loaders.some((target) => this.same(file, candidate, target));
  }

  /** The real executables a pattern names in PATH's dirs and the standard bin dirs. */
  filesNamed(pattern: string): string[] {
    const p = pattern.trim();
    if (p === '' || /^\d+$/.test(p) || p.includes('/')) return [];
    const cached = this.resolved.get(p);
    if (cached && this.now() - cached.at < RESOLVE_TTL_MS) return cached.files;
    const dirs = [...(this.env.PATH ?? '').split(':'), ...STANDARD_BIN_DIRS].filter((d) =>
      path.isAbsolute(d),
    );
    const matches = nameMatcher(p);
    const files = new Set<string>();
    for (const dir of new Set(dirs)) {
      // Names compare without case, as the policy compares them.
      const names = p.includes('*') ? listDir(dir).filter(matches) : [p, p.toLowerCase()];
      for (const name of names) {
        const real = realExecutable(path.join(dir, name));
        if (real) files.add(real);
      }
    }
    const out = [...files];
    this.resolved.set(p, { at: this.now(), files: out });
    return out;
  }

  private same(file: string, candidate: Identity, target: string): boolean {
    const t = identityOf(target);
    if (!t) return false;
    if (t.dev === candidate.dev && t.ino === candidate.ino) return true;
    // The candidate first: a script has none, and then no target is read for it.
    const id = this.buildId(file, candidate);
    if (id !== '' && id === this.buildId(target, t)) return true;
    if (t.size !== candidate.size || t.size === 0) return false;
    const a = this.digest(file, candidate);
    return a !== undefined && a === this.digest(target, t);
  }

  private buildId(file: string, id: Identity): string {
    const key = versionKey(id);
    let found = this.buildIds.get(key);
    if (found === undefined) {
      found = gnuBuildIdOfFile(file);
      if (found === undefined) return '';
      this.buildIds.set(key, found);
    }
    return found;
  }

  private digest(file: string, id: Identity): string | undefined {
    const key = versionKey(id);
    let sum = this.digests.get(key);
    if (sum === undefined) {
      sum = sha256(file);
      if (sum === undefined) return undefined;
      this.digests.set(key, sum);
    }
    return sum;
  }
}

function versionKey(id: Identity): string {
  return `${id.dev}:${id.ino}:${id.mtimeMs}:${id.size}`;
}

function identityOf(file: string): Identity | undefined {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return undefined;
    return { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
  } catch {
    return undefined;
  }
}

function sha256(file: string): string | undefined {
  return withFileRead(file, (fd) => {
    const hash = createHash('sha256');
    const buf = Buffer.alloc(1 << 20);
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      hash.update(buf.subarray(0, n));
    }
    return hash.digest('hex');
  });
}

function realExecutable(file: string): string | undefined {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    const real = fs.realpathSync(file);
    return fs.statSync(real).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

function listDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** A deny-list name as the policy compares it: any case, `*` any run of characters. */
function nameMatcher(pattern: string): (name: string) => boolean {
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    'i',
  );
  return (name) => re.test(name);
}

/** The dynamic loaders installed (every multiarch dir one level down too). */
function findLoaders(): string[] {
  const out = new Set<string>();
  for (const dir of LOADER_DIRS) {
    const names = listDir(dir);
    for (const name of names) {
      const file = path.join(dir, name);
      if (LOADER_NAME.test(name)) {
        const real = realExecutable(file);
        if (real) out.add(real);
      } else if (/-linux-/.test(name)) {
        for (const inner of listDir(file).filter((n) => LOADER_NAME.test(n))) {
          const real = realExecutable(path.join(file, inner));
          if (real) out.add(real);
        }
      }
    }
  }
  return [...out];
}

/** How much of a script is read for the paths it names (a loader is a line or two). */
const SCRIPT_SCAN_BYTES = 64 * 1024;
/** Names of scripts by their extension. */
const SCRIPT_NAME = /\.(?:py|pyw|pl|pm|rb|sh|bash|zsh|js|mjs|cjs|lua|tcl|php|r)$/i;

/**
 * Where a running interpreter's program text comes from, and its working directory;
 * undefined when it runs no interpreter.
 */
function interpreterOf(pid: number): { source: ScriptSource; cwd?: string } | undefined {
  let exe: string;
  let argv: string[];
  try {
    exe = fs.readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, '');
    if (!isInterpreter(path.basename(exe))) return undefined;
    argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
  if (argv[argv.length - 1] === '') argv.pop();
  const source = scriptSource(path.basename(exe), argv.slice(1));
  if (source === undefined) return undefined;
  let cwd: string | undefined;
  try {
    cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    cwd = undefined;
  }
  return { source, cwd };
}

/** The fd a path names in the process (`/dev/fd/3`, `/dev/stdin`, `/proc/self/fd/3`). */
function fdNamed(file: string, pid: number): number | undefined {
  if (file === '/dev/stdin') return 0;
  const m = /^\/(?:dev\/fd|proc\/(?:self|thread-self|(\d+))\/fd)\/(\d+)$/.exec(file);
  if (!m || (m[1] !== undefined && Number(m[1]) !== pid)) return undefined;
  return Number(m[2]);
}

/** The regular files a process holds open (through /proc, so a deleted one still reads). */
function openFiles(pid: number): string[] {
  let fds: string[];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const fd of fds.slice(0, 256)) {
    let target: string;
    try {
      target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    // Sockets, pipes, devices and anonymous files run no code.
    if (!target.startsWith('/') || target.startsWith('/dev/')) continue;
    if (identityOf(`/proc/${pid}/fd/${fd}`) !== undefined) out.push(`/proc/${pid}/fd/${fd}`);
  }
  return out;
}

/**
 * Existing files that program text names by path, in quotes or bare (`open('bin/x')`,
 * `. /opt/x`): from each of `dirs` when relative.
 */
function pathsNamedIn(text: string, ...dirs: Array<string | undefined>): string[] {
  const out = new Set<string>();
  const words = text.match(/[^\s'"`()[\]{},;=<>|&]*\/[^\s'"`()[\]{},;=<>|&]*/g) ?? [];
  for (const word of words.slice(0, 200)) {
    if (word.length > 4096 || word.startsWith('//')) continue;
    const candidates = path.isAbsolute(word)
      ? [word]
      : dirs.flatMap((d) => (d !== undefined ? [path.resolve(d, word)] : []));
    for (const file of candidates) if (identityOf(file) !== undefined) out.add(file);
  }
  return [...out];
}

/** Every name a file goes by on the way to its real file: its own, each symlink hop's, the real one's. */
function namesOf(file: string): string[] {
  const names = [path.basename(file)];
  let current = file;
  for (let hop = 0; hop < 40; hop++) {
    try {
      current = path.resolve(path.dirname(current), fs.readlinkSync(current));
    } catch {
      break;
    }
    names.push(path.basename(current));
  }
  try {
    names.push(path.basename(fs.realpathSync(file)));
  } catch {
    // Gone: the names it was run by are all there is.
  }
  return names;
}

/** The files a process mapped (/proc/PID/maps: program, loader, libraries). */
function mappedFiles(pid: number): string[] {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/maps`, 'utf8');
  } catch {
    return [];
  }
  const files = new Set<string>();
  for (const line of text.split('\n')) {
    // address perms offset dev inode path
    const m = /^\S+\s+\S+\s+\S+\s+\S+\s+(\d+)\s+(\/.*)$/.exec(line);
    if (m && m[1] !== '0') files.add(m[2].replace(/ \(deleted\)$/, ''));
  }
  return [...files];
}
