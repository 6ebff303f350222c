/**
 * One more `axpage serve` on the bench's desktop, driven by the MCP SDK's client over
 * stdio like the harness session's server, but with its pid at hand (to read its memory,
 * descriptors and CPU from /proc) and a bound on every call.
 */
import type { Session } from '../harness/session.js';
import { startServeClient } from '../harness/serve-client.js';

export interface TimedCall {
  tool: string;
  ms: number;
  isError: boolean;
  /** The summary text, or the client's error (a timeout, a closed connection). */
  text: string;
}

export interface ServeProcess {
  pid: number;
  /** Never throws: a tool error, a timeout or a dead server comes back as isError. */
  call(tool: string, args: Record<string, unknown>): Promise<TimedCall>;
  /** The last few KB the server wrote to stderr. */
  logTail(): string;
  close(): Promise<void>;
}

export async function startServe(
  session: Session,
  opts: { env?: Record<string, string>; callTimeoutMs: number },
): Promise<ServeProcess> {
  let log = '';
  const server = await startServeClient({
    name: 'axpage-bench-soak',
    env: {
      ...(session.desktop.processEnv() as Record<string, string>),
      AXPAGE_OUT: session.artifactDir,
      ...opts.env,
    },
    onStderr: (chunk) => {
      log = (log + chunk).slice(-4096);
    },
  });
  return {
    pid: server.pid,
    async call(tool, args) {
      const t0 = performance.now();
      try {
        const r = await server.call(tool, args, { timeoutMs: opts.callTimeoutMs });
        return { tool, ms: performance.now() - t0, isError: r.isError, text: r.text };
      } catch (err) {
        return { tool, ms: performance.now() - t0, isError: true, text: String(err) };
      }
    },
    logTail: () => log,
    close: () => server.close(),
  };
}
