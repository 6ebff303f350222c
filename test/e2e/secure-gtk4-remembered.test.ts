/**
 * A GTK4 app with a password field (gtk4-widget-factory's page 1) stays on the desktop while
 * another app (a GTK3 passphrase dialog, in front of it) is captured again and again. Once a
 * server has seen the GTK4 field, it remembers it, and every later capture looks it up by
 * its id as well as by its role. GTK4 answers extents relative to its window: read by id
 * without being placed on the screen, the remembered field stood a few pixels off its fresh
 * frame, looked as if it moved, and had the GTK4 window (the whole screen, behind the dialog)
 * filled whole in every capture after the first: flat grey, with nothing saying so.
 *
 * The oracle: the screen itself (an unredacted grab from the X server). Each capture in a row
 * shows the dialog as the screen does, around its field; the GTK4 window is not one flat
 * colour; both password fields are one flat colour while the screen shows their bullets.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session, type CallResult } from '../../src/harness/session.js';
import type { Rect } from '../../src/model/element.js';
import type { RawImage } from '../../src/platform/desktop.js';
import { X11 } from '../../src/platform/linux/x11.js';
import { pollUntil } from '../../src/desktop/procs.js';
import { describeNeeding, file } from './helpers/needs.js';
import { coloursIn, decodePng } from './helpers/pixels.js';
import { windowTitled } from './helpers/windows.js';

const FACTORY = file('/usr/bin/gtk4-widget-factory', 'gtk-4-examples');
const SECRET = 'Remembered-gtk4-Xq7';

let session: Session;
let x11: X11;

describeNeeding([FACTORY], 'GTK4 password field remembered across captures', () => {
  let factory: LaunchedApp;
  let dialog: LaunchedApp;
  let dialogFrame: Rect;
  let dialogField: Rect;

  beforeAll(async () => {
    session = await Session.start();
    x11 = X11.open(session.desktop.processEnv().DISPLAY as string, { framebuffer: false });
    factory = await session.launch('/usr/bin/gtk4-widget-factory', [], { timeoutMs: 60_000 });
    await windowTitled(session, 'GTK Widget Factory');
    // In front of the GTK4 window, away from its password field (left side of page 1).
    dialog = await session.launchFixture('passphrase.py', [], {
      env: { AXPAGE_FIXTURE_SECRET: SECRET, AXPAGE_FIXTURE_X: '760', AXPAGE_FIXTURE_Y: '420' },
    });
    const ready = dialog.output!.events.find((e) => e.event === 'ready')!;
    const rect = ([x, y, w, h]: number[]): Rect => ({ x, y, w, h });
    dialogFrame = rect(ready.frame as number[]);
    dialogField = rect(ready.field as number[]);
  }, 120_000);

  afterAll(async () => {
    await dialog?.stop().catch(() => undefined);
    await factory?.stop().catch(() => undefined);
    x11?.close();
    await session?.close();
  });

  async function call(tool: string, args: Record<string, unknown>): Promise<CallResult> {
    const r = await session.call(tool, args);
    expect(r.isError, r.text).toBe(false);
    return r;
  }

  /** The GTK4 password field as our walk places it (GTK4 extents are window-relative). */
  async function factoryField(): Promise<Rect> {
    let line: string | undefined;
    await pollUntil(
      async () => {
        const r = await call('ax_get_tree', { app: factory.pid });
        const text = fs.readFileSync(r.fields.file, 'utf8');
        line = text.split('\n').find((l) => /\(password text\)\].* secure/.test(l));
        return line && / x:\d+ y:\d+ w:\d+ h:\d+/.test(line) ? true : null;
      },
      { timeoutMs: 30_000, what: "gtk4-widget-factory's password field placed in its tree" },
    );
    const m = / x:(-?\d+) y:(-?\d+) w:(\d+) h:(\d+)/.exec(line!)!;
    return { x: +m[1], y: +m[2], w: +m[3], h: +m[4] };
  }

  const inside = (f: Rect): Rect => ({ x: f.x + 3, y: f.y + 3, w: f.w - 6, h: f.h - 6 });

  /** The share of the pixels of `r` (screen) that are the same in both images. */
  function sameShare(a: RawImage, aOrigin: Rect, b: RawImage, bOrigin: Rect, r: Rect): number {
    let same = 0;
    let all = 0;
    for (let y = r.y; y < r.y + r.h; y++) {
      for (let x = r.x; x < r.x + r.w; x++) {
        const inField =
          x >= dialogField.x &&
          x < dialogField.x + dialogField.w &&
          y >= dialogField.y &&
          y < dialogField.y + dialogField.h;
        if (inField) continue;
        const i = ((y - aOrigin.y) * a.width + (x - aOrigin.x)) * a.channels;
        const j = ((y - bOrigin.y) * b.width + (x - bOrigin.x)) * b.channels;
        all++;
        if (
          a.data[i] === b.data[j] &&
          a.data[i + 1] === b.data[j + 1] &&
          a.data[i + 2] === b.data[j + 2]
        ) {
          same++;
        }
      }
    }
    return same / all;
  }

  it('captures in a row show the other app and the GTK4 window; both fields stay filled', async () => {
    const field = await factoryField();
    // The screen draws both fields' bullets: a fill is what makes them one colour.
    for (const f of [field, dialogField]) {
      const r = inside(f);
      expect(
        coloursIn(x11.captureRegion(r), r, r),
        `bullets drawn in ${JSON.stringify(r)}`,
      ).toBeGreaterThan(1);
    }
    // Beside the GTK4 field, above the dialog: the factory's own widgets.
    const factoryPart: Rect = { x: 0, y: 0, w: 700, h: Math.max(40, field.y - 10) };
    const screen = x11.captureRegion(dialogFrame);
    for (let n = 1; n <= 3; n++) {
      const shot = await call('ax_screenshot', { region: { x: 0, y: 0, ...x11.screenSize() } });
      const img = await decodePng(shot.fields.screenshot);
      const where = `capture ${n}: ${shot.fields.screenshot} (${shot.text})`;
      expect(coloursIn(img, { x: 0, y: 0 }, inside(field)), `GTK4 field, ${where}`).toBe(1);
      expect(coloursIn(img, { x: 0, y: 0 }, inside(dialogField)), `dialog field, ${where}`).toBe(1);
      expect(coloursIn(img, { x: 0, y: 0 }, factoryPart), `GTK4 window, ${where}`).toBeGreaterThan(
        8,
      );
      expect(
        sameShare(img, { x: 0, y: 0, w: 0, h: 0 }, screen, dialogFrame, dialogFrame),
        `the dialog as the screen shows it, ${where}`,
      ).toBeGreaterThan(0.95);
      expect(shot.text).not.toMatch(/filled whole/);
    }
    // The dialog alone, captured twice: as the screen shows it, its field filled.
    for (let n = 1; n <= 2; n++) {
      const shot = await call('ax_screenshot', { region: dialogFrame });
      const img = await decodePng(shot.fields.screenshot);
      const where = `capture of the dialog ${n}: ${shot.fields.screenshot} (${shot.text})`;
      expect(coloursIn(img, dialogFrame, inside(dialogField)), where).toBe(1);
      expect(sameShare(img, dialogFrame, screen, dialogFrame, dialogFrame), where).toBeGreaterThan(
        0.95,
      );
    }
    // Its window, as an agent captures an app: not one flat colour.
    const shot = await call('ax_screenshot', { app: dialog.pid });
    const img = await decodePng(shot.fields.screenshot);
    const whole = { x: 0, y: 0, w: img.width, h: img.height };
    expect(coloursIn(img, whole, whole), `${shot.fields.screenshot}`).toBeGreaterThan(8);
  }, 180_000);
});
