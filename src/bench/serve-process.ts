/**
 * One more `axpage serve` on the bench's desktop, driven by the MCP SDK's client over
 * stdio like the harness session's server, but with its pid at hand (to read its memory,
 * descriptors and CPU from /proc) and a bound on every call.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import path from 'node:path';
import { packageRoot, type Session } from '../harness/session.js';

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
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(packageRoot(), 'dist', 'cli.js'), 'serve'],
    env: {
      ...(session.desktop.processEnv() as Record<string, string>),
      AXPAGE_OUT: session.artifactDir,
      ...opts.env,
    },
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4096);
  });
  const client = new Client({ name: 'axpage-bench-soak', version: '0' });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) {
    await client.close();
    throw new Error('axpage serve started without a pid');
  }
  return {
    pid,
    async call(tool, args) {
      const t0 = performance.now();
      try {
        const r = await client.callTool({ name: tool, arguments: args }, undefined, {
          timeout: opts.callTimeoutMs,
        });
        const text = ((r.content ?? []) as Array<{ type: string; text?: string }>)
          .filter((c) => c.type === 'text')
          .map((c) => c.text ?? '')
          .join('\n');
        return { tool, ms: performance.now() - t0, isError: r.isError === true, text };
      } catch (err) {
        return { tool, ms: performance.now() - t0, isError: true, text: String(err) };
      }
    },
    logTail: () => log,
    close: () => client.close(),
  };
}
