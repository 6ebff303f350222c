/**
 * The stdio protocol as a careless or hostile client sees it: raw lines into a real
 * `axpage serve`, replies read from its stdout. Malformed requests get JSON-RPC errors
 * (never silence), an oversized line is answered and skipped, and the server ends
 * cleanly on SIGHUP and when its stdout is gone.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/harness/session.js';

const servers: ChildProcessWithoutNullStreams[] = [];
const dirs: string[] = [];

function start(env: Record<string, string> = {}): {
  proc: ChildProcessWithoutNullStreams;
  replies: Array<Record<string, unknown>>;
  next: (id: unknown) => Promise<Record<string, unknown>>;
  send: (line: string) => void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
} {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-proto-'));
  dirs.push(out);
  const proc = spawn(process.execPath, [path.join(packageRoot(), 'dist', 'cli.js'), 'serve'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.tmpdir(), AXPAGE_OUT: out, ...env },
  });
  servers.push(proc);
  const replies: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  let buffer = '';
  proc.stdout.on('data', (d: Buffer) => {
    buffer += d.toString('utf8');
    let i;
    while ((i = buffer.indexOf('\n')) >= 0) {
      replies.push(JSON.parse(buffer.slice(0, i)) as Record<string, unknown>);
      buffer = buffer.slice(i + 1);
      waiters.splice(0).forEach((w) => w());
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const next = async (id: unknown): Promise<Record<string, unknown>> => {
    for (;;) {
      const found = replies.find((r) => r.id === id);
      if (found) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return { proc, replies, next, send: (line) => proc.stdin.write(line + '\n'), exited };
}

const init = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 't', version: '0' },
  },
});

afterEach(() => {
  for (const p of servers.splice(0))
    if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('malformed input', () => {
  it('answers a request with an id but a bad shape, and a line that is not JSON', async () => {
    const s = start();
    s.send(init);
    await s.next(0);
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 42 }));
    const bad = await s.next(7);
    expect((bad.error as { code: number }).code).toBe(-32600);
    expect((bad.error as { message: string }).message).toMatch(/not a valid JSON-RPC request/);
    s.send('{not json');
    const parseError = await s.next(null);
    expect((parseError.error as { code: number }).code).toBe(-32700);
    // Still serving.
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' }));
    expect(await s.next(8)).toMatchObject({ id: 8, result: {} });
  });

  it('answers a line over the size limit with its id, drops that line, and stays up', async () => {
    const s = start();
    s.send(init);
    await s.next(0);
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'ax_find', arguments: { query: 'x'.repeat(17 * 1024 * 1024) } },
    });
    s.send(huge);
    const reply = await s.next(9);
    expect((reply.error as { code: number }).code).toBe(-32600);
    expect((reply.error as { message: string }).message).toMatch(/over the \d+-byte limit/);
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'ping' }));
    expect(await s.next(10)).toMatchObject({ id: 10, result: {} });
  });
});

describe('ending', () => {
  it('ends cleanly on SIGHUP, as on SIGTERM', async () => {
    const s = start();
    s.send(init);
    await s.next(0);
    s.proc.kill('SIGHUP');
    expect(await s.exited).toEqual({ code: 0, signal: null });
  });

  it('ends cleanly when its stdout is gone (EPIPE)', async () => {
    const s = start();
    s.send(init);
    await s.next(0);
    s.proc.stdout.destroy();
    // Replies now hit a closed pipe.
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'ping' }));
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 12, method: 'tools/list' }));
    expect(await s.exited).toEqual({ code: 0, signal: null });
  });
});

describe('axpage serve options', () => {
  const cli = path.join(packageRoot(), 'dist', 'cli.js');
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const p = spawn(process.execPath, [cli, ...args], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.tmpdir() },
      });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      p.stdin.end();
      p.on('exit', (code) => resolve({ code, stdout, stderr }));
    });

  it('serve --help prints the options and starts nothing; unknown options are an error', async () => {
    const help = await run(['serve', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--mode MODE/);
    expect(help.stdout).toMatch(/\[AXPAGE_OUT\]/);
    const bogus = await run(['serve', '--port', '3000', '--bogus']);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toMatch(/unknown argument '--bogus'/);
    // An HTTP flag on a stdio server is an error too, not silently ignored.
    const portOnStdio = await run(['serve', '--port', '3000']);
    expect(portOnStdio.code).toBe(2);
    expect(portOnStdio.stderr).toMatch(/--port applies to the HTTP transport.*add --http/);
    expect(portOnStdio.stdout).toBe('');
    expect(bogus.stdout).toBe('');
  });

  it('read-only mode lists no tool that changes an app, and a mutating call is unknown', async () => {
    const s = start({ AXPAGE_MODE: 'read-only' });
    s.send(init);
    await s.next(0);
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    const tools = (
      (await s.next(1)).result as {
        tools: Array<{ name: string; annotations: { destructiveHint: boolean } }>;
      }
    ).tools;
    expect(tools.length).toBeGreaterThan(5);
    expect(tools.map((t) => t.name)).not.toContain('ax_click');
    expect(tools.filter((t) => t.annotations.destructiveHint)).toEqual([]);
    s.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'ax_type', arguments: { text: 'x' } },
      }),
    );
    const reply = await s.next(2);
    expect(JSON.stringify(reply)).toMatch(/not found|unknown tool/i);
  });

  it('records every mutating call in audit.jsonl (0600), never the typed text', async () => {
    const s = start();
    s.send(init);
    await s.next(0);
    s.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'ax_type', arguments: { app: 'nothing-here', text: 'hunter2-secret' } },
      }),
    );
    await s.next(3);
    const out = dirs[dirs.length - 1];
    const file = path.join(out, 'audit.jsonl');
    const written = () => fs.existsSync(file) && fs.readFileSync(file, 'utf8').endsWith('\n');
    for (let i = 0; i < 100 && !written(); i++) await new Promise((r) => setTimeout(r, 20));
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain('hunter2');
    const line = JSON.parse(text.trim().split('\n')[0]) as Record<string, unknown>;
    expect(line).toMatchObject({ tool: 'ax_type', outcome: 'error' });
    expect(line.args).toMatchObject({ app: 'nothing-here', text: { masked: 'withheld' } });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });
});
