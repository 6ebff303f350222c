/**
 * Settings of a real `axpage serve` over stdio, no desktop needed: `--tools` registers
 * only the allowed tools (a left-out one cannot be called), `--config` reads a JSON file
 * under the environment and the flags, and bad settings stop the server at start with a
 * message naming them.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { packageRoot } from '../../src/harness/session.js';
import { startServeClient, type ServeClient } from '../../src/harness/serve-client.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-settings-'));
const out = path.join(dir, 'out');
const cli = path.join(packageRoot(), 'dist', 'cli.js');
const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.tmpdir(), AXPAGE_OUT: out };
const started: ServeClient[] = [];

afterEach(async () => {
  for (const s of started.splice(0)) await s.close();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function serve(args: string[], env: Record<string, string> = {}): Promise<ServeClient> {
  const s = await startServeClient({
    name: 'settings-test',
    args,
    env: { ...baseEnv, ...env },
    onStderr: () => undefined,
  });
  started.push(s);
  return s;
}

/** A server that must refuse to start: its exit code and stderr. */
function refused(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [cli, 'serve', ...args], {
    env: { ...baseEnv, ...env },
    input: '',
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { code: r.status, stderr: r.stderr };
}

function configFile(name: string, content: unknown): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, JSON.stringify(content));
  return f;
}

/** Calling a tool the server did not register: a protocol error or an error result. */
async function callFails(s: ServeClient, tool: string): Promise<string> {
  try {
    const r = await s.call(tool, { app: 'anything', query: 'OK' });
    expect(r.isError).toBe(true);
    return r.text;
  } catch (err) {
    return String(err);
  }
}

it('--tools with names lists only those, and a tool left out cannot be called', async () => {
  const s = await serve(['--tools', 'ax_is_accessible,ax_find']);
  expect((await s.toolNames()).sort()).toEqual(['ax_find', 'ax_is_accessible']);
  expect(await callFails(s, 'ax_click')).toMatch(/ax_click.*not found|not found.*ax_click/i);
  // A listed tool still answers (no desktop here: it says what is missing).
  const ok = await s.call('ax_is_accessible');
  expect(ok.structured).toMatchObject({ enabled: false });
});

it('--tools -name leaves out only that tool', async () => {
  const all = await (await serve([])).toolNames();
  const s = await serve(['--tools=-ax_click,-ax_type']);
  const names = await s.toolNames();
  expect(all).toContain('ax_click');
  expect(names.sort()).toEqual(all.filter((n) => n !== 'ax_click' && n !== 'ax_type').sort());
});

it('an unknown tool name stops the server at start and lists the known ones', () => {
  const r = refused(['--tools', 'ax_find,ax_clik']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/unknown tool ax_clik; the tools are /);
  for (const known of ['ax_click', 'ax_find', 'ax_get_tree']) expect(r.stderr).toContain(known);
});

it('--config reads a JSON file; the environment and flags win over it', async () => {
  const f = configFile('tools.json', { tools: ['ax_is_accessible', 'ax_list_apps'] });
  const s = await serve(['--config', f]);
  expect((await s.toolNames()).sort()).toEqual(['ax_is_accessible', 'ax_list_apps']);
  const byEnv = await serve([], { AXPAGE_CONFIG: f, AXPAGE_TOOLS: 'ax_is_accessible' });
  expect(await byEnv.toolNames()).toEqual(['ax_is_accessible']);
  const byFlag = await serve(['--config', f, '--tools', 'ax_find'], {
    AXPAGE_TOOLS: 'ax_list_apps',
  });
  expect(await byFlag.toolNames()).toEqual(['ax_find']);
});

it('a config file with an unknown key or a bad value stops the server, naming file and key', () => {
  const typo = configFile('typo.json', { 'max-dept': 3 });
  const r = refused(['--config', typo]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(`config file ${typo}: unknown key "max-dept"`);
  const bad = configFile('bad.json', { screenshots: 'sometimes' });
  const b = refused([], { AXPAGE_CONFIG: bad });
  expect(b.code).toBe(2);
  expect(b.stderr).toContain(
    `config file ${bad}: "screenshots": "sometimes" is not one of off, file, inline`,
  );
});

it('--transport http with a bad port is refused; --help lists --config, --tools and --http', () => {
  const r = refused(['--transport', 'http', '--port', '70000']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/--port 70000 is not a whole number from 0 to 65535/);
  const help = spawnSync(process.execPath, [cli, 'serve', '--help'], { encoding: 'utf8' });
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/--config FILE/);
  expect(help.stdout).toMatch(/--tools LIST/);
  expect(help.stdout).toMatch(/--http .*--transport http/);
});
