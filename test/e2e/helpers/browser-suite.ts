/**
 * One browser for the tests of a describe block: started on its page before them,
 * stopped after (the Firefox and Chromium blocks of several e2e files share this).
 */
import { afterAll, beforeAll } from 'vitest';
import type { LaunchedApp } from '../../../src/desktop/apps.js';
import type { LaunchedBrowser } from '../../../src/harness/browser.js';

/** Call inside a describe block; the returned function gives the running browser's app. */
export function browserPerSuite(start: () => Promise<LaunchedBrowser>): () => LaunchedApp {
  let browser: LaunchedBrowser | undefined;
  beforeAll(async () => {
    browser = await start();
  }, 120_000);
  afterAll(async () => {
    await browser?.stop();
  });
  return () => {
    if (!browser) throw new Error('the browser did not start (see beforeAll)');
    return browser.app;
  };
}
