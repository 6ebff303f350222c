/**
 * `axpage record [--app NAME] [--out FILE] [--limit-seconds N]`: for a person at a
 * terminal. Records what they do in the app (the frontmost one when none is named) until
 * Ctrl+C or the limit, then prints the steps, ready for ax_workflow. The recording runs in
 * a server of this process, read through its recording resources as any client reads
 * them, so its pairs and session log land in the artifact dir like any run's (`axpage view`
 * shows them).
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { Client, InMemoryTransport } from '../harness/mcp.js';
import { DEFAULT_LIMIT_S, MAX_LIMIT_S, type RecordingResult } from '../record/recorder.js';

const USAGE = `usage: axpage record [--app NAME] [--out FILE] [--limit-seconds N]
  Records what you do in an app (default: the frontmost one) as steps an agent replays
  with ax_workflow. Stop with Ctrl+C; it stops by itself after --limit-seconds (default
  ${DEFAULT_LIMIT_S}). Prints {"steps": [...]} on stdout; --out FILE writes the whole
  recording (steps, password placeholders, the tree+PNG pair of each step) to FILE.
  Password fields' text is never recorded: their steps hold a placeholder to replace.`;

export interface RecordOptions {
  app?: string;
  out?: string;
  limitS: number;
}

export class RecordArgsError extends Error {}

export function parseRecordArgs(argv: string[]): RecordOptions | { help: true } {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        app: { type: 'string' },
        out: { type: 'string' },
        'limit-seconds': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new RecordArgsError((err as Error).message);
  }
  if (values.help) return { help: true };
  const raw = values['limit-seconds'];
  const limitS = raw === undefined ? DEFAULT_LIMIT_S : Number(raw);
  if (!/^\d+$/.test(raw ?? '0') || limitS < 1 || limitS > MAX_LIMIT_S) {
    throw new RecordArgsError(`--limit-seconds takes 1 to ${MAX_LIMIT_S}, not '${raw ?? ''}'`);
  }
  if (values.app !== undefined && values.app.trim() === '') {
    throw new RecordArgsError('--app needs a name, pid or window title');
  }
  return {
    ...(values.app !== undefined ? { app: values.app } : {}),
    ...(values.out !== undefined ? { out: values.out } : {}),
    limitS,
  };
}

/** How often the terminal asks whether the recording ended by itself. */
const STATUS_EVERY_MS = 500;

export async function runRecord(argv: string[]): Promise<number> {
  let opts;
  try {
    opts = parseRecordArgs(argv);
  } catch (err) {
    process.stderr.write(`axpage record: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if ('help' in opts) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [{ createServer }, { openDesktop }, { allTools }] = await Promise.all([
    import('../server.js'),
    import('../platform/index.js'),
    import('../tools/index.js'),
  ]);
  const config = loadConfig(process.env, {}, { knownTools: allTools.map((t) => t.name) });
  const handle = createServer(() => openDesktop(), config);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await handle.server.connect(serverSide);
  const client = new Client({ name: 'axpage-record', version: '0' });
  await client.connect(clientSide);
  const read = async (uri: string): Promise<string> => {
    const result = await client.readResource({ uri });
    return String((result.contents[0] as { text?: string } | undefined)?.text ?? '');
  };
  try {
    const query = new URLSearchParams({
      ...(opts.app !== undefined ? { app: opts.app } : {}),
      limit_seconds: String(opts.limitS),
    });
    const started = JSON.parse(await read(`axpage://recording/start?${query}`)) as {
      app: string;
      inputs: string;
    };
    process.stderr.write(
      `axpage record: recording ${started.app} (${started.inputs}); Ctrl+C stops, or it stops by itself after ${opts.limitS} s\n`,
    );
    await untilStopped(async () => {
      const status = JSON.parse(await read('axpage://recording/status')) as {
        recording: boolean;
      };
      return !status.recording;
    });
    const text = await read('axpage://recording/stop');
    const result = JSON.parse(text) as RecordingResult;
    if (opts.out !== undefined) {
      fs.writeFileSync(opts.out, `${text}\n`, { mode: 0o600 });
      fs.chmodSync(opts.out, 0o600);
    }
    process.stdout.write(`${JSON.stringify({ steps: result.steps }, null, 1)}\n`);
    const notes = [
      `${result.steps.length} step(s) in ${result.seconds} s`,
      result.note,
      ...result.secrets.map(
        (s) =>
          `step ${s.step} types into the password field ${s.field}: replace '${s.placeholder}'`,
      ),
      opts.out !== undefined ? `the whole recording is in ${opts.out}` : undefined,
    ].filter((n): n is string => n !== undefined);
    for (const n of notes) process.stderr.write(`axpage record: ${n}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`axpage record: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await client.close().catch(() => undefined);
    await handle.close().catch(() => undefined);
  }
}

/** Resolves on Ctrl+C (SIGINT), SIGTERM, or once `ended` says the recording ended itself. */
function untilStopped(ended: () => Promise<boolean>): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearInterval(timer);
      for (const s of ['SIGINT', 'SIGTERM'] as const) process.off(s, finish);
      resolve();
    };
    for (const s of ['SIGINT', 'SIGTERM'] as const) process.on(s, finish);
    const timer = setInterval(() => {
      ended().then(
        (yes) => (yes ? finish() : undefined),
        () => finish(),
      );
    }, STATUS_EVERY_MS);
  });
}
