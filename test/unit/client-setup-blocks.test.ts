/**
 * The client configuration blocks of docs/client-setup.md, read as a person pastes them:
 * each JSON block parses, names the axpage server started by npx, and every variable it
 * puts in `env` is a setting the server reads (a renamed one would fail here, not in a
 * user's client). The Codex TOML block and the Claude Code command line say the same.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config.js';
import { packageRoot } from '../../src/harness/session.js';

const DOC = fs.readFileSync(path.join(packageRoot(), 'docs', 'client-setup.md'), 'utf8');
const blocks = (lang: string): string[] =>
  [...DOC.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);
const KNOWN = new Set(SETTINGS.map((s) => s.env).filter(Boolean));

interface Entry {
  type?: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
}

describe('client configuration blocks', () => {
  const json = blocks('json').map((text) => JSON.parse(text) as Record<string, unknown>);

  it('parse, and start axpage through npx with settings the server knows', () => {
    const entries = json.map((b) => {
      const servers = (b.mcpServers ?? b.servers) as Record<string, Entry> | undefined;
      expect(servers, JSON.stringify(b)).toBeDefined();
      return servers!.axpage;
    });
    expect(entries.length).toBeGreaterThanOrEqual(3);
    for (const e of entries) {
      expect(e.command).toBe('npx');
      expect(e.args).toContain('axpage');
      for (const key of Object.keys(e.env ?? {})) expect(KNOWN, key).toContain(key);
    }
  });

  it('give VS Code its own key and a server type', () => {
    const vscode = json.find((b) => 'servers' in b) as { servers: Record<string, Entry> };
    expect(vscode.servers.axpage.type).toBe('stdio');
  });

  it('name only known settings in the Codex block and the Claude Code command', () => {
    const toml = blocks('toml').join('\n');
    expect(toml).toMatch(/^\s*\[mcp_servers\.axpage\]$/m);
    for (const [, key] of toml.matchAll(/(\w+) = "/g)) {
      if (key.startsWith('AXPAGE_')) expect(KNOWN, key).toContain(key);
    }
    const claude = /claude mcp add axpage (.*?) -- npx -y axpage/.exec(DOC);
    expect(claude).not.toBeNull();
    for (const [, key] of claude![1].matchAll(/-e (\w+)=/g)) expect(KNOWN, key).toContain(key);
  });
});
