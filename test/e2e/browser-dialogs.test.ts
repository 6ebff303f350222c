/**
 * A web page's own dialogs (alert, confirm) in Firefox ESR and Chromium: opened by a
 * background click on a page button, seen in the walk with their message, and answered by
 * a click on their button. The oracle is the page (test/fixtures/web/secret.html): once its
 * dialog returns it writes the outcome into its title, read here from the X server's window
 * list with xwininfo (not through AT-SPI, not through our summary).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { launchChromium, launchFirefox } from '../../src/harness/browser.js';
import { packageRoot, Session, type CallResult } from '../../src/harness/session.js';
import { browserPerSuite } from './helpers/browser-suite.js';
import { describeNeeding, file } from './helpers/needs.js';
import { windowList, windowTitled } from './helpers/windows.js';

const PAGE = `file://${path.join(packageRoot(), 'test', 'fixtures', 'web', 'secret.html')}`;
const FIREFOX = file('/usr/bin/firefox-esr', 'firefox-esr');
const CHROMIUM = file('/usr/bin/chromium', 'chromium');

let session: Session;

beforeAll(async () => {
  session = await Session.start();
}, 60_000);

afterAll(async () => {
  await session?.close();
});

async function ok(tool: string, args: Record<string, unknown>): Promise<CallResult> {
  const r = await session.call(tool, args);
  expect(r.isError, r.text).toBe(false);
  return r;
}

/** Walks `pid` until its tree file holds `text` (a dialog still opening), within 20 s. */
async function treeWith(pid: number, text: string): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const r = await ok('ax_get_tree', { app: pid });
    const tree = fs.readFileSync(r.fields.file, 'utf8');
    if (tree.includes(text) || Date.now() > deadline) {
      return tree;
    }
    await new Promise((res) => setTimeout(res, 500));
  }
}

/**
 * Waits until the page is in `pid`'s accessibility tree. The window's title comes from the
 * page before the browser has sent the page's tree to AT-SPI (Chromium builds it only once
 * an assistive technology asks), so a title alone does not say its buttons can be found.
 */
async function pageShown(pid: number): Promise<void> {
  await windowTitled(session, 'axpage secret fixture', 30_000);
  const r = await ok('ax_wait_for', { app: pid, query: 'button:Show alert', timeout_ms: 30_000 });
  expect(r.structured.satisfied, r.text).toBe(true);
}

/**
 * Alert then confirm, each opened by a background click and answered by clicking the
 * dialog's button (`okButton`, `cancelButton`: the browser's labels).
 */
function dialogTests(pid: () => number, buttons: { ok: string; cancel: string }): void {
  it('an alert is in the walk with its message, and a click on its button closes it', async () => {
    await pageShown(pid());
    await ok('ax_click', { app: pid(), query: 'button:Show alert' });
    const tree = await treeWith(pid(), 'Hello from the page');
    expect(tree).toContain('Hello from the page');
    await ok('ax_click', { app: pid(), query: `button:${buttons.ok}` });
    await windowTitled(session, 'alert closed', 30_000);
  }, 120_000);

  it('a confirm answered with its cancel button returns false to the page', async () => {
    await ok('ax_click', { app: pid(), query: 'button:Ask to confirm' });
    const tree = await treeWith(pid(), 'Proceed with the test?');
    expect(tree).toContain('Proceed with the test?');
    await ok('ax_click', { app: pid(), query: `button:${buttons.cancel}` });
    await windowTitled(session, 'confirmed=false', 30_000);
  }, 120_000);
}

describeNeeding([FIREFOX], 'Firefox: page dialogs', () => {
  const app = browserPerSuite(() => launchFirefox(session, PAGE));
  dialogTests(() => app().pid, { ok: 'OK', cancel: 'Cancel' });
});

/**
 * Chromium 1xx draws a page's dialog inside its window (a views bubble) but leaves it out
 * of its accessibility tree: no walk shows it, so no ax_click can answer it. The keyboard
 * does: Return accepts, Escape dismisses. The dialog is checked open by the page not having
 * returned from it yet (its title unchanged), and the confirm is accepted (a suppressed
 * confirm would return false on its own).
 */
describeNeeding([CHROMIUM], 'Chromium: page dialogs', () => {
  const app = browserPerSuite(() => launchChromium(session, PAGE));
  const pid = (): number => app().pid;

  it('an alert is answered with Return', async () => {
    await pageShown(pid());
    await ok('ax_click', { app: pid(), query: 'button:Show alert', delivery_mode: 'foreground' });
    // Still open a moment later: the page has not returned from alert(). No signal says
    // the bubble is up (Chromium leaves it out of AT-SPI), so this one check pauses; a
    // busy machine can only make it miss a suppressed dialog, not fail a working one.
    await new Promise((res) => setTimeout(res, 1000));
    expect(windowList(session)).not.toContain('"alert closed');
    await ok('ax_key_press', { app: pid(), key: 'Return' });
    await windowTitled(session, 'alert closed', 30_000);
  }, 120_000);

  it('a confirm accepted with Return returns true to the page', async () => {
    await ok('ax_click', {
      app: pid(),
      query: 'button:Ask to confirm',
      delivery_mode: 'foreground',
    });
    await new Promise((res) => setTimeout(res, 1000)); // as for the alert above
    expect(windowList(session)).not.toContain('"confirmed=');
    await ok('ax_key_press', { app: pid(), key: 'Return' });
    await windowTitled(session, 'confirmed=true', 30_000);
  }, 120_000);
});
