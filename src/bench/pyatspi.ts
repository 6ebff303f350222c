/**
 * The pyatspi baseline as a long-lived child process (bench/pyatspi_walk.py), walked one
 * run at a time so its runs interleave with ours and both see the same machine load.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { packageRoot } from '../harness/session.js';

export const PYTHON = '/usr/bin/python3';

export function pyatspiScript(): string {
  return path.join(packageRoot(), 'bench', 'pyatspi_walk.py');
}

export interface PyWalk {
  ms: number;
  elements: number;
  with_extents: number;
}

export class PyatspiWalker {
  private readonly lines: AsyncIterator<string>;
  private stderr = '';

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    readonly appName: string,
    lines: AsyncIterator<string>,
  ) {
    this.lines = lines;
    child.stderr.on('data', (c: Buffer) => (this.stderr += c.toString()));
  }

  /** Starts the walker on the app with `pid`; resolves once it found the app. */
  static async start(
    pid: number,
    env: NodeJS.ProcessEnv,
    timeoutMs = 20_000,
  ): Promise<PyatspiWalker> {
    const script = pyatspiScript();
    if (!fs.existsSync(script)) throw new Error(`${script} is missing`);
    const child = spawn(PYTHON, [script, '--pid', String(pid)], { env, stdio: 'pipe' });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const first = await withTimeout(lines.next(), timeoutMs, () => child.kill()).catch(
      (err: Error) => {
        child.kill();
        throw new Error(`pyatspi walker did not start: ${err.message} ${stderr}`);
      },
    );
    if (first.done) throw new Error(`pyatspi walker exited: ${stderr.slice(-500)}`);
    const hello = JSON.parse(first.value) as { ready?: boolean; app?: string; error?: string };
    if (!hello.ready) {
      child.kill();
      throw new Error(`pyatspi walker: ${hello.error ?? first.value}`);
    }
    return new PyatspiWalker(child, hello.app ?? '?', lines);
  }

  /** One timed walk, keeping libatspi's cache or clearing it first. */
  async walk(clear: boolean, timeoutMs = 30_000): Promise<PyWalk> {
    this.child.stdin.write(clear ? 'walk clear\n' : 'walk\n');
    const line = await withTimeout(this.lines.next(), timeoutMs, () => this.child.kill());
    if (line.done) throw new Error(`pyatspi walker exited: ${this.stderr.slice(-500)}`);
    const r = JSON.parse(line.value) as PyWalk & { error?: string };
    if (r.error) throw new Error(`pyatspi walker: ${r.error}`);
    return r;
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.child.stdin.end();
    await withTimeout(exited, 2000, () => undefined).catch(() => {
      this.child.kill();
    });
  }
}

export function withTimeout<T>(p: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`timed out after ${ms} ms`));
    }, ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}
