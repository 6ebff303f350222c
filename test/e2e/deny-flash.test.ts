/**
 * A denied app's window that shows only for a moment (a toast, a tooltip, an auto-type
 * prompt: here a popup of one flat colour, shown and hidden, or moved on and off the
 * screen, every 20 ms over an allowed app's window) is in no screenshot: the pixels and the
 * windows they show are read as one instant, so a window on screen when the pixels were
 * read is filled even when it is gone by the time anything else looks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../../src/harness/session.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { Rect } from '../../src/model/element.js';
import type { RawImage } from '../../src/platform/desktop.js';
import { X11 } from '../../src/platform/linux/x11.js';
import { pollUntil } from '../../src/desktop/procs.js';
import { decodePng } from './helpers/pixels.js';

/** The popup's colour, #ff00ff: nothing else on this desktop is drawn in it. */
const FLASH = [0xff, 0x00, 0xff];
/** Screenshots per way of flashing: the leak showed in 1 to 2 of 40 before. */
const SHOTS = 60;

let session: Session;
let x11: X11;
let allowed: LaunchedApp;

/** How many pixels of the image are the popup's colour. */
function flashPixels(img: RawImage): number {
  let n = 0;
  for (let at = 0; at < img.data.length; at += img.channels) {
    if (
      img.data[at] === FLASH[0] &&
      img.data[at + 1] === FLASH[1] &&
      img.data[at + 2] === FLASH[2]
    ) {
      n++;
    }
  }
  return n;
}

async function flasher(mode: 'map' | 'move'): Promise<{ app: LaunchedApp; popup: Rect }> {
  const app = await session.launchFixture('flashing_popup.py', [], {
    env: { AXPAGE_FIXTURE_FLASH: mode, AXPAGE_FIXTURE_X: '60', AXPAGE_FIXTURE_Y: '120' },
  });
  await app.output!.waitForEvent((e) => e.event === 'flashing', { timeoutMs: 15_000 });
  const [x, y, w, h] = app.output!.events.find((e) => e.event === 'ready')!.popup as number[];
  return { app, popup: { x, y, w, h } };
}

beforeAll(async () => {
  session = await Session.start({ serverEnv: { AXPAGE_DENY_APPS: 'flashing_popup.py' } });
  allowed = await session.launchFixture('secret_window.py', [], {
    env: {
      AXPAGE_FIXTURE_TITLE: 'Allowed Under Flash',
      AXPAGE_FIXTURE_X: '40',
      AXPAGE_FIXTURE_Y: '40',
      AXPAGE_FIXTURE_H: '300',
    },
  });
  x11 = X11.open(session.desktop.processEnv().DISPLAY as string, { framebuffer: false });
}, 60_000);

afterAll(async () => {
  x11?.close();
  await session?.close();
});

describe('a denied app whose popup flashes over an allowed window', () => {
  for (const mode of ['map', 'move'] as const) {
    it(`is in no screenshot of the allowed app (${mode})`, async () => {
      const { app, popup } = await flasher(mode);
      try {
        // It does show on the screen itself: the X server's own pixels have it now and then.
        await pollUntil(() => flashPixels(x11.captureRegion(popup, 'shm')) > 0, {
          timeoutMs: 15_000,
          intervalMs: 5,
          what: 'the popup on the screen',
        });
        const leaked: string[] = [];
        for (let i = 0; i < SHOTS; i++) {
          const r = await session.call('ax_screenshot', { app: allowed.pid });
          expect(r.fields.screenshot, r.text).toBeTruthy();
          const n = flashPixels(await decodePng(r.fields.screenshot));
          if (n > 0) leaked.push(`${r.fields.screenshot}: ${n} px`);
        }
        expect(leaked, `screenshots showing the denied popup`).toEqual([]);
      } finally {
        await app.stop();
      }
    }, 180_000);
  }
});
