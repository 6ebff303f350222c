/**
 * A secret that went into an ordinary field (a paste of a denied app's clipboard, or of a
 * copy from a password field) comes back wherever the app echoes it: a status line, the
 * window title and its title bar, a list row, a field the app fills later. None of it may
 * reach a result, a file or a PNG. And a password store's copy that lands late stays
 * secret whatever copies and writes came in between. Oracles: the fixtures' own logs (what
 * the app did), the files in the artifact dir, the PNG's pixels read back by sharp.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { Session } from '../../src/harness/session.js';
import { sessionPerSuite } from './helpers/suite-session.js';
import { coloursIn, decodePng } from './helpers/pixels.js';

const SECRET = 'EchoSecret-4242';

/** Every file the server wrote that holds the secret (trees, logs; PNGs are checked by pixel). */
function filesHolding(dir: string, secret: string): string[] {
  const out: string[] = [];
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, name);
    if (fs.statSync(file).isFile() && fs.readFileSync(file).includes(secret)) out.push(name);
  }
  return out;
}

type Where = { frame: [number, number, number, number]; client: [number, number] };

/** Pastes the clipboard into the echoing app's search box; its event once echoed. */
async function pasteInto(session: Session, echo: LaunchedApp) {
  const focus = await session.call('ax_click', {
    app: echo.pid,
    query: 'Search',
    delivery_mode: 'foreground',
  });
  expect(focus.isError, focus.text).toBe(false);
  const paste = await session.call('ax_key_press', {
    app: echo.pid,
    key: 'v',
    modifiers: ['ctrl'],
  });
  expect(paste.isError, paste.text).toBe(false);
  const changed = await echo.output!.waitForEvent(
    (e) => e.event === 'changed' && e.length === SECRET.length,
    { timeoutMs: 15_000 },
  );
  return { paste, where: changed as unknown as Where };
}

/** Every read of the echoing app, then nothing of the secret anywhere. */
async function readsShowNothing(
  session: Session,
  echo: LaunchedApp,
  first: string[],
  where: Where,
) {
  const texts = [...first];
  for (const [tool, args] of [
    ['ax_get_tree', { app: echo.pid }],
    ['ax_find', { app: echo.pid, query: 'Recent' }],
    ['ax_list_windows', { app: echo.pid }],
    ['ax_get_value', { app: echo.pid, query: 'Title' }],
    ['ax_list_apps', {}],
  ] as const) {
    const r = await session.call(tool, args);
    texts.push(r.text, JSON.stringify(r.fields));
  }
  const shot = await session.call('ax_screenshot', { app: echo.pid, full_screen: true });
  expect(shot.isError, shot.text).toBe(false);
  texts.push(shot.text);
  for (const text of texts) expect(text).not.toContain(SECRET);
  expect(filesHolding(session.artifactDir, SECRET)).toEqual([]);
  // The title bar (the decorations above the client area) is filled: one flat colour.
  const [x, y, w] = where.frame;
  const bar = { x: x + 1, y: y + 1, w: w - 2, h: where.client[1] - y - 2 };
  expect(bar.h).toBeGreaterThan(4);
  const png = await decodePng(String(shot.fields.screenshot));
  expect(coloursIn(png, { x: 0, y: 0 }, bar)).toBe(1);
}

describe("a denied app's clipboard pasted into a search box that echoes it", () => {
  const get = sessionPerSuite({ serverEnv: { AXPAGE_DENY_APPS: 'vault_clip.py' } });

  it('shows the secret in no result, file or title bar', async () => {
    const session = get();
    const echo = await session.launchFixture('echo_search.py', []);
    const vault = await session.launchFixture('vault_clip.py', [], {
      env: { AXPAGE_FIXTURE_SECRET: SECRET, AXPAGE_FIXTURE_COPY_AT_START: '1' },
    });
    await vault.output!.waitForEvent((e) => e.event === 'copied', { timeoutMs: 15_000 });
    const { paste, where } = await pasteInto(session, echo);
    await readsShowNothing(session, echo, [paste.text], where);
    await vault.stop();
    await echo.stop();
  });
});

describe('safe mode: a copy from beside a password field pasted into a search box that echoes it', () => {
  const get = sessionPerSuite({ serverEnv: { AXPAGE_MODE: 'safe' } });

  it('shows the secret nowhere, in a field the app fills later either', async () => {
    const session = get();
    const echo = await session.launchFixture('echo_search.py', [], {
      env: { AXPAGE_FIXTURE_DEBOUNCE: '700' },
    });
    const vault = await session.launchFixture('vault_clip.py', [], {
      env: { AXPAGE_FIXTURE_SECRET: SECRET, AXPAGE_FIXTURE_COPY_LABEL: 'Copy' },
    });
    for (const query of ['User', 'button:Copy']) {
      const r = await session.call('ax_click', { app: vault.pid, query });
      expect(r.isError, r.text).toBe(false);
    }
    await vault.output!.waitForEvent((e) => e.event === 'copied', { timeoutMs: 15_000 });
    const { paste, where } = await pasteInto(session, echo);
    // The app fills "Title" from the search text a while after the paste.
    await echo.output!.waitForEvent((e) => e.event === 'filled', { timeoutMs: 15_000 });
    await readsShowNothing(session, echo, [paste.text], where);
    await vault.stop();
    await echo.stop();
  });
});

describe('a secret echoed in upper case, and shown by another app never looked at', () => {
  const get = sessionPerSuite({ serverEnv: { AXPAGE_DENY_APPS: 'vault_clip.py' } });

  it('is masked in results and files, and filled in a full-screen capture', async () => {
    const session = get();
    const echo = await session.launchFixture('echo_search.py', [], {
      env: { AXPAGE_FIXTURE_UPPER: '1' },
    });
    const viewer = await session.launchFixture('echo_search.py', [], {
      env: { AXPAGE_FIXTURE_SHOWS_CLIPBOARD: '1', AXPAGE_FIXTURE_AT: '700,420' },
    });
    const vault = await session.launchFixture('vault_clip.py', [], {
      env: { AXPAGE_FIXTURE_SECRET: SECRET, AXPAGE_FIXTURE_COPY_AT_START: '1' },
    });
    await vault.output!.waitForEvent((e) => e.event === 'copied', { timeoutMs: 15_000 });
    const { paste, where } = await pasteInto(session, echo);
    await readsShowNothing(session, echo, [paste.text], where);
    for (const text of [paste.text]) expect(text).not.toContain(SECRET.toUpperCase());
    // The other app shows the clipboard by itself: no call has looked at it.
    process.kill(viewer.pid, 'SIGUSR1');
    const got = await viewer.output!.waitForEvent((e) => e.event === 'got', { timeoutMs: 15_000 });
    const shot = await session.call('ax_screenshot', { app: echo.pid, full_screen: true });
    expect(shot.isError, shot.text).toBe(false);
    expect(shot.text).not.toContain(SECRET);
    // Its title bar is filled where it is: nothing moved, so the window is not filled whole.
    expect(shot.text).not.toMatch(/filled whole: they moved/);
    const [x, y, w, h] = got.rect as number[];
    const png = await decodePng(String(shot.fields.screenshot));
    expect(coloursIn(png, { x: 0, y: 0 }, { x: x + 1, y: y + 1, w: w - 2, h: h - 2 })).toBe(1);
    expect(filesHolding(session.artifactDir, SECRET)).toEqual([]);
    expect(filesHolding(session.artifactDir, SECRET.toUpperCase())).toEqual([]);
    await vault.stop();
    await viewer.stop();
    await echo.stop();
  });
});

describe("a password store's copy that lands late", () => {
  // Full mode: safe mode would mask it anyway (its app does not show the text). A session of
  // its own: the search box above, once a password field, stays one for a box in the same
  // place with the same name (an app may build a field anew).
  const get = sessionPerSuite();

  it('stays secret after an ordinary copy and a write meanwhile', async () => {
    const session = get();
    const vault = await session.launchFixture('vault_clip.py', [], {
      env: {
        AXPAGE_FIXTURE_SECRET: SECRET,
        AXPAGE_FIXTURE_COPY_LABEL: 'Copy',
        AXPAGE_FIXTURE_COPY_LATE: '1',
      },
    });
    const echo = await session.launchFixture('echo_search.py', []);
    const copy = await session.call('ax_click', { app: vault.pid, query: 'button:Copy' });
    expect(copy.isError, copy.text).toBe(false);
    // Before the copy lands: the agent writes the clipboard, then copies text in another app.
    const write = await session.call('ax_clipboard_write', { text: 'hello' });
    expect(write.isError, write.text).toBe(false);
    const typed = await session.call('ax_type', { app: echo.pid, query: 'Search', text: 'plain' });
    expect(typed.isError, typed.text).toBe(false);
    for (const key of ['a', 'c']) {
      const r = await session.call('ax_key_press', { app: echo.pid, key, modifiers: ['ctrl'] });
      expect(r.isError, r.text).toBe(false);
    }
    expect(vault.output!.events.some((e) => e.event === 'copied')).toBe(false);
    // The store is done decrypting: its copy lands now.
    process.kill(vault.pid, 'SIGUSR1');
    await vault.output!.waitForEvent((e) => e.event === 'copied', { timeoutMs: 15_000 });
    const read = await session.call('ax_clipboard_read', {});
    expect(read.isError, read.text).toBe(false);
    expect(read.text).not.toContain(SECRET);
    expect(read.text).toMatch(/masked/);
    await echo.stop();
    await vault.stop();
  });
});
