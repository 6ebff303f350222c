/**
 * A web page's password field stays secret when the page shows it in a way that makes the
 * browser build a new accessible for it: the type turned to text (Firefox builds the input
 * anew; Chromium keeps it) or the input replaced by a new plain one (every browser builds
 * it anew). The field was seen as a password field first; after the page shows it, in full
 * mode, no read, search, assertion, tree file, session log or capture gives its text.
 *
 * The oracle is the page and the browser themselves: the page says in its title that it
 * showed both fields, pyatspi (not axpage) reads their text and extents from the browser,
 * and the X server's own pixels show text where the capture must be one flat colour.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

import type { LaunchedApp } from '../../src/desktop/apps.js';
import { launchChromium, launchFirefox, type LaunchedBrowser } from '../../src/harness/browser.js';
import {
  startServeClient,
  type ServeClient,
  type ToolCall,
} from '../../src/harness/serve-client.js';
import { packageRoot, Session, type CallResult } from '../../src/harness/session.js';
import type { Rect } from '../../src/model/element.js';
import { X11 } from '../../src/platform/linux/x11.js';
import { browserPerSuite } from './helpers/browser-suite.js';
import { describeNeeding, file } from './helpers/needs.js';
import { waitForApp, type AtspiElement } from './helpers/oracle.js';
import { coloursIn, decodePng } from './helpers/pixels.js';
import { windowTitled } from './helpers/windows.js';

const PAGE = `file://${path.join(packageRoot(), 'test', 'fixtures', 'web', 'reveal.html')}`;
const FIREFOX = file('/usr/bin/firefox-esr', 'firefox-esr');
const CHROMIUM = file('/usr/bin/chromium', 'chromium');

/** The page's secrets (set by its script). */
const SECRETS = {
  account: 'Acct-Rev3al-Zq8#unique-PW',
  vault: 'Vault-Sw4p-Jk2#unique-PW',
};
/**
 * What no reply, file or log may hold: each secret's start. The calls below give only
 * later pieces of them (a value filter, an assertion's expected text), which a reply may
 * echo back.
 */
const PIECES = ['Acct-Rev3al', 'Vault-Sw4p'];

/** Walks the page until its tree shows both fields as password fields (within 30 s). */
async function bothSecure(
  walk: (args: Record<string, unknown>) => Promise<CallResult>,
): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await walk({});
    expect(r.isError, r.text).toBe(false);
    const tree = fs.readFileSync(r.fields.file, 'utf8');
    const secure = tree.split('\n').filter((l) => /\(password text\)\].* secure/.test(l));
    if (secure.length === 2 || Date.now() > deadline) {
      expect(secure.join('\n')).toMatch(/"Account password"[^\n]*\n[^\n]*"Vault password"/);
      return;
    }
    await new Promise((res) => setTimeout(res, 500));
  }
}

function browserTests(
  title: string,
  needs: Parameters<typeof describeNeeding>[0],
  start: (s: Session) => Promise<LaunchedBrowser>,
): void {
  describeNeeding(needs, title, () => {
    let session: Session;
    let x11: X11;
    const results: CallResult[] = [];
    /** The shown fields as the browser itself places them. */
    let shown: Record<'account' | 'vault', Rect>;

    beforeAll(async () => {
      session = await Session.start();
      x11 = X11.open(session.desktop.processEnv().DISPLAY as string, { framebuffer: false });
    }, 60_000);
    afterAll(async () => {
      x11?.close();
      await session?.close();
    });
    const app = browserPerSuite(() => start(session));
    const pid = (): number => app().pid;

    async function call(tool: string, args: Record<string, unknown>): Promise<CallResult> {
      const r = await session.call(tool, { app: pid(), ...args });
      results.push(r);
      return r;
    }

    async function ok(tool: string, args: Record<string, unknown>): Promise<CallResult> {
      const r = await call(tool, args);
      expect(r.isError, `${tool}: ${r.text}`).toBe(false);
      return r;
    }

    it('sees both fields as password fields, then the page shows them', async () => {
      await windowTitled(session, 'axpage reveal fixture', 60_000);
      const ready = await ok('ax_wait_for', { query: 'button:Show vault', timeout_ms: 60_000 });
      expect(ready.structured.satisfied, ready.text).toBe(true);
      await bothSecure((args) => ok('ax_get_tree', args));
      await ok('ax_click', { query: 'button:Show account' });
      await ok('ax_click', { query: 'button:Show vault' });
      await windowTitled(session, 'shown account vault', 30_000);
      // The browser's own tree now has both texts in plain entries.
      const textOf = (els: AtspiElement[], secret: string): AtspiElement | undefined =>
        els.find((e) => e.role === 'entry' && e.text === secret && e.extents);
      const fields = await waitForApp(
        session,
        pid(),
        (els) => {
          const account = textOf(els, SECRETS.account);
          const vault = textOf(els, SECRETS.vault);
          return account && vault ? { account, vault } : undefined;
        },
        'both fields shown as plain entries',
      );
      const rect = (e: AtspiElement): Rect => {
        const [x, y, w, h] = e.extents!;
        return { x, y, w, h };
      };
      shown = { account: rect(fields.account), vault: rect(fields.vault) };
    }, 180_000);

    it('ax_get_value answers that each is a password field, never its text', async () => {
      for (const name of ['Account password', 'Vault password']) {
        const r = await ok('ax_get_value', { query: name });
        expect(r.structured.secure, r.text).toBe(true);
        expect(r.text).toMatch(/is a password field: its value is never read/);
      }
    });

    it('the tree and a search show them as password fields; a value filter finds nothing', async () => {
      const tree = fs.readFileSync(
        (await ok('ax_get_tree', { detail: 'full' })).fields.file,
        'utf8',
      );
      expect(tree).toMatch(/\(entry\)\] "Account password" value:"•••".* secure/);
      expect(tree).toMatch(/\(entry\)\] "Vault password" value:"•••".* secure/);
      const found = await ok('ax_find', { query: 'password', detail: 'full' });
      expect(found.text).toMatch(/Account password/);
      for (const piece of ['Rev3al', 'Sw4p']) {
        const r = await call('ax_find', { query: 'entry', filter: { valueContains: piece } });
        expect(r.text, `a value filter on ${piece}`).not.toMatch(/password"/);
      }
      await ok('ax_get_attributes', { query: 'Vault password' });
    });

    it('an assertion on their text does not pass', async () => {
      for (const [name, secret] of [
        ['Account password', SECRETS.account],
        ['Vault password', SECRETS.vault],
      ]) {
        // All of the secret but its first character: the reply echoes what it looked for.
        const r = await call('ax_assert', {
          query: name,
          assertions: { contains_text: secret.slice(1) },
        });
        expect(r.structured.passed, r.text).toBe(false);
      }
    });

    it('a capture fills both fields where the screen shows their text', async () => {
      const r = await ok('ax_screenshot', { full_screen: true });
      const png = await decodePng(r.fields.screenshot);
      for (const [name, f] of Object.entries(shown)) {
        const inside = { x: f.x + 3, y: f.y + 3, w: f.w - 6, h: f.h - 6 };
        const raw = x11.captureRegion(inside);
        expect(coloursIn(raw, inside, inside), `the page draws ${name}'s text`).toBeGreaterThan(1);
        expect(coloursIn(png, { x: 0, y: 0 }, inside), `${name} filled`).toBe(1);
      }
    });

    it('no reply, artifact or session log holds either secret', () => {
      const texts = results.map((r) => `${r.text}\n${JSON.stringify(r.structured)}`);
      for (const d of fs.readdirSync(session.artifactDir, {
        recursive: true,
        withFileTypes: true,
      })) {
        if (d.isFile())
          texts.push(fs.readFileSync(path.join(d.parentPath, d.name)).toString('latin1'));
      }
      for (const text of texts) for (const piece of PIECES) expect(text).not.toContain(piece);
    });
  });
}

/**
 * The page shows its fields while no server looks (a person's click): a capture made
 * through another app locates the field built anew where the password field was, and a
 * server started afterwards, which never saw the field as a password field, knows it from
 * the display's memory (what identifies the field besides its id is kept there too).
 */
describeNeeding([FIREFOX], 'Firefox: a password field the page shows while no server looks', () => {
  let session: Session;
  let x11: X11;
  let other: LaunchedApp;
  let second: ServeClient | undefined;
  const dirs: string[] = [];
  beforeAll(async () => {
    session = await Session.start();
    x11 = X11.open(session.desktop.processEnv().DISPLAY as string, { framebuffer: false });
    other = await session.launchFixture('secret_window.py', [], {
      env: { AXPAGE_FIXTURE_X: '860', AXPAGE_FIXTURE_Y: '520' },
    });
  }, 60_000);
  afterAll(async () => {
    await second?.close().catch(() => undefined);
    x11?.close();
    await session?.close();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });
  const app = browserPerSuite(() => launchFirefox(session, PAGE));
  const pid = (): number => app().pid;

  /** The page's element with this name and role, as the browser itself places it. */
  async function placed(role: string, name: string, text?: string): Promise<Rect> {
    const el = await waitForApp(
      session,
      pid(),
      (els) =>
        els.find(
          (e) => e.role === role && e.name === name && e.extents && (!text || e.text === text),
        ),
      `${role} "${name}"${text ? ' holding its text' : ''}`,
    );
    const [x, y, w, h] = el.extents!;
    return { x, y, w, h };
  }

  /** A person's click on the page's button: a real pointer click, no server asked. */
  async function press(button: string, title: string): Promise<void> {
    const b = await placed('push button', button);
    await x11.click(b.x + b.w / 2, b.y + b.h / 2);
    await windowTitled(session, title, 30_000);
  }

  async function expectFilled(png: string, f: Rect, what: string): Promise<void> {
    const inside = { x: f.x + 3, y: f.y + 3, w: f.w - 6, h: f.h - 6 };
    expect(
      coloursIn(x11.captureRegion(inside), inside, inside),
      `${what}: text drawn`,
    ).toBeGreaterThan(1);
    expect(coloursIn(await decodePng(png), { x: 0, y: 0 }, inside), `${what} filled`).toBe(1);
  }

  it("a capture through another app fills a field built anew in the password field's place", async () => {
    await windowTitled(session, 'axpage reveal fixture', 60_000);
    const ready = await session.call('ax_wait_for', {
      app: pid(),
      query: 'button:Show vault',
      timeout_ms: 60_000,
    });
    expect(ready.structured.satisfied, ready.text).toBe(true);
    await bothSecure((args) => session.call('ax_get_tree', { app: pid(), ...args }));
    await press('Show account', 'shown account');
    const account = await placed('entry', 'Account password', SECRETS.account);
    const shot = await session.call('ax_screenshot', { app: other.pid, full_screen: true });
    expect(shot.isError, shot.text).toBe(false);
    await expectFilled(shot.fields.screenshot, account, 'the account field');
    for (const piece of PIECES) expect(shot.text).not.toContain(piece);
  }, 180_000);

  it('a server started later knows a field the page built anew before it ever looked', async () => {
    await press('Show vault', 'shown account vault');
    const vault = await placed('entry', 'Vault password', SECRETS.vault);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-later-'));
    dirs.push(out);
    second = await startServeClient({
      env: { ...(session.desktop.processEnv() as Record<string, string>), AXPAGE_OUT: out },
    });
    const replies: ToolCall[] = [];
    for (const name of ['Vault password', 'Account password']) {
      const r = await second.call('ax_get_value', { app: pid(), query: name });
      replies.push(r);
      expect(r.structured.secure, r.text).toBe(true);
    }
    for (const [tool, args] of [
      ['ax_get_tree', { detail: 'full' }],
      ['ax_screenshot', { full_screen: true }],
    ] as const) {
      const r = await second.call(tool, { app: pid(), ...args });
      expect(r.isError, r.text).toBe(false);
      replies.push(r);
    }
    const files = fs
      .readdirSync(out, { recursive: true, encoding: 'utf8' })
      .map((f) => path.join(out, f))
      .filter((f) => fs.statSync(f).isFile());
    const png = files.find((f) => f.endsWith('_screenshot.png'));
    expect(png, files.join('\n')).toBeDefined();
    await expectFilled(png!, vault, 'the vault field');
    const texts = replies.map((r) => `${r.text}\n${JSON.stringify(r.structured)}`);
    for (const f of files) texts.push(fs.readFileSync(f).toString('latin1'));
    expect(files.some((f) => /session-.*\.jsonl$/.test(f))).toBe(true);
    for (const text of texts) for (const piece of PIECES) expect(text).not.toContain(piece);
  }, 180_000);
});

browserTests('Firefox: a password field the page shows as plain text', [FIREFOX], (s) =>
  launchFirefox(s, PAGE),
);
browserTests('Chromium: a password field the page shows as plain text', [CHROMIUM], (s) =>
  launchChromium(s, PAGE),
);
