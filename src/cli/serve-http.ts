/**
 * `axpage serve --http`: the MCP server over Streamable HTTP, one server handle per MCP
 * session. Prints the URL (and a generated token, once) to stderr, then serves until a
 * signal.
 */
import fs from 'node:fs';
import { MIN_TOKEN_CHARS, type Config } from '../config.js';
import type { Desktop } from '../platform/desktop.js';
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
  let given = config.http.token;
  if (config.http.tokenFile !== undefined) {
    if (given !== undefined) {
      say(
        'both a token and a token file are given (--token/AXPAGE_TOKEN and --token-file/AXPAGE_TOKEN_FILE); keep one',
      );
      return 2;
    }
    try {
      given = readTokenFile(config.http.tokenFile);
    } catch (err) {
      say((err as Error).message);
      return 2;
    }
  }
  const generated = given === undefined;
  const token = given ?? generateToken();
  const health = desktopHealth(openDesktop);
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
      health: health.check,
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
    closing ??= Promise.all([server.close(), health.close()]).then(
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

/**
 * The bearer token in `file` (a mounted secret): surrounding whitespace and the final newline
 * dropped; what is left must be one word of at least MIN_TOKEN_CHARS. Never echoes it.
 */
export function readTokenFile(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(
      `cannot read the token file ${file} (${code ?? (err as Error).message}); mount the secret there or point --token-file/AXPAGE_TOKEN_FILE at it`,
      { cause: err },
    );
  }
  const token = text.trim();
  if (token === '') throw new Error(`the token file ${file} is empty; put the token in it`);
  if (/\s/.test(token)) {
    throw new Error(`the token file ${file} holds more than one word; a token is one word`);
  }
  if (token.length < MIN_TOKEN_CHARS) {
    throw new Error(
      `the token in ${file} is ${token.length} characters; give at least ${MIN_TOKEN_CHARS}`,
    );
  }
  return token;
}

/** How long a health check waits for the desktop before it says not ready. */
const HEALTH_TIMEOUT_MS = 3000;

/**
 * Readiness for /healthz: the display and the accessibility bus answer now. One desktop
 * connection is kept for the checks (opening one per probe would cost more than the check);
 * a failed check drops it, so the next one connects afresh to a restarted bus.
 */
function desktopHealth(open: () => Promise<Desktop>): {
  check: () => Promise<{ ready: boolean; reason?: string }>;
  close: () => Promise<void>;
} {
  let desktop: ReturnType<typeof open> | undefined;
  let running: Promise<{ ready: boolean; reason?: string }> | undefined;
  const drop = () => {
    const d = desktop;
    desktop = undefined;
    void d?.then((x) => x.close()).catch(() => undefined);
  };
  const once = async (): Promise<{ ready: boolean; reason?: string }> => {
    desktop ??= open();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<{ ready: false; reason: string }>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            ready: false,
            reason: `no answer from the desktop in ${HEALTH_TIMEOUT_MS} ms`,
          }),
        HEALTH_TIMEOUT_MS,
      );
    });
    try {
      const report = await Promise.race([
        desktop
          .then((d) => d.checkAccess())
          .then((r) =>
            r.ok ? { ready: true } : { ready: false, reason: r.reason ?? 'not accessible' },
          ),
        late,
      ]);
      if (!report.ready) drop();
      return report;
    } catch (err) {
      drop();
      return { ready: false, reason: (err as Error).message };
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    // Probes that overlap share one check.
    check: () => (running ??= once().finally(() => (running = undefined))),
    close: async () => {
      const d = desktop;
      desktop = undefined;
      await d?.then((x) => x.close()).catch(() => undefined);
    },
  };
}
