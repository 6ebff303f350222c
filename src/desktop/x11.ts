/**
 * A minimal X11 protocol client over the display's unix socket, just enough to ask
 * "does the X server answer?" and "is a window manager running?". Spawning xdpyinfo or
 * xprop costs 5–10 ms per poll and needs x11-utils; these checks take well under 1 ms
 * and need nothing. It speaks only to a local server without access control (our Xvfb
 * runs with -ac), so it sends no authorization.
 */
import net from 'node:net';

export interface XServerInfo {
  root: number;
  width: number;
  height: number;
  vendor: string;
}

/** Path of the local socket of display :n. */
export function xSocketPath(display: number): string {
  return `/tmp/.X11-unix/X${display}`;
}

/** Thrown when the server refuses the connection or answers with an X error. */
export class XProtocolError extends Error {
  override name = 'XProtocolError';
}

const pad4 = (n: number): number => (4 - (n % 4)) % 4;

/**
 * One connection. Requests are answered in order; we select no events, so every packet
 * after the setup is a reply (1), an error (0) or an unsolicited event we skip.
 */
export class XConnection {
  private buf: Buffer = Buffer.alloc(0);
  private pending: Array<{ resolve: (b: Buffer) => void; reject: (e: Error) => void }> = [];
  private failure: Error | null = null;

  private constructor(
    private readonly sock: net.Socket,
    readonly info: XServerInfo,
    leftover: Buffer,
  ) {
    this.buf = leftover;
    sock.on('data', (chunk: Buffer) => {
      this.buf = Buffer.concat([this.buf, chunk]);
      this.drain();
    });
    const fail = (err: Error): void => {
      this.failure = err;
      for (const p of this.pending.splice(0)) p.reject(err);
    };
    sock.on('error', fail);
    sock.on('close', () => fail(new XProtocolError('X connection closed')));
    this.drain();
  }

  /** Connects and completes the setup handshake; rejects if the server is not there. */
  static connect(display: number, timeoutMs = 1000): Promise<XConnection> {
    return new Promise((resolve, reject) => {
      const sock = net.createConnection(xSocketPath(display));
      let acc: Buffer = Buffer.alloc(0);
      const timer = setTimeout(() => {
        sock.destroy();
        reject(new XProtocolError(`X display :${display} did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = (err: Error | null, conn?: XConnection): void => {
        clearTimeout(timer);
        sock.removeListener('data', onData);
        sock.removeListener('error', onError);
        if (err) {
          sock.destroy();
          reject(err);
        } else resolve(conn as XConnection);
      };
      const onError = (err: Error): void => done(err);
      const onData = (chunk: Buffer): void => {
        acc = Buffer.concat([acc, chunk]);
        if (acc.length < 8) return;
        const total = 8 + acc.readUInt16LE(6) * 4;
        if (acc.length < total) return;
        const status = acc[0];
        if (status !== 1) {
          const reason = status === 0 ? acc.subarray(8, 8 + acc[1]).toString('latin1') : '';
          done(
            new XProtocolError(
              `X display :${display} refused the connection` + (reason ? `: ${reason}` : ''),
            ),
          );
          return;
        }
        try {
          const info = parseSetup(acc.subarray(0, total));
          done(null, new XConnection(sock, info, acc.subarray(total)));
        } catch (err) {
          done(err as Error);
        }
      };
      sock.on('data', onData);
      sock.on('error', onError);
      // Byte order 'l' (little endian), protocol 11.0, no authorization.
      const setup = Buffer.alloc(12);
      setup[0] = 0x6c;
      setup.writeUInt16LE(11, 2);
      setup.writeUInt16LE(0, 4);
      sock.write(setup);
    });
  }

  /** InternAtom with only-if-exists: 0 when no client ever created the atom. */
  async atom(name: string, onlyIfExists = true): Promise<number> {
    const nameBuf = Buffer.from(name, 'latin1');
    const req = Buffer.alloc(8 + nameBuf.length + pad4(nameBuf.length));
    req[0] = 16; // InternAtom
    req[1] = onlyIfExists ? 1 : 0;
    req.writeUInt16LE(req.length / 4, 2);
    req.writeUInt16LE(nameBuf.length, 4);
    nameBuf.copy(req, 8);
    const reply = await this.request(req);
    return reply.readUInt32LE(8);
  }

  /** GetProperty of any type; null when the window has no such property. */
  async property(
    window: number,
    atom: number,
  ): Promise<{ type: number; format: number; value: Buffer } | null> {
    const req = Buffer.alloc(24);
    req[0] = 20; // GetProperty
    req[1] = 0; // do not delete
    req.writeUInt16LE(6, 2);
    req.writeUInt32LE(window, 4);
    req.writeUInt32LE(atom, 8);
    req.writeUInt32LE(0, 12); // AnyPropertyType
    req.writeUInt32LE(0, 16); // offset
    req.writeUInt32LE(1024, 20); // up to 4 KiB
    const reply = await this.request(req);
    const type = reply.readUInt32LE(8);
    if (type === 0) return null;
    const format = reply[1];
    const units = reply.readUInt32LE(16);
    const bytes = units * (format / 8);
    return { type, format, value: reply.subarray(32, 32 + bytes) };
  }

  close(): void {
    this.sock.destroy();
  }

  private request(req: Buffer): Promise<Buffer> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.sock.write(req);
    });
  }

  private drain(): void {
    while (this.buf.length >= 32) {
      const kind = this.buf[0];
      const len = kind === 1 ? 32 + this.buf.readUInt32LE(4) * 4 : 32;
      if (this.buf.length < len) return;
      const packet = this.buf.subarray(0, len);
      this.buf = this.buf.subarray(len);
      if (kind === 1) this.pending.shift()?.resolve(packet);
      else if (kind === 0) {
        const code = packet[1];
        this.pending.shift()?.reject(new XProtocolError(`X error ${code}`));
      }
      // Anything else is an event: we selected none that matter, skip it.
    }
  }
}

function parseSetup(b: Buffer): XServerInfo {
  const vendorLen = b.readUInt16LE(24);
  const formats = b[29];
  const screenAt = 40 + vendorLen + pad4(vendorLen) + formats * 8;
  if (b[28] < 1 || b.length < screenAt + 24) throw new XProtocolError('X setup has no screen');
  return {
    vendor: b.subarray(40, 40 + vendorLen).toString('latin1'),
    root: b.readUInt32LE(screenAt),
    width: b.readUInt16LE(screenAt + 20),
    height: b.readUInt16LE(screenAt + 22),
  };
}

/** The server's screen info if display :n answers the handshake, else null. */
export async function probeDisplay(display: number, timeoutMs = 1000): Promise<XServerInfo | null> {
  try {
    const conn = await XConnection.connect(display, timeoutMs);
    conn.close();
    return conn.info;
  } catch {
    return null;
  }
}

/**
 * The EWMH window manager check: the root's _NET_SUPPORTING_WM_CHECK names a window whose
 * own _NET_SUPPORTING_WM_CHECK names itself. Checking both sides rejects a stale property
 * left behind by a window manager that died. Returns the check window id, or null.
 */
export async function windowManagerCheck(
  display: number,
  timeoutMs = 1000,
): Promise<number | null> {
  let conn: XConnection;
  try {
    conn = await XConnection.connect(display, timeoutMs);
  } catch {
    return null;
  }
  // A server that stops answering mid-check must not hang the caller.
  const timer = setTimeout(() => conn.close(), timeoutMs);
  try {
    const atom = await conn.atom('_NET_SUPPORTING_WM_CHECK');
    if (atom === 0) return null;
    const onRoot = await conn.property(conn.info.root, atom);
    if (!onRoot || onRoot.format !== 32 || onRoot.value.length < 4) return null;
    const win = onRoot.value.readUInt32LE(0);
    const onChild = await conn.property(win, atom).catch(() => null);
    if (!onChild || onChild.value.length < 4 || onChild.value.readUInt32LE(0) !== win) return null;
    return win;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
    conn.close();
  }
}
