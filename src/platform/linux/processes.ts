/**
 * Process control on Linux: launches planned and spawned detached, processes followed
 * through /proc and ended by signal. The same under any display session: only the
 * environment a launch passes on differs.
 */
import type { LaunchedProcess, LaunchPlan, LaunchRequest, ProcessControl } from '../processes.js';
import * as launching from './launch.js';
import { descendants, launchFamily, procStat } from './proc.js';

export class LinuxProcesses implements ProcessControl {
  constructor(private readonly env: NodeJS.ProcessEnv) {}

  async planLaunch(request: LaunchRequest): Promise<LaunchPlan> {
    return launching.planLaunch(request, this.env);
  }

  launch(plan: LaunchPlan): Promise<LaunchedProcess> {
    return launching.spawnDetached(plan, this.env);
  }

  async isRunning(pid: number): Promise<boolean> {
    return launching.isRunning(pid);
  }

  async terminate(pid: number, kill = false): Promise<void> {
    launching.terminate(pid, kill ? 'SIGKILL' : 'SIGTERM');
  }

  async childProcesses(pid: number): Promise<number[]> {
    return descendants(pid);
  }

  async launchFamily(leader: number): Promise<number[]> {
    return launchFamily(leader);
  }

  async ancestors(pid: number): Promise<number[]> {
    const out: number[] = [];
    for (let p = procStat(pid)?.ppid; p && p > 1 && out.length < 64; p = procStat(p)?.ppid) {
      out.push(p);
    }
    // A helper that forked into the background lost its parent, not its session.
    const leader = procStat(pid)?.session;
    if (leader && leader > 1 && leader !== pid && !out.includes(leader)) out.push(leader);
    return out;
  }
}
