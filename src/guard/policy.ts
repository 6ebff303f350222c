/**
 * Guard rails: which tools are listed, which apps may be touched, how fast mutating
 * calls may come. Pure: the server and the pipeline ask, the policy answers.
 *
 * Modes: `full` (default) lists every tool; `safe` lists no script-running tool and
 * refuses typing into secure (password) fields unless allowed; `read-only` lists no
 * tool that changes an app at all.
 *
 * Tool lists (`--tools`): names to list (`ax_get_tree,ax_find`: only these), names to
 * leave out (`-ax_click`), or both; the mode's own cut applies first. A tool left out is
 * not registered, so a client can neither see nor call it.
 *
 * App patterns (allow and deny lists): a pid (`1234`), a name compared without case
 * (`gedit`), or a name with `*` wildcards (`gnome-*`). Deny wins over allow; an empty
 * allow list allows every app not denied. A running app is matched by the name it
 * registered, by its real executable's file name, and by identity: a deny-list name
 * stands for the programs it names on PATH, and a process or launch running one of them
 * under any name (a hard link, a copy, through the dynamic loader, a script through its
 * interpreter) is that program. What a denied app started is denied too while it runs
 * (DeniedApps judges a process's lineage), except what this server launched.
 *
 * Launches are checked on everything they run (the platform works it out before
 * spawning): a denied name anywhere in the chain refuses it, and while any list or safe
 * mode restricts launches, so does a launcher that runs a command we cannot follow. Safe
 * mode launches installed apps, and commands only when their real executable is on the
 * launch allow list.
 */
import { AxError } from '../errors.js';

export type Mode = 'full' | 'safe' | 'read-only';
export const MODES: readonly Mode[] = ['full', 'safe', 'read-only'];

/** What a tool does, as far as the guard cares. */
export type GuardKind = 'read' | 'session' | 'action' | 'idempotent-action' | 'script';

export interface PolicySettings {
  mode: Mode;
  allowApps: string[];
  denyApps: string[];
  /** Mutating calls per app per minute; 0 = no limit. */
  ratePerMinute: number;
  /** Apps this server launched that may be running at once; 0 = no limit. */
  maxLaunchedApps: number;
  /** Launches per minute; 0 = no limit. */
  launchesPerMinute: number;
  /** In safe mode, typing into secure fields is refused unless this is set. */
  allowSecureTyping: boolean;
  /** In safe mode, programs ax_launch_app may start by command (names or absolute paths). */
  launchAllow: string[];
  /** Tool names to list (empty: every tool the mode lists) and tool names never to list. */
  allowTools: string[];
  denyTools: string[];
}

export const DEFAULT_POLICY: PolicySettings = {
  mode: 'full',
  allowApps: [],
  denyApps: [],
  ratePerMinute: 600,
  maxLaunchedApps: 16,
  launchesPerMinute: 30,
  allowSecureTyping: false,
  launchAllow: [],
  allowTools: [],
  denyTools: [],
};

/** An app as the policy sees it; `executable` is its process's real executable file. */
export interface PolicyApp {
  pid: number;
  name: string;
  executable?: string;
}

/** What a launch runs, as the platform worked it out before anything was spawned. */
export interface LaunchFacts {
  /** `desktop`: an installed app's entry; `command`: a program the caller named. */
  kind: 'desktop' | 'command';
  /** The names the launch goes by (desktop-file id, Name, program as given). */
  names: string[];
  /** The real file that is spawned. */
  executable: string;
  /** Every name of every program it runs (links, real files, interpreters, wrapped commands). */
  programs: string[];
  /** The real files of those programs (to know a copy or hard link of a denied one). */
  executables?: string[];
  /** A launcher in the chain that runs a command that cannot be followed. */
  wrapper?: string;
  /** Why an installed app is not one menus show people (absent: it is, or a command). */
  unlisted?: string;
}

/** A process's real executable file, for the deny list (undefined when unknown). */
export type ExecutableOf = (pid: number) => string | undefined;

/**
 * The processes a process descends from while they run, nearest first (its parent and so
 * on, then its session's leader); what this server launched stops at the server.
 */
export type AncestorsOf = (pid: number) => number[];

/**
 * Which deny-list pattern names the program a file or a running process is, by identity
 * (the same file, or a copy of it) whatever it is called; the platform knows how.
 */
export interface ProgramIdentity {
  ofFile(file: string, patterns: readonly string[]): string | undefined;
  /**
   * `unseen`: how an interpreter whose program text cannot be known (code in an argument,
   * standard input from a pipe) counts while a pattern names a script.
   */
  ofProcess(
    pid: number,
    patterns: readonly string[],
    unseen?: 'denied' | 'allowed',
  ): string | undefined;
}

/**
 * How a process is judged: as an `app` (what it shows is at stake: an interpreter running
 * code the deny list cannot see is taken for a denied script), or as a `process` that
 * started others or that a launch started (a shell running `-c` code is a shell, not the
 * denied script: what it starts is judged by what that is).
 */
export type JudgedAs = 'app' | 'process';

export function isMutating(kind: GuardKind): boolean {
  return kind === 'action' || kind === 'idempotent-action' || kind === 'script';
}

export class Policy {
  /** Per pid: epoch ms of the mutating calls in the last minute, oldest first. */
  private readonly recent = new Map<number, number[]>();
  /** Epoch ms of the launches in the last minute, oldest first. */
  private launchTimes: number[] = [];
  /** Apps this server launched that were running when last looked at. */
  private readonly launchedPids = new Set<number>();

  constructor(
    readonly settings: PolicySettings,
    private readonly now: () => number = Date.now,
    private readonly executableOf: ExecutableOf = () => undefined,
    private readonly identity?: ProgramIdentity,
    private readonly ancestorsOf: AncestorsOf = () => [],
  ) {}

  /** Whether a tool is listed (and callable) at all in this mode. */
  lists(kind: GuardKind): boolean {
    if (this.settings.mode === 'read-only') return !isMutating(kind);
    if (this.settings.mode === 'safe') return kind !== 'script';
    return true;
  }

  /**
   * Whether the server registers this tool: the mode lists its kind, the allow list (when
   * given) names it and the deny list does not.
   */
  toolListed(tool: { name: string; kind: GuardKind }): boolean {
    const { allowTools, denyTools } = this.settings;
    if (!this.lists(tool.kind) || denyTools.includes(tool.name)) return false;
    return allowTools.length === 0 || allowTools.includes(tool.name);
  }

  /**
   * Throws a clear error when the app is blocked by the allow/deny lists. The deny list
   * is matched against the registered name, the process's real executable (looked up by
   * pid unless given) and what that executable is (a copy or link of a denied program). A
   * refusal names only the pid: the app's name and the list are the server's business.
   */
  checkApp(app: PolicyApp): void {
    const { allowApps } = this.settings;
    if (this.deniedApp(app)) {
      throw new AxError(
        'blocked',
        `pid ${app.pid} is blocked by this server's policy`,
        'Pick another app; which apps are blocked is set by whoever runs the server (AXPAGE_DENY_APPS or --deny-apps)',
      );
    }
    if (allowApps.length > 0 && !allowApps.some((p) => matchesApp(p, app))) {
      throw new AxError(
        'blocked',
        `${app.name} (pid ${app.pid}) is not on this server's allow list (${allowApps.join(', ')})`,
        'Pick one of the allowed apps; the list is set by whoever runs the server (AXPAGE_ALLOW_APPS or --allow-apps)',
      );
    }
  }

  /**
   * Throws when a launch may not run, before anything is spawned: a denied name anywhere
   * in what it runs; a wrapper while launches are restricted (a deny or allow list, or
   * safe mode), since what it runs cannot be checked; in safe mode a command whose real
   * executable is not on the launch allow list; with an allow list, no allowed name.
   * `unlistedAllowed`: the person allowed this one command off the launch allow list
   * (every other check still applies).
   */
  checkLaunch(launch: LaunchFacts, opts: { unlistedAllowed?: boolean } = {}): void {
    const { allowApps, denyApps, launchAllow, mode } = this.settings;
    const nothing = 'nothing was started';
    for (const name of [...launch.names, ...launch.programs]) {
      const denied = denyApps.find((p) => matchesApp(p, { pid: -1, name }));
      if (denied === undefined) continue;
      const via = launch.names.includes(name) ? '' : ` (${launch.names[0]} runs ${name})`;
      throw new AxError(
        'blocked',
        `${name}${via} is blocked by this server's policy (deny list: '${denied}'); ${nothing}`,
        'Pick another app; the deny list is set by whoever runs the server (AXPAGE_DENY_APPS or --deny-apps)',
      );
    }
    for (const file of launch.executables ?? []) {
      if (this.identity?.ofFile(file, denyApps) === undefined) continue;
      throw new AxError(
        'blocked',
        `${launch.names[0]} runs ${file}, a copy or link of a program this server's policy blocks; ${nothing}`,
        'Pick another app; the deny list is set by whoever runs the server (AXPAGE_DENY_APPS or --deny-apps)',
      );
    }
    const restricted = mode === 'safe' || denyApps.length > 0 || allowApps.length > 0;
    if (restricted && launch.wrapper !== undefined) {
      throw new AxError(
        'blocked',
        `${launch.names[0]} runs another command through ${launch.wrapper}, which this server's policy cannot check; ${nothing}`,
        launch.kind === 'command'
          ? 'Launch the program itself: command: ["program", ...args], with no launcher or shell in front'
          : 'Launch the program its desktop file starts by command instead, or ask whoever runs the server to allow it',
      );
    }
    // Safe mode starts what a person could pick from a menu; hidden entries are helpers
    // (a window manager, a wallet daemon) whose effect reaches past one app.
    if (mode === 'safe' && launch.kind === 'desktop' && launch.unlisted !== undefined) {
      throw new AxError(
        'blocked',
        `${launch.names[0]} is not an app shown to people (${launch.unlisted}), and this server runs in safe mode, which launches those only; ${nothing}`,
        'Launch an app from the menus, or ask whoever runs the server to add its program to AXPAGE_LAUNCH_ALLOW (--launch-allow) and launch it by command',
      );
    }
    if (mode === 'safe' && launch.kind === 'command' && !opts.unlistedAllowed) {
      if (!launchAllow.some((p) => matchesProgram(p, launch.executable))) {
        throw new AxError(
          'blocked',
          `this server runs in safe mode, which launches installed apps only, and ${launch.executable} is not on its launch allow list${launchAllow.length > 0 ? ` (${launchAllow.join(', ')})` : ''}; ${nothing}`,
          'Launch an installed app by desktop (e.g. desktop: "galculator"), or ask whoever runs the server to add the program to AXPAGE_LAUNCH_ALLOW (--launch-allow)',
        );
      }
    }
    // With an allow list, the program counts by its real file, never by a link's name.
    const allowNames =
      launch.kind === 'command'
        ? [baseName(launch.executable)]
        : [...launch.names, baseName(launch.executable)];
    if (
      allowApps.length > 0 &&
      !allowNames.some((name) => allowApps.some((p) => matchesApp(p, { pid: -1, name })))
    ) {
      throw new AxError(
        'blocked',
        `${allowNames.join(' / ')} is not on this server's allow list (${allowApps.join(', ')}); ${nothing}`,
        'Pick one of the allowed apps; the list is set by whoever runs the server (AXPAGE_ALLOW_APPS or --allow-apps)',
      );
    }
  }

  /** Safe mode refuses this command only for not being on the launch allow list. */
  offLaunchAllowList(launch: LaunchFacts): boolean {
    const { launchAllow, mode } = this.settings;
    return (
      mode === 'safe' &&
      launch.kind === 'command' &&
      !launchAllow.some((p) => matchesProgram(p, launch.executable))
    );
  }

  /**
   * Counts a mutating call on an app, or throws when the app already had the limit's
   * worth in the last minute (the call is then not counted: it did nothing).
   */
  admitMutation(app: { pid: number; name: string }): void {
    const limit = this.settings.ratePerMinute;
    if (limit <= 0) return;
    const now = this.now();
    const times = (this.recent.get(app.pid) ?? []).filter((t) => now - t < 60_000);
    if (times.length >= limit) {
      const waitS = Math.max(1, Math.ceil((times[0] + 60_000 - now) / 1000));
      this.recent.set(app.pid, times);
      throw new AxError(
        'rate_limited',
        `rate limit: ${times.length} mutating calls on ${app.name} (pid ${app.pid}) in the last minute, the limit is ${limit}`,
        `Wait ${waitS} s before the next action on it (the limit is AXPAGE_RATE_LIMIT or --rate-limit)`,
        { retry_after_s: waitS },
      );
    }
    times.push(now);
    this.recent.set(app.pid, times);
  }

  /**
   * Counts a launch, or throws when this server's launches would pass the budget: too
   * many of the apps it launched still run (`running` says which pids still do), or too
   * many launches in the last minute. A runaway agent otherwise spawns app after app.
   * A refused launch is not counted: it started nothing.
   */
  admitLaunch(running: (pid: number) => boolean): void {
    const { maxLaunchedApps: most, launchesPerMinute: perMinute } = this.settings;
    for (const pid of this.launchedPids) if (!running(pid)) this.launchedPids.delete(pid);
    if (most > 0 && this.launchedPids.size >= most) {
      throw new AxError(
        'rate_limited',
        `launch budget: ${this.launchedPids.size} apps this server launched are still running (pids ${[...this.launchedPids].join(', ')}), the limit is ${most}`,
        'Quit one you are done with (ax_quit_app) before launching another, or reuse a running one (the limit is AXPAGE_MAX_LAUNCHED_APPS or --max-launched-apps)',
        { running_pids: [...this.launchedPids] },
      );
    }
    const now = this.now();
    this.launchTimes = this.launchTimes.filter((t) => now - t < 60_000);
    if (perMinute > 0 && this.launchTimes.length >= perMinute) {
      const waitS = Math.max(1, Math.ceil((this.launchTimes[0] + 60_000 - now) / 1000));
      throw new AxError(
        'rate_limited',
        `launch rate limit: ${this.launchTimes.length} launches in the last minute, the limit is ${perMinute}`,
        `Wait ${waitS} s before launching again (the limit is AXPAGE_LAUNCH_RATE or --launch-rate)`,
        { retry_after_s: waitS },
      );
    }
    this.launchTimes.push(now);
  }

  /** An app a launch left running: it counts against the budget until it exits. */
  recordLaunched(pid: number): void {
    this.launchedPids.add(pid);
  }

  /** Throws when safe mode forbids typing into a secure field. */
  checkSecureTyping(label: string): void {
    const refusal = this.secureTypingRefusal(label);
    if (refusal) throw refusal;
  }

  /** The error safe mode gives input into the password field `label`; none when it allows it. */
  secureTypingRefusal(label: string): AxError | undefined {
    if (this.settings.mode !== 'safe' || this.settings.allowSecureTyping) return undefined;
    return new AxError(
      'blocked',
      `${label} is a password field, and this server runs in safe mode, which types into none`,
      'Type it yourself, or run the server with AXPAGE_ALLOW_SECURE_TYPING=1 (--allow-secure-typing)',
    );
  }

  /** Whether the deny list names this app (as checkApp matches it): nothing of it is shown. */
  denies(app: { pid: number; name: string }, as: JudgedAs = 'app'): boolean {
    return this.deniedApp(app, as);
  }

  /**
   * The processes a process descends from while they run, nearest first (none without a
   * deny list): a denied app's helper (a dialog it runs as a child process of its own,
   * under another name) shows the app's data. Which of them are apps, and so pass their
   * denial on, only the desktop tells (DeniedApps).
   */
  lineage(pid: number): number[] {
    return this.settings.denyApps.length === 0 || pid <= 0 ? [] : this.ancestorsOf(pid);
  }

  /** By pid or registered name, by its executable's file name, or by what that file is. */
  private deniedApp(app: PolicyApp, as: JudgedAs = 'app'): boolean {
    const { denyApps } = this.settings;
    if (denyApps.length === 0) return false;
    if (denyApps.some((p) => matchesApp(p, app))) return true;
    if (app.pid <= 0) return false;
    const executable = app.executable ?? this.executableOf(app.pid);
    if (executable !== undefined) {
      const name = baseName(executable);
      if (denyApps.some((p) => matchesApp(p, { pid: app.pid, name }))) return true;
    }
    const unseen = as === 'app' ? 'denied' : 'allowed';
    return this.identity?.ofProcess(app.pid, denyApps, unseen) !== undefined;
  }
}

/** A pid, an exact name (any case), or a name with `*` wildcards. */
export function matchesApp(pattern: string, app: { pid: number; name: string }): boolean {
  const p = pattern.trim();
  if (p === '') return false;
  if (/^\d+$/.test(p)) return Number(p) === app.pid;
  if (!p.includes('*')) return p.toLowerCase() === app.name.toLowerCase();
  const re = new RegExp(
    `^${p
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    'i',
  );
  return re.test(app.name);
}

/**
 * A launch allow list entry against a real executable: an absolute path is that file
 * exactly; anything else is a name pattern (as matchesApp) for its file name.
 */
export function matchesProgram(pattern: string, executable: string): boolean {
  const p = pattern.trim();
  if (p.startsWith('/')) return p === executable;
  if (/^\d+$/.test(p)) return false;
  return matchesApp(p, { pid: -1, name: baseName(executable) });
}

function baseName(file: string): string {
  return file.slice(file.lastIndexOf('/') + 1);
}

/**
 * A `--tools` list split into names to allow and names to deny (`-name`). Unknown
 * names are returned apart so the caller can refuse them with the known ones listed.
 */
export function parseToolList(
  entries: readonly string[],
  /** The tool names there are; without it every name is taken. */
  known?: readonly string[],
): { allowTools: string[]; denyTools: string[]; unknown: string[] } {
  const allowTools: string[] = [];
  const denyTools: string[] = [];
  const unknown: string[] = [];
  for (const entry of entries) {
    const deny = entry.startsWith('-');
    const name = (deny ? entry.slice(1) : entry).trim();
    if (known && !known.includes(name)) unknown.push(entry);
    else (deny ? denyTools : allowTools).push(name);
  }
  return { allowTools, denyTools, unknown };
}

/** A comma-separated list, blanks dropped. */
export function parseList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
