/**
 * The checks every HTTP request passes before it reaches MCP: its Host and Origin headers
 * (DNS rebinding: a web page whose name resolves to 127.0.0.1 must not reach a local
 * server) and its bearer token. Pure functions on header values, so they are tested on
 * data.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The names a loopback server answers to; any port. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** Fewer characters than this is too easy to guess for a token that guards the desktop. */
export const MIN_TOKEN_LENGTH = 16;

/** 256 random bits, URL-safe. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether the bind address is one only this machine can reach. */
export function isLoopbackAddress(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** The hostname of a Host header, lowercased, without its port; IPv6 keeps its brackets. */
export function hostnameOf(hostHeader: string): string | undefined {
  const h = hostHeader.trim().toLowerCase();
  if (h === '') return undefined;
  const v6 = /^(\[[0-9a-f:.]+\])(?::\d+)?$/.exec(h);
  if (v6) return v6[1];
  const m = /^([^:[\]\s/@]+)(?::\d+)?$/.exec(h);
  return m ? m[1] : undefined;
}

/** An allowed host as given by a user: brackets added to a bare IPv6 address. */
export function normalizeHost(host: string): string {
  const h = host.trim().toLowerCase();
  return h.includes(':') && !h.startsWith('[') ? `[${h}]` : h;
}

export type Verdict = { ok: true } | { ok: false; why: string };

const OK: Verdict = { ok: true };

/** At most this much of a header goes back in an error message. */
const SHOWN = 100;

function shown(value: string): string {
  return JSON.stringify(value.length > SHOWN ? `${value.slice(0, SHOWN)}…` : value);
}

export function checkHost(hostHeader: string | undefined, allowed: readonly string[]): Verdict {
  if (hostHeader === undefined) return { ok: false, why: 'the request has no Host header' };
  const name = hostnameOf(hostHeader);
  if (name !== undefined && allowed.includes(name)) return OK;
  return {
    ok: false,
    why: `Host ${shown(hostHeader)} is not one this server answers to (${allowed.join(', ')}); add it with --allowed-hosts`,
  };
}

/**
 * No Origin (not a browser, or a same-origin GET) passes; a browser page passes only when
 * it is served from loopback or its origin is listed exactly.
 */
export function checkOrigin(
  originHeader: string | undefined,
  allowedOrigins: readonly string[],
): Verdict {
  if (originHeader === undefined) return OK;
  const origin = originHeader.trim().toLowerCase();
  if (allowedOrigins.some((o) => o.toLowerCase().replace(/\/$/, '') === origin)) return OK;
  let url: URL | undefined;
  try {
    url = new URL(origin);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:')) {
    if (LOOPBACK_HOSTS.includes(url.hostname)) return OK;
  }
  return {
    ok: false,
    why: `Origin ${shown(originHeader)} may not use this server; allow it with --allowed-origins`,
  };
}

export type TokenVerdict = 'ok' | 'missing' | 'wrong';

/** Compares digests, so neither the content nor the length of the token leaks by timing. */
export function checkBearer(authorization: string | undefined, token: string): TokenVerdict {
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
  if (!m) return 'missing';
  const given = createHash('sha256').update(m[1]).digest();
  const expected = createHash('sha256').update(token).digest();
  return timingSafeEqual(given, expected) ? 'ok' : 'wrong';
}
