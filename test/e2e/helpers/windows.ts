import { execFileSync } from 'node:child_process';
import { pollUntil } from '../../../src/desktop/procs.js';
import type { Session } from '../../../src/harness/session.js';

/** The desktop's X window tree with titles, as xwininfo lists it (not our code). */
export function windowList(session: Session): string {
  return execFileSync('xwininfo', ['-root', '-tree'], {
    env: session.desktop.processEnv() as NodeJS.ProcessEnv,
    encoding: 'utf8',
    timeout: 10_000,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

/** Waits until a top-level X window's title starts with `title` (xwininfo, not our code). */
export async function windowTitled(session: Session, title: string, timeoutMs = 60_000) {
  // A window that goes away while xwininfo lists the tree fails that listing: ask again.
  const list = (): string => {
    try {
      return windowList(session);
    } catch {
      return '';
    }
  };
  await pollUntil(() => list().includes(`"${title}`) || null, {
    timeoutMs,
    what: `a window titled "${title}"`,
  });
}
