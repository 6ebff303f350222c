/**
 * `axpage view [dir | session log] [--port N]`: serves a run's pairs to a browser on this
 * machine and prints the URL to open (with its token). It opens nothing by itself and
 * runs until SIGINT or SIGTERM.
 */
import { resolveArtifactDir } from '../capture/index.js';
import { AxError } from '../errors.js';
import { Run } from '../view/index.js';
import { startViewServer } from '../view/server.js';

const USAGE = `usage: axpage view [DIR | SESSION_LOG] [--port N]
  Serves the calls of a run (its session log, else the pairs in its artifact dir) to a
  browser on this machine: each call's screenshot with its elements' boxes, the diff, the
  summary and the tree file. Prints the URL to open (it carries a token made for this run); opens
  nothing. Loopback only, read-only. Stop it with Ctrl-C.
  DIR           an artifact dir (default: $AXPAGE_OUT, else <tmpdir>/axpage-<uid>)
  SESSION_LOG   one of its session-*.jsonl logs
  --port N      listen on port N (default: a free one)`;

export interface ViewArgs {
  target?: string;
  port: number;
}

export class ViewArgsError extends Error {}

export function parseViewArgs(argv: readonly string[]): ViewArgs | { help: true } {
  let target: string | undefined;
  let port = 0;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return { help: true };
    if (arg === '--port' || arg.startsWith('--port=')) {
      const raw = arg === '--port' ? argv[++i] : arg.slice('--port='.length);
      if (raw === undefined || !/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
        throw new ViewArgsError(`--port needs a port number (0-65535), got '${raw ?? ''}'`);
      }
      port = Number(raw);
    } else if (arg.startsWith('-')) throw new ViewArgsError(`unknown option '${arg}'`);
    else if (target === undefined) target = arg;
    else throw new ViewArgsError(`one dir or log at a time (got '${target}' and '${arg}')`);
  }
  return { target, port };
}

export async function runView(argv: readonly string[]): Promise<number> {
  let args: ViewArgs;
  try {
    const parsed = parseViewArgs(argv);
    if ('help' in parsed) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    args = parsed;
  } catch (err) {
    if (!(err instanceof ViewArgsError)) throw err;
    process.stderr.write(`axpage view: ${err.message}\n${USAGE}\n`);
    return 2;
  }
  let run: Run;
  try {
    run = await Run.open(args.target ?? resolveArtifactDir(process.env));
  } catch (err) {
    if (!(err instanceof AxError)) throw err;
    process.stderr.write(`axpage view: ${err.message}\n${err.hint ? `  ${err.hint}\n` : ''}`);
    return 2;
  }
  let server;
  try {
    server = await startViewServer({ source: run, port: args.port });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES') throw err;
    process.stderr.write(`axpage view: cannot listen on port ${args.port} (${code})\n`);
    return 2;
  }
  const where = run.source.log ?? run.dir;
  process.stdout.write(`axpage view: ${where}\n${server.url}\n`);
  const stop = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return new Promise<number>(() => undefined);
}
