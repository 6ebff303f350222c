import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTokenFile } from '../../src/cli/serve-http.js';
import { loadConfig, ConfigError } from '../../src/config.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-token-file-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function tokenFile(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text, { mode: 0o600 });
  return file;
}

describe('--token-file / AXPAGE_TOKEN_FILE', () => {
  it('is a setting of the HTTP transport, from the variable or the flag', () => {
    const env = loadConfig({ AXPAGE_TOKEN_FILE: '/run/secrets/t', AXPAGE_TRANSPORT: 'http' });
    expect(env.http.tokenFile).toBe('/run/secrets/t');
    const flag = loadConfig({}, { transport: 'http', 'token-file': '/x/t' });
    expect(flag.http.tokenFile).toBe('/x/t');
    expect(() => loadConfig({}, { 'token-file': '/x/t' })).toThrow(ConfigError);
  });

  it('reads a mounted secret as it is written: the final newline dropped', () => {
    expect(readTokenFile(tokenFile('nl', 'abcdefghijklmnop0123\n'))).toBe('abcdefghijklmnop0123');
    expect(readTokenFile(tokenFile('bare', '  abcdefghijklmnop0123'))).toBe('abcdefghijklmnop0123');
  });

  it('refuses a missing, empty, short or two-word file, naming the file and never the token', () => {
    const cases: Array<[string, RegExp]> = [
      [
        path.join(dir, 'absent'),
        /cannot read the token file .*absent \(ENOENT\); mount the secret/,
      ],
      [tokenFile('empty', '\n'), /is empty; put the token in it/],
      [tokenFile('short', 'shortsecret\n'), /is 11 characters; give at least 16/],
      [tokenFile('two', 'abcdefghijklmnop qrstuvwxyz012345\n'), /more than one word/],
    ];
    for (const [file, message] of cases) {
      let thrown: Error | undefined;
      try {
        readTokenFile(file);
      } catch (err) {
        thrown = err as Error;
      }
      expect(thrown?.message).toMatch(message);
      expect(thrown?.message).not.toMatch(/shortsecret|abcdefghijklmnop/);
    }
  });
});
