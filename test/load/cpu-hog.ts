/**
 * Vitest global setup for the load run: busy loops on every core, started before the
 * first test file and stopped by their pids after the last, however the run ended. The
 * files it runs must hold on a machine this busy (they wait on conditions, not on time).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';

/** How many busy loops: AXPAGE_LOAD_HOGS, else one per core. */
function hogCount(): number {
  const asked = Number(process.env.AXPAGE_LOAD_HOGS ?? '');
  return Number.isInteger(asked) && asked > 0 ? asked : os.availableParallelism();
}

export default function setup(): () => void {
  const hogs: ChildProcess[] = [];
  for (let i = 0; i < hogCount(); i++) {
    hogs.push(spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
  }
  const pids = hogs.map((h) => h.pid).filter((p): p is number => p !== undefined);
  console.log(`load run: ${pids.length} busy loops beside the tests, pids ${pids.join(' ')}`);
  const stop = (): void => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };
  // A run stopped by a signal still stops them (vitest's own teardown may not get to run).
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, stop);
  process.once('exit', stop);
  return () => {
    stop();
    console.log(`load run: busy loops ${pids.join(' ')} stopped`);
  };
}
