/**
 * What every benchmark section shares: the session (desktop + `axpage serve` over stdio),
 * the two apps, the backend opened directly in this process, and a record of every MCP
 * call's summary size.
 */
import fs from 'node:fs';
import type { LaunchedApp } from '../desktop/apps.js';
import type { CallResult, Session } from '../harness/session.js';
import type { LinuxDesktop } from '../platform/linux/index.js';

export interface BenchContext {
  session: Session;
  /** The Linux backend in this process, on the session's desktop (not the server's). */
  backend: LinuxDesktop;
  factory: LaunchedApp;
  demo: LaunchedApp;
  /** Summary bytes of every call made through `call`, by tool. */
  summaryBytes: Map<string, number[]>;
  /** An MCP call that also records its summary size; a tool error throws with its text. */
  call(tool: string, args?: Record<string, unknown>): Promise<CallResult>;
}

export function makeCall(
  session: Session,
  summaryBytes: Map<string, number[]>,
): BenchContext['call'] {
  return async (tool, args = {}) => {
    const r = await session.call(tool, args);
    const list = summaryBytes.get(tool) ?? [];
    list.push(Buffer.byteLength(r.text));
    summaryBytes.set(tool, list);
    if (r.isError) throw new Error(`${tool} ${JSON.stringify(args)} failed:\n${r.text}`);
    return r;
  };
}

/** What a tree file's header says about the call that wrote it. */
export interface TreeHeader {
  /** The snapshot id (s1, s2a, …) as a number: the server's running snapshot counter. */
  snapshotSeq: number;
  elements: number;
  /** The walk of the snapshot in the file. */
  walkMs: number;
  actMs?: number;
  settleMs?: number;
  settleReason?: string;
}

export function readHeader(file: string): TreeHeader {
  const head = readHead(file);
  const snap = /snapshot: s([0-9a-z]+)/.exec(head);
  const els = /^# elements: (\d+) .*?elapsed: ([0-9.]+) ms/m.exec(head);
  if (!snap || !els) throw new Error(`${file}: no snapshot/elements header`);
  const action = /^# action: .*$/m.exec(head)?.[0] ?? '';
  const act = /act: ([0-9.]+) ms/.exec(action);
  const settle = /settle: ([0-9.]+) ms(?: \(([^)]*)\))?/.exec(action);
  return {
    snapshotSeq: parseInt(snap[1], 36),
    elements: Number(els[1]),
    walkMs: Number(els[2]),
    actMs: act ? Number(act[1]) : undefined,
    settleMs: settle ? Number(settle[1]) : undefined,
    settleReason: settle?.[2],
  };
}

/** The header lines (everything before `# tree` or the diff's element lines). */
function readHead(file: string): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(4096);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** The element lines of a tree file's `# tree` section (the app's tree after the call). */
export function treeSection(text: string): string[] {
  const lines = text.split('\n');
  const start = lines.indexOf('# tree');
  if (start < 0) return [];
  const endRel = lines.slice(start + 1).findIndex((l) => l.startsWith('# app_switch:'));
  const end = endRel < 0 ? lines.length : start + 1 + endRel;
  return lines.slice(start + 1, end).filter((l) => l.trim() !== '');
}

/** A ref from a tree file or summary line (` e42 `). */
export function refOf(line: string): string | undefined {
  return /(?:^|\s)(e[0-9]+)(?:\s|$|:)/.exec(line)?.[1];
}
