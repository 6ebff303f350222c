/**
 * Qt 5 and GTK 4 on a headless sway session, through `axpage serve`: their frames are
 * window-relative there as GTK 3's are, and the server places them by sway's content
 * origin. Oracles: the fixtures' own event logs, and the screenshot's pixels decoded by
 * sharp. Tiled side by side, the GTK 4 window is narrower than its minimum width: sway
 * clips it at its tile's left edge, which the placement keeps.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';

import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { SwaySession } from '../../src/desktop/sway.js';
import { Session } from '../../src/harness/session.js';
import type { Rect } from '../../src/model/element.js';
import { describeNeeding, pythonModule, pythonGtk } from './helpers/needs.js';
import { SWAY_SESSION_NEEDS } from './helpers/sway-needs.js';
import { decodePng } from './helpers/pixels.js';

/** The share of pixels of screen rect `r` in a full-screen image that are pure white. */
function whiteShare(img: { width: number; channels: number; data: Buffer }, r: Rect): number {
  let white = 0;
  for (let y = r.y; y < r.y + r.h; y++) {
    for (let x = r.x; x < r.x + r.w; x++) {
      const at = (y * img.width + x) * img.channels;
      if (img.data[at] === 255 && img.data[at + 1] === 255 && img.data[at + 2] === 255) white++;
    }
  }
  return white / (r.w * r.h);
}

describeNeeding(
  [
    ...SWAY_SESSION_NEEDS,
    pythonModule('PyQt5', 'python3-pyqt5'),
    pythonGtk('4.0', 'gir1.2-gtk-4.0'),
  ],
  'Qt 5 and GTK 4 on a headless sway session',
  () => {
    let session: Session<SwaySession>;
    let qt: LaunchedApp;
    let gtk4: LaunchedApp;

    beforeAll(async () => {
      session = await Session.startSway();
      qt = await session.launchFixture('qt_aim.py');
      gtk4 = await session.launchFixture('gtk4_nav.py');
    }, 90_000);

    afterAll(async () => {
      await session?.close();
    });

    const frameOf = async (app: LaunchedApp, query: string): Promise<Rect> => {
      const r = await session.call('ax_find', { app: app.pid, query });
      expect(r.isError, r.text).toBe(false);
      const { position, size } = r.structured as { position: number[]; size: number[] };
      return { x: position[0], y: position[1], w: size[0], h: size[1] };
    };

    it('types into a Qt 5 line edit, keys beyond the us keymap too, and presses Return', async () => {
      let from = qt.output!.events.length;
      const r = await session.call('ax_type', {
        app: qt.pid,
        query: 'text:Search',
        text: 'Grüße',
        delivery_mode: 'foreground',
      });
      expect(r.isError, r.text).toBe(false);
      await qt.output!.waitForEvent((e) => e.event === 'changed' && e.value === 'Grüße', {
        from,
        timeoutMs: 15_000,
      });
      from = qt.output!.events.length;
      const k = await session.call('ax_key_press', {
        app: qt.pid,
        query: 'text:Search',
        key: 'Return',
      });
      expect(k.isError, k.text).toBe(false);
      await qt.output!.waitForEvent((e) => e.event === 'returned' && e.value === 'Grüße', {
        from,
        timeoutMs: 15_000,
      });
    });

    it('places GTK 4 and Qt 5 frames where their pixels are', async () => {
      // A GTK 4 list row is white (its list's background) with dark text on it; 25 px up,
      // where a frame placed by the window's outer corner would put it, is the list's
      // grey heading.
      const apple = await frameOf(gtk4, 'row:Apple');
      const search = await frameOf(qt, 'text:Search');
      const shot = await session.call('ax_screenshot', { app: gtk4.pid, full_screen: true });
      expect(shot.isError, shot.text).toBe(false);
      const img = await decodePng(shot.fields.screenshot);
      const inner = (r: Rect): Rect => ({ x: r.x + 3, y: r.y + 3, w: r.w - 6, h: r.h - 6 });
      expect(whiteShare(img, inner(apple))).toBeGreaterThan(0.6);
      expect(whiteShare(img, inner({ ...apple, y: apple.y - 25 }))).toBeLessThan(0.3);
      // Qt 5's line edit is white inside its border too.
      expect(whiteShare(img, inner(search))).toBeGreaterThan(0.6);
      expect(whiteShare(img, inner({ ...search, y: search.y - 25 }))).toBeLessThan(0.3);
    });
  },
);
