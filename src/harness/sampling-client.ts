/**
 * `axpage serve` driven by an MCP client that declares sampling and answers
 * sampling/createMessage with a handler of the test's own (standing in for a model).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import path from 'node:path';
import { toolCall, type ServeClient } from './serve-client.js';
import { packageRoot } from './session.js';

/** What the server asked: the texts and images of its messages, in order. */
export interface SamplingAsk {
  texts: string[];
  images: Array<{ data: string; mimeType: string }>;
  maxTokens: number;
}

export interface SamplingClientOptions {
  env: Record<string, string>;
  /** The model's answer text; a throw is the client refusing the request. */
  answer: (ask: SamplingAsk) => Promise<string> | string;
}

export async function startSamplingClient(
  opts: SamplingClientOptions,
): Promise<ServeClient & { asks: SamplingAsk[] }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(packageRoot(), 'dist', 'cli.js'), 'serve'],
    env: opts.env,
    stderr: 'ignore',
  });
  const client = new Client(
    { name: 'axpage-sampling-harness', version: '0' },
    { capabilities: { sampling: {} } },
  );
  const asks: SamplingAsk[] = [];
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const ask: SamplingAsk = { texts: [], images: [], maxTokens: request.params.maxTokens };
    for (const message of request.params.messages) {
      const blocks = Array.isArray(message.content) ? message.content : [message.content];
      for (const block of blocks) {
        if (block.type === 'text') ask.texts.push(block.text);
        if (block.type === 'image') ask.images.push({ data: block.data, mimeType: block.mimeType });
      }
    }
    asks.push(ask);
    const text = await opts.answer(ask);
    return { role: 'assistant', model: 'test-stand-in', content: { type: 'text', text } };
  });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) {
    await client.close();
    throw new Error('axpage serve started without a pid');
  }
  return {
    pid,
    asks,
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
