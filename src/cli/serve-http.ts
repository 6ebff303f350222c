/**
 * `axpage serve --http`: the MCP server over Streamable HTTP, one server handle per MCP
 * session. Prints the URL (and a generated token, once) to stderr, then serves until a
 * signal.
 */
import type { Config } from '../config.js';
import {
  LOOPBACK_HOSTS,
  generateToken,
  isLoopbackAddress,
  normalizeHost,
} from '../transport/http-guard.js';

/** Addresses that mean "every interface": not a name a client would put in Host. */
const WILDCARDS = ['0.0.0.0', '::', '[::]'];

export async function serveOverHttp(config: Config): Promise<number> {
  const [{ serveHttp }, { createServer }, { openDesktop, platformProblem }] = await Promise.all([
    import('../transport/http.js'),
    import('../server.js'),
    import('../platform/index.js'),
  ]);
  const { host, port } = config.http;
  const say = (line: string) => process.stderr.write(`axpage: ${line}\n`);
  if (!isLoopbackAddress(host)) {
    say(
      `warning: listening on ${host}, not loopback: other machines can reach this server; the bearer token is all that guards this desktop, and HTTP is not encrypted`,
    );
  }
  const problem = await platformProblem();
  if (problem) say(problem);
  const generated = config.http.token === undefined;
  const token = config.http.token ?? generateToken();
  const bound = normalizeHost(host);
  const allowedHosts = [
    ...LOOPBACK_HOSTS,
    ...config.http.allowedHosts.map(normalizeHost),
    ...(WILDCARDS.includes(bound) || LOOPBACK_HOSTS.includes(bound) ? [] : [bound]),
  ];
  let server;
  try {
    server = await serveHttp({
      host,
      port,
      token,
      allowedHosts,
      allowedOrigins: config.http.allowedOrigins,
      idleTimeoutMs: config.http.sessionIdleMs,
      maxSessions: config.http.maxSessions,
      newSession: () => createServer(() => openDesktop(), config),
      log: say,
    });
  } catch (err) {
    say((err as Error).message);
    return 1;
  }
  if (generated) {
    say(`bearer token (shown once, stored nowhere): ${token}`);
    say('clients send it as "Authorization: Bearer <token>"; give your own with AXPAGE_TOKEN');
  }
  // Last: the line that says the server is ready.
  say(`MCP over Streamable HTTP at ${server.url}`);
  let closing: Promise<void> | undefined;
  const stop = () => {
    closing ??= server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        say(`error while closing: ${String(err)}`);
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, stop);
  return new Promise<number>(() => undefined);
}
