/**
 * The run viewer's web server: a read-only view of one artifact dir for a browser on this
 * machine. Loopback only, a random port, and a random token that the first URL carries
 * (`/?t=…`) and later requests carry as a cookie (or an `Authorization: Bearer` header);
 * without it every path is 403. Files leave the dir only as pair files (their names are
 * a pair's; regular files right in it, opened without following a link: see files.ts). The PNGs it serves are the ones the
 * server wrote, already redacted; it never renders anything else of a secure field.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  checkBearer,
  checkHost,
  checkOrigin,
  generateToken,
  LOOPBACK_HOSTS,
} from '../transport/http-guard.js';
import { decodePng, diffPixels, encodePng, SizeMismatchError } from '../visual/index.js';
import { readPairFile } from '../capture/index.js';
import type { CallPage, ViewCall, ViewPair } from './model.js';

/** Where the viewer's data comes from (the data side's Run has this shape). */
export interface ViewSource {
  /** The artifact dir the calls' files are in. */
  readonly dir: string;
  page(offset: number, limit: number): Promise<CallPage>;
  /** The call at a timeline index, or undefined past the end. */
  call(index: number): Promise<ViewCall | undefined>;
  /** The call's parsed tree file, or undefined when it wrote none or it is gone. */
  pairOf(index: number): Promise<ViewPair | undefined>;
}

export interface ViewServerOptions {
  source: ViewSource;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** For tests; otherwise a fresh random one. */
  token?: string;
}

export interface ViewServer {
  /** The URL to open, token included. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';
/** Cookies are per host, not per port: each viewer's name carries its port, so two stay apart. */
function cookieName(port: number): string {
  return `axpage_view_${port}`;
}
/** Calls per API page at most: the page asks for more as the timeline scrolls. */
export const MAX_CALLS_PER_REQUEST = 200;
/** What the page is made of, beside this module (src/view/page or dist/view/page). */
const PAGE_DIR = fileURLToPath(new URL('./page/', import.meta.url));
const PAGE_FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

const HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  // The token is in the first URL: no page it links to may see it.
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startViewServer(opts: ViewServerOptions): Promise<ViewServer> {
  const token = opts.token ?? generateToken();
  const dir = fs.realpathSync(opts.source.dir);
  // Requests come only after listen(), which sets the port the cookie is named by.
  let cookie = '';
  const server = http.createServer((req, res) => {
    handle(req, res, { token, cookie, dir, source: opts.source }).catch((err: unknown) => {
      const status = err instanceof HttpError ? err.status : 500;
      const message = err instanceof Error ? err.message : String(err);
      if (!res.headersSent)
        send(res, status, 'application/json', JSON.stringify({ error: message }));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, HOST, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  cookie = cookieName(port);
  return {
    url: `http://${HOST}:${port}/?t=${token}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Context {
  token: string;
  cookie: string;
  dir: string;
  source: ViewSource;
}

async function handle(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  ctx: Context,
): Promise<void> {
  const host = checkHost(req.headers.host, LOOPBACK_HOSTS);
  if (!host.ok) throw new HttpError(403, host.why);
  const origin = checkOrigin(req.headers.origin, []);
  if (!origin.ok) throw new HttpError(403, origin.why);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    throw new HttpError(405, 'the viewer is read-only');
  }
  const url = new URL(req.url ?? '/', `http://${HOST}`);
  const fromUrl = url.pathname === '/' ? url.searchParams.get('t') : null;
  const given =
    fromUrl ?? cookieOf(req.headers.cookie, ctx.cookie) ?? bearerOf(req.headers.authorization);
  if (given === undefined || checkBearer(`Bearer ${given}`, ctx.token) !== 'ok') {
    throw new HttpError(403, 'open the URL axpage view printed (it carries the token)');
  }
  if (fromUrl !== null) {
    res.setHeader('Set-Cookie', `${ctx.cookie}=${ctx.token}; Path=/; HttpOnly; SameSite=Strict`);
  }
  const route = url.pathname;
  if (route === '/') return sendPageFile(res, 'index.html');
  const page = /^\/page\/([a-z.]+)$/.exec(route);
  if (page) return sendPageFile(res, page[1]);
  if (route === '/api/calls') {
    const offset = intParam(url, 'offset', 0);
    const limit = Math.min(intParam(url, 'limit', 100), MAX_CALLS_PER_REQUEST);
    return sendJson(res, await ctx.source.page(offset, limit));
  }
  const pair = /^\/api\/pair\/(\d+)$/.exec(route);
  if (pair) {
    const index = Number(pair[1]);
    const parsed = await ctx.source.pairOf(index);
    if (!parsed) throw new HttpError(404, `call ${index} has no tree file on disk`);
    return sendJson(res, parsed);
  }
  const file = /^\/files\/([^/]+)$/.exec(route);
  if (file) {
    const name = decodeURIComponent(file[1]);
    const type = name.endsWith('.png') ? 'image/png' : 'text/plain; charset=utf-8';
    return send(res, 200, type, await servable(ctx.dir, name));
  }
  if (route === '/api/pixeldiff') {
    return send(res, 200, 'image/png', await pixelDiff(ctx, url));
  }
  throw new HttpError(404, `no such path: ${route}`);
}

async function callAt(ctx: Context, index: number): Promise<ViewCall> {
  const call = await ctx.source.call(index);
  if (!call) throw new HttpError(404, `no call ${index}`);
  return call;
}

/** The two calls' screenshots compared (the later one faded, changed pixels red). */
async function pixelDiff(ctx: Context, url: URL): Promise<Buffer> {
  const [a, b] = await Promise.all([
    callAt(ctx, intParam(url, 'a', -1)),
    callAt(ctx, intParam(url, 'b', -1)),
  ]);
  if (!a.png || !b.png) throw new HttpError(404, 'both calls need a screenshot');
  const [before, after] = await Promise.all(
    [a.png, b.png].map(async (png) => decodePng(await servable(ctx.dir, png))),
  );
  try {
    return await encodePng(diffPixels(before, after).image);
  } catch (err) {
    if (err instanceof SizeMismatchError) throw new HttpError(409, err.message);
    throw err;
  }
}

/**
 * A pair file of the dir (see openPairFile: its name is a pair's, it is a regular file
 * right in the dir, no link); anything else is the same 404, so a probe learns nothing
 * about what exists outside.
 */
async function servable(dir: string, name: string): Promise<Buffer> {
  const data = await readPairFile(dir, name);
  if (data === undefined) {
    throw new HttpError(404, `no such file in the artifact dir: ${JSON.stringify(name)}`);
  }
  return data;
}

function sendPageFile(res: http.ServerResponse, name: string): void {
  const type = PAGE_FILES[name];
  if (!type) throw new HttpError(404, `no such page file: ${name}`);
  send(res, 200, type, fs.readFileSync(path.join(PAGE_DIR, name)));
}

function sendJson(res: http.ServerResponse, body: unknown): void {
  send(res, 200, 'application/json; charset=utf-8', JSON.stringify(body));
}

function send(res: http.ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { ...HEADERS, 'Content-Type': type });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function intParam(url: URL, name: string, fallback: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  if (!/^\d{1,9}$/.test(raw)) throw new HttpError(400, `${name} must be a whole number`);
  return Number(raw);
}

function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, v] = part.trim().split('=');
    if (k === name && v) return v;
  }
  return undefined;
}

function bearerOf(header: string | undefined): string | undefined {
  return /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '')?.[1];
}
