/**
 * Chromium started the way its accessibility works on a headless X desktop: the renderer's
 * accessibility forced on (Chromium otherwise builds the web page's tree only once an
 * assistive technology it recognises asks), a fresh profile in a private temp dir (no
 * first-run dialogs, no keyring prompt), no GPU (Xvfb has none). Used by the e2e tests and
 * the bench; an Electron app takes the same `--force-renderer-accessibility` switch.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LaunchedApp, LaunchOptions } from '../desktop/apps.js';
import type { Session } from './session.js';

export const CHROMIUM = '/usr/bin/chromium';

/** The command-line switches for an accessible Chromium on `url` with profile `profileDir`. */
export function chromiumArgs(profileDir: string, url: string, asRoot: boolean): string[] {
  return [
    '--force-renderer-accessibility',
    `--user-data-dir=${profileDir}`,
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-gpu',
    '--password-store=basic',
    // Chromium refuses to start as root with its sandbox on (CI containers run as root);
    // --test-type keeps the "unsupported command-line flag" bar off the page.
    ...(asRoot ? ['--no-sandbox', '--test-type'] : []),
    url,
  ];
}

export interface LaunchedChromium {
  app: LaunchedApp;
  /** Stops Chromium and removes its temporary profile. */
  stop(): Promise<void>;
}

/** Launches Chromium on `url` into the session's desktop, with a throwaway profile. */
export async function launchChromium(
  session: Session,
  url: string,
  opts: LaunchOptions = {},
): Promise<LaunchedChromium> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-chromium-'));
  const asRoot = process.getuid?.() === 0;
  try {
    const app = await session.launch(CHROMIUM, chromiumArgs(profile, url, asRoot), {
      name: 'chromium',
      // A cold Chromium on a loaded 2-core machine takes several seconds to register.
      timeoutMs: 60_000,
      ...opts,
    });
    return {
      app,
      stop: async () => {
        await app.stop().catch(() => undefined);
        fs.rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (err) {
    fs.rmSync(profile, { recursive: true, force: true });
    throw err;
  }
}
