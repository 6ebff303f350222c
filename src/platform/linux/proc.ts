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

/** Live (non-zombie) descendants of `pid`: its children, their children, and so on. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  for (const e of entries) {
    const p = Number(e);
    if (!Number.isInteger(p) || p <= 0) continue;
    const st = procStat(p);
    if (!st || st.state === 'Z' || st.state === 'X') continue;
    const list = children.get(st.ppid);
    if (list) list.push(p);
    else children.set(st.ppid, [p]);
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const c of children.get(queue.shift() as number) ?? []) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

/**
 * Live (non-zombie) processes a session leader started, from one read of /proc: members of
 * its session or process group, which stay there when their parent exits (a launcher that
 * backgrounds a program and exits leaves it to init, still in the session), and every
 * descendant of the leader or of a member (one that left with setsid, too). The leader
 * itself is not listed.
 */
export function launchFamily(leader: number): number[] {
  const children = new Map<number, number[]>();
  const roots = [leader];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  for (const e of entries) {
    const p = Number(e);
    if (!Number.isInteger(p) || p <= 0) continue;
    const st = procStat(p);
    if (!st || st.state === 'Z' || st.state === 'X') continue;
    const list = children.get(st.ppid);
    if (list) list.push(p);
    else children.set(st.ppid, [p]);
    if (p !== leader && (st.session === leader || st.pgrp === leader)) roots.push(p);
  }
  const seen = new Set<number>(roots);
  for (let i = 0; i < roots.length; i++) {
    for (const c of children.get(roots[i]) ?? []) {
      if (seen.has(c)) continue;
      seen.add(c);
      roots.push(c);
    }
  }
  seen.delete(leader);
  return [...seen];
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
