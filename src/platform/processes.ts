/**
 * Process control: resolving and starting launches, and following and ending the
 * processes they start. Linux: /proc and signals, whatever the display session.
 */

/** What to start: a program with its arguments, or an installed app by the name users know. */
export type LaunchRequest = { command: string[] } | { app: string };

/** A launch resolved before anything runs, so that what it names can be checked first. */
export interface LaunchPlan {
  /** The program and its arguments, as they will run (no shell). */
  argv: string[];
  /** What it is called: an installed app's id and display name, and the program's file name. */
  names: string[];
  /** Where an installed app was found (its desktop file on Linux). */
  source?: string;
  /** Working directory the app asks for. */
  cwd?: string;
  /** The real file of the program that is spawned (every symlink followed). */
  executable: string;
  /** The real files of every program the launch runs (the program, interpreters, what a launcher runs). */
  executables: string[];
  /**
   * Every name of every program the launch runs: each symlink hop and real file of the
   * program, of a script's interpreter, of the command a launcher like `env` runs.
   */
  programs: string[];
  /** A launcher in the chain that runs a command the server cannot follow (xargs, sh -c). */
  wrapper?: string;
  /**
   * Why an installed app is not one menus show people (a helper other programs start),
   * in one clause; absent when it is shown, and for commands.
   */
  unlisted?: string;
}

/** A launched app's stdout (stream 0) and stderr (stream 1), as pipes this server reads. */
export interface LaunchOutput {
  /** Each chunk either pipe yields, in order per pipe; `end` once per pipe as it ends. */
  read(sink: { data(stream: number, chunk: Uint8Array): void; end(stream: number): void }): void;
  /**
   * Stops reading (what was read but not yet handed to `data` is handed now, before this
   * returns) and passes both pipes on to a detached process running `command`, as its fds 3
   * and 4, with `fd` as its fd 5 and `input` on its stdin: the app writes on after this
   * server is gone. Settles once `input` is through.
   */
  handOver(command: string[], input: string, fd: number): Promise<void>;
}

export interface LaunchedProcess {
  pid: number;
  /**
   * Its stdout and stderr, read by the server (never by a terminal): what the app prints is
   * written to its log only once the server has masked its secrets in it.
   */
  output: LaunchOutput;
  /** Settles when the process exits: its exit code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: string | null }>;
}

/** Starting processes, following their families, ending them. */
export interface ProcessControl {
  /** Pids of live processes started by `pid` (children and their descendants). */
  childProcesses(pid: number): Promise<number[]>;
  /**
   * Pids of live processes a launch started, `leader` being the process `launch` spawned
   * (it leads a session of its own): its descendants, and what stays in its session or
   * process group after its parent exited (a program a launcher backgrounds). Not the
   * leader itself. Absent: the platform knows only childProcesses.
   */
  launchFamily?(leader: number): Promise<number[]>;
  /**
   * The pid's parent, grandparent and so on up to init, and the leader of its session (a
   * helper forked into the background keeps that); absent: not known here.
   */
  ancestors?(pid: number): Promise<number[]>;
  /** Resolve what a launch would run; a name that matches no installed app is an error. */
  planLaunch(request: LaunchRequest): Promise<LaunchPlan>;
  /**
   * Start the plan detached from us (its own session, no terminal, no stdin), with the
   * environment apps need to be accessible; its output comes through pipes (`output`).
   */
  launch(plan: LaunchPlan): Promise<LaunchedProcess>;
  /** Whether the process still runs (exited or zombie: false). */
  isRunning(pid: number): Promise<boolean>;
  /**
   * Ask the process to end now (SIGTERM on POSIX); never by name. `kill`: end it without
   * asking (SIGKILL), for a process that did not go when asked.
   */
  terminate(pid: number, kill?: boolean): Promise<void>;
}
