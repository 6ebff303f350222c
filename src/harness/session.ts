/**
 * A real axpage session for the demo, the end-to-end tests and the benchmark: a headless
 * desktop of our own, apps launched into it, and `axpage serve` driven by the MCP SDK's
 * client over stdio, exactly as an agent's client would.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDesktop, type HeadlessDesktop, type StartOptions } from '../desktop/headless.js';
import type { LaunchedApp, LaunchOptions } from '../desktop/apps.js';
import type { StopReport } from '../desktop/procs.js';
import { startSway, type SwaySession, type SwayStartOptions } from '../desktop/sway.js';
import { parseSummary, type ParsedSummary } from './summary-parse.js';

export interface CallResult extends ParsedSummary {
  text: string;
  structured: Record<string, unknown>;
  isError: boolean;
  images: Array<{ data: string; mimeType: string }>;
  /** Wall time of the call as the client saw it. */
  ms: number;
}

/** What the session needs of a desktop: the headless X desktop, or a headless sway. */
export interface HarnessDesktop {
  processEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
  launch(cmd: string, args?: string[], opts?: LaunchOptions): Promise<LaunchedApp>;
  release(): void;
  stop(): Promise<StopReport>;
}

export interface SessionOptions {
  desktop?: StartOptions;
  /** Artifact dir for the server (AXPAGE_OUT); default: a fresh 0700 temp dir. */
  artifactDir?: string;
  /** Extra environment for the server. */
  serverEnv?: Record<string, string>;
  /** Server stderr goes here (default: collected, shown on failures). */
  onServerLog?: (chunk: string) => void;
}

/** The package root (where package.json and dist/ live), from src/ or dist/. */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('cannot find the axpage package root');
    dir = up;
  }
  return dir;
}

export function fixtureApp(name: string): string {
  return path.join(packageRoot(), 'test', 'fixtures', 'apps', name);
}

export class Session<D extends HarnessDesktop = HeadlessDesktop> {
  readonly serverLog: string[] = [];
  private readonly apps: LaunchedApp[] = [];

  private constructor(
    readonly desktop: D,
    readonly client: Client,
    readonly artifactDir: string,
    private readonly ownArtifactDir: boolean,
  ) {}

  static async start(opts: SessionOptions = {}): Promise<Session> {
    return Session.serve(await startDesktop(opts.desktop), opts);
  }

  /** As start, on a headless sway (Wayland) session instead of the X desktop. */
  static async startSway(
    opts: Omit<SessionOptions, 'desktop'> & { sway?: SwayStartOptions } = {},
  ): Promise<Session<SwaySession>> {
    return Session.serve(await startSway(opts.sway), opts);
  }

  /** Runs `axpage serve` in `desktop` and connects an MCP client to it. */
  private static async serve<D extends HarnessDesktop>(
    desktop: D,
    opts: Omit<SessionOptions, 'desktop'>,
  ): Promise<Session<D>> {
    try {
      const own = opts.artifactDir === undefined;
      const artifactDir = opts.artifactDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-run-'));
      const cli = path.join(packageRoot(), 'dist', 'cli.js');
      if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [cli, 'serve'],
        env: {
          ...(desktop.processEnv() as Record<string, string>),
          AXPAGE_OUT: artifactDir,
          ...opts.serverEnv,
        },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'axpage-harness', version: '0' });
      const session = new Session<D>(desktop, client, artifactDir, own);
      transport.stderr?.on('data', (chunk: Buffer) => {
        const text = chunk.toString();
        session.serverLog.push(text);
        opts.onServerLog?.(text);
      });
      await client.connect(transport);
      return session;
    } catch (err) {
      await desktop.stop().catch(() => undefined);
      throw err;
    }
  }

  async launch(cmd: string, args: string[] = [], opts: LaunchOptions = {}): Promise<LaunchedApp> {
    const app = await this.desktop.launch(cmd, args, opts);
    this.apps.push(app);
    return app;
  }

  /**
   * Launch one of our fixture apps (test/fixtures/apps/<name>) with its stdout piped, and
   * wait for the ready line it prints once its window is mapped. AT-SPI can show the window
   * before that line is read, and a caller counting the app's events from here on must not
   * find `ready` among them.
   */
  async launchFixture(
    name: string,
    args: string[] = [],
    opts: LaunchOptions = {},
  ): Promise<LaunchedApp> {
    const app = await this.launch('/usr/bin/python3', [fixtureApp(name), ...args], {
      stdio: 'pipe',
      ...opts,
    });
    if (app.output && (opts.waitFor ?? 'window') === 'window') {
      await app.output.waitForEvent((e) => e.event === 'ready', {
        timeoutMs: opts.timeoutMs ?? 15_000,
      });
    }
    return app;
  }

  async call(tool: string, args: Record<string, unknown> = {}): Promise<CallResult> {
    const t0 = performance.now();
    const result = await this.client.callTool({ name: tool, arguments: args });
    const ms = performance.now() - t0;
    const content = (result.content ?? []) as Array<{
      type: string;
      text?: string;
      data?: string;
      mimeType?: string;
    }>;
    const text = content
      .filter((c) => c.type === 'text')
      .map((c) => c.text ?? '')
      .join('\n');
    const images = content
      .filter((c) => c.type === 'image')
      .map((c) => ({ data: c.data ?? '', mimeType: c.mimeType ?? '' }));
    return {
      ...parseSummary(text),
      text,
      structured: (result.structuredContent ?? {}) as Record<string, unknown>,
      isError: result.isError === true,
      images,
      ms,
    };
  }

  /** Close the client and server but leave the desktop and its apps running. */
  async detach(): Promise<void> {
    await this.client.close().catch(() => undefined);
    this.desktop.release();
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
    for (const app of this.apps.reverse()) await app.stop().catch(() => undefined);
    await this.desktop.stop().catch(() => undefined);
    if (this.ownArtifactDir && process.env.AXPAGE_KEEP_ARTIFACTS !== '1') {
      fs.rmSync(this.artifactDir, { recursive: true, force: true });
    }
  }
}
