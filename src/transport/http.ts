/**
 * MCP over Streamable HTTP on one path (/mcp) of a node:http server. Every request passes
 * the Host and Origin checks (403) and the bearer token (401) before MCP sees it; a POST
 * body over the limit is refused (413) before it is parsed. Each MCP session (opened by an
 * initialize request, named by the mcp-session-id header afterwards) has its own server
 * handle, so refs, session memory and aliases never leak between clients. A session ends
 * on DELETE, when its transport closes, after `idleTimeoutMs` without a request, and when
 * the server closes. At most `maxSessions` are open (or opening) at once: each holds a
 * server and a pipeline, so a client that initializes in a loop would exhaust the machine;
 * the next initialize gets 503 until one ends.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { checkBearer, checkHost, checkOrigin } from './http-guard.js';

export const MCP_PATH = '/mcp';
/** Readiness for orchestrators' probes: no token, no Host check, no body. */
export const HEALTH_PATH = '/healthz';
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_SESSIONS = 16;

const INVALID_REQUEST = -32600;
const PARSE_ERROR = -32700;
const INTERNAL_ERROR = -32603;
/** The code the SDK's own transport uses for transport-level refusals. */
const SERVER_ERROR = -32000;
const SESSION_NOT_FOUND = -32001;

/** What one MCP session runs on: a server to connect its transport to, closed at the end. */
export interface SessionServer {
  server: { connect(transport: Transport): Promise<void> };
  close(): Promise<void>;
}

export interface HttpServeOptions {
  host: string;
  /** 0: any free port (the bound one is in the result's url). */
  port: number;
  token: string;
  /** Host header names accepted (lowercase, IPv6 in brackets, no port). */
  allowedHosts: readonly string[];
  /** Origins accepted besides loopback ones, exactly (https://example.com). */
  allowedOrigins: readonly string[];
  /** A session without a request for this long is ended; 0: never. */
  idleTimeoutMs: number;
  maxBodyBytes?: number;
  /** Sessions open (or being opened) at once; default DEFAULT_MAX_SESSIONS. */
  maxSessions?: number;
  newSession: () => SessionServer;
  /**
   * What GET /healthz reports: 200 when ready, 503 with the reason otherwise. Absent: the
   * path is not served (404).
   */
  health?: () => Promise<{ ready: boolean; reason?: string }>;
  /** One line per event worth a note (sessions opening and ending, internal errors). */
  log?: (line: string) => void;
}

export interface HttpServer {
  url: string;
  port: number;
  sessionCount(): number;
  close(): Promise<void>;
}

interface Session {
  id: string;
  transport: StreamableHTTPServerTransport;
  server: SessionServer;
  lastActive: number;
  /** POST and DELETE requests being answered; a GET notification stream does not count. */
  inFlight: number;
  ended: boolean;
}

export async function serveHttp(opts: HttpServeOptions): Promise<HttpServer> {
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const log = opts.log ?? (() => undefined);
  const maxSessions = opts.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const sessions = new Map<string, Session>();
  /** Initializes being answered: not in `sessions` yet, but they count against the cap. */
  let opening = 0;

  const endSession = async (session: Session, why: string): Promise<void> => {
    if (session.ended) return;
    session.ended = true;
    sessions.delete(session.id);
    log(`session ${session.id.slice(0, 8)} ended (${why}); ${sessions.size} open`);
    await session.transport.close().catch(() => undefined);
    await session.server.close().catch((err: unknown) => log(`closing a session: ${String(err)}`));
  };

  const openSession = async (): Promise<{
    transport: StreamableHTTPServerTransport;
    server: SessionServer;
  }> => {
    const server = opts.newSession();
    let session: Session | undefined;
    let why = 'transport closed';
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessionclosed: () => {
        why = 'DELETE';
      },
      onsessioninitialized: (id) => {
        session = {
          id,
          transport,
          server,
          lastActive: Date.now(),
          inFlight: 1,
          ended: false,
        };
        sessions.set(id, session);
        log(`session ${id.slice(0, 8)} opened; ${sessions.size} open`);
      },
    });
    // Set before connect: the SDK chains its own handler after this one.
    transport.onclose = () => {
      if (session) void endSession(session, why);
    };
    await server.server.connect(transport);
    return { transport, server };
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    // Before the Host and token checks: a kubelet probes by the pod's IP and holds no token.
    // It says only ready or not, and why not: nothing of the desktop's content.
    if (opts.health && (req.url ?? '/').split('?')[0] === HEALTH_PATH) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('Allow', 'GET, HEAD');
        return reply(res, 405, SERVER_ERROR, `Method not allowed: ${req.method ?? '?'}`);
      }
      const state = await opts.health();
      const body = JSON.stringify({
        ready: state.ready,
        ...(state.reason ? { reason: state.reason } : {}),
        sessions: sessions.size,
      });
      res.writeHead(state.ready ? 200 : 503, {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        'Cache-Control': 'no-store',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    const hostVerdict = checkHost(req.headers.host, opts.allowedHosts);
    if (!hostVerdict.ok) return reply(res, 403, SERVER_ERROR, `Forbidden: ${hostVerdict.why}`);
    const originVerdict = checkOrigin(req.headers.origin, opts.allowedOrigins);
    if (!originVerdict.ok) {
      return reply(res, 403, SERVER_ERROR, `Forbidden: ${originVerdict.why}`);
    }
    const path = (req.url ?? '/').split('?')[0];
    if (path !== MCP_PATH) {
      return reply(res, 404, SERVER_ERROR, `Not found: MCP is served at ${MCP_PATH}`);
    }
    const token = checkBearer(req.headers.authorization, opts.token);
    if (token !== 'ok') {
      res.setHeader(
        'WWW-Authenticate',
        token === 'wrong'
          ? 'Bearer realm="axpage", error="invalid_token"'
          : 'Bearer realm="axpage"',
      );
      return reply(
        res,
        401,
        SERVER_ERROR,
        token === 'wrong'
          ? "Unauthorized: the bearer token is not this server's"
          : 'Unauthorized: send "Authorization: Bearer <token>" (axpage serve printed it at start, or it was given with --token)',
      );
    }
    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
      res.setHeader('Allow', 'GET, POST, DELETE');
      return reply(res, 405, SERVER_ERROR, `Method not allowed: ${req.method ?? '?'}`);
    }
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJson(req, maxBodyBytes);
      if (!read.ok) return reply(res, read.status, read.code, read.message);
      body = read.value;
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session) {
        return reply(
          res,
          404,
          SESSION_NOT_FOUND,
          'Session not found: it ended (DELETE, idle timeout or server restart); initialize a new one',
        );
      }
      return track(session, req, res, () => session.transport.handleRequest(req, res, body));
    }
    if (req.method === 'POST' && startsSession(body)) {
      if (sessions.size + opening >= maxSessions) {
        log(`initialize refused: ${sessions.size} sessions open, the limit is ${maxSessions}`);
        res.setHeader('Retry-After', '60');
        return reply(res, 503, SERVER_ERROR, sessionsFull(maxSessions, opts.idleTimeoutMs));
      }
      opening++;
      try {
        const { transport, server } = await openSession();
        await transport.handleRequest(req, res, body);
        // An initialize the transport refused opened no session: nothing will close it later.
        if (transport.sessionId === undefined) await server.close().catch(() => undefined);
        else {
          const session = sessions.get(transport.sessionId);
          if (session) {
            session.inFlight--;
            session.lastActive = Date.now();
          }
        }
      } finally {
        opening--;
      }
      return;
    }
    return reply(
      res,
      400,
      SERVER_ERROR,
      'Bad Request: no mcp-session-id header; start a session with an initialize request first',
    );
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`internal error answering ${req.method ?? '?'}: ${String(err)}`);
      if (!res.headersSent) reply(res, 500, INTERNAL_ERROR, 'Internal error');
      else res.end();
    });
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(
        new Error(
          err.code === 'EADDRINUSE'
            ? `port ${opts.port} on ${opts.host} is in use: pick another with --port (0 = any free port)`
            : `cannot listen on ${opts.host}:${opts.port}: ${err.message}`,
        ),
      );
    };
    server.once('error', onError);
    server.listen(opts.port, opts.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', (err) => log(`http server error: ${err.message}`));

  const sweeper =
    opts.idleTimeoutMs > 0
      ? setInterval(
          () => {
            const now = Date.now();
            for (const session of [...sessions.values()]) {
              if (session.inFlight === 0 && now - session.lastActive >= opts.idleTimeoutMs) {
                void endSession(
                  session,
                  `idle for ${Math.round((now - session.lastActive) / 1000)} s`,
                );
              }
            }
          },
          Math.max(50, Math.min(60_000, Math.floor(opts.idleTimeoutMs / 4))),
        ).unref()
      : undefined;

  const port = (server.address() as AddressInfo).port;
  const hostInUrl =
    opts.host.includes(':') && !opts.host.startsWith('[') ? `[${opts.host}]` : opts.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostInUrl}:${port}${MCP_PATH}`,
    port,
    sessionCount: () => sessions.size,
    close() {
      closing ??= (async () => {
        if (sweeper) clearInterval(sweeper);
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.all([...sessions.values()].map((s) => endSession(s, 'server shutdown')));
        server.closeAllConnections();
        await closed;
      })();
      return closing;
    },
  };
}

/** Counts a request against the session's idleness from its start to its response's end. */
async function track(
  session: Session,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  run: () => Promise<void>,
): Promise<void> {
  session.lastActive = Date.now();
  if (req.method === 'GET') return run();
  session.inFlight++;
  res.once('close', () => {
    session.inFlight--;
    session.lastActive = Date.now();
  });
  return run();
}

function startsSession(body: unknown): boolean {
  return isInitializeRequest(body) || (Array.isArray(body) && body.some(isInitializeRequest));
}

type ReadResult =
  { ok: true; value: unknown } | { ok: false; status: number; code: number; message: string };

/** The request's JSON body, read up to `max` bytes. */
function readJson(req: http.IncomingMessage, max: number): Promise<ReadResult> {
  const tooLarge = (bytes: string): ReadResult => ({
    ok: false,
    status: 413,
    code: INVALID_REQUEST,
    message: `Payload too large: the body is ${bytes} bytes, over the ${max}-byte limit; send smaller arguments`,
  });
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) {
    // Read and drop the rest, so the client can read the answer instead of a reset.
    req.resume();
    return Promise.resolve(tooLarge(String(declared)));
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      bytes += chunk.length;
      if (bytes > max) {
        over = true;
        chunks.length = 0;
        resolve(tooLarge(`over ${max}`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', (err) =>
      resolve({ ok: false, status: 400, code: INVALID_REQUEST, message: err.message }),
    );
    req.on('end', () => {
      if (over) return;
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve({ ok: true, value: JSON.parse(text) as unknown });
      } catch (err) {
        resolve({
          ok: false,
          status: 400,
          code: PARSE_ERROR,
          message: `Parse error: the body is not JSON (${(err as Error).message})`,
        });
      }
    });
  });
}

/** The 503 for an initialize past the cap: what frees a place, and who can raise it. */
function sessionsFull(max: number, idleTimeoutMs: number): string {
  const idle =
    idleTimeoutMs > 0
      ? `, or wait: a session idle for ${Math.round(idleTimeoutMs / 1000)} s ends`
      : '';
  return `Service Unavailable: this server already has its limit of ${max} open sessions. End a session you are done with (DELETE ${MCP_PATH} with its mcp-session-id header) and initialize again${idle}; whoever runs the server can raise the limit (--max-sessions or AXPAGE_MAX_SESSIONS)`;
}

function reply(res: http.ServerResponse, status: number, code: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}
