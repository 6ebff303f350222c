/**
 * A wheel aimed at a list that scrolls inside a web page goes over the list, not over the
 * middle of the page around it; a <select> option chosen in the background is said to
 * reach the page without its change event. The oracle is the page (test/fixtures/web/scroll-list.html),
 * which writes what scrolled into its title, read from the X11 window title with xprop.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../../src/desktop/procs.js';
import { launchFirefox, type LaunchedBrowser } from '../../src/harness/browser.js';
import { packageRoot, Session } from '../../src/harness/session.js';
import { describeNeeding, program } from './helpers/needs.js';

const PAGE = path.join(packageRoot(), 'test', 'fixtures', 'web', 'scroll-list.html');

describeNeeding([program('firefox-esr', 'firefox-esr')], 'Firefox: a list inside a page', () => {
  let session: Session;
  let browser: LaunchedBrowser;

  beforeAll(async () => {
    session = await Session.start();
    browser = await launchFirefox(session, `file://${PAGE}`);
  }, 120_000);

  afterAll(async () => {
    await browser?.stop();
    await session?.close();
  });

  function titles(): string[] {
    const x = (args: string[]): string =>
      execFileSync('xprop', args, {
        env: { ...process.env, ...session.desktop.env },
        encoding: 'utf8',
        timeout: 10_000,
      });
    const list = x(['-root', '_NET_CLIENT_LIST']).match(/0x[0-9a-f]+/gi) ?? [];
    return list.flatMap((id) => {
      const props = x(['-id', id, '_NET_WM_PID', '_NET_WM_NAME']);
      if (!new RegExp(`_NET_WM_PID\\(CARDINAL\\) = ${browser.app.pid}\\b`).test(props)) return [];
      const name = /_NET_WM_NAME\(UTF8_STRING\) = "(.*)"/.exec(props)?.[1];
      return name === undefined ? [] : [name];
    });
  }

  describe('a <select> option chosen in the background', () => {
    it('takes, and the summary says the page got no change event', async () => {
      const r = await session.call('ax_click', { app: browser.app.pid, query: 'Blue' });
      expect(r.isError, r.text).toBe(false);
      const title = await pollUntil(
        () => titles().find((t) => /^(change|value) Blue/.test(t)) ?? null,
        { timeoutMs: 15_000, what: `a title saying Blue was chosen (${titles().join(' | ')})` },
      );
      expect(title).toMatch(/^value Blue without change/);
      expect(r.text).toMatch(/without firing the page's change event/);
      expect(r.text).toMatch(/delivery_mode "foreground"/);
    });
  });

  describe('ax_scroll in the foreground', () => {
    it('wheels over the list named, which scrolls, and not over the page', async () => {
      const r = await session.call('ax_scroll', {
        app: browser.app.pid,
        query: 'Cities',
        direction: 'down',
        delivery_mode: 'foreground',
      });
      expect(r.isError, r.text).toBe(false);
      const title = await pollUntil(
        () => titles().find((t) => /^(list|page) scrolled/.test(t)) ?? null,
        { timeoutMs: 15_000, what: `a title saying what scrolled (${titles().join(' | ')})` },
      );
      expect(title).toMatch(/^list scrolled [1-9]/);
      expect(r.text).toMatch(/over \[AXList\] e\d+/);
    });
  });
});
