/**
 * Process control on Linux: launches planned and spawned detached, processes followed
 * through /proc and ended by signal. The same under any display session: only the
 * environment a launch passes on differs.
 */
import type { LaunchedProcess, LaunchPlan, LaunchRequest, ProcessControl } from '../processes.js';
import * as launching from './launch.js';
import { ancestorsOf, descendants, launchFamily } from './proc.js';

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
    return ancestorsOf(pid);
  }
}
