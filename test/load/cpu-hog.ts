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

const HOG = 'while read -r _ _ _ parent _ < /proc/$$/stat && [ "$parent" = "$PPID" ]; do :; done';

export default function setup(): () => void {
  const hogs: ChildProcess[] = [];
  for (let i = 0; i < hogCount(); i++) {
    // Busy until stopped, or until this process is gone: a run killed even by SIGKILL
    // leaves no loop behind, as each one stops once it is no longer our child (its parent
    // in /proc changes; a dead parent's pid may linger as a zombie, so kill -0 would not do).
    const hog = spawn('/bin/sh', ['-c', HOG], { stdio: 'ignore' });
    hog.on('error', (err) => console.log(`load run: a busy loop did not start: ${err.message}`));
    hogs.push(hog);
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
  process.once('exit', stop);
  return () => {
    stop();
    console.log(`load run: busy loops ${pids.join(' ')} stopped`);
  };
}
