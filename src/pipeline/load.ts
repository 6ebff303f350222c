/** How busy the machine is, for waits whose bound grows with the load. */
import os from 'node:os';

/** Runnable tasks per CPU over the last minute (1: every CPU busy). */
export function loadPerCpu(): number {
  return os.loadavg()[0] / Math.max(1, os.availableParallelism());
}

/** `least` ms, times the run queue per CPU when the CPUs are busy; never past `most`. */
export function boundForLoad(least: number, most: number, load = loadPerCpu()): number {
  const factor = Math.max(1, Number.isFinite(load) ? load : 1);
  return Math.round(Math.min(most, least * factor));
}
