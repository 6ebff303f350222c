/**
 * The backend contract: what every session kind must do for axpage, checked the same way on
 * each (the X11 desktop and a headless sway session), on a GTK 3, a GTK 4 and a Qt 5 app,
 * through `axpage serve` and a real MCP client. The per-widget action cells (click, type,
 * set_value, keys) are the action matrix's, which runs its fixture columns on both kinds
 * too (action-matrix.test.ts); this file holds what the matrix does not:
 *   - the app's window is listed, and its elements are placed inside it;
 *   - an element's frame is where its pixels are: toggling a button changes the screen
 *     inside that button's frame and nowhere near it, as an independent reader of the
 *     screen shows (Xvfb's framebuffer file, or grim on sway);
 *   - a real drag moves a slider's knob, as the app reports;
 *   - a real scroll moves a list, as the app reports (GTK 3's list fixture);
 *   - a password field is filled in axpage's screenshot while the screen shows its bullets,
 *     and its text is in no file.
 * A new backend passes this file and the matrix's columns for its kind.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session, type CallResult, type HarnessDesktop } from '../../src/harness/session.js';
import type { Rect } from '../../src/model/element.js';
import type { RawImage } from '../../src/platform/desktop.js';
import { describeNeeding, program, pythonGtk, pythonModule, type Need } from './helpers/needs.js';
import { SWAY_SESSION_NEEDS } from './helpers/sway-needs.js';
import { coloursIn, decodePng, framebuffer } from './helpers/pixels.js';

const run = promisify(execFile);

type Kind = 'x11' | 'sway';

interface App {
  kit: string;
  need: Need;
  /** The matrix fixture: its window title, and its widgets' names. */
  matrix: { fixture: string; title: string };
  /** A fixture holding a known secret in a password field. */
  secret: { fixture: string; title: string };
}

const APPS: App[] = [
  {
    kit: 'GTK 3',
    need: pythonGtk('3.0', 'gir1.2-gtk-3.0'),
    matrix: { fixture: 'gtk3_matrix.py', title: 'Matrix GTK3' },
    secret: { fixture: 'secret_window.py', title: 'Secret Window' },
  },
  {
    kit: 'GTK 4',
    need: pythonGtk('4.0', 'gir1.2-gtk-4.0'),
    matrix: { fixture: 'gtk4_matrix.py', title: 'Matrix GTK4' },
    secret: { fixture: 'gtk4_secret.py', title: 'GTK4 secret' },
  },
  {
    kit: 'Qt 5',
    need: pythonModule('PyQt5.QtWidgets', 'python3-pyqt5'),
    matrix: { fixture: 'qt5_matrix.py', title: 'Matrix Qt5' },
    secret: { fixture: 'qt_secret.py', title: 'Qt secret' },
  },
];

const KINDS: Array<{ kind: Kind; needs: Need[]; start: () => Promise<Session<HarnessDesktop>> }> = [
  {
    kind: 'x11',
    needs: [program('Xvfb', 'xvfb'), program('openbox', 'openbox')],
    start: () => Session.start(),
  },
  {
    kind: 'sway',
    needs: [...SWAY_SESSION_NEEDS],
    start: () => Session.startSway(),
  },
];

/** The whole screen as the display server holds it now, read without axpage. */
async function screenNow(session: Session<HarnessDesktop>, kind: Kind): Promise<RawImage> {
  const env = session.desktop.processEnv();
  if (kind === 'x11') return framebuffer(env);
  const { stdout } = await run('grim', ['-t', 'png', '-'], {
    env,
    encoding: 'buffer',
    maxBuffer: 64 << 20,
  });
  const { data, info } = await sharp(stdout).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels as 3 | 4, data };
}

/** The bounding box of the pixels that differ between two images of the same screen, in `r`. */
function changedIn(a: RawImage, b: RawImage, r: Rect): Rect | undefined {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  const x2 = Math.min(r.x + r.w, a.width, b.width);
  const y2 = Math.min(r.y + r.h, a.height, b.height);
  for (let y = Math.max(0, r.y); y < y2; y++) {
    for (let x = Math.max(0, r.x); x < x2; x++) {
      const i = (y * a.width + x) * a.channels;
      const j = (y * b.width + x) * b.channels;
      if (
        a.data[i] !== b.data[j] ||
        a.data[i + 1] !== b.data[j + 1] ||
        a.data[i + 2] !== b.data[j + 2]
      ) {
        [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
      }
    }
  }
  return x1 < 0 ? undefined : { x: x0, y: y0, w: x1 - x0 + 1, h: y1 - y0 + 1 };
}

/** How far beyond its frame a toggled button may redraw. */
const MARGIN = 20;

const grow = (r: Rect, by: number): Rect => ({
  x: r.x - by,
  y: r.y - by,
  w: r.w + 2 * by,
  h: r.h + 2 * by,
});
const inside = (inner: Rect, outer: Rect): boolean =>
  inner.x >= outer.x &&
  inner.y >= outer.y &&
  inner.x + inner.w <= outer.x + outer.w &&
  inner.y + inner.h <= outer.y + outer.h;

function ok(r: CallResult): CallResult {
  expect(r.isError, r.text).toBe(false);
  return r;
}

async function frameOf(
  session: Session<HarnessDesktop>,
  pid: number,
  query: string,
): Promise<Rect> {
  const r = ok(await session.call('ax_find', { app: pid, query }));
  const { position, size } = r.structured as { position: number[]; size: number[] };
  return { x: position[0], y: position[1], w: size[0], h: size[1] };
}

/** The matrix fixture's state, once the input it already received is handled. */
async function stateOf(app: LaunchedApp, n: number): Promise<Record<string, unknown>> {
  process.kill(app.pid, 'SIGUSR2');
  const e = await app.output!.waitForEvent((x) => x.event === 'pong' && x.n === n, {
    timeoutMs: 15_000,
  });
  return e.state as Record<string, unknown>;
}

/** Waits until two screen reads in a row agree (the app has drawn what it was told). */
async function stillScreen(
  session: Session<HarnessDesktop>,
  kind: Kind,
  r: Rect,
): Promise<RawImage> {
  let last = await screenNow(session, kind);
  for (let i = 0; i < 50; i++) {
    await new Promise((res) => setImmediate(res));
    const next = await screenNow(session, kind);
    if (changedIn(last, next, r) === undefined) return next;
    last = next;
  }
  throw new Error('the screen never came to rest');
}

for (const { kind, needs, start } of KINDS) {
  for (const app of APPS) {
    describeNeeding([...needs, app.need], `backend contract on ${kind}: ${app.kit}`, () => {
      let session: Session<HarnessDesktop>;
      let matrix: LaunchedApp;
      let pongs = 0;

      beforeAll(async () => {
        session = await start();
        matrix = await session.launchFixture(app.matrix.fixture, [], { timeoutMs: 60_000 });
      }, 120_000);

      afterAll(async () => {
        await session?.close();
      });

      it('lists the app’s window and places its elements inside it', async () => {
        const windows = ok(await session.call('ax_list_windows', { app: matrix.pid }));
        expect(windows.text).toContain(app.matrix.title);
        const win = await frameOf(session, matrix.pid, `window:${app.matrix.title}`);
        for (const name of ['Press', 'Bold', 'Name', 'Volume']) {
          const f = await frameOf(session, matrix.pid, name);
          expect(inside(f, win), `${name} ${JSON.stringify(f)} in ${JSON.stringify(win)}`).toBe(
            true,
          );
        }
      });

      it('draws a toggled button inside the frame it reports, and nowhere near it', async () => {
        const bold = await frameOf(session, matrix.pid, 'Bold');
        const around = grow(bold, 3 * MARGIN);
        const before = await stillScreen(session, kind, around);
        ok(await session.call('ax_click', { app: matrix.pid, query: 'Bold' }));
        expect((await stateOf(matrix, ++pongs)).toggle).toBe(true);
        const after = await stillScreen(session, kind, around);
        const changed = changedIn(before, after, around);
        expect(changed, `no pixel changed near ${JSON.stringify(bold)}`).toBeDefined();
        // Toolkits draw a button's box a little beyond the frame they report (GTK 4's is
        // its content's), never a frame's height away, where a misplaced frame would be.
        const seen = `changed ${JSON.stringify(changed)}, frame ${JSON.stringify(bold)}`;
        expect(inside(changed!, grow(bold, MARGIN)), seen).toBe(true);
        const centre = { x: bold.x + Math.floor(bold.w / 2), y: bold.y + Math.floor(bold.h / 2) };
        expect(inside({ ...centre, w: 1, h: 1 }, changed!), seen).toBe(true);
      });

      it('drags a slider’s knob with a real pointer, as the app reports', async () => {
        const volume = await frameOf(session, matrix.pid, 'Volume');
        expect((await stateOf(matrix, ++pongs)).slider).toBe(20);
        const y = volume.y + Math.round(volume.h / 2);
        ok(
          await session.call('ax_drag', {
            app: matrix.pid,
            from_x: volume.x + Math.round(volume.w * 0.2),
            from_y: y,
            to_x: volume.x + Math.round(volume.w * 0.8),
            to_y: y,
          }),
        );
        const value = (await stateOf(matrix, ++pongs)).slider as number;
        expect(value).toBeGreaterThan(50);
      });

      it('fills a password field in the screenshot while the screen shows it; its text is in no file', async () => {
        const secret = `Contract-${kind}-${app.kit.replace(/\W/g, '')}-s3cr3t`;
        const holder = await session.launchFixture(app.secret.fixture, [], {
          env: { AXPAGE_FIXTURE_SECRET: secret },
          timeoutMs: 60_000,
        });
        const field = await frameOf(session, holder.pid, 'Password');
        const shot = ok(
          await session.call('ax_screenshot', { app: holder.pid, full_screen: true }),
        );
        const r = grow(field, -3);
        const screen = await screenNow(session, kind);
        expect(coloursIn(screen, { x: 0, y: 0 }, r), 'the app draws its bullets').toBeGreaterThan(
          1,
        );
        const img = await decodePng(shot.fields.screenshot);
        expect(coloursIn(img, { x: 0, y: 0 }, r), `filled in ${shot.fields.screenshot}`).toBe(1);
        await holder.stop();
        const files = fs
          .readdirSync(session.artifactDir, { recursive: true, withFileTypes: true })
          .filter((d) => d.isFile())
          .map((d) => path.join(d.parentPath, d.name));
        for (const f of files)
          expect(fs.readFileSync(f).toString('latin1'), f).not.toContain(secret);
      });

      if (app.kit === 'GTK 3') {
        it('scrolls a list with real wheel input, as the app reports', async () => {
          const list = await session.launchFixture('long_list.py', [], { timeoutMs: 60_000 });
          const from = list.output!.events.length;
          ok(
            await session.call('ax_scroll', {
              app: list.pid,
              query: 'Rows',
              direction: 'down',
              amount: 200,
            }),
          );
          const e = await list.output!.waitForEvent((x) => x.event === 'scrolled', {
            from,
            timeoutMs: 15_000,
          });
          expect(e.value as number).toBeGreaterThan(0);
          await list.stop();
        });
      }
    });
  }
}
