/**
 * `axpage serve --http` as a child process, and MCP SDK clients that talk to it over
 * Streamable HTTP with its bearer token: for the HTTP and conformance tests. Keeps the
 * SDK's client behind the harness (see eslint.config.js).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { packageRoot } from './session.js';
import { toolCall, type ToolCall } from './serve-client.js';

export interface HttpServeOptions {
  /** The server's whole environment. */
  env: Record<string, string>;
  /** Arguments after `serve --http` (default: `--port 0`). */
  args?: string[];
  /** How long to wait for the URL line on stderr. */
  startTimeoutMs?: number;
}

export interface HttpServeProcess {
  pid: number;
  url: string;
  /** The token printed at start, when the server generated one. */
  printedToken?: string;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Whether the process is still running. */
  alive(): boolean;
  /** SIGTERM, then its exit code (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>;
}

export async function startHttpServe(opts: HttpServeOptions): Promise<HttpServeProcess> {
  const cli = path.join(packageRoot(), 'dist', 'cli.js');
  const child = spawn(
    process.execPath,
    [cli, 'serve', '--http', ...(opts.args ?? ['--port', '0'])],
    { env: opts.env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  let exit: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exit = code;
      resolve(code);
    }),
  );
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const url = await waitForUrl(child, () => log, exited, opts.startTimeoutMs ?? 30_000);
  const pid = child.pid;
  if (pid === undefined) throw new Error('axpage serve --http started without a pid');
  return {
    pid,
    url,
    printedToken: /bearer token \(shown once[^)]*\): (\S+)/.exec(log)?.[1],
    stderr: () => log,
    alive: () => exit === undefined,
    async stop(graceMs = 10_000) {
      if (exit !== undefined) return exit;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

function waitForUrl(
  child: ChildProcess,
  log: () => string,
  exited: Promise<number | null>,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const find = () => /MCP over Streamable HTTP at (\S+)/.exec(log())?.[1];
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`axpage serve --http printed no URL in ${timeoutMs} ms:\n${log()}`));
    }, timeoutMs);
    const onData = () => {
      const url = find();
      if (url === undefined) return;
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      resolve(url);
    };
    child.stderr?.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`axpage serve --http exited (${code}) before serving:\n${log()}`));
    });
  });
}

export interface HttpClient {
  client: Client;
  /** The MCP session id the server gave this client. */
  sessionId(): string | undefined;
  call(tool: string, args?: Record<string, unknown>): Promise<ToolCall>;
  close(): Promise<void>;
}

/** An MCP client over Streamable HTTP that sends `token` as its bearer token. */
export async function connectHttp(url: string, token: string): Promise<HttpClient> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'axpage-http-harness', version: '0' });
  await client.connect(transport);
  return {
    client,
    sessionId: () => transport.sessionId,
    async call(tool, args = {}) {
      return toolCall(await client.callTool({ name: tool, arguments: args }));
    },
    async close() {
      // DELETE ends the session on the server; close() alone only drops the connection.
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}
