/**
 * In safe mode a window that no accessible app stands behind is filled whole in every
 * capture, whatever its title: nothing can say where its password fields are. The app is
 * a real Tk window (Tk has no accessibility bridge) titled "Acme Tool" with a masked entry,
 * which full mode shows as it is (the title says nothing of a secret), bullets and all.
 * Checked on the PNG's pixels of a full-screen capture (ax_list_apps takes one).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, Session } from '../../src/harness/session.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { Rect } from '../../src/model/element.js';
import { X11 } from '../../src/platform/linux/x11.js';
import { coloursIn, decodePng } from './helpers/pixels.js';

const rectOf = (f: unknown): Rect => {
  const [x, y, w, h] = f as number[];
  return { x, y, w, h };
};

const inside = (f: Rect, by = 3): Rect => ({
  x: f.x + by,
  y: f.y + by,
  w: f.w - 2 * by,
  h: f.h - 2 * by,
});

for (const mode of ['safe', 'full'] as const) {
  describe(`a Tk window with a masked entry, ${mode} mode`, () => {
    let session: Session;
    let x11: X11;
    let tk: LaunchedApp;
    let field: Rect;

    beforeAll(async () => {
      session = await Session.start({ serverEnv: { AXPAGE_MODE: mode } });
      x11 = X11.open(session.desktop.processEnv().DISPLAY as string, { framebuffer: false });
      tk = await session.launch('/usr/bin/python3', [fixtureApp('tk_secret.py')], {
        stdio: 'pipe',
        waitFor: 'none',
      });
      const ready = await tk.output!.waitForEvent((e) => e.event === 'ready', {
        timeoutMs: 60_000,
      });
      field = rectOf(ready.field);
      // Painted: the masked entry shows more than its background.
      const until = Date.now() + 30_000;
      while (coloursIn(x11.captureRegion(field), { x: 0, y: 0 }, { ...field, x: 0, y: 0 }) <= 1) {
        if (Date.now() > until) throw new Error('the Tk entry was never drawn');
        await new Promise((r) => setTimeout(r, 50));
      }
    }, 90_000);

    afterAll(async () => {
      x11?.close();
      await session?.close();
    });

    it(
      mode === 'safe'
        ? 'a full-screen capture fills its window whole, and says so'
        : 'a full-screen capture shows it as it is',
      async () => {
        const r = await session.call('ax_list_apps', {});
        expect(r.isError, r.text).toBe(false);
        const img = await decodePng(r.fields.screenshot);
        const shown = coloursIn(img, { x: 0, y: 0 }, inside(field));
        if (mode === 'safe') {
          expect(shown, r.text).toBe(1);
          expect(r.text).toMatch(/without accessibility filled whole/);
        } else {
          expect(shown, r.text).toBeGreaterThan(1);
        }
      },
    );
  });
}
