/**
 * A launched app's log, handed on by a server that closed while the app ran on (see
 * src/pipeline/launch-log.ts): fd 3 and 4 are the app's stdout and stderr, fd 5 the log
 * file, and stdin brings the secrets the server knew and the file's path, as JSON, before
 * anything is relayed. What the file holds is masked again with those secrets first.
 * Ends when both pipes end (the app and whatever it started have gone).
 */
import { Socket } from 'node:net';
import { LaunchLog } from '../pipeline/launch-log.js';
import { SecretEchoes } from '../pipeline/secrets.js';
import { pipedOutput } from '../platform/linux/launch.js';

async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += String(chunk);
  const echoes = new SecretEchoes();
  const { secrets, path } = JSON.parse(input || '{}') as { secrets?: unknown; path?: unknown };
  if (Array.isArray(secrets)) for (const s of secrets) if (typeof s === 'string') echoes.add(s);
  // This process lives as long as the pipes do: it hands them to no one.
  const output = pipedOutput(
    [3, 4].map((fd) => new Socket({ fd, readable: true, writable: false })),
  );
  const log = new LaunchLog(typeof path === 'string' ? path : '', 5, echoes);
  log.remask();
  log.follow(output);
}

void main();
