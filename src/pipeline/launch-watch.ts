/**
 * What a launch started is watched for programs the deny list names. The launch's chain is
 * checked before anything runs (policy.checkLaunch), but a launcher can start a program no
 * check saw: a script that runs `galculator &` and exits, a child that execs later. The
 * launched process leads a session of its own, and what it starts stays in that session
 * (or its process group) after the launcher exits: every member, and every descendant, is
 * checked by what it runs (policy.denies: its real executable, a copy or link of a denied
 * program), while the launch waits for its window and for as long as any of it runs after.
 * A denied one is stopped by its pid. Nothing in a reply names it: it is "a program this
 * server's policy denies".
 *
 * A process that leaves the session (setsid) after its parent has exited, before a look
 * saw it, is not followed: the deny list's runtime guards (denied.ts) still hide it.
 */
import type { Desktop } from '../platform/desktop.js';
import type { Policy } from '../guard/policy.js';

/** How often launches that go on running are looked at. */
const WATCH_EVERY_MS = 1000;
/** How long a stopped process may take to go after SIGTERM before it gets SIGKILL. */
const STOP_GRACE_MS = 1500;
const POLL_MS = 50;

export class LaunchWatch {
  /** Launched processes (session leaders) whose launch may still run something. */
  private readonly leaders = new Set<number>();
  private timer?: NodeJS.Timeout;
  private busy = false;

  constructor(
    private readonly desktop: () => Promise<Desktop>,
    private readonly policy: Policy,
    /** Where a stop made between calls is told (the server's log). */
    private readonly tell: (message: string) => void = (m) =>
      process.stderr.write(`axpage: ${m}\n`),
    private readonly everyMs = WATCH_EVERY_MS,
  ) {}

  /** Whether there is a deny list to watch for. */
  get active(): boolean {
    return this.policy.settings.denyApps.length > 0;
  }

  /** Everything the launch led by `leader` runs now: the leader (while it runs) and its family. */
  async family(desktop: Desktop, leader: number): Promise<number[]> {
    const own = (await desktop.isRunning(leader).catch(() => false)) ? [leader] : [];
    const family = desktop.launchFamily
      ? await desktop.launchFamily(leader).catch(() => [])
      : await desktop.childProcesses(leader).catch(() => []);
    return [...own, ...family];
  }

  /** Which of `pids` run a program the deny list names (none without a deny list). */
  denied(pids: Iterable<number>): number[] {
    if (!this.active) return [];
    return [...new Set(pids)].filter((pid) => this.policy.denies({ pid, name: '' }, 'process'));
  }

  /**
   * Stops `pids` by pid: SIGTERM, then SIGKILL for what still runs after a grace. Resolves
   * to those still running even then.
   */
  async stop(desktop: Desktop, pids: Iterable<number>): Promise<number[]> {
    const all = [...new Set(pids)];
    for (const pid of all) await desktop.terminate(pid).catch(() => undefined);
    const running = async (): Promise<number[]> => {
      const out: number[] = [];
      for (const pid of all) if (await desktop.isRunning(pid).catch(() => false)) out.push(pid);
      return out;
    };
    const end = Date.now() + STOP_GRACE_MS;
    let left = await running();
    while (left.length > 0 && Date.now() < end) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      left = await running();
    }
    for (const pid of left) await desktop.terminate(pid, true).catch(() => undefined);
    return left.length > 0 ? running() : [];
  }

  /** Goes on watching a launch whose app came up, for as long as any of it runs. */
  watch(leader: number): void {
    if (!this.active) return;
    this.leaders.add(leader);
    if (this.timer) return;
    this.timer = setInterval(() => void this.look(), this.everyMs);
    this.timer.unref();
  }

  /** One look at every watched launch: denied programs stopped, launches that ended dropped. */
  async look(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const desktop = await this.desktop();
      for (const leader of [...this.leaders]) {
        const family = await this.family(desktop, leader);
        if (family.length === 0) {
          this.leaders.delete(leader);
          continue;
        }
        const denied = this.denied(family);
        if (denied.length === 0) continue;
        const left = await this.stop(desktop, denied);
        this.tell(
          `stopped ${denied.length === 1 ? 'a program' : `${denied.length} programs`} this server's policy denies (pid ${denied.join(', ')}), started by what ax_launch_app launched as pid ${leader}` +
            (left.length > 0 ? `; still running after SIGKILL: pid ${left.join(', ')}` : ''),
        );
      }
    } catch {
      // No desktop now: the next look tries again.
    } finally {
      this.busy = false;
      if (this.leaders.size === 0) this.close();
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
