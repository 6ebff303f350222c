/**
 * The floor of an action: a minimal pyatspi client (bench/pyatspi_act.py) doing the same
 * action on the same app and polling the one element that shows its effect. A long-lived
 * child process, so its runs interleave with our MCP calls and see the same machine load.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { packageRoot } from '../harness/session.js';
import { PYTHON, withTimeout } from './pyatspi.js';

export interface FloorStep {
  /** The element acted on (a key given to `find`). */
  key: string;
  do: 'action' | 'mouse' | 'focus' | 'insert' | 'keys' | 'value' | 'key' | 'scroll';
  arg?: string;
  /** The element whose reading shows the effect (default: `key`). */
  watch?: string;
  read?: 'states' | 'text' | 'value' | 'name';
  /** Read once after the step instead of polling (an action expected to change nothing). */
  once?: boolean;
}

export interface FloorRun {
  ms: number;
  changed: boolean[];
}

export class PyatspiActor {
  private stderr = '';

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly lines: AsyncIterator<string>,
  ) {
    child.stderr.on('data', (c: Buffer) => (this.stderr += c.toString()));
  }

  static async start(
    pid: number,
    env: NodeJS.ProcessEnv,
    timeoutMs = 20_000,
  ): Promise<PyatspiActor> {
    const script = path.join(packageRoot(), 'bench', 'pyatspi_act.py');
    if (!fs.existsSync(script)) throw new Error(`${script} is missing`);
    const child = spawn(PYTHON, [script, '--pid', String(pid)], { env, stdio: 'pipe' });
    const actor = new PyatspiActor(
      child,
      createInterface({ input: child.stdout })[Symbol.asyncIterator](),
    );
    const hello = await actor.answer(timeoutMs).catch((err: Error) => {
      child.kill();
      throw err;
    });
    if (!hello.ready) {
      child.kill();
      throw new Error(`pyatspi actor: ${JSON.stringify(hello)}`);
    }
    return actor;
  }

  /** Keeps the first element with one of `roles` named (or whose text is) `name` as `key`. */
  async find(key: string, name: string, roles: string[]): Promise<void> {
    this.child.stdin.write(`${JSON.stringify({ op: 'find', key, name, roles })}\n`);
    await this.answer(30_000);
  }

  /** The steps one after another, each polled until its effect reads back (or `maxMs`). */
  async act(steps: FloorStep[], maxMs = 1000): Promise<FloorRun> {
    this.child.stdin.write(`${JSON.stringify({ op: 'act', steps, max_ms: maxMs })}\n`);
    return (await this.answer(30_000)) as unknown as FloorRun;
  }

  private async answer(timeoutMs: number): Promise<Record<string, unknown>> {
    const line = await withTimeout(this.lines.next(), timeoutMs, () => this.child.kill());
    if (line.done) throw new Error(`pyatspi actor exited: ${this.stderr.slice(-500)}`);
    const r = JSON.parse(line.value) as Record<string, unknown>;
    if (typeof r.error === 'string') throw new Error(`pyatspi actor: ${r.error}`);
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
