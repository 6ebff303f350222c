/**
 * Redaction fails closed: a capture is written only once every app with a window on it has
 * said where its password fields are, or with that app's windows filled whole. Checked on
 * the PNG's pixels against the screen: apps with password fields never located before,
 * captured with the CPUs loaded by busy loops this test starts (and stops, by pid); an app
 * frozen before this server ever asked it; and windows without accessibility, one titled
 * like a password prompt (filled whole) and one not (left as it is).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../../src/harness/session.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { Rect } from '../../src/model/element.js';
import type { RawImage } from '../../src/platform/desktop.js';
import { X11 } from '../../src/platform/linux/x11.js';
import { coloursIn, decodePng } from './helpers/pixels.js';

let session: Session;
let x11: X11;
let hogs: ChildProcess[] = [];

const rectOf = (f: unknown): Rect => {
  const [x, y, w, h] = f as number[];
  return { x, y, w, h };
};

async function launch(
  at: [number, number],
  env: Record<string, string> = {},
): Promise<{ app: LaunchedApp; field: Rect }> {
  const app = await session.launchFixture('secret_window.py', [], {
    env: {
      AXPAGE_FIXTURE_SECRET: `Sekret-${at[0]}-${at[1]}-unique`,
      AXPAGE_FIXTURE_X: String(at[0]),
      AXPAGE_FIXTURE_Y: String(at[1]),
      AXPAGE_FIXTURE_W: '300',
      AXPAGE_FIXTURE_H: '150',
      ...env,
    },
    timeoutMs: 60_000,
    // Without its AT-SPI bridge the app never shows on the bus: its ready line is the sign.
    ...(env.NO_AT_BRIDGE ? { waitFor: 'none' as const } : {}),
  });
  const ready = await app.output!.waitForEvent((e) => e.event === 'ready', { timeoutMs: 60_000 });
  return { app, field: rectOf(ready.field) };
}

/** How many colours the screen rect `r` has in `img` (a full-screen capture). */
const colours = (img: RawImage, r: Rect): number => coloursIn(img, { x: 0, y: 0 }, r);

const inside = (f: Rect, by = 3): Rect => ({
  x: f.x + by,
  y: f.y + by,
  w: f.w - 2 * by,
  h: f.h - 2 * by,
});

/** The screen shows something there (bullets, text), and the PNG one flat colour. */
function expectFilled(img: RawImage, r: Rect, what: string): void {
  expect(
    colours(x11.captureRegion(r), { ...r, x: 0, y: 0 }),
    `${what} draws there`,
  ).toBeGreaterThan(1);
  expect(colours(img, r), `${what} filled`).toBe(1);
}

/** Waits (bounded) until the screen shows something drawn in `r`: the app has painted. */
async function drawn(r: Rect): Promise<void> {
  const until = Date.now() + 30_000;
  while (colours(x11.captureRegion(r), { ...r, x: 0, y: 0 }) <= 1) {
    if (Date.now() > until) throw new Error(`nothing drawn at ${JSON.stringify(r)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The X window of `pid` (client area), as the window manager placed it. */
function windowOf(pid: number): Rect {
  const w = x11.listWindows().find((w) => w.mapped && w.pid === pid);
  expect(w, `a window of pid ${pid}`).toBeDefined();
  return { x: w!.x, y: w!.y, w: w!.w, h: w!.h };
}

function startHogs(): void {
  const n = Math.max(2, os.cpus().length) * 3;
  for (let i = 0; i < n; i++) {
    hogs.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
  }
}

function stopHogs(): void {
  for (const hog of hogs) if (hog.pid !== undefined) process.kill(hog.pid, 'SIGKILL');
  hogs = [];
}

beforeAll(async () => {
  session = await Session.start();
  x11 = X11.open(session.desktop.processEnv().DISPLAY as string, { framebuffer: false });
}, 60_000);

afterAll(async () => {
  stopHogs();
  x11?.close();
  await session?.close();
});

describe('with the CPUs loaded', () => {
  it('fields never located before are filled in every capture', async () => {
    const apps = [];
    for (const at of [
      [20, 20],
      [340, 20],
      [660, 20],
      [20, 220],
    ] as Array<[number, number]>) {
      apps.push(await launch(at));
    }
    for (const { field } of apps) await drawn(inside(field));
    startHogs();
    try {
      // Nothing walked: every app is looked up, none was before.
      const listed = await session.call('ax_list_apps', {});
      expect(listed.isError, listed.text).toBe(false);
      const img = await decodePng(listed.fields.screenshot);
      for (const { app, field } of apps) expectFilled(img, inside(field), `pid ${app.pid}'s field`);
      // Two more, launched under load, captured through an app that is walked.
      for (const at of [
        [340, 220],
        [660, 220],
      ] as Array<[number, number]>) {
        apps.push(await launch(at));
      }
      for (const { field } of apps) await drawn(inside(field));
      const shot = await session.call('ax_screenshot', { app: apps[0].app.pid, full_screen: true });
      expect(shot.isError, shot.text).toBe(false);
      const again = await decodePng(shot.fields.screenshot);
      for (const { app, field } of apps)
        expectFilled(again, inside(field), `pid ${app.pid}'s field`);
    } finally {
      stopHogs();
    }
  }, 180_000);
});

describe('apps that cannot say where their fields are', () => {
  it('an app frozen before it was ever asked: its window is filled whole, and the call says so', async () => {
    // Apps the loaded lookups gave up on answer again first: only the frozen one fails.
    for (let i = 0; i < 20; i++) {
      if (!(await session.call('ax_list_apps', {})).text.includes('filled whole')) break;
    }
    const { app, field } = await launch([20, 450]);
    await drawn(inside(field));
    process.kill(app.pid, 'SIGSTOP');
    try {
      const r = await session.call('ax_list_apps', {});
      expect(r.isError, r.text).toBe(false);
      expect(r.text).toMatch(new RegExp(`windows of pid ${app.pid} filled whole`));
      expectFilled(
        await decodePng(r.fields.screenshot),
        inside(windowOf(app.pid), 1),
        'its window',
      );
    } finally {
      process.kill(app.pid, 'SIGCONT');
    }
  }, 120_000);

  it('a window without accessibility titled like a password prompt is filled whole; another is not', async () => {
    const noBridge = { NO_AT_BRIDGE: '1' };
    const prompt = await launch([340, 450], {
      ...noBridge,
      AXPAGE_FIXTURE_TITLE: 'Enter passphrase',
    });
    const plain = await launch([660, 450], { ...noBridge, AXPAGE_FIXTURE_TITLE: 'Notes' });
    await drawn(inside(prompt.field));
    await drawn(inside(plain.field));
    const r = await session.call('ax_list_apps', {});
    expect(r.isError, r.text).toBe(false);
    expect(JSON.stringify(r.structured)).not.toContain(`"pid":${prompt.app.pid}`);
    const img = await decodePng(r.fields.screenshot);
    expectFilled(img, inside(windowOf(prompt.app.pid), 1), 'the prompt window');
    expect(
      colours(img, inside(plain.field)),
      `the other window as it is: ${r.text}`,
    ).toBeGreaterThan(1);
  }, 120_000);
});
