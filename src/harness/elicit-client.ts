/**
 * `axpage serve` (over stdio, or a running `serve --http`) driven by an MCP client that
 * declares form elicitation and answers elicitation/create with the test's own handler
 * (standing in for the person behind the client).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startServeClient, toolCall, type ServeClient, type ToolCall } from './serve-client.js';

/** A form the server put to the person. */
export interface Question {
  message: string;
  requestedSchema: {
    properties: Record<
      string,
      { type: string; title?: string; oneOf?: Array<{ const: string; title: string }> }
    >;
    required?: string[];
  };
}

/** The person's answer: accept with the form's content, decline, or cancel. */
export type Reply =
  | { action: 'accept'; content: Record<string, string | number | boolean> }
  | { action: 'decline' }
  | { action: 'cancel' };

export type Answerer = (question: Question) => Promise<Reply> | Reply;

function register(client: Client, questions: Question[], answer: () => Answerer): void {
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const params = request.params as unknown as Question & { mode?: string };
    const question = { message: params.message, requestedSchema: params.requestedSchema };
    questions.push(question);
    return answer()(question);
  });
}

export interface ElicitClient {
  /** Every question asked so far, in order. */
  questions: Question[];
  /** How the next questions are answered (until set again). */
  answerWith(answerer: Answerer): void;
  call(tool: string, args?: Record<string, unknown>): Promise<ToolCall>;
  close(): Promise<void>;
}

const CAPABILITIES = { elicitation: { form: {} } };

function refuseUnset(): Reply {
  throw new Error('a question came while the test expected none');
}

export async function startElicitClient(opts: {
  env: Record<string, string>;
  args?: string[];
}): Promise<ElicitClient & { pid: number }> {
  const questions: Question[] = [];
  let answerer: Answerer = refuseUnset;
  const serve: ServeClient = await startServeClient({
    env: opts.env,
    args: opts.args,
    name: 'axpage-elicit-harness',
    capabilities: CAPABILITIES,
    configure: (client) => register(client, questions, () => answerer),
  });
  return {
    pid: serve.pid,
    questions,
    answerWith: (a) => (answerer = a),
    call: (tool, args) => serve.call(tool, args),
    close: () => serve.close(),
  };
}

/** A Streamable HTTP client of a running `axpage serve --http`, declaring form elicitation. */
export async function connectElicitHttp(url: string, token: string): Promise<ElicitClient> {
  const questions: Question[] = [];
  let answerer: Answerer = refuseUnset;
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client(
    { name: 'axpage-elicit-http-harness', version: '0' },
    { capabilities: CAPABILITIES },
  );
  register(client, questions, () => answerer);
  await client.connect(transport);
  return {
    questions,
    answerWith: (a) => (answerer = a),
    call: async (tool, args = {}) =>
      toolCall(await client.callTool({ name: tool, arguments: args })),
    async close() {
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}
