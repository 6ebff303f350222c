/**
 * Firefox (Gecko): a click uses the action a web element offers (a <summary> opens with
 * its "expand"), a click on a text field focuses it, and text Firefox would ignore in the
 * background is refused naming the field's ref (never a bus path) with the foreground
 * route offered. The oracle is the page (test/fixtures/web/aim.html), which writes every
 * change into its title, read from the X11 window title with xprop.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { pollUntil } from '../../src/desktop/procs.js';
import { launchFirefox, type LaunchedBrowser } from '../../src/harness/browser.js';
import { packageRoot, Session } from '../../src/harness/session.js';

const PAGE = path.join(packageRoot(), 'test', 'fixtures', 'web', 'aim.html');

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

function x(args: string[]): string {
  return execFileSync('xprop', args, {
    env: { ...process.env, ...session.desktop.env },
    encoding: 'utf8',
    timeout: 10_000,
  });
}

function titles(pid: number): string[] {
  const list = x(['-root', '_NET_CLIENT_LIST']).match(/0x[0-9a-f]+/gi) ?? [];
  return list.flatMap((id) => {
    const props = x(['-id', id, '_NET_WM_PID', '_NET_WM_NAME']);
    if (!new RegExp(`_NET_WM_PID\\(CARDINAL\\) = ${pid}\\b`).test(props)) return [];
    const name = /_NET_WM_NAME\(UTF8_STRING\) = "(.*)"/.exec(props)?.[1];
    return name === undefined ? [] : [name];
  });
}

async function pageSays(title: string): Promise<void> {
  const pid = browser.app.pid;
  await pollUntil(() => titles(pid).some((t) => t.startsWith(title)) || null, {
    timeoutMs: 15_000,
    what: `a Firefox window titled "${title}" (titles: ${titles(pid).join(' | ')})`,
  });
}

describe('Firefox: clicks use the action the element offers', () => {
  it('a <summary> opens with its expand action in the background', async () => {
    const r = await session.call('ax_click', {
      app: browser.app.pid,
      query: 'More options',
    });
    expect(r.isError, r.text).toBe(false);
    await pageSays('more=true');
  });

  it('background text Firefox would ignore is refused by ref, with the foreground route', async () => {
    const r = await session.call('ax_type', {
      app: browser.app.pid,
      query: 'entry:Name',
      text: 'x',
    });
    expect(r.isError, r.text).toBe(true);
    expect(r.text).not.toMatch(/org\/a11y|:\d+\.\d+\//);
    expect(r.text).toMatch(/"Name" e\d+/);
    expect(r.text).toMatch(/delivery_mode: "foreground"/);
  });

  it('a click on the text field focuses it', async () => {
    const r = await session.call('ax_click', { app: browser.app.pid, query: 'entry:Name' });
    expect(r.isError, r.text).toBe(false);
    await pageSays('focus=name');
  });
});

describe('Firefox: a button with an absolutely placed block over its middle', () => {
  it('a foreground click on the button is refused by the page’s own hit test; nothing is clicked', async () => {
    const r = await session.call('ax_click', {
      app: browser.app.pid,
      query: 'button:"Under button"',
      delivery_mode: 'foreground',
    });
    expect(r.isError, r.text).toBe(true);
    expect(r.text).toMatch(/another element is drawn there/);
    // The block itself takes the click: the page lists clicks in order, so one that had
    // reached the button shows before it.
    const cover = await session.call('ax_click_at', {
      app: browser.app.pid,
      x: Number(/at \((\d+),/.exec(r.text)?.[1]),
      y: Number(/at \(\d+,(\d+)\)/.exec(r.text)?.[1]),
      delivery_mode: 'foreground',
    });
    expect(cover.isError, cover.text).toBe(false);
    await pageSays('clicks=cover');
  });
});
