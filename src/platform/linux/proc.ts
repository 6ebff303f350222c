/** Reading /proc: process state, parents and descendants (Linux only). */
import fs from 'node:fs';

export interface ProcStat {
  state: string;
  ppid: number;
  pgrp: number;
  /** The session id: the pid of the session's leader (a process started with setsid). */
  session: number;
  start: number;
}

/** Parsed /proc/<pid>/stat, or null when there is no such process. */
export function procStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // The command name is in parentheses and may itself contain spaces or ')'.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    state: f[0],
    ppid: Number(f[1]),
    pgrp: Number(f[2]),
    session: Number(f[3]),
    start: Number(f[19]),
  };
}

/** Whether /proc says the process is stopped or traced; null when it cannot tell (no such pid). */
export function stoppedProcess(pid: number): boolean | null {
  const stat = procStat(pid);
  if (!stat) return null;
  return isFrozenState(stat.state);
}

/** 'T' stopped (SIGSTOP, SIGTSTP), 't' stopped by a tracer (a debugger at a breakpoint). */
export function isFrozenState(state: string): boolean {
  return state === 'T' || state === 't';
}

/** Live (non-zombie) processes, from one read of /proc: each by pid, with its stat. */
function liveProcesses(): Map<number, ProcStat> {
  const out = new Map<number, ProcStat>();
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = Number(e);
    if (!Number.isInteger(p) || p <= 0) continue;
    const st = procStat(p);
    if (st && st.state !== 'Z' && st.state !== 'X') out.set(p, st);
  }
  return out;
}

/** `roots`, then everything below them (children, their children...), each once. */
function withDescendants(live: Map<number, ProcStat>, roots: number[]): Set<number> {
  const children = new Map<number, number[]>();
  for (const [p, st] of live) children.set(st.ppid, [...(children.get(st.ppid) ?? []), p]);
  const seen = new Set<number>(roots);
  const queue = [...roots];
  for (let i = 0; i < queue.length; i++) {
    for (const c of children.get(queue[i]) ?? []) {
      if (seen.has(c)) continue;
      seen.add(c);
      queue.push(c);
    }
  }
  return seen;
}

/** Live (non-zombie) descendants of `pid`: its children, their children, and so on. */
export function descendants(pid: number): number[] {
  const all = withDescendants(liveProcesses(), [pid]);
  all.delete(pid);
  return [...all];
}

/**
 * Live (non-zombie) processes a session leader started, from one read of /proc: members of
 * its session or process group, which stay there when their parent exits (a launcher that
 * backgrounds a program and exits leaves it to init, still in the session), and every
 * descendant of the leader or of a member (one that left with setsid, too). The leader
 * itself is not listed.
 */
export function launchFamily(leader: number): number[] {
  const live = liveProcesses();
  const members = [...live]
    .filter(([p, st]) => p !== leader && (st.session === leader || st.pgrp === leader))
    .map(([p]) => p);
  const all = withDescendants(live, [leader, ...members]);
  all.delete(leader);
  return [...all];
}

/**
 * The processes `pid` descends from while they run, nearest first: its parent, the parent's
 * parent and so on up to init, then the leader of its session when that still runs and is
 * not among them (a helper forked into the background lost its parent, not its session).
 * `below`: a process whose own forebears do not count (this server: what it launched is its
 * own, whoever started the server); the walk stops there, and no session leader is added.
 */
export function ancestorsOf(pid: number, below?: number): number[] {
  const own = procStat(pid);
  if (!own) return [];
  const out: number[] = [];
  for (let p = own.ppid; p > 1 && out.length < 64; p = procStat(p)?.ppid ?? 0) {
    if (p === below) return out;
    out.push(p);
  }
  const leader = own.session;
  if (leader > 1 && leader !== pid && leader !== below && !out.includes(leader)) {
    // A pid given out again since is another process: it started after this one.
    const st = procStat(leader);
    if (st && st.state !== 'Z' && st.start <= own.start) out.push(leader);
  }
  return out;
}

/**
 * The real executable file a process runs (/proc/<pid>/exe), whatever name it registered
 * or was started by; undefined when unknown (gone, or another user's).
 */
export function executableOf(pid: number): string | undefined {
  try {
    // A binary replaced or removed since it started reads "<path> (deleted)".
    return fs.readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, '');
  } catch {
    return undefined;
  }
}
