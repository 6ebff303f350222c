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
 * Each process's parent as first seen (by pid and start time, so a reused pid is another
 * process), kept while it or a process below it runs: a helper that forks twice and
 * exits in between is re-parented to init, and its parent chain no longer leads to what
 * started it. Filled by sampling /proc whenever forebears are asked for (at most every
 * SAMPLE_EVERY_MS): what forked and exited between two samples is not seen (the
 * environment rule of ancestorsOf covers that).
 */
const firstParents = new Map<string, { pid: number; start: number }>();
let sampledAt = 0;
const SAMPLE_EVERY_MS = 200;
/** Most environment twins a daemonized process is given as forebears. */
const MAX_TWINS = 4;

const keyOf = (pid: number, start: number) => `${pid}:${start}`;

function sampleParents(now = Date.now()): void {
  if (now - sampledAt < SAMPLE_EVERY_MS) return;
  sampledAt = now;
  const live = liveProcesses();
  const alive = new Set<string>();
  for (const [pid, st] of live) {
    const key = keyOf(pid, st.start);
    alive.add(key);
    const parent = live.get(st.ppid);
    if (!firstParents.has(key) && st.ppid > 1 && parent) {
      firstParents.set(key, { pid: st.ppid, start: parent.start });
    }
  }
  // A gone process is kept while a process's remembered chain goes through it.
  const referenced = new Set([...firstParents.values()].map((p) => keyOf(p.pid, p.start)));
  for (const key of firstParents.keys()) {
    if (!alive.has(key) && !referenced.has(key)) firstParents.delete(key);
  }
}

/**
 * The parent a process has, or had as first seen when it was re-parented to init since:
 * the nearest forebear of its remembered chain that still runs (0: none).
 */
function parentOf(pid: number, st: ProcStat): number {
  const key = keyOf(pid, st.start);
  let at = firstParents.get(key);
  // Re-parented since first seen (to init, or to a subreaper): the first parent's chain.
  if (at !== undefined && at.pid !== st.ppid) {
    for (let hop = 0; at !== undefined && hop < 64; hop++) {
      const p = procStat(at.pid);
      if (p && p.start === at.start && p.state !== 'Z') return at.pid;
      at = firstParents.get(keyOf(at.pid, at.start));
    }
  }
  if (st.ppid <= 1) return 0;
  // The chain walked now is remembered too, whatever the last sample saw.
  if (!firstParents.has(key)) {
    const parent = procStat(st.ppid);
    if (parent) firstParents.set(key, { pid: st.ppid, start: parent.start });
  }
  return st.ppid;
}

/**
 * The processes `pid` descends from while they run, nearest first: its parent, the parent's
 * parent and so on up to init (through the parents first seen, for one re-parented to
 * init since), then the leader of its session when that still runs and is not among them
 * (a helper forked into the background lost its parent, not its session). A daemonized
 * process (its session's leader is gone: it forked, called setsid and forked again) also
 * gets the processes with its very environment that started before it, the last started
 * first: it inherited that environment from one of them, and nothing else tells which.
 * `below`: a process whose own forebears do not count (this server: what it launched is its
 * own, whoever started the server); the walk stops there, and no session leader is added.
 */
export function ancestorsOf(pid: number, below?: number): number[] {
  sampleParents();
  const own = procStat(pid);
  if (!own) return [];
  const out: number[] = [];
  for (let p = parentOf(pid, own); p > 1 && out.length < 64;) {
    if (p === below) return out;
    out.push(p);
    const st = procStat(p);
    p = st ? parentOf(p, st) : 0;
  }
  const leader = own.session;
  if (leader > 1 && leader !== pid && leader !== below && !out.includes(leader)) {
    // A pid given out again since is another process: it started after this one.
    const st = procStat(leader);
    if (st && st.state !== 'Z' && st.start <= own.start) out.push(leader);
    else out.push(...environmentTwins(pid, own, below).filter((p) => !out.includes(p)));
  }
  return out;
}

/** Live processes started before `pid` with byte-identical environments, last started first. */
function environmentTwins(pid: number, own: ProcStat, below?: number): number[] {
  const mine = environOf(pid);
  if (mine === undefined || mine.length === 0) return [];
  const twins: Array<{ pid: number; start: number }> = [];
  for (const [p, st] of liveProcesses()) {
    if (p === pid || p === below || p <= 1 || st.start > own.start) continue;
    const theirs = environOf(p);
    if (theirs !== undefined && theirs.equals(mine)) twins.push({ pid: p, start: st.start });
  }
  return twins
    .sort((a, b) => b.start - a.start)
    .slice(0, MAX_TWINS)
    .map((t) => t.pid);
}

function environOf(pid: number): Buffer | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`);
  } catch {
    return undefined;
  }
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
