/**
 * The settings of `axpage serve --http` (from the one settings table) and the request
 * checks of the HTTP transport, on data.
 */
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_HTTP_PORT,
  loadConfig,
  parseServeArgs,
  serveHelp,
} from '../../src/config.js';
import {
  checkBearer,
  checkHost,
  checkOrigin,
  generateToken,
  hostnameOf,
  isLoopbackAddress,
  LOOPBACK_HOSTS,
  normalizeHost,
} from '../../src/transport/http-guard.js';

function rejected(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('http settings', () => {
  it('--http is --transport http, and takes the other flags around it', () => {
    const { flags } = parseServeArgs(['--http', '--port', '0', '--host=::1']);
    expect(flags).toEqual({ transport: 'http', port: '0', host: '::1' });
    const c = loadConfig({}, flags);
    expect(c.transport).toBe('http');
    expect(c.http.port).toBe(0);
    expect(c.http.host).toBe('::1');
  });

  it('defaults: loopback, the documented port, no token (generated at start), 30 min idle, 16 sessions', () => {
    const c = loadConfig({});
    expect(c.transport).toBe('stdio');
    expect(c.http).toEqual({
      host: '127.0.0.1',
      port: DEFAULT_HTTP_PORT,
      allowedHosts: [],
      allowedOrigins: [],
      sessionIdleMs: 1_800_000,
      maxSessions: 16,
    });
  });

  it('reads --max-sessions, and refuses 0 and --max-sessions without --http', () => {
    expect(loadConfig({}, { transport: 'http', 'max-sessions': '3' }).http.maxSessions).toBe(3);
    expect(() => loadConfig({}, { transport: 'http', 'max-sessions': '0' })).toThrow(
      /max-sessions/,
    );
    expect(() => loadConfig({}, { 'max-sessions': '3' })).toThrow(/applies to the HTTP transport/);
  });

  it('reads the token from the variable, the file and the flag, flag last', () => {
    const file = JSON.stringify({ token: 'from-the-file-0123456789' });
    const c = loadConfig({ AXPAGE_CONFIG: 'x.json' }, {}, { readFile: () => file });
    expect(c.http.token).toBe('from-the-file-0123456789');
    const e = loadConfig(
      { AXPAGE_CONFIG: 'x.json', AXPAGE_TOKEN: 'from-the-env-0123456789' },
      {},
      { readFile: () => file },
    );
    expect(e.http.token).toBe('from-the-env-0123456789');
    const f = loadConfig(
      { AXPAGE_TOKEN: 'from-the-env-0123456789' },
      { transport: 'http', token: 'flag-0123456789abcdef' },
    );
    expect(f.http.token).toBe('flag-0123456789abcdef');
  });

  it('refuses a short or spaced token without echoing it', () => {
    const short = rejected(() => loadConfig({ AXPAGE_TOKEN: 'tiny-secret' }));
    expect(short).toBe(
      'AXPAGE_TOKEN is 11 characters; give at least 16 (or leave it unset to have one generated)',
    );
    const spaced = rejected(() => loadConfig({}, { token: 'a very long secret phrase' }));
    expect(spaced).toBe('--token contains whitespace; a token is one word');
    const inFile = rejected(() =>
      loadConfig({}, { config: 'c.json' }, { readFile: () => '{"token": "secret-shh"}' }),
    );
    expect(inFile).toMatch(/^config file c\.json: "token" is 10 characters/);
    for (const message of [short, spaced, inFile]) expect(message).not.toMatch(/secret/);
  });

  it('an HTTP flag on a stdio server is an error; in the environment it waits for --http', () => {
    expect(rejected(() => loadConfig({}, { port: '3000', host: '::1' }))).toBe(
      '--host, --port applies to the HTTP transport, and this server runs on stdio; add --http, or drop --host, --port',
    );
    expect(loadConfig({}, { transport: 'http', port: '3000' }).http.port).toBe(3000);
    expect(loadConfig({ AXPAGE_PORT: '3000' }).transport).toBe('stdio');
  });

  it('ports are 0..65535; lists split on commas; idle 0 means never', () => {
    expect(rejected(() => loadConfig({}, { port: '70000' }))).toBe(
      '--port 70000 is not a whole number from 0 to 65535; unset it or fix it',
    );
    expect(rejected(() => loadConfig({ AXPAGE_PORT: '-1' }))).toMatch(/AXPAGE_PORT=-1/);
    const c = loadConfig({
      AXPAGE_ALLOWED_HOSTS: 'mcp.lan, box',
      AXPAGE_ALLOWED_ORIGINS: 'https://app.example.com',
      AXPAGE_SESSION_IDLE_MS: '0',
    });
    expect(c.http.allowedHosts).toEqual(['mcp.lan', 'box']);
    expect(c.http.allowedOrigins).toEqual(['https://app.example.com']);
    expect(c.http.sessionIdleMs).toBe(0);
  });

  it('the help shows --http and the http flags', () => {
    const help = serveHelp();
    for (const flag of [
      '--http',
      '--port N',
      '--host HOST',
      '--token TOKEN',
      '--allowed-hosts LIST',
    ]) {
      expect(help).toContain(flag);
    }
  });
});

describe('Host check', () => {
  it('takes the hostname without its port, IPv6 in brackets', () => {
    expect(hostnameOf('LocalHost:8939')).toBe('localhost');
    expect(hostnameOf('[::1]:80')).toBe('[::1]');
    expect(hostnameOf('127.0.0.1')).toBe('127.0.0.1');
    expect(hostnameOf('a b')).toBeUndefined();
    expect(hostnameOf('user@evil.com')).toBeUndefined();
    expect(normalizeHost('::1')).toBe('[::1]');
    expect(normalizeHost('Box.LAN')).toBe('box.lan');
  });

  it('accepts the allowed names on any port and nothing else', () => {
    for (const h of ['localhost', '127.0.0.1:1', '[::1]:8939', 'LOCALHOST:3']) {
      expect(checkHost(h, LOOPBACK_HOSTS)).toEqual({ ok: true });
    }
    for (const h of [
      undefined,
      '',
      'evil.example.com',
      'localhost.evil.com',
      '127.0.0.2',
      'evil.com:127.0.0.1',
    ]) {
      expect(checkHost(h, LOOPBACK_HOSTS).ok, String(h)).toBe(false);
    }
    expect(checkHost('box.lan:80', [...LOOPBACK_HOSTS, 'box.lan']).ok).toBe(true);
  });
});

describe('Origin check', () => {
  it('passes no Origin, loopback origins and listed ones; refuses the rest', () => {
    expect(checkOrigin(undefined, []).ok).toBe(true);
    for (const o of ['http://localhost:3000', 'https://127.0.0.1', 'http://[::1]:9']) {
      expect(checkOrigin(o, []).ok, o).toBe(true);
    }
    for (const o of ['http://evil.example.com', 'null', 'file://', 'http://localhost.evil.com']) {
      expect(checkOrigin(o, []).ok, o).toBe(false);
    }
    expect(checkOrigin('https://app.example.com', ['https://app.example.com/']).ok).toBe(true);
    expect(checkOrigin('https://app.example.com:444', ['https://app.example.com']).ok).toBe(false);
  });
});

describe('bearer token', () => {
  const token = generateToken();

  it('is 256 random bits, URL-safe, different every time', () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateToken()).not.toBe(token);
  });

  it('accepts exactly "Bearer <token>"', () => {
    expect(checkBearer(`Bearer ${token}`, token)).toBe('ok');
    expect(checkBearer(`bearer ${token}`, token)).toBe('ok');
    expect(checkBearer(undefined, token)).toBe('missing');
    expect(checkBearer(token, token)).toBe('missing');
    expect(checkBearer(`Basic ${token}`, token)).toBe('missing');
    expect(checkBearer(`Bearer ${token}x`, token)).toBe('wrong');
    expect(checkBearer(`Bearer ${token.slice(1)}`, token)).toBe('wrong');
    expect(checkBearer(`Bearer ${token} extra`, token)).toBe('missing');
  });

  it('knows which bind addresses are loopback', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) {
      expect(isLoopbackAddress(h), h).toBe(true);
    }
    for (const h of ['0.0.0.0', '::', '192.168.1.2', 'example.com']) {
      expect(isLoopbackAddress(h), h).toBe(false);
    }
  });
});
