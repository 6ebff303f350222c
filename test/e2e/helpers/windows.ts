import { execFileSync } from 'node:child_process';
import { pollUntil } from '../../../src/desktop/procs.js';
import type { Session } from '../../../src/harness/session.js';

/** Waits until a top-level X window's title starts with `title` (xwininfo, not our code). */
export async function windowTitled(session: Session, title: string, timeoutMs = 60_000) {
  const env = session.desktop.processEnv() as NodeJS.ProcessEnv;
  // A window that goes away while xwininfo lists the tree fails that listing: ask again.
  const list = (): string => {
    try {
      return execFileSync('xwininfo', ['-root', '-tree'], {
        env,
        encoding: 'utf8',
        timeout: 10_000,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch {
      return '';
    }
  };
  await pollUntil(() => list().includes(`"${title}`) || null, {
    timeoutMs,
    what: `a window titled "${title}"`,
  });
}
