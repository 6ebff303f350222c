/**
 * Process bookkeeping for the desktop: liveness that ignores zombies (PID 1 in a container
 * often does not reap, so a killed daemon can linger as a zombie forever), identity checks
 * against pid reuse (a state file can outlive its processes by days), bounded polling, and
 * a stop sequence that only ever signals pids we recorded.
 */
import fs from 'node:fs';
import { procStat } from '../platform/linux/proc.js';
import { sleep } from '../model/timeout.js';

export { procStat };

/** A process the desktop started and owns. */
export interface RecordedPid {
  pid: number;
  name: string;
  /** /proc starttime (clock ticks since boot): tells our process apart from a reused pid. */
  start: number | null;
  /** The process leads its own process group; stopping it stops the whole group. */
  group?: boolean;
  /** The command line, for apps (informational). */
  cmd?: string[];
}

export function startTimeOf(pid: number): number | null {
  return procStat(pid)?.start ?? null;
}

/** Running (not a zombie, not dead) and, when `start` is known, the same process we started. */
export function isAlive(pid: number, start?: number | null): boolean {
  const st = procStat(pid);
  if (!st || st.state === 'Z' || st.state === 'X' || st.state === 'x') return false;
  return start == null || st.start === start;
}

/** Live (non-zombie) members of process group `pgid`. */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    const pid = Number(e);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const st = procStat(pid);
    if (st && st.pgrp === pgid && st.state !== 'Z' && st.state !== 'X') out.push(pid);
  }
  return out;
}

/** Children of `ppid` that are alive (used to find the a11y dbus-daemon of the bus launcher). */
export function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    const pid = Number(e);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const st = procStat(pid);
    if (st && st.ppid === ppid && st.state !== 'Z') out.push(pid);
  }
  return out;
}

export function commOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

export { pollUntil, sleep, WaitTimeoutError } from '../model/timeout.js';

/** Whether a recorded entry (or, for a group, any member of its group) is still running. */
function entryAlive(e: RecordedPid): boolean {
  if (e.group) {
    // Our leader still running, or leftovers of its group (e.g. a child it spawned).
    // A different process now owning the leader's pid means the group is not ours.
    const st = procStat(e.pid);
    if (st && st.state !== 'Z' && e.start != null && st.start !== e.start) return false;
    return groupMembers(e.pid).length > 0;
  }
  return isAlive(e.pid, e.start);
}

function signalEntry(e: RecordedPid, sig: NodeJS.Signals): void {
  try {
    if (e.group) {
      const st = procStat(e.pid);
      // Only while the pid is still ours (or gone, leaving just members of our group).
      if (st && st.state !== 'Z' && e.start != null && st.start !== e.start) return;
      process.kill(-e.pid, sig);
    } else if (isAlive(e.pid, e.start)) {
      process.kill(e.pid, sig);
    }
  } catch {
    // Already gone (ESRCH) or not ours to signal (EPERM): nothing more to do.
  }
}

export interface StopReport {
  /** Entries that exited after SIGTERM. */
  terminated: string[];
  /** Entries that needed SIGKILL. */
  killed: string[];
  /** Entries that were no longer running. */
  gone: string[];
  /** Entries still running after SIGKILL (should stay empty). */
  survivors: string[];
  ms: number;
}

/**
 * Stops recorded processes: SIGTERM to each, in reverse start order, then wait up to
 * `graceMs`; SIGKILL whatever is left and wait up to `killWaitMs`. Zombies count as gone.
 */
export async function stopRecorded(
  entries: RecordedPid[],
  opts: { graceMs?: number; killWaitMs?: number } = {},
): Promise<StopReport> {
  const t0 = performance.now();
  const label = (e: RecordedPid): string => `${e.name}(${e.pid})`;
  const report: StopReport = { terminated: [], killed: [], gone: [], survivors: [], ms: 0 };
  const running = [...entries].reverse().filter((e) => {
    if (entryAlive(e)) return true;
    report.gone.push(label(e));
    return false;
  });
  for (const e of running) signalEntry(e, 'SIGTERM');
  const waitAll = async (list: RecordedPid[], ms: number): Promise<RecordedPid[]> => {
    const deadline = Date.now() + ms;
    let left = list;
    while (left.length > 0 && Date.now() < deadline) {
      await sleep(10);
      left = left.filter(entryAlive);
    }
    return left;
  };
  const stubborn = await waitAll(running, opts.graceMs ?? 2000);
  for (const e of running) if (!stubborn.includes(e)) report.terminated.push(label(e));
  for (const e of stubborn) signalEntry(e, 'SIGKILL');
  const survivors = await waitAll(stubborn, opts.killWaitMs ?? 1000);
  for (const e of stubborn)
    (survivors.includes(e) ? report.survivors : report.killed).push(label(e));
  report.ms = Math.round(performance.now() - t0);
  return report;
}

/** The last `lines` lines of a log file ('' when unreadable), for error messages. */
export function logTail(file: string, lines = 15): string {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const len = Math.min(size, 16_384);
      const buf = Buffer.alloc(len);
      fs.readSync(fd, buf, 0, len, size - len);
      return buf.toString('utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}
