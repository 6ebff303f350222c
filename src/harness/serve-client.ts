/**
 * `axpage serve` as its own child process, driven by the MCP SDK's client over stdio:
 * for the bench and for tests that need a server of their own (their own environment,
 * no desktop at all). Keeps the SDK's client behind the harness, so code outside it
 * never imports the SDK (see eslint.config.js).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import path from 'node:path';
import { packageRoot } from './session.js';

export interface ToolCall {
  text: string;
  structured: Record<string, unknown>;
  isError: boolean;
  images: Array<{ data: string; mimeType: string }>;
}

export interface ServeClientOptions {
  /** The server's whole environment. */
  env: Record<string, string>;
  /** Arguments after `serve`. */
  args?: string[];
  /** The axpage CLI to run (default: this package's dist/cli.js), e.g. an installed copy. */
  cli?: string;
  /** The client's name in initialize. */
  name?: string;
  /** Where the server's stderr goes (default: ignored). */
  onStderr?: (chunk: string) => void;
  /** What the client declares it can do (e.g. sampling), and its handlers for it. */
  capabilities?: ClientCapabilities;
  configure?: (client: Client) => void;
}

export interface ServeClient {
  pid: number;
  toolNames(): Promise<string[]>;
  /** A tool call; a protocol error (unknown tool, timeout) throws. */
  call(
    tool: string,
    args?: Record<string, unknown>,
    opts?: { timeoutMs?: number },
  ): Promise<ToolCall>;
  close(): Promise<void>;
}

export async function startServeClient(opts: ServeClientOptions): Promise<ServeClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [opts.cli ?? path.join(packageRoot(), 'dist', 'cli.js'), 'serve', ...(opts.args ?? [])],
    env: opts.env,
    stderr: opts.onStderr ? 'pipe' : 'ignore',
  });
  const onStderr = opts.onStderr;
  if (onStderr) transport.stderr?.on('data', (chunk: Buffer) => onStderr(chunk.toString()));
  const client = new Client(
    { name: opts.name ?? 'axpage-harness', version: '0' },
    opts.capabilities ? { capabilities: opts.capabilities } : undefined,
  );
  opts.configure?.(client);
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) {
    await client.close();
    throw new Error('axpage serve started without a pid');
  }
  return {
    pid,
    async toolNames() {
      return (await client.listTools()).tools.map((t) => t.name);
    },
    async call(tool, args = {}, callOpts = {}) {
      const r = await client.callTool(
        { name: tool, arguments: args },
        undefined,
        callOpts.timeoutMs === undefined ? undefined : { timeout: callOpts.timeoutMs },
      );
      return toolCall(r);
    },
    close: () => client.close(),
  };
}

/** The parts of a tools/call result the harness reads. */
export function toolCall(r: Awaited<ReturnType<Client['callTool']>>): ToolCall {
  const content = (r.content ?? []) as Array<{
    type: string;
    text?: string;
    data?: string;
    mimeType?: string;
  }>;
  return {
    text: content
      .filter((c) => c.type === 'text')
      .map((c) => c.text ?? '')
      .join('\n'),
    structured: (r.structuredContent ?? {}) as Record<string, unknown>,
    isError: r.isError === true,
    images: content
      .filter((c) => c.type === 'image')
      .map((c) => ({ data: c.data ?? '', mimeType: c.mimeType ?? '' })),
  };
}
