/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) against the real
 * `axpage serve --http` on a headless desktop. The suite's CLI cannot send a bearer token,
 * so a loopback proxy adds it and forwards everything else unchanged (Host and Origin too:
 * the dns-rebinding-protection scenario still tests our server). Every server scenario
 * runs; the applicable ones must pass, and those listed in conformance-baseline.yml (not
 * applicable, with the reason) must fail, so the list cannot go stale.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDesktop, type HeadlessDesktop } from '../../src/desktop/headless.js';
import { packageRoot } from '../../src/harness/session.js';
import { startHttpServe, type HttpServeProcess } from '../../src/harness/http-serve.js';
import { startBearerProxy, type BearerProxy } from './helpers/bearer-proxy.js';

const TOKEN = 'conformance-token-0123456789';
const CLI = path.join(
  packageRoot(),
  'node_modules',
  '@modelcontextprotocol',
  'conformance',
  'dist',
  'index.js',
);
const BASELINE = path.join(packageRoot(), 'test', 'e2e', 'conformance-baseline.yml');

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  errorMessage?: string;
}

let desktop: HeadlessDesktop;
let server: HttpServeProcess;
let proxy: BearerProxy;
let dir: string;
let run: { code: number | null; output: string };

/** The conformance CLI, without blocking this process (the proxy runs in it). */
function conformance(
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** The server scenarios this version of the suite has (`conformance list`). */
async function serverScenarios(): Promise<string[]> {
  const { output } = await conformance(['list'], 60_000);
  const section = output.split(/^Client scenarios/m)[0].split(/^Server scenarios.*$/m)[1] ?? '';
  return [...section.matchAll(/^\s*-\s+(\S+)\s*$/gm)].map((m) => m[1]);
}

function baseline(): string[] {
  const text = fs.readFileSync(BASELINE, 'utf8');
  return [...text.matchAll(/^\s+-\s+([\w-]+)/gm)].map((m) => m[1]);
}

/** Each scenario's checks, from the result dirs the CLI wrote (server-<scenario>-<time>). */
function results(): Map<string, Check[]> {
  const byScenario = new Map<string, Check[]>();
  for (const entry of fs.readdirSync(dir)) {
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    if (!m) continue;
    const checks = JSON.parse(fs.readFileSync(path.join(dir, entry, 'checks.json'), 'utf8'));
    byScenario.set(m[1], checks as Check[]);
  }
  return byScenario;
}

const scenarios = await serverScenarios();
const notApplicable = new Set(baseline());

beforeAll(async () => {
  desktop = await startDesktop();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-conformance-'));
  server = await startHttpServe({
    env: {
      ...(desktop.processEnv() as Record<string, string>),
      AXPAGE_OUT: path.join(dir, 'artifacts'),
      AXPAGE_TOKEN: TOKEN,
      // The CLI opens a session (or more) per scenario and never ends one: room for all.
      AXPAGE_MAX_SESSIONS: String(4 * scenarios.length),
    },
  });
  proxy = await startBearerProxy(server.url, TOKEN);
  run = await conformance(
    [
      'server',
      '--url',
      proxy.url,
      '--suite',
      'all',
      '--expected-failures',
      BASELINE,
      '-o',
      path.join(dir, 'results'),
    ],
    600_000,
  );
  dir = path.join(dir, 'results');
}, 700_000);

afterAll(async () => {
  await proxy?.close();
  await server?.stop();
  await desktop?.stop().catch(() => undefined);
  if (dir) fs.rmSync(path.dirname(dir), { recursive: true, force: true });
});

it('the suite has server scenarios, and the baseline names only real ones', () => {
  expect(scenarios.length).toBeGreaterThan(10);
  for (const name of notApplicable) expect(scenarios, name).toContain(name);
});

it('the conformance CLI accepts the run against its baseline (exit 0)', () => {
  expect(run.code, run.output.slice(-4000)).toBe(0);
});

describe('every server scenario', () => {
  it.each(scenarios)('%s', (scenario) => {
    const checks = results().get(scenario);
    expect(checks, `no results for ${scenario}:\n${run.output.slice(-2000)}`).toBeDefined();
    const failed = (checks ?? []).filter((c) => c.status === 'FAILURE');
    if (notApplicable.has(scenario)) {
      expect(failed.length, `${scenario} passes now: take it out of the baseline`).toBeGreaterThan(
        0,
      );
    } else {
      expect(failed, JSON.stringify(failed, null, 2)).toEqual([]);
      expect(checks?.some((c) => c.status === 'SUCCESS')).toBe(true);
    }
  });
});

it('the server is still up after the whole suite', () => {
  expect(server.alive()).toBe(true);
});
