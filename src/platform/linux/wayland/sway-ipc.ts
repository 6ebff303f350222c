/**
 * A client of sway's IPC socket ($SWAYSOCK), in plain TypeScript: no swaymsg process per
 * call (a GET_TREE takes 0.08 ms over the socket and 2 ms as a swaymsg process, see
 * docs/wayland.md).
 *
 * The i3-ipc framing: the magic "i3-ipc", a 32-bit payload length, a 32-bit message type
 * (both in the host's byte order, as sway writes them), then a JSON payload. sway answers
 * requests on one connection in order, so replies are matched to requests first in, first
 * out. This client never subscribes: a message with the event bit set is a protocol error.
 */
import net from 'node:net';

import { PlatformError } from '../../../errors.js';
import { withTimeout } from '../../../model/timeout.js';
import type { SwayNode, SwayRect } from './sway-tree.js';

export const IPC_MAGIC = Buffer.from('i3-ipc', 'ascii');
const HEADER_BYTES = IPC_MAGIC.length + 8;
/** sway's replies carry the request's type; events set the top bit, which we never ask for. */
const EVENT_BIT = 0x8000_0000;
/** A reply bigger than this is not a reply from sway: a tree with hundreds of windows is < 1 MB. */
const MAX_PAYLOAD = 64 * 1024 * 1024;

export const MessageType = {
  RUN_COMMAND: 0,
  GET_WORKSPACES: 1,
  GET_OUTPUTS: 3,
  GET_TREE: 4,
  GET_VERSION: 7,
  GET_SEATS: 101,
} as const;
export type MessageType = (typeof MessageType)[keyof typeof MessageType];

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** One request on the wire: header and payload. */
export function encodeMessage(type: number, payload = ''): Buffer {
  const body = Buffer.from(payload, 'utf8');
  const header = Buffer.alloc(HEADER_BYTES);
  IPC_MAGIC.copy(header, 0);
  if (LITTLE_ENDIAN) {
    header.writeUInt32LE(body.length, IPC_MAGIC.length);
    header.writeUInt32LE(type, IPC_MAGIC.length + 4);
  } else {
    header.writeUInt32BE(body.length, IPC_MAGIC.length);
    header.writeUInt32BE(type, IPC_MAGIC.length + 4);
  }
  return Buffer.concat([header, body]);
}

export interface IpcMessage {
  type: number;
  payload: Buffer;
}

/**
 * Cuts a byte stream into messages. Chunks may split a header or a payload anywhere;
 * `push` returns the messages completed so far. A bad magic or an absurd length throws:
 * the stream cannot be resynchronised after that.
 */
export class FrameDecoder {
  private buf: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): IpcMessage[] {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const out: IpcMessage[] = [];
    while (this.buf.length >= HEADER_BYTES) {
      if (!this.buf.subarray(0, IPC_MAGIC.length).equals(IPC_MAGIC)) {
        throw new Error(
          `sway IPC: a reply does not start with "i3-ipc" (got ${JSON.stringify(
            this.buf.subarray(0, IPC_MAGIC.length).toString('latin1'),
          )}): is SWAYSOCK a sway socket?`,
        );
      }
      const read = (at: number): number =>
        LITTLE_ENDIAN ? this.buf.readUInt32LE(at) : this.buf.readUInt32BE(at);
      const length = read(IPC_MAGIC.length);
      const type = read(IPC_MAGIC.length + 4);
      if (length > MAX_PAYLOAD) {
        throw new Error(`sway IPC: a reply claims ${length} bytes, more than any reply can be`);
      }
      if (this.buf.length < HEADER_BYTES + length) break;
      out.push({ type, payload: this.buf.subarray(HEADER_BYTES, HEADER_BYTES + length) });
      this.buf = this.buf.subarray(HEADER_BYTES + length);
    }
    return out;
  }

  /** Bytes of an unfinished message (for a clear error when the socket closes mid-reply). */
  get pending(): number {
    return this.buf.length;
  }
}

/** One entry of a RUN_COMMAND reply. */
export interface CommandResult {
  success: boolean;
  error?: string;
  parse_error?: boolean;
}

/** A GET_OUTPUTS entry: the fields used here (sway sends more). */
export interface SwayOutput {
  name: string;
  active: boolean;
  rect: SwayRect;
  scale?: number;
  current_mode?: { width: number; height: number; refresh: number };
  current_workspace?: string | null;
  focused?: boolean;
}

/** A seat: `capabilities` is wl_seat's bitmask (1 pointer, 2 keyboard, 4 touch). */
export interface SwaySeat {
  name: string;
  capabilities: number;
  devices?: Array<{ identifier: string; name: string; type: string }>;
}

export interface SwayVersion {
  major: number;
  minor: number;
  patch: number;
  human_readable: string;
}

/**
 * Throws a PlatformError naming every failed command and sway's error for it. Commands
 * joined with ',' or ';' get one result each; any failure fails the call.
 */
export function checkCommandResults(command: string, reply: unknown): CommandResult[] {
  if (!Array.isArray(reply) || reply.some((r) => typeof r?.success !== 'boolean')) {
    throw new PlatformError(
      'failed',
      `sway answered ${JSON.stringify(command)} with something other than a list of results`,
      { command },
    );
  }
  const results = reply as CommandResult[];
  const failed = results
    .map((r, i) => ({ r, i }))
    .filter(({ r }) => !r.success)
    .map(({ r, i }) => {
      const which = results.length > 1 ? `command ${i + 1}: ` : '';
      const why = r.error ?? 'no reason given';
      return `${which}${r.parse_error ? 'parse error: ' : ''}${why}`;
    });
  if (failed.length > 0) {
    throw new PlatformError(
      'failed',
      `sway refused ${JSON.stringify(command)}: ${failed.join('; ')}`,
      { command, error: failed.join('; ') },
    );
  }
  return results;
}

interface Pending {
  type: number;
  resolve: (payload: Buffer) => void;
  reject: (err: Error) => void;
}

export interface SwayIpcOptions {
  /** Bound for connecting and for each reply; default 3000 ms. */
  timeoutMs?: number;
}

export class SwayIpc {
  private readonly decoder = new FrameDecoder();
  private readonly pending: Pending[] = [];
  private closedBy: Error | null = null;

  private constructor(
    private readonly socket: net.Socket,
    readonly path: string,
    readonly timeoutMs: number,
  ) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.fail(this.socketError(err)));
    socket.on('close', () =>
      this.fail(
        new PlatformError(
          'no_display',
          this.decoder.pending > 0
            ? `sway closed its IPC socket ${path} in the middle of a reply`
            : `sway closed its IPC socket ${path}`,
          { swaysock: path },
        ),
      ),
    );
  }

  /**
   * Connects to sway's IPC socket: `socketPath`, else $SWAYSOCK. Rejects with a
   * PlatformError('no_display') saying which was missing or refused.
   */
  static async connect(
    socketPath: string | undefined = process.env.SWAYSOCK,
    opts: SwayIpcOptions = {},
  ): Promise<SwayIpc> {
    const timeoutMs = opts.timeoutMs ?? 3000;
    if (!socketPath) {
      throw new PlatformError(
        'no_display',
        'SWAYSOCK is not set: no sway session to talk to (sway sets it for its children; ' +
          'elsewhere it is the sway-ipc.*.sock in sway’s XDG_RUNTIME_DIR)',
      );
    }
    const socket = net.createConnection(socketPath);
    try {
      await withTimeout(
        new Promise<void>((resolve, reject) => {
          socket.once('connect', () => resolve());
          socket.once('error', reject);
        }),
        timeoutMs,
        () =>
          new PlatformError(
            'not_responding',
            `sway's IPC socket ${socketPath} did not accept a connection within ${timeoutMs} ms`,
            { swaysock: socketPath },
          ),
      );
    } catch (err) {
      socket.destroy();
      throw err instanceof PlatformError ? err : connectError(socketPath, err);
    }
    socket.removeAllListeners('error');
    return new SwayIpc(socket, socketPath, timeoutMs);
  }

  get isClosed(): boolean {
    return this.closedBy !== null;
  }

  /** The whole layout tree: outputs, workspaces, containers, windows. */
  async getTree(): Promise<SwayNode> {
    return (await this.request(MessageType.GET_TREE)) as SwayNode;
  }

  async getOutputs(): Promise<SwayOutput[]> {
    const reply = await this.request(MessageType.GET_OUTPUTS);
    if (!Array.isArray(reply)) {
      throw new PlatformError('failed', 'sway answered GET_OUTPUTS with something not a list');
    }
    return reply as SwayOutput[];
  }

  async getSeats(): Promise<SwaySeat[]> {
    const reply = await this.request(MessageType.GET_SEATS);
    if (!Array.isArray(reply)) {
      throw new PlatformError('failed', 'sway answered GET_SEATS with something not a list');
    }
    return reply as SwaySeat[];
  }

  async getVersion(): Promise<SwayVersion> {
    return (await this.request(MessageType.GET_VERSION)) as SwayVersion;
  }

  /**
   * Runs sway commands (`[pid=42] focus`, `floating enable, move position 10 10`). Resolves
   * with one result per command; throws a PlatformError('failed') with sway's error when any
   * command failed, since sway itself only reports it.
   */
  async runCommand(command: string): Promise<CommandResult[]> {
    if (typeof command !== 'string' || command.trim() === '') {
      throw new TypeError('runCommand needs a sway command, got an empty one');
    }
    return checkCommandResults(command, await this.request(MessageType.RUN_COMMAND, command));
  }

  /** Sends one request and parses its JSON reply. */
  async request(type: MessageType, payload = ''): Promise<unknown> {
    if (this.closedBy) throw this.closedBy;
    const reply = new Promise<Buffer>((resolve, reject) => {
      this.pending.push({ type, resolve, reject });
    });
    this.socket.write(encodeMessage(type, payload));
    const body = await withTimeout(reply, this.timeoutMs, () => {
      // A late reply would be matched to the next request: this connection is done for.
      const err = new PlatformError(
        'not_responding',
        `sway did not answer IPC message type ${type} within ${this.timeoutMs} ms`,
        { swaysock: this.path },
      );
      this.fail(err);
      return err;
    });
    try {
      return JSON.parse(body.toString('utf8')) as unknown;
    } catch (err) {
      throw new PlatformError(
        'failed',
        `sway's reply to IPC message type ${type} is not JSON: ${(err as Error).message}`,
      );
    }
  }

  close(): void {
    this.fail(new PlatformError('no_display', 'this sway IPC connection was closed'));
  }

  private onData(chunk: Buffer): void {
    let messages: IpcMessage[];
    try {
      messages = this.decoder.push(chunk);
    } catch (err) {
      this.fail(new PlatformError('failed', (err as Error).message, { swaysock: this.path }));
      return;
    }
    for (const m of messages) {
      const waiter = this.pending.shift();
      if (!waiter || (m.type & EVENT_BIT) !== 0 || m.type !== waiter.type) {
        const err = new PlatformError(
          'failed',
          `sway IPC: got a message of type ${m.type >>> 0} while ` +
            (waiter ? `waiting for type ${waiter.type}` : 'waiting for nothing'),
          { swaysock: this.path },
        );
        if (waiter) waiter.reject(err);
        this.fail(err);
        return;
      }
      waiter.resolve(m.payload);
    }
  }

  /** Ends the connection and fails every request still waiting with `err`. */
  private fail(err: Error): void {
    if (!this.closedBy) this.closedBy = err;
    for (const p of this.pending.splice(0)) p.reject(err);
    this.socket.destroy();
  }

  private socketError(err: Error): PlatformError {
    return new PlatformError('no_display', `sway IPC socket ${this.path}: ${err.message}`, {
      swaysock: this.path,
    });
  }
}

function connectError(socketPath: string, err: unknown): PlatformError {
  const code = (err as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? 'does not exist (sway is not running, or SWAYSOCK names an old session)'
      : code === 'ECONNREFUSED'
        ? 'refuses connections (the sway that made it has exited)'
        : code === 'EACCES'
          ? 'is not ours to open (it belongs to another user)'
          : (err as Error).message;
  return new PlatformError('no_display', `sway IPC socket ${socketPath} ${why}`, {
    swaysock: socketPath,
  });
}
