/**
 * Finding an installed app's desktop file by the name a user would type: its id
 * ("org.gnome.Calculator", "galculator.desktop") or its Name ("Mousepad"), in the XDG data
 * dirs' applications/ folders, earlier dirs winning (XDG Base Directory spec).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execArgv, parseDesktopEntry, type DesktopEntry } from './launch-entry.js';

export interface FoundEntry {
  /** The desktop-file id: its path below applications/, '/' as '-' (spec), without .desktop. */
  id: string;
  file: string;
  entry: DesktopEntry;
  argv: string[];
}

/** $XDG_DATA_HOME, then $XDG_DATA_DIRS (defaults per the spec), each with applications/. */
export function applicationDirs(env: NodeJS.ProcessEnv): string[] {
  const home = env.XDG_DATA_HOME || path.join(env.HOME || os.homedir(), '.local', 'share');
  const dirs = (env.XDG_DATA_DIRS || '/usr/local/share:/usr/share').split(':').filter(Boolean);
  return [home, ...dirs].map((d) => path.join(d, 'applications'));
}

/** Every desktop-file id in a folder tree, with its file (subfolders join the id with '-'). */
function entriesIn(dir: string, prefix = '', out = new Map<string, string>()): Map<string, string> {
  let names: fs.Dirent[];
  try {
    names = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const d of names) {
    const file = path.join(dir, d.name);
    if (d.isDirectory()) entriesIn(file, `${prefix}${d.name}-`, out);
    else if (d.name.endsWith('.desktop')) out.set(`${prefix}${d.name.slice(0, -8)}`, file);
  }
  return out;
}

/**
 * The entries one id resolves to across the dirs: the first dir that has the id wins,
 * even when its entry is Hidden (a user's Hidden=true file deletes the system one).
 */
function installedEntries(env: NodeJS.ProcessEnv): Array<{ id: string; file: string }> {
  const byId = new Map<string, string>();
  for (const dir of applicationDirs(env)) {
    for (const [id, file] of entriesIn(dir)) if (!byId.has(id)) byId.set(id, file);
  }
  return [...byId].map(([id, file]) => ({ id, file }));
}

/** Whether a program can be run: an absolute path that is executable, or one on PATH. */
export function onPath(program: string, env: NodeJS.ProcessEnv): boolean {
  if (program.includes('/')) return path.isAbsolute(program) && isExecutableFile(program);
  return findOnPath(program, env) !== undefined;
}

/**
 * The first executable file `program` (a bare name) names on PATH. `absoluteDirsOnly`
 * skips relative PATH entries, which name different files from one working dir to another.
 */
export function findOnPath(
  program: string,
  env: NodeJS.ProcessEnv,
  opts: { absoluteDirsOnly?: boolean } = {},
): string | undefined {
  for (const dir of (env.PATH ?? '').split(':')) {
    if (dir === '' || (opts.absoluteDirsOnly && !path.isAbsolute(dir))) continue;
    const file = path.join(dir, program);
    if (isExecutableFile(file)) return file;
  }
  return undefined;
}

/** A regular file this process may execute. */
export function isExecutableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export class LookupError extends Error {
  override name = 'LookupError';
  constructor(
    message: string,
    /** Close names that do exist, for the hint. */
    readonly suggestions: string[] = [],
  ) {
    super(message);
  }
}

/**
 * The installed app a name means, best match first: the exact id, the id in any case, the
 * Name in any case, then the last part of a reverse-DNS id ("Calculator" for
 * org.gnome.Calculator) or the program's file name. NoDisplay entries (helpers not shown
 * in menus) match only by exact id. Hidden entries, entries whose TryExec program is
 * missing and non-Application entries never match. Several different apps in the best
 * tier is an error that lists them.
 */
export function findDesktopEntry(query: string, env: NodeJS.ProcessEnv): FoundEntry {
  const want = query.trim().replace(/\.desktop$/i, '');
  const lower = want.toLowerCase();
  const usable: Array<{ id: string; file: string; entry: DesktopEntry; argv: string[] }> = [];
  const broken: string[] = [];
  for (const { id, file } of installedEntries(env)) {
    let entry: DesktopEntry | undefined;
    try {
      entry = parseDesktopEntry(fs.readFileSync(file, 'utf8'));
    } catch {
      continue;
    }
    if (!entry || entry.hidden || entry.type !== 'Application' || !entry.exec) continue;
    if (entry.tryExec && !onPath(entry.tryExec, env)) continue;
    let argv: string[];
    try {
      argv = execArgv(entry.exec, { name: entry.name, icon: entry.icon, file });
    } catch (err) {
      if (id.toLowerCase() === lower) broken.push(`${file}: ${(err as Error).message}`);
      continue;
    }
    usable.push({ id, file, entry, argv });
  }
  const tiers: Array<(e: (typeof usable)[number]) => boolean> = [
    (e) => e.id === want,
    (e) => e.id.toLowerCase() === lower,
    (e) => !e.entry.noDisplay && e.entry.name.toLowerCase() === lower,
    (e) =>
      !e.entry.noDisplay &&
      (e.id.toLowerCase().split('.').pop() === lower ||
        path.basename(e.argv[0]).toLowerCase() === lower),
  ];
  for (const tier of tiers) {
    const hits = usable.filter(tier);
    if (hits.length === 1) return hits[0];
    if (hits.length > 1) {
      throw new LookupError(
        `"${query}" names ${hits.length} installed apps: ${hits
          .slice(0, 5)
          .map((h) => `${h.id} (${h.entry.name})`)
          .join(', ')}`,
        hits.map((h) => h.id),
      );
    }
  }
  if (broken.length > 0) throw new LookupError(`cannot start "${query}": ${broken[0]}`);
  const near = usable
    .filter(
      (e) =>
        e.id.toLowerCase().includes(lower) ||
        (!e.entry.noDisplay && e.entry.name.toLowerCase().includes(lower)),
    )
    .map((e) => e.id)
    .slice(0, 5);
  throw new LookupError(
    `no installed app is called "${query}" (looked in ${applicationDirs(env).join(', ')})`,
    near,
  );
}
