/**
 * A lean D-Bus client connection for the walk's bulk method calls.
 *
 * Why not dbus-next for these: a snapshot makes hundreds to tens of thousands of small
 * calls, and profiling showed dbus-next spending about 0.1 ms of CPU per call, most of it
 * garbage collection of its per-field buffers and one `write` syscall per message; the
 * walk was CPU-bound in Node, not waiting on the app. This connection marshals a call
 * straight into one shared output buffer, flushes everything queued in the same tick with a
 * single write, and decodes replies in place from the socket's buffer.
 *
 * Scope, on purpose narrow: method calls out, method returns and errors in (signals and
 * incoming calls are dropped: events stay on the dbus-next connection), little-endian
 * only (every message a Linux x86/ARM peer sends), `unix:path=` addresses only (the
 * caller falls back to dbus-next for anything else), SASL EXTERNAL auth. It also talks
 * peer-to-peer to an app socket (no Hello there).
 */
import net from 'node:net';

import type { AtspiBus } from './bus.js';
import { AtspiCallError, AtspiTimeoutError, ATSPI, BusClosedError, describeCall } from './bus.js';
import type { CallFn } from './read.js';

type Sig = SigNode[];
interface SigNode {
  t: string;
  /** Element types: array element (one node), struct/dict-entry fields. */
  kids?: SigNode[];
}

/** Value of a variant, shaped like dbus-next's Variant so callers can read `.value` either way. */
export interface WireVariant {
  signature: string;
  value: unknown;
}

const sigCache = new Map<string, Sig>();

export function parseSignature(sig: string): Sig {
  let cached = sigCache.get(sig);
  if (cached) return cached;
  let i = 0;
  const one = (): SigNode => {
    const c = sig[i++];
    if (c === 'a') return { t: 'a', kids: [one()] };
    if (c === '(' || c === '{') {
      const close = c === '(' ? ')' : '}';
      const kids: SigNode[] = [];
      while (sig[i] !== close) {
        if (i >= sig.length) throw new Error(`bad D-Bus signature "${sig}"`);
        kids.push(one());
      }
      i++;
      return { t: c, kids };
    }
    if (c === undefined || !'ybnqiuxtdhsogv'.includes(c)) {
      throw new Error(`bad D-Bus signature "${sig}"`);
    }
    return { t: c };
  };
  const out: Sig = [];
  while (i < sig.length) out.push(one());
  cached = out;
  if (sigCache.size < 1000) sigCache.set(sig, cached);
  return cached;
}

function alignOf(t: string): number {
  switch (t) {
    case 'y':
    case 'g':
    case 'v':
      return 1;
    case 'n':
    case 'q':
      return 2;
    case 'x':
    case 't':
    case 'd':
    case '(':
    case '{':
      return 8;
    default:
      return 4;
  }
}

const ONE_CHAR_SIGNATURES: string[] = [];

/**
 * Decodes values from one message. `off` indexes `buf`; alignment is relative to `base`,
 * where the message starts (replies are decoded in place, several to a socket chunk).
 */
export class Reader {
  constructor(
    readonly buf: Buffer,
    public off: number,
    readonly base = 0,
  ) {}

  private align(n: number): void {
    const r = (this.off - this.base) % n;
    if (r) this.off += n - r;
  }

  read(node: SigNode): unknown {
    const b = this.buf;
    switch (node.t) {
      case 'y':
        return b[this.off++];
      case 'b':
        this.align(4);
        this.off += 4;
        return b.readUInt32LE(this.off - 4) !== 0;
      case 'n':
        this.align(2);
        this.off += 2;
        return b.readInt16LE(this.off - 2);
      case 'q':
        this.align(2);
        this.off += 2;
        return b.readUInt16LE(this.off - 2);
      case 'i':
        this.align(4);
        this.off += 4;
        return b.readInt32LE(this.off - 4);
      case 'u':
      case 'h':
        this.align(4);
        this.off += 4;
        return b.readUInt32LE(this.off - 4);
      case 'x':
        this.align(8);
        this.off += 8;
        return Number(b.readBigInt64LE(this.off - 8));
      case 't':
        this.align(8);
        this.off += 8;
        return Number(b.readBigUInt64LE(this.off - 8));
      case 'd':
        this.align(8);
        this.off += 8;
        return b.readDoubleLE(this.off - 8);
      case 's':
      case 'o': {
        this.align(4);
        const len = b.readUInt32LE(this.off);
        const start = this.off + 4;
        this.off = start + len + 1;
        return b.toString('utf8', start, start + len);
      }
      case 'g':
        return this.sig();
      case 'v': {
        const sig = this.sig();
        const value: WireVariant = { signature: sig, value: this.read(parseSignature(sig)[0]) };
        return value;
      }
      case '(': {
        this.align(8);
        const kids = node.kids!;
        const out = new Array<unknown>(kids.length);
        for (let i = 0; i < kids.length; i++) out[i] = this.read(kids[i]);
        return out;
      }
      case 'a': {
        this.align(4);
        const len = b.readUInt32LE(this.off);
        this.off += 4;
        const el = node.kids![0];
        this.align(alignOf(el.t));
        const end = this.off + len;
        if (el.t === '{') {
          // Dicts become plain objects, as dbus-next returns them (a{sv}: GetAll).
          const obj: Record<string, unknown> = {};
          while (this.off < end) {
            this.align(8);
            const k = this.read(el.kids![0]);
            obj[String(k)] = this.read(el.kids![1]);
          }
          return obj;
        }
        const out: unknown[] = [];
        while (this.off < end) out.push(this.read(el));
        return out;
      }
    }
    throw new Error(`cannot decode D-Bus type "${node.t}"`);
  }

  /** A signature: one length byte, the bytes, a nul. */
  sig(): string {
    const b = this.buf;
    const len = b[this.off];
    if (len === 1) {
      // Most variants hold a basic type: one shared string per type code, not one per value.
      const code = b[this.off + 1];
      this.off += 3;
      return (ONE_CHAR_SIGNATURES[code] ??= String.fromCharCode(code));
    }
    const start = this.off + 1;
    this.off = start + len + 1;
    return b.toString('latin1', start, start + len);
  }
}

/** Encodes one message into a growable buffer that is shared across messages. */
class Writer {
  buf = Buffer.allocUnsafe(64 * 1024);
  len = 0;
  /** Where the current message starts (alignment is relative to it). */
  base = 0;

  room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n + 1024));
    this.buf.copy(bigger, 0, 0, this.len);
    this.buf = bigger;
  }

  align(n: number): void {
    const r = (this.len - this.base) % n;
    if (r) {
      const pad = n - r;
      this.room(pad);
      this.buf.fill(0, this.len, this.len + pad);
      this.len += pad;
    }
  }

  u8(v: number): void {
    this.room(1);
    this.buf[this.len++] = v;
  }

  u32(v: number): void {
    this.align(4);
    this.room(4);
    this.buf.writeUInt32LE(v >>> 0, this.len);
    this.len += 4;
  }

  str(s: string): void {
    this.align(4);
    const n = Buffer.byteLength(s, 'utf8');
    this.room(n + 5);
    this.buf.writeUInt32LE(n, this.len);
    this.buf.write(s, this.len + 4, 'utf8');
    this.buf[this.len + 4 + n] = 0;
    this.len += n + 5;
  }

  bytes(b: Buffer): void {
    this.room(b.length);
    b.copy(this.buf, this.len);
    this.len += b.length;
  }

  sig(s: string): void {
    this.room(s.length + 2);
    this.buf[this.len] = s.length;
    this.buf.write(s, this.len + 1, 'latin1');
    this.buf[this.len + 1 + s.length] = 0;
    this.len += s.length + 2;
  }

  write(node: SigNode, v: unknown): void {
    switch (node.t) {
      case 'y':
        return this.u8(v as number);
      case 'b':
        return this.u32(v ? 1 : 0);
      case 'n':
      case 'q':
        this.align(2);
        this.room(2);
        if (node.t === 'n') this.buf.writeInt16LE(v as number, this.len);
        else this.buf.writeUInt16LE(v as number, this.len);
        this.len += 2;
        return;
      case 'i':
        this.align(4);
        this.room(4);
        this.buf.writeInt32LE(v as number, this.len);
        this.len += 4;
        return;
      case 'u':
      case 'h':
        return this.u32(v as number);
      case 'x':
      case 't':
        this.align(8);
        this.room(8);
        if (node.t === 'x') this.buf.writeBigInt64LE(BigInt(v as number), this.len);
        else this.buf.writeBigUInt64LE(BigInt(v as number), this.len);
        this.len += 8;
        return;
      case 'd':
        this.align(8);
        this.room(8);
        this.buf.writeDoubleLE(v as number, this.len);
        this.len += 8;
        return;
      case 's':
      case 'o':
        return this.str(v as string);
      case 'g':
        return this.sig(v as string);
      case 'v': {
        const { signature, value } = v as WireVariant;
        this.sig(signature);
        return this.write(parseSignature(signature)[0], value);
      }
      case '(':
      case '{': {
        this.align(8);
        const fields = v as unknown[];
        node.kids!.forEach((k, i) => this.write(k, fields[i]));
        return;
      }
      case 'a': {
        this.align(4);
        const at = this.len;
        this.u32(0);
        const el = node.kids![0];
        this.align(alignOf(el.t));
        const start = this.len;
        const items =
          el.t === '{' && !Array.isArray(v)
            ? Object.entries(v as Record<string, unknown>)
            : (v as unknown[]);
        for (const item of items) this.write(el, item);
        this.buf.writeUInt32LE(this.len - start, at);
        return;
      }
    }
    throw new Error(`cannot encode D-Bus type "${node.t}"`);
  }
}

/** Encodes values by signature as a message body (aligned from offset 0); for tests. */
export function encodeBody(signature: string, values: unknown[]): Buffer {
  const w = new Writer();
  parseSignature(signature).forEach((n, i) => w.write(n, values[i]));
  return Buffer.from(w.buf.subarray(0, w.len));
}

/** Decodes a message body by signature (aligned from offset 0). */
export function decodeBody(signature: string, body: Buffer): unknown[] {
  const r = new Reader(body, 0);
  return parseSignature(signature).map((n) => r.read(n));
}

const METHOD_CALL = 1;
const METHOD_RETURN = 2;
const ERROR = 3;
const F_PATH = 1;
const F_INTERFACE = 2;
const F_MEMBER = 3;
const F_ERROR_NAME = 4;
const F_REPLY_SERIAL = 5;
const F_DESTINATION = 6;
const F_SIGNATURE = 8;

interface Pending {
  resolve: (body: unknown[]) => void;
  reject: (err: Error) => void;
  deadline: number;
  timeoutMs: number;
  // What was called, for error messages (formatted only when one is needed).
  destination: string;
  path: string;
  iface: string;
  member: string;
}

function describe(p: Pending): string {
  return describeCall(p.destination, p.path, p.iface, p.member);
}

/**
 * The header fields every call with this destination, interface, member and signature
 * shares, encoded once: a walk makes hundreds of calls with a handful of such
 * combinations, and only the object path differs. Field order is free in D-Bus, and the
 * block starts 8-aligned (offset 16), so its bytes do not depend on where it is copied.
 */
function encodeFixedFields(
  destination: string,
  iface: string,
  member: string,
  signature: string | undefined,
): Buffer {
  const w = new Writer();
  const field = (code: number, type: string, value: string): void => {
    w.align(8);
    w.u8(code);
    w.sig(type);
    if (type === 'g') w.sig(value);
    else w.str(value);
  };
  field(F_INTERFACE, 's', iface);
  field(F_MEMBER, 's', member);
  field(F_DESTINATION, 's', destination);
  if (signature) field(F_SIGNATURE, 'g', signature);
  return Buffer.from(w.buf.subarray(0, w.len));
}

/** The socket path of a `unix:path=...` address (the first such entry), else null. */
export function unixPath(address: string): string | null {
  for (const entry of address.split(';')) {
    if (!entry.startsWith('unix:')) continue;
    for (const kv of entry.slice(5).split(',')) {
      const eq = kv.indexOf('=');
      if (kv.slice(0, eq) === 'path') return decodeURIComponent(kv.slice(eq + 1));
    }
  }
  return null;
}

/**
 * The D-Bus error name of calls failed because the other side of the connection went away
 * (closed or reset it): for a peer-to-peer connection, the app itself is gone.
 */
export const DISCONNECTED = 'org.freedesktop.DBus.Error.Disconnected';

/** Most distinct fixed-field blocks kept per connection (a walk uses a few dozen). */
const MAX_FIXED_FIELDS = 512;

export class WireConnection {
  private readonly out = new Writer();
  /** Urgent calls of this tick: written ahead of `out` (see CallFn). */
  private readonly ahead = new Writer();
  private flushQueued = false;
  private serial = 1;
  private readonly pending = new Map<number, Pending>();
  /** Bytes of an incomplete message (a reply split across socket reads). */
  private parts: Buffer[] = [];
  private partsLen = 0;
  /** Bytes needed before the first incomplete message can be decoded. */
  private need = 0;
  /** member -> signature -> interface -> destination -> block (see encodeFixedFields). */
  private readonly fixedFields = new Map<string, Map<string, Map<string, Map<string, Buffer>>>>();
  private fixedCount = 0;
  private sweeper: NodeJS.Timeout | null = null;
  private closedReason: string | null = null;
  private closedName: string | undefined;
  /** Our unique name on a bus; null on a peer-to-peer connection. */
  name: string | null = null;

  private constructor(private readonly sock: net.Socket) {
    sock.setNoDelay(true);
    sock.on('data', (chunk: Buffer) => this.onData(chunk));
    // The other side went away either way: a peer that was killed resets the socket
    // (ECONNRESET) rather than closing it.
    sock.on('error', (err) => this.fail(`connection lost (${err.message})`, DISCONNECTED));
    sock.on('close', () => this.fail('connection closed', DISCONNECTED));
    sock.unref();
  }

  get closed(): boolean {
    return this.closedReason !== null;
  }

  /**
   * Connects to a `unix:path=` address, authenticates (SASL EXTERNAL) and, on a bus
   * (`peer` false), says Hello. Rejects within `timeoutMs`.
   */
  static async connect(address: string, peer: boolean, timeoutMs = 3000): Promise<WireConnection> {
    const path = unixPath(address);
    if (!path) throw new AtspiCallError(`not a unix:path= address: ${address}`);
    const sock = net.createConnection(path);
    const timer = setTimeout(
      () => sock.destroy(new Error(`no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    try {
      await new Promise<void>((resolve, reject) => {
        sock.once('connect', resolve);
        sock.once('error', reject);
      });
      await authenticate(sock);
    } catch (err) {
      sock.destroy();
      throw new AtspiCallError(`D-Bus connect to ${address} failed: ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
    const conn = new WireConnection(sock);
    if (!peer) {
      const [name] = await conn.call(
        'org.freedesktop.DBus',
        '/org/freedesktop/DBus',
        'org.freedesktop.DBus',
        'Hello',
        undefined,
        undefined,
        timeoutMs,
      );
      conn.name = name as string;
    }
    return conn;
  }

  call(
    destination: string,
    path: string,
    iface: string,
    member: string,
    signature?: string,
    body?: unknown[],
    timeoutMs = 3000,
    urgent = false,
  ): Promise<unknown[]> {
    if (this.closedReason !== null) {
      const what = describeCall(destination, path, iface, member);
      return Promise.reject(
        new AtspiCallError(`${what} failed: ${this.closedReason}`, this.closedName),
      );
    }
    const serial = this.serial++;
    if (this.serial > 0xfffffff0) this.serial = 1;
    try {
      this.marshal(
        urgent ? this.ahead : this.out,
        serial,
        destination,
        path,
        iface,
        member,
        signature,
        body,
      );
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      this.pending.set(serial, {
        resolve,
        reject,
        deadline: performance.now() + timeoutMs,
        timeoutMs,
        destination,
        path,
        iface,
        member,
      });
      if (this.pending.size === 1) {
        this.sock.ref();
        this.startSweeper();
      }
    });
  }

  close(): void {
    this.fail('connection closed by us');
    this.sock.destroy();
  }

  private fixed(
    destination: string,
    iface: string,
    member: string,
    signature: string | undefined,
  ): Buffer {
    // Nested maps: no key string built per call.
    let block = this.fixedFields
      .get(member)
      ?.get(signature ?? '')
      ?.get(iface)
      ?.get(destination);
    if (block) return block;
    block = encodeFixedFields(destination, iface, member, signature);
    if (++this.fixedCount > MAX_FIXED_FIELDS) {
      this.fixedFields.clear();
      this.fixedCount = 1;
    }
    const level = <K, V>(map: Map<K, V>, key: K, make: () => V): V => {
      let v = map.get(key);
      if (v === undefined) map.set(key, (v = make()));
      return v;
    };
    const bySig = level(this.fixedFields, member, () => new Map());
    const byIface = level(bySig, signature ?? '', () => new Map());
    level(byIface, iface, () => new Map<string, Buffer>()).set(destination, block);
    return block;
  }

  private marshal(
    w: Writer,
    serial: number,
    destination: string,
    path: string,
    iface: string,
    member: string,
    signature: string | undefined,
    body: unknown[] | undefined,
  ): void {
    const start = w.len;
    try {
      const fixed = this.fixed(destination, iface, member, signature);
      w.room(16);
      w.base = start;
      const b = w.buf;
      b[start] = 0x6c; // 'l': little-endian
      b[start + 1] = METHOD_CALL;
      b[start + 2] = 0; // flags
      b[start + 3] = 1; // protocol version
      b.writeUInt32LE(0, start + 4); // body length, patched below
      b.writeUInt32LE(serial, start + 8);
      b.writeUInt32LE(0, start + 12); // header fields length, patched below
      w.len = start + 16;
      const fieldsStart = w.len;
      w.bytes(fixed);
      w.align(8);
      w.u8(F_PATH);
      w.sig('o');
      w.str(path);
      w.buf.writeUInt32LE(w.len - fieldsStart, start + 12);
      w.align(8);
      const bodyStart = w.len;
      if (signature) {
        const nodes = parseSignature(signature);
        for (let i = 0; i < nodes.length; i++) w.write(nodes[i], body?.[i]);
      }
      w.buf.writeUInt32LE(w.len - bodyStart, start + 4);
    } catch (err) {
      w.len = start; // drop the half-written message
      throw new AtspiCallError(`cannot encode ${iface}.${member}: ${(err as Error).message}`);
    }
    if (!this.flushQueued) {
      this.flushQueued = true;
      // Every call made in this tick (a whole level of the walk) goes out in one write.
      process.nextTick(() => this.flush());
    }
  }

  private flush(): void {
    this.flushQueued = false;
    const { ahead, out } = this;
    const n = ahead.len + out.len;
    if (n > 0 && this.closedReason === null) {
      const chunk = Buffer.allocUnsafe(n);
      ahead.buf.copy(chunk, 0, 0, ahead.len);
      out.buf.copy(chunk, ahead.len, 0, out.len);
      this.sock.write(chunk);
    }
    ahead.len = 0;
    out.len = 0;
  }

  /** Decodes every whole message in place; keeps an incomplete tail for the next read. */
  private onData(chunk: Buffer): void {
    let buf = chunk;
    if (this.partsLen > 0) {
      this.parts.push(chunk);
      this.partsLen += chunk.length;
      if (this.partsLen < this.need) return; // a large reply still arriving: copy it once
      buf = Buffer.concat(this.parts, this.partsLen);
      this.parts = [];
      this.partsLen = 0;
    }
    const n = buf.length;
    let off = 0;
    let need = 16;
    while (n - off >= 16) {
      if (buf[off] !== 0x6c) {
        this.fail('big-endian D-Bus messages are not supported');
        this.sock.destroy();
        return;
      }
      const bodyLen = buf.readUInt32LE(off + 4);
      const fieldsLen = buf.readUInt32LE(off + 12);
      const headerLen = (16 + fieldsLen + 7) & ~7;
      const total = headerLen + bodyLen;
      if (n - off < total) {
        need = total;
        break;
      }
      this.dispatch(buf, off, fieldsLen, headerLen);
      if (this.closedReason !== null) return;
      off += total;
    }
    if (off < n) {
      this.parts = [off === 0 ? buf : buf.subarray(off)];
      this.partsLen = n - off;
      this.need = need;
    }
  }

  /** One message at `start` in `buf`: a reply settles its call; anything else is dropped. */
  private dispatch(buf: Buffer, start: number, fieldsLen: number, headerLen: number): void {
    const type = buf[start + 1];
    if (type !== METHOD_RETURN && type !== ERROR) return; // signals, calls: not ours
    let replySerial = -1;
    let signature = '';
    let errorName = '';
    const end = start + 16 + fieldsLen;
    let o = start + 16;
    const align = (n: number): void => {
      const r = (o - start) % n;
      if (r) o += n - r;
    };
    while (o < end) {
      align(8);
      if (o >= end) break;
      const code = buf[o];
      // Header field values are one basic type each: u, s, o or g in practice.
      const t = buf[o + 1] === 1 ? buf[o + 2] : 0;
      if (t === 0x75 /* u */) {
        o += 4;
        align(4);
        if (code === F_REPLY_SERIAL) replySerial = buf.readUInt32LE(o);
        o += 4;
      } else if (t === 0x73 /* s */ || t === 0x6f /* o */) {
        o += 4;
        align(4);
        const len = buf.readUInt32LE(o);
        if (code === F_ERROR_NAME) errorName = buf.toString('utf8', o + 4, o + 4 + len);
        o += 4 + len + 1;
      } else if (t === 0x67 /* g */) {
        o += 4;
        const len = buf[o];
        if (code === F_SIGNATURE) signature = buf.toString('latin1', o + 1, o + 1 + len);
        o += len + 2;
      } else {
        const r = new Reader(buf, o + 1, start);
        r.read({ t: 'v' });
        o = r.off;
      }
    }
    const p = this.pending.get(replySerial);
    if (!p) return;
    this.pending.delete(replySerial);
    if (this.pending.size === 0) this.idle();
    let body: unknown[];
    try {
      if (signature) {
        const br = new Reader(buf, start + headerLen, start);
        const nodes = parseSignature(signature);
        body = new Array<unknown>(nodes.length);
        for (let i = 0; i < nodes.length; i++) body[i] = br.read(nodes[i]);
      } else {
        body = [];
      }
    } catch (err) {
      p.reject(new AtspiCallError(`${describe(p)}: undecodable reply (${(err as Error).message})`));
      return;
    }
    if (type === ERROR) {
      const text = typeof body[0] === 'string' ? body[0] : errorName;
      const what = `${p.iface.replace(ATSPI, '')}.${p.member}`;
      p.reject(new AtspiCallError(`${what} failed: ${text}`, errorName));
    } else {
      p.resolve(body);
    }
  }

  private startSweeper(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const now = performance.now();
      for (const [serial, p] of this.pending) {
        if (now < p.deadline) continue;
        this.pending.delete(serial);
        p.reject(new AtspiTimeoutError(describe(p), p.timeoutMs));
      }
      if (this.pending.size === 0) this.idle();
    }, 100);
    this.sweeper.unref();
  }

  /** Nothing pending: let the process exit if nothing else holds it. */
  private idle(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    this.sock.unref();
  }

  /** `errorName`: what the failed calls' errors carry (DISCONNECTED: the other side left). */
  private fail(reason: string, errorName?: string): void {
    if (this.closedReason !== null) return;
    this.closedReason = reason;
    this.closedName = errorName;
    for (const p of this.pending.values()) {
      p.reject(new AtspiCallError(`${describe(p)} failed: ${reason}`, errorName));
    }
    this.pending.clear();
    this.idle();
  }
}

/** SASL EXTERNAL with our uid, as every libdbus peer accepts on a unix socket. */
function authenticate(sock: net.Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    let got = '';
    const onData = (d: Buffer): void => {
      got += d.toString('latin1');
      const nl = got.indexOf('\r\n');
      if (nl < 0) return;
      sock.removeListener('data', onData);
      const line = got.slice(0, nl);
      if (!line.startsWith('OK ')) {
        reject(new Error(`authentication refused: ${line}`));
        return;
      }
      sock.write('BEGIN\r\n');
      resolve();
    };
    sock.on('data', onData);
    const uid = String(process.getuid?.() ?? 0);
    sock.write('\0AUTH EXTERNAL ' + Buffer.from(uid, 'latin1').toString('hex') + '\r\n');
  });
}

const wires = new WeakMap<AtspiBus, Promise<WireConnection | null>>();

/**
 * A lean connection to the same bus as `bus` (opened once, closed when `bus` is), or null
 * when the address is not a unix path or the connection fails: callers then use `bus`.
 */
export async function wireFor(bus: AtspiBus): Promise<WireConnection | null> {
  const existing = wires.get(bus);
  if (existing) {
    const conn = await existing;
    if (conn && !conn.closed && !bus.isClosed) return conn;
    if (conn && bus.isClosed) conn.close();
    if (bus.isClosed || conn === null) return null;
  }
  if (bus.isClosed) return null;
  const opening = WireConnection.connect(bus.address, false, bus.callTimeoutMs).catch(() => null);
  wires.set(bus, opening);
  return opening;
}

const peers = new WeakMap<AtspiBus, Map<string, Promise<WireConnection | null>>>();

/**
 * A peer-to-peer connection to one app (its `GetApplicationBusAddress` socket), kept per
 * bus connection and app; null when the app has no such socket or it refuses us.
 */
export async function peerFor(
  bus: AtspiBus,
  appBus: string,
  address: string,
): Promise<WireConnection | null> {
  if (!address || bus.isClosed) return null;
  let map = peers.get(bus);
  if (!map) peers.set(bus, (map = new Map()));
  const existing = map.get(appBus);
  if (existing) {
    const conn = await existing;
    if (conn && !conn.closed) return conn;
    if (conn === null) return null;
  }
  const opening = WireConnection.connect(address, true, Math.min(1000, bus.callTimeoutMs)).catch(
    () => null,
  );
  map.set(appBus, opening);
  return opening;
}

/**
 * A call function for walking one app: calls to the app itself go peer-to-peer when it
 * offers a socket (no bus daemon hop: the daemon's routing cost about as much CPU as the
 * app's answers), everything else over the lean bus connection, else over dbus-next.
 */
export async function fastCall(
  bus: AtspiBus,
  app?: { bus: string; address: string },
): Promise<CallFn> {
  const [conn, peer] = await Promise.all([
    wireFor(bus),
    app ? peerFor(bus, app.bus, app.address) : Promise.resolve(null),
  ]);
  const viaBus: CallFn = conn
    ? (d, p, i, m, s, b, urgent) => conn.call(d, p, i, m, s, b, bus.callTimeoutMs, urgent)
    : (d, p, i, m, s, b) => bus.call(d, p, i, m, s, b);
  return (d, p, i, m, s, b, urgent) => {
    if (bus.isClosed) {
      conn?.close();
      peer?.close();
      return Promise.reject(new BusClosedError(bus.address));
    }
    if (peer && !peer.closed && d === app!.bus) {
      return peer.call(d, p, i, m, s, b, bus.callTimeoutMs, urgent);
    }
    return viaBus(d, p, i, m, s, b, urgent);
  };
}

/** The bus daemon's own name and interface. */
const DBUS = 'org.freedesktop.DBus';

/**
 * Whether a bus name has an owner, asked over the lean connection (0.3 ms, against ~1 ms
 * through dbus-next); false when the bus cannot say.
 */
export async function nameHasOwner(bus: AtspiBus, name: string): Promise<boolean> {
  try {
    const call = await fastCall(bus);
    const [has] = await call(DBUS, '/org/freedesktop/DBus', DBUS, 'NameHasOwner', 's', [name]);
    return has === true;
  } catch {
    return false;
  }
}

/** Closes the lean connections opened for `bus` (call when closing `bus` itself). */
export async function closeWires(bus: AtspiBus): Promise<void> {
  const all: Array<Promise<WireConnection | null>> = [];
  const w = wires.get(bus);
  if (w) all.push(w);
  for (const p of peers.get(bus)?.values() ?? []) all.push(p);
  wires.delete(bus);
  peers.delete(bus);
  for (const conn of await Promise.all(all)) conn?.close();
}
