/**
 * What a process costs, read from /proc: resident memory, open file descriptors and CPU
 * time. For the soak section, which watches the server process over many calls.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** Resident set size in MiB (VmRSS of /proc/<pid>/status); NaN once the process is gone. */
export function rssMiB(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return kb ? Number(kb[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Open file descriptors (entries of /proc/<pid>/fd); NaN once the process is gone. */
export function openFds(pid: number): number {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return NaN;
  }
}

let ticksPerSecond: number | undefined;

/** The kernel's clock ticks per second (what /proc/<pid>/stat counts CPU time in). */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User + system CPU seconds the process has used so far; NaN once it is gone. */
export function cpuSeconds(pid: number): number {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return NaN;
  }
  // The command name is in parentheses and may hold spaces: count fields after its ')'.
  // There, index 0 is field 3 (state); utime and stime are fields 14 and 15.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / clockTicks();
}

/** One reading of memory and descriptors. */
export interface Footprint {
  rssMiB: number;
  fds: number;
}

export function footprint(pid: number): Footprint {
  return { rssMiB: rssMiB(pid), fds: openFds(pid) };
}

/** Percent of one core the process used over `ms` from now (sleeps that long). */
export async function cpuPercentOver(pid: number, ms: number): Promise<number> {
  const c0 = cpuSeconds(pid);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, ms));
  const c1 = cpuSeconds(pid);
  return ((c1 - c0) / ((performance.now() - t0) / 1000)) * 100;
}
