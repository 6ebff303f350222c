/**
 * MCP over stdio, one JSON-RPC message per line, with the errors a client can act on.
 * The SDK's own stdio transport drops a malformed request without a reply (the client
 * waits forever) and closes the connection on a line over its buffer limit; here:
 * - a line that is not JSON gets a -32700 reply, one that is JSON but not a JSON-RPC
 *   message gets -32600 with its id when it has one;
 * - a line over `maxLineBytes` is discarded up to its newline and answered with -32600
 *   (with the id read from its start, when there is one); the connection stays up;
 * - a closed stdout (EPIPE) ends the connection like a closed stdin.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
/** How much of a discarded line is kept to find its id. */
const ID_PREFIX_BYTES = 512;

type Id = string | number | null;

export interface LineTransportOptions {
  maxLineBytes?: number;
}

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private pendingBytes = 0;
  /** Inside a line that is over the limit: its first bytes (for the id) and its length. */
  private discarding?: { head: Buffer; bytes: number };
  private closed = false;
  private readonly maxLineBytes: number;

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
    options: LineTransportOptions = {},
  ) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
    this.output.on('error', this.onOutputError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    const line = JSON.stringify(message) + '\n';
    await new Promise<void>((resolve) => {
      if (this.output.write(line)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    this.chunks = [];
    this.onclose?.();
  }

  private readonly onInputError = (err: Error): void => {
    this.onerror?.(err);
  };

  private readonly onOutputError = (err: NodeJS.ErrnoException): void => {
    // The client went away: nothing more can be said to it.
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') void this.close();
    else this.onerror?.(err);
  };

  private readonly onData = (data: Buffer | string): void => {
    let chunk = typeof data === 'string' ? Buffer.from(data) : data;
    while (chunk.length > 0) {
      const newline = chunk.indexOf(0x0a);
      const part = newline < 0 ? chunk : chunk.subarray(0, newline);
      this.take(part);
      if (newline < 0) break;
      this.endLine();
      chunk = chunk.subarray(newline + 1);
    }
  };

  /** Part of a line (no newline in it). */
  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.discarding) {
      this.discarding.bytes += part.length;
      return;
    }
    if (this.pendingBytes + part.length > this.maxLineBytes) {
      const head = Buffer.concat([...this.chunks, part]).subarray(0, ID_PREFIX_BYTES);
      this.discarding = { head: Buffer.from(head), bytes: this.pendingBytes + part.length };
      this.chunks = [];
      this.pendingBytes = 0;
      return;
    }
    this.chunks.push(part);
    this.pendingBytes += part.length;
  }

  private endLine(): void {
    if (this.discarding) {
      const { head, bytes } = this.discarding;
      this.discarding = undefined;
      this.reply(
        idFromPrefix(head.toString('utf8')),
        INVALID_REQUEST,
        `message of ${bytes} bytes is over the ${this.maxLineBytes}-byte limit and was discarded: send smaller arguments`,
      );
      return;
    }
    const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.pendingBytes = 0;
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (err) {
      this.reply(null, PARSE_ERROR, `not JSON: ${(err as Error).message}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (parsed.success) {
      this.onmessage?.(parsed.data);
      return;
    }
    const id = requestId(json);
    const why = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.') || 'message'}: ${i.message}`)
      .join('; ');
    if (id !== undefined) {
      this.reply(id, INVALID_REQUEST, `not a valid JSON-RPC request (${why})`);
    } else {
      this.onerror?.(new Error(`dropped a malformed JSON-RPC message without an id (${why})`));
    }
  }

  private reply(id: Id, code: number, message: string): void {
    const error = { jsonrpc: '2.0', id, error: { code, message } };
    void this.send(error as unknown as JSONRPCMessage);
  }
}

/** The id of something that looks like a request (an object with an id), else undefined. */
function requestId(json: unknown): Id | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const id = (json as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined;
}

/** The id near the start of a line too long to parse, when it is written early (as clients do). */
function idFromPrefix(prefix: string): Id {
  const m = /"id"\s*:\s*(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.){0,200}")/.exec(prefix);
  if (!m) return null;
  try {
    return JSON.parse(m[1]) as Id;
  } catch {
    return null;
  }
}
