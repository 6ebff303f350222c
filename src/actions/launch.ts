/**
 * Starting and quitting apps, over the Desktop interface: a command line split into an
 * argv (no shell ever runs it), and quitting the way a user would: close the windows,
 * wait for the app to go, and stop at a dialog that asks first.
 */
import { AxError } from '../errors.js';
import type { DesktopWindow } from '../platform/desktop.js';
import type { Delivered, Scene } from './types.js';

/** Characters a shell would give a meaning we do not: refused unquoted, never passed on. */
const SHELL_SYNTAX = new Set(['|', '&', ';', '<', '>', '(', ')', '$', '`']);

/**
 * A command line as a POSIX shell would split it into words, without running a shell:
 * blanks separate words; single quotes keep everything literally; double quotes keep
 * blanks and take \" \\ \$ \` as escapes; a backslash outside quotes escapes the next
 * character. What a shell would expand or run (pipes, redirections, $vars, `cmd`, a
 * leading ~, VAR=value before the program) is an error rather than passed on literally.
 */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let i = 0;
  const refuse = (what: string, hint: string): never => {
    throw new AxError('bad_argument', `command: ${what} (no shell runs the command)`, hint);
  };
  while (i < line.length) {
    const c = line[i];
    if (c === ' ' || c === '\t' || c === '\n') {
      if (word !== undefined) words.push(word);
      word = undefined;
      i++;
      continue;
    }
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0)
        refuse('an unclosed single quote', 'Close the quote, or pass command as an array');
      word = (word ?? '') + line.slice(i + 1, end);
      i = end + 1;
      continue;
    }
    if (c === '"') {
      let text = '';
      i++;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) i++;
        text += line[i++];
      }
      if (i >= line.length)
        refuse('an unclosed double quote', 'Close the quote, or pass command as an array');
      word = (word ?? '') + text;
      i++;
      continue;
    }
    if (c === '\\') {
      if (i + 1 >= line.length)
        refuse('a trailing backslash', 'Remove it, or pass command as an array');
      word = (word ?? '') + line[i + 1];
      i += 2;
      continue;
    }
    if (SHELL_SYNTAX.has(c)) {
      refuse(
        `'${c}' is shell syntax`,
        'Quote it to pass it as text, or pass command as an array; to run a pipeline, start a script of your own',
      );
    }
    if (c === '~' && word === undefined) {
      refuse("a leading '~' would need a shell to expand it", 'Give the full path');
    }
    word = (word ?? '') + c;
    i++;
  }
  if (word !== undefined) words.push(word);
  if (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]) && !/^['"]/.test(line.trim())) {
    refuse(
      `"${words[0]}" sets a variable, which needs a shell`,
      'Start the program itself; its environment is the server’s',
    );
  }
  return words;
}

/**
 * The argv of a launch's `command` argument: an array as it is, a string split. Either
 * way a non-empty program name and no NUL bytes (they cannot reach exec).
 */
export function commandArgv(command: string | string[]): string[] {
  const argv = typeof command === 'string' ? splitCommand(command) : command;
  if (argv.length === 0 || argv[0].trim() === '') {
    throw new AxError(
      'bad_argument',
      'command names no program',
      'Pass e.g. "mousepad" or ["mousepad", "notes.txt"]',
    );
  }
  if (argv.some((a) => a.includes('\0'))) {
    throw new AxError(
      'bad_argument',
      'command has a NUL byte',
      'Remove it: no program can receive one',
    );
  }
  return argv;
}

export interface QuitOptions {
  /** End it (SIGTERM) when it has not exited after the wait and no dialog asks first. */
  force: boolean;
  /** How long to wait for the app to exit after its windows were asked to close. */
  waitMs: number;
  signal?: AbortSignal;
}

/** Poll period while waiting for the app to exit or to ask. */
const QUIT_POLL_MS = 50;
/** After SIGTERM, how long the process may take to go. */
const TERM_WAIT_MS = 3000;

/**
 * Quits the scene's app as a user would: every top-level window asked to close (the
 * window manager's close), then a bounded wait until the process is gone or a new window
 * (a "Save changes?" dialog) asks first. A dialog is never answered and never killed
 * over: the call returns with it in view. Only with `force`, and only when nothing asks,
 * does a process still running after the wait get SIGTERM (by its pid).
 */
export async function deliverQuit(scene: Scene, opts: QuitOptions): Promise<Delivered> {
  const { desktop, pid } = scene;
  const app = scene.view.snapshot.app;
  const before = await desktop.listWindows(pid);
  if (before.length === 0 && !opts.force) {
    throw new AxError(
      'action_failed',
      `${app} (pid ${pid}) has no window to close`,
      'Pass force: true to end it with SIGTERM',
    );
  }
  const asked = before.length > 0 ? await desktop.closeWindows(pid) : 0;
  const plural = asked === 1 ? '' : 's';
  let did = `Asked ${app} (pid ${pid}) to close its ${asked} window${plural} (window manager close)`;
  const wait = await waitForExit(desktop, pid, before, opts.waitMs, opts.signal);
  let reacted = wait.dialog !== undefined || !wait.running;
  // Said instead when the app is found gone after the wait ended: "still runs" would be false.
  let didOnExit: string | undefined;
  if (wait.dialog !== undefined) {
    did += `; it asks first (${JSON.stringify(wait.dialog)} is up): nothing was ended`;
  } else if (wait.running && opts.force && !opts.signal?.aborted) {
    await desktop.terminate(pid);
    const after = await waitForExit(desktop, pid, undefined, TERM_WAIT_MS, opts.signal);
    reacted = !after.running;
    did += `; it still ran after ${opts.waitMs} ms: sent SIGTERM${after.running ? `, and it still runs ${TERM_WAIT_MS} ms later` : ''}`;
  } else if (wait.running) {
    didOnExit = `${did}; it exited after ${opts.waitMs} ms`;
    did += `; it still runs after ${opts.waitMs} ms (force: true ends it with SIGTERM)`;
  }
  return {
    did,
    didOnExit,
    route: asked > 0 ? 'window manager close' : 'SIGTERM',
    delivery: 'background',
    // Closing again or sending input would not tell more than the process table does.
    escalate: false,
    // The app reacted (exited, or asks first): that is the effect. Otherwise the tree's
    // changes decide, and none is a suspected no-op.
    probe: reacted ? async () => 'landed' : undefined,
  };
}

/**
 * Waits until the process is gone, a window appears that was not there before (the app
 * asks something: its title is returned), the time is up or the call is cancelled.
 */
async function waitForExit(
  desktop: Scene['desktop'],
  pid: number,
  before: DesktopWindow[] | undefined,
  ms: number,
  signal?: AbortSignal,
): Promise<{ running: boolean; dialog?: string }> {
  const end = Date.now() + ms;
  for (;;) {
    if (!(await desktop.isRunning(pid))) return { running: false };
    if (before) {
      const now = await desktop.listWindows(pid).catch(() => []);
      // A window moved by the window manager is the same one: compared by title, and a
      // new window with a known title still shows as one more window.
      const fresh = now.find((w) => !before.some((b) => b.title === w.title));
      if (fresh || now.length > before.length) {
        return { running: true, dialog: fresh?.title || 'a dialog' };
      }
    }
    if (Date.now() >= end || signal?.aborted) return { running: true };
    await new Promise((r) => setTimeout(r, QUIT_POLL_MS));
  }
}
