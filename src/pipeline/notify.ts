/**
 * What a tool call tells the client while it runs: log messages (walk cuts, retries,
 * slow apps) and progress. The server makes one notifier per call and hands it down with
 * the call (a ToolCall), explicitly: binding it to the async context instead
 * (AsyncLocalStorage) ran a hook on every promise of the server, ~2 ms of CPU per
 * ax_get_tree. Outside a call (the bench, resource reads) it is silent.
 */
import type { Snapshot } from '../model/element.js';
import type { Asking } from '../elicit/asking.js';

export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error';

export interface CallNotifier {
  /** A log message for the client (it filters by the level it set). */
  log(level: LogLevel, message: string): void;
  /** A milestone of a long call; `total` when the end is known (a wait's timeout). */
  progress(message: string, total?: number): void;
}

/** Sinks a server gives: where messages go, and whether the call asked for progress. */
export interface NotifySinks {
  log(level: LogLevel, data: string): Promise<void>;
  /** Absent when the request carried no progressToken. */
  progress?: (progress: number, total: number | undefined, message: string) => Promise<void>;
}

/** How often a repeated progress message (a wait's poll) goes out. */
const PROGRESS_EVERY_MS = 250;

export const SILENT: CallNotifier = { log() {}, progress() {} };

/** The tool call a pipeline method works for: its name, and where its messages go. */
export interface ToolCall {
  tool: string;
  notify: CallNotifier;
  /** The way to ask the person behind the client; absent where no one can be asked. */
  asking?: Asking;
}

/** A call no client hears from (the bench, a resource read, a test). */
export function quietCall(tool: string): ToolCall {
  return { tool, notify: SILENT };
}

/**
 * Progress counts milliseconds since the call began (always increasing, as MCP asks);
 * with a total it is out of that many ms. One message is logged once per call: a walk
 * repeated after an action does not repeat its warning.
 */
export function callNotifier(sinks: NotifySinks, now: () => number = Date.now): CallNotifier {
  const start = now();
  let last = -1;
  const logged = new Set<string>();
  let lastMessage = '';
  let lastSentAt = 0;
  return {
    log(level, message) {
      if (logged.has(message)) return;
      logged.add(message);
      void sinks.log(level, message).catch(() => undefined);
    },
    progress(message, total) {
      if (!sinks.progress) return;
      // A wait polls every few ms: the same message goes out at most every PROGRESS_EVERY_MS.
      if (message === lastMessage && now() - lastSentAt < PROGRESS_EVERY_MS) return;
      let value = Math.max(now() - start, last + 1);
      if (total !== undefined) value = Math.min(value, total);
      if (value <= last) return;
      last = value;
      lastMessage = message;
      lastSentAt = now();
      void sinks.progress(value, total, message).catch(() => undefined);
    },
  };
}

/** A walk slower than this is worth a warning: the app answers slowly. */
export const SLOW_WALK_MS = 2000;

/**
 * What a finished walk tells the client: a warning when it was cut short or slow, and a
 * progress milestone.
 */
export function noteWalk(
  walk: Pick<Snapshot, 'app' | 'pid' | 'elements' | 'truncated' | 'elapsedMs'>,
  n: CallNotifier,
): void {
  const who = `${walk.app} (pid ${walk.pid})`;
  if (walk.truncated) {
    n.log('warning', `the walk of ${who} was cut short: ${walk.truncated}`);
  } else if (walk.elapsedMs > SLOW_WALK_MS) {
    n.log(
      'warning',
      `${who} is slow: walking its ${walk.elements.length} elements took ${Math.round(walk.elapsedMs)} ms`,
    );
  }
  n.progress(`walked ${who}: ${walk.elements.length} elements`);
}
