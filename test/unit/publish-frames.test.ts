/**
 * The publisher keeps the last frame of each region it shot lately: an agent going back
 * and forth between two apps gets the unchanged rows of each from that app's last shot.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config.js';
import type { Rect } from '../../src/model/element.js';
import { Publisher } from '../../src/pipeline/publish.js';
import type { Desktop, RawImage } from '../../src/platform/desktop.js';
import { buildSnapshot, viewOf } from './helpers/synthetic.js';

/** The pixels a region shows: the same every time, different per region. */
function pixelsOf(rect: Rect): RawImage {
  const data = Buffer.alloc(rect.w * rect.h * 3);
  for (let i = 0; i < data.length; i++) data[i] = (i * 7 + rect.x * 13 + (i >> 10)) & 255;
  return { width: rect.w, height: rect.h, channels: 3, data };
}

const screen = { w: 1000, h: 800 };
const desktop = {
  screenSize: async () => screen,
  capture: async (rect: Rect) => pixelsOf(rect),
  secureFieldFrames: async () => ({ fresh: [], failed: [] }),
} as unknown as Desktop;

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-frames-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const view = viewOf(
  buildSnapshot([
    { role: 'AXWindow', name: 'Main', frame: [0, 0, 200, 100], window: { active: true } },
  ]),
);

describe('Publisher: the last frame per region', () => {
  it('deflates nothing again for a region shot before, though another was shot in between', async () => {
    const p = new Publisher(async () => desktop, { ...DEFAULT_CONFIG, outDir: dir });
    const a = { x: 0, y: 0, w: 120, h: 96 };
    const b = { x: 300, y: 200, w: 80, h: 64 };
    const deflate = vi.spyOn(zlib, 'deflateRaw');
    const shoot = async (rect: Rect) => {
      deflate.mockClear();
      const r = await p.publish('ax_screenshot', { view, did: 'shot', capture: { rect } });
      const png = fs.readFileSync(String(r.structured.screenshot));
      const { data } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
      expect(data.equals(pixelsOf(rect).data)).toBe(true);
      return deflate.mock.calls.length;
    };
    expect(await shoot(a)).toBe(3); // 96 rows: 3 bands of 32
    expect(await shoot(b)).toBe(2);
    expect(await shoot(a)).toBe(0);
    expect(await shoot(b)).toBe(0);
  });
});
