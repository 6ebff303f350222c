/**
 * Signals to processes a test started, by pid only, remembering which it stopped so that a
 * test failing half way leaves none of them stopped (call `continueAll` after the file).
 */
const stopped = new Set<number>();

/** Sends `sig` to `pid`; a process already gone is what a kill or continue wanted anyway. */
export function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
  if (sig === 'SIGSTOP') stopped.add(pid);
  if (sig === 'SIGCONT' || sig === 'SIGKILL') stopped.delete(pid);
}

/** Continues every process this file stopped and did not continue. */
export function continueAll(): void {
  for (const pid of stopped) signal(pid, 'SIGCONT');
}
