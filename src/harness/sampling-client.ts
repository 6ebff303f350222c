/**
 * `axpage serve` driven by an MCP client that declares sampling and answers
 * sampling/createMessage with a handler of the test's own (standing in for a model).
 */
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startServeClient, type ServeClient } from './serve-client.js';

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
  const asks: SamplingAsk[] = [];
  const serve = await startServeClient({
    env: opts.env,
    name: 'axpage-sampling-harness',
    capabilities: { sampling: {} },
    configure: (client) =>
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        const ask: SamplingAsk = { texts: [], images: [], maxTokens: request.params.maxTokens };
        for (const message of request.params.messages) {
          const blocks = Array.isArray(message.content) ? message.content : [message.content];
          for (const block of blocks) {
            if (block.type === 'text') ask.texts.push(block.text);
            if (block.type === 'image') {
              ask.images.push({ data: block.data, mimeType: block.mimeType });
            }
          }
        }
        asks.push(ask);
        const text = await opts.answer(ask);
        return { role: 'assistant', model: 'test-stand-in', content: { type: 'text', text } };
      }),
  });
  return { ...serve, asks };
}
