/**
 * Password fields beyond GTK3: a web page's <input type=password> in Firefox and in
 * Chromium, GTK4's password entry (gtk4-widget-factory) and a Qt 5 QLineEdit in password
 * mode (a PyQt5 fixture). Each holds a known secret drawn as bullets; for each toolkit a
 * walk and a screenshot must leave the secret out of the tree file, the summary, the
 * structured result and every file in the artifact dir (the session log included), and the
 * screenshot's pixels over the field must be one flat colour while an unredacted grab of
 * the same pixels (read here from the X server) shows the bullets.
 *
 * The field's rectangle comes from pyatspi (another AT-SPI client) for the browsers and Qt;
 * GTK4 reports extents relative to its window, so there it is our tree file's, which the
 * unredacted grab checks: the bullets must be inside it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

import type { LaunchedApp } from '../../src/desktop/apps.js';
import { launchChromium, launchFirefox } from '../../src/harness/browser.js';
import { packageRoot, Session, type CallResult } from '../../src/harness/session.js';
import type { Rect } from '../../src/model/element.js';
import { X11 } from '../../src/platform/linux/x11.js';
import { browserPerSuite } from './helpers/browser-suite.js';
import { describeNeeding, file, pythonModule } from './helpers/needs.js';
import { readApp } from './helpers/oracle.js';
import { coloursIn, decodePng } from './helpers/pixels.js';
import { windowTitled } from './helpers/windows.js';

/** The secret the web fixture puts in its field (test/fixtures/web/secret.html). */
const WEB_SECRET = 'Web-s3cret-Kq4#unique-Pw';
const TYPED_SECRET = 'Gtk4-t0ps3cret-Vz2';
const QT_SECRET = 'Qt-hidd3n-Jm5!unique';
const PAGE = `file://${path.join(packageRoot(), 'test', 'fixtures', 'web', 'secret.html')}`;

const FIREFOX = file('/usr/bin/firefox-esr', 'firefox-esr');
const CHROMIUM = file('/usr/bin/chromium', 'chromium');
const GTK4_DEMO = file('/usr/bin/gtk4-demo', 'gtk-4-examples');
const PYQT5 = pythonModule('PyQt5.QtWidgets', 'python3-pyqt5');

let session: Session;
let x11: X11;
const results: CallResult[] = [];

beforeAll(async () => {
  session = await Session.start();
  x11 = X11.open(session.desktop.processEnv().DISPLAY as string, { framebuffer: false });
}, 60_000);

afterAll(async () => {
  x11?.close();
  await session?.close();
});

async function call(tool: string, args: Record<string, unknown>): Promise<CallResult> {
  const r = await session.call(tool, args);
  results.push(r);
  expect(r.isError, r.text).toBe(false);
  return r;
}

/** The field's inside: 3 px in from its frame, where its text is drawn. */
const inside = (f: Rect): Rect => ({ x: f.x + 3, y: f.y + 3, w: f.w - 6, h: f.h - 6 });

/**
 * A screenshot of the whole screen: the field is filled in it, and the app does draw its
 * bullets there (an unredacted grab of the same pixels has more than one colour).
 */
async function expectFilled(field: Rect, taken?: CallResult): Promise<void> {
  const shot = taken ?? (await call('ax_screenshot', {}));
  const r = inside(field);
  const raw = x11.captureRegion(r);
  expect(coloursIn(raw, r, r), `the app draws its bullets in ${JSON.stringify(r)}`).toBeGreaterThan(
    1,
  );
  const img = await decodePng(shot.fields.screenshot);
  expect(coloursIn(img, { x: 0, y: 0 }, r), `field filled in ${shot.fields.screenshot}`).toBe(1);
}

/** The secret is nowhere: not in any result (text, structured) and not in any artifact. */
function expectNowhere(secret: string): void {
  const texts = results.map((r) => `${r.text}\n${JSON.stringify(r.structured)}`);
  const files = fs
    .readdirSync(session.artifactDir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.join(d.parentPath, d.name));
  expect(files.length).toBeGreaterThan(results.length);
  for (const f of files) texts.push(fs.readFileSync(f).toString('latin1'));
  for (const text of texts) {
    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice(0, 10));
  }
}

/** The password field of `pid` as pyatspi reads it (screen coordinates). */
async function oracleField(pid: number): Promise<Rect> {
  const els = await readApp(session, pid);
  const pw = els.find((e) => e.role === 'password text' && e.states.includes('showing'));
  expect(pw?.extents, JSON.stringify(els.map((e) => e.role))).toBeDefined();
  const [x, y, w, h] = pw!.extents!;
  return { x, y, w, h };
}

/** Walks `pid` until its tree file has a line matching `pattern` (a page still loading). */
async function treeWith(pid: number, pattern: RegExp): Promise<CallResult> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await call('ax_get_tree', { app: pid });
    if (pattern.test(fs.readFileSync(r.fields.file, 'utf8')) || Date.now() > deadline) return r;
    await new Promise((res) => setTimeout(res, 500));
  }
}

const SECURE_LINE = /\(password text\)\].* secure/;

/**
 * As soon as the page shows, before any walk of the browser: a capture must find the field
 * on its own (a walk in hand would otherwise lend its frames).
 */
async function expectFilledBeforeAnyWalk(pid: number): Promise<void> {
  await windowTitled(session, 'axpage secret fixture');
  const shot = await call('ax_screenshot', {});
  await expectFilled(await oracleField(pid), shot);
}

/** The frame of the first tree-file line matching `pattern`. */
function frameInTree(r: CallResult, pattern: RegExp): Rect {
  const text = fs.readFileSync(r.fields.file, 'utf8');
  const line = text.split('\n').find((l) => pattern.test(l));
  expect(line, `a line matching ${pattern} in ${r.fields.file}`).toBeDefined();
  const m = / x:(-?\d+) y:(-?\d+) w:(\d+) h:(\d+)/.exec(line!);
  expect(m, line).not.toBeNull();
  return { x: +m![1], y: +m![2], w: +m![3], h: +m![4] };
}

describeNeeding([FIREFOX], 'Firefox: a web password field', () => {
  const firefox = browserPerSuite(() => launchFirefox(session, PAGE));

  it('is filled in a screenshot taken before any walk', async () => {
    await expectFilledBeforeAnyWalk(firefox().pid);
  }, 120_000);

  it('is masked in the walk and filled in the screenshot; the secret is nowhere', async () => {
    const tree = await treeWith(firefox().pid, SECURE_LINE);
    expect(fs.readFileSync(tree.fields.file, 'utf8')).toMatch(SECURE_LINE);
    await expectFilled(await oracleField(firefox().pid));
    expectNowhere(WEB_SECRET);
  }, 120_000);
});

describeNeeding([CHROMIUM], 'Chromium: a web password field', () => {
  const chromium = browserPerSuite(() => launchChromium(session, PAGE));

  it('is filled in a screenshot taken before any walk', async () => {
    await expectFilledBeforeAnyWalk(chromium().pid);
  }, 120_000);

  it('is masked in the walk and filled in the screenshot; the secret is nowhere', async () => {
    const tree = await treeWith(chromium().pid, SECURE_LINE);
    expect(fs.readFileSync(tree.fields.file, 'utf8')).toMatch(SECURE_LINE);
    await expectFilled(await oracleField(chromium().pid));
    expectNowhere(WEB_SECRET);
  }, 120_000);
});

describeNeeding([GTK4_DEMO], 'GTK4: a password entry', () => {
  let app: LaunchedApp;
  beforeAll(async () => {
    app = await session.launch('/usr/bin/gtk4-demo', ['--run=password_entry'], {
      timeoutMs: 60_000,
    });
  }, 90_000);
  afterAll(async () => {
    await app?.stop().catch(() => undefined);
  });

  it('typed into, it is masked in the walk and filled in the screenshot; the secret is nowhere', async () => {
    const before = await treeWith(app.pid, SECURE_LINE);
    const ref = /\(password text\)\].* (e\d+) x:/.exec(fs.readFileSync(before.fields.file, 'utf8'));
    expect(ref, before.fields.file).not.toBeNull();
    await call('ax_type', { ref: ref![1], text: TYPED_SECRET, delivery_mode: 'foreground' });
    const tree = await call('ax_get_tree', { app: app.pid });
    await expectFilled(frameInTree(tree, SECURE_LINE));
    expectNowhere(TYPED_SECRET);
  }, 120_000);
});

describeNeeding([PYQT5], 'Qt 5: a QLineEdit in password mode', () => {
  let app: LaunchedApp;
  beforeAll(async () => {
    app = await session.launchFixture('qt_secret.py', [], {
      env: { AXPAGE_FIXTURE_SECRET: QT_SECRET },
      name: 'qt_secret.py',
      timeoutMs: 60_000,
    });
  }, 90_000);
  afterAll(async () => {
    await app?.stop().catch(() => undefined);
  });

  it('is masked in the walk and filled in the screenshot; the secret is nowhere', async () => {
    const tree = await treeWith(app.pid, SECURE_LINE);
    expect(fs.readFileSync(tree.fields.file, 'utf8')).toMatch(SECURE_LINE);
    await expectFilled(await oracleField(app.pid));
    expectNowhere(QT_SECRET);
  }, 120_000);
});
