#!/usr/bin/env node
/**
 * axpage command line:
 *   axpage [serve]                 MCP server on stdio (what MCP clients run)
 *   axpage serve --http            MCP server over Streamable HTTP
 *   axpage desktop up|run|down|env|status   a headless desktop of our own
 *   axpage demo                    the main job on an embedded default
 *   axpage replay <log>            run a recorded session again, step by step
 *   axpage record                  record what a person does as ax_workflow steps
 *   axpage view [dir | log]        see a run's pairs in a browser on this machine
 */
import { loadConfig, ConfigError, parseServeArgs, serveHelp } from './config.js';
import { applyHeapGrowth } from './heap-growth.js';

const USAGE = `usage: axpage [serve] [options]  run the MCP server on stdio (axpage serve --help)
       axpage serve --http [--port N] [--host H] [--token T]   the MCP server over HTTP
       axpage desktop up|run|down|env|status [...]   headless desktop (see axpage desktop --help)
       axpage demo [--keep]         bring up a headless desktop, drive a GTK demo through a real MCP client
       axpage replay <log> [--from N] [--stop-on-diff]   run a session log again, say where the app differs
       axpage record [--app NAME] [--out FILE] [--limit-seconds N]   record what you do as ax_workflow steps (Ctrl+C stops)
       axpage view [dir | session log] [--port N]   see a run pair by pair in a browser (prints the URL)
       axpage --version | --help`;

async function main(argv: string[]): Promise<number> {
  // `axpage --mode safe` is `axpage serve --mode safe`: MCP configs often leave out `serve`.
  const flagsFirst = argv[0]?.startsWith('--') && !['--version', '--help'].includes(argv[0]);
  const [command = 'serve', ...rest] = flagsFirst ? ['serve', ...argv] : argv;
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'desktop': {
      const { runDesktopCommand } = await import('./cli/desktop.js');
      return runDesktopCommand(rest);
    }
    case 'demo': {
      const { runDemo } = await import('./demo/demo.js');
      return runDemo(rest);
    }
    case 'replay': {
      const { runReplay } = await import('./cli/replay.js');
      return runReplay(rest);
    }
    case 'record': {
      const { runRecord } = await import('./cli/record.js');
      return runRecord(rest);
    }
    case 'view': {
      const { runView } = await import('./cli/view.js');
      return runView(rest);
    }
    case '--version':
    case '-v': {
      const { createRequire } = await import('node:module');
      const pkg = createRequire(import.meta.url)('../package.json') as { version: string };
      process.stdout.write(`${pkg.version}\n`);
      return 0;
    }
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    default:
      process.stderr.write(`axpage: unknown command '${command}'\n${USAGE}\n`);
      return 2;
  }
}

async function serve(args: string[]): Promise<number> {
  let config;
  try {
    const { help, flags } = parseServeArgs(args);
    if (help) {
      process.stdout.write(`${serveHelp()}\n`);
      return 0;
    }
    // The tool names, for `--tools`: loaded after --help, which needs none of the server.
    const { allTools } = await import('./tools/index.js');
    config = loadConfig(process.env, flags, { knownTools: allTools.map((t) => t.name) });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`axpage: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  applyHeapGrowth(config.heapGrowthPercent);
  await takeSessionEnvironment();
  await releaseStrayInput();
  if (config.transport === 'http') {
    const { serveOverHttp } = await import('./cli/serve-http.js');
    return serveOverHttp(config);
  }
  const [{ LineTransport }, { createServer }, { openDesktop, platformProblem }] = await Promise.all(
    [import('./transport/stdio.js'), import('./server.js'), import('./platform/index.js')],
  );
  const problem = await platformProblem();
  if (problem) process.stderr.write(`axpage: ${problem}\n`);
  const handle = createServer(() => openDesktop(), config);
  const transport = new LineTransport();
  let closing: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    closing ??= handle.close().catch((err: unknown) => {
      process.stderr.write(`axpage: error while closing: ${String(err)}\n`);
    });
    return closing;
  };
  // The SDK's stdio transport does not end on stdin EOF; open D-Bus connections would
  // keep the process alive after the client has gone.
  const stop = () => void shutdown().then(() => process.exit(0));
  process.stdin.on('end', stop);
  // The transport closes when stdout is gone (EPIPE): the client will not read again.
  transport.onclose = stop;
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, stop);
  await handle.server.connect(transport);
  return new Promise<number>(() => undefined);
}

/** A client that left the desktop session out of the environment: the server finds it. */
async function takeSessionEnvironment(): Promise<void> {
  const { fillSessionEnvironment } = await import('./platform/index.js');
  const note = await fillSessionEnvironment();
  if (note) process.stderr.write(`axpage: ${note}\n`);
}

/**
 * A server killed mid-typing leaves a key down, which X auto-repeats into whatever window
 * has the focus until someone releases it: the next server on the display does, first.
 */
async function releaseStrayInput(): Promise<void> {
  try {
    const { desktopName, releaseStrayInput: release } = await import('./platform/index.js');
    const desktop = desktopName();
    if (desktop === undefined) return;
    const n = await release();
    if (n > 0) {
      process.stderr.write(
        `axpage: released ${n} key(s) or button(s) an axpage process that was killed left held on ${desktop}\n`,
      );
    }
  } catch {
    // No display to reach yet: the first call that needs one says why.
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(
      `axpage: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exitCode = 1;
  },
);
