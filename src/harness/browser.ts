/**
 * Browsers started the way their accessibility works on a headless X desktop. Chromium: the renderer's
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

export const FIREFOX = '/usr/bin/firefox-esr';

/** Firefox's switches for `url` with profile `profileDir` (a private instance, no remote). */
export function firefoxArgs(profileDir: string, url: string): string[] {
  return ['-no-remote', '-profile', profileDir, '--new-instance', url];
}

export interface LaunchedBrowser {
  app: LaunchedApp;
  /** Stops the browser and removes its temporary profile. */
  stop(): Promise<void>;
}

/** Launches Chromium on `url` into the session's desktop, with a throwaway profile. */
export function launchChromium(
  session: Session,
  url: string,
  opts: LaunchOptions = {},
): Promise<LaunchedBrowser> {
  const asRoot = process.getuid?.() === 0;
  return withProfile('axpage-chromium-', (profile) =>
    session.launch(CHROMIUM, chromiumArgs(profile, url, asRoot), {
      name: 'chromium',
      // A cold Chromium on a loaded 2-core machine takes several seconds to register.
      timeoutMs: 60_000,
      ...opts,
    }),
  );
}

/**
 * Launches Firefox ESR on `url` with a throwaway profile: accessibility on
 * (GNOME_ACCESSIBILITY, which Gecko reads at start), no crash reporter (its window would
 * be another app answering to "Firefox").
 */
export function launchFirefox(
  session: Session,
  url: string,
  opts: LaunchOptions = {},
): Promise<LaunchedBrowser> {
  return withProfile('axpage-firefox-', (profile) =>
    session.launch(FIREFOX, firefoxArgs(profile, url), {
      name: 'firefox',
      timeoutMs: 90_000,
      ...opts,
      env: { MOZ_CRASHREPORTER_DISABLE: '1', GNOME_ACCESSIBILITY: '1', ...opts.env },
    }),
  );
}

/** Starts a browser on a fresh profile dir, removed when it stops or fails to start. */
async function withProfile(
  prefix: string,
  start: (profile: string) => Promise<LaunchedApp>,
): Promise<LaunchedBrowser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  try {
    const app = await start(profile);
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
