/**
 * What a tool call tells the client while it runs: log messages (walk cuts, retries,
 * slow apps) and progress. The server binds one notifier to each call; the pipeline
 * reaches it through `notifier()` so no tool has to pass it along. Outside a call (unit
 * tests, the bench) it is silent.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

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

const silent: CallNotifier = { log() {}, progress() {} };
const current = new AsyncLocalStorage<CallNotifier>();

/** The notifier of the call in progress (silent outside one). */
export function notifier(): CallNotifier {
  return current.getStore() ?? silent;
}

/** Runs one call with its notifier bound. */
export function withNotifier<T>(sinks: NotifySinks, run: () => Promise<T>): Promise<T> {
  return current.run(callNotifier(sinks), run);
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
  return {
    log(level, message) {
      if (logged.has(message)) return;
      logged.add(message);
      void sinks.log(level, message).catch(() => undefined);
    },
    progress(message, total) {
      if (!sinks.progress) return;
      let value = Math.max(now() - start, last + 1);
      if (total !== undefined) value = Math.min(value, total);
      if (value <= last) return;
      last = value;
      void sinks.progress(value, total, message).catch(() => undefined);
    },
  };
}
