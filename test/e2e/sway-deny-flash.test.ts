/**
 * On sway no capture reads the pixels and the windows as one instant: a denied app's
 * window mapped and unmapped every 50 ms (test/fixtures/apps/flash_window.py, magenta)
 * is filled in every full-screen capture all the same, with one fixed colour (a mean of
 * the pixels around it would carry its colour). AXPAGE_FLASH_CAPTURES sets how many
 * (default 60).
 */
import { execFileSync } from 'node:child_process';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { SwaySession } from '../../src/desktop/sway.js';
import { Session } from '../../src/harness/session.js';
import { describeNeeding, pythonModule } from './helpers/needs.js';
import { SWAY_SESSION_NEEDS } from './helpers/sway-needs.js';
import { decodePng } from './helpers/pixels.js';

async function decodePngBuffer(png: Buffer) {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels, data };
}

const CAPTURES = Number(process.env.AXPAGE_FLASH_CAPTURES ?? 60);

/** Pixels that carry the denied window's colour: magenta, or a blend leaning to it. */
function magentaish(img: { width: number; height: number; channels: number; data: Buffer }) {
  let n = 0;
  for (let i = 0; i < img.width * img.height * img.channels; i += img.channels) {
    const [r, g, b] = [img.data[i], img.data[i + 1], img.data[i + 2]];
    if (r > 150 && b > 150 && g < r - 60 && g < b - 60) n++;
  }
  return n;
}

describeNeeding(
  [...SWAY_SESSION_NEEDS, pythonModule('gi', 'python3-gi')],
  'a flashing denied window on a headless sway session',
  () => {
    let session: Session<SwaySession>;
    let allowed: LaunchedApp;

    beforeAll(async () => {
      session = await Session.startSway({
        serverEnv: { AXPAGE_DENY_APPS: 'flash_window.py' },
      });
      allowed = await session.launchFixture('toggles.py');
      await session.launchFixture('flash_window.py');
    }, 120_000);

    afterAll(async () => {
      await session?.close();
    });

    it('shows on screen: grim, which knows no deny list, captures it', async () => {
      let seen = 0;
      for (let i = 0; i < 40 && seen === 0; i++) {
        const png = execFileSync('grim', ['-t', 'png', '-'], {
          env: session.desktop.processEnv(),
        });
        seen = magentaish(await decodePngBuffer(png));
      }
      expect(seen).toBeGreaterThan(1000);
    });

    it('is never shown in a full-screen capture, and is filled with a fixed colour', async () => {
      const leaked: string[] = [];
      for (let i = 0; i < CAPTURES; i++) {
        const r = await session.call('ax_screenshot', { app: allowed.pid, full_screen: true });
        expect(r.isError, r.text).toBe(false);
        const png = await decodePng(r.fields.screenshot);
        const n = magentaish(png);
        if (n > 0) leaked.push(`${r.fields.screenshot}: ${n} px`);
      }
      expect(leaked).toEqual([]);
    }, 300_000);
  },
);
