/**
 * Reading a screenshot's pixels back, for tests that check what a capture shows: a filled
 * password field is one flat colour where the screen itself shows its bullets.
 */
import fs from 'node:fs';
import sharp from 'sharp';
import type { Rect } from '../../../src/model/element.js';
import type { RawImage } from '../../../src/platform/desktop.js';

/** A PNG the server wrote, decoded by sharp (an independent reader, not our encoder). */
export async function decodePng(file: string): Promise<RawImage> {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels as 3 | 4, data };
}

/**
 * How many distinct colours the screen rect `r` has in `img`, an image whose top-left
 * pixel is the screen's `origin` (a full-screen capture's is 0,0).
 */
export function coloursIn(
  img: Pick<RawImage, 'width' | 'channels' | 'data'>,
  origin: { x: number; y: number },
  r: Rect,
): number {
  const seen = new Set<string>();
  for (let y = r.y; y < r.y + r.h; y++) {
    for (let x = r.x; x < r.x + r.w; x++) {
      const at = ((y - origin.y) * img.width + (x - origin.x)) * img.channels;
      seen.add(`${img.data[at]},${img.data[at + 1]},${img.data[at + 2]}`);
    }
  }
  return seen.size;
}

/**
 * The screen as the X server holds it now, read from Xvfb's -fbdir file (XWD: a header of
 * big-endian words, a colour map, then 32-bit BGRX rows): what is drawn, independent of
 * axpage's capture and of what it fills in its screenshots.
 */
export function framebuffer(env: NodeJS.ProcessEnv): RawImage {
  const file = env.XVFB_FB;
  if (!file) throw new Error('the desktop has no XVFB_FB framebuffer file');
  const fb = fs.readFileSync(file);
  const word = (i: number): number => fb.readUInt32BE(i * 4);
  const [headerSize, width, height, bitsPerPixel, bytesPerLine, colours] = [
    word(0),
    word(4),
    word(5),
    word(11),
    word(12),
    word(19),
  ];
  if (bitsPerPixel !== 32) throw new Error(`framebuffer has ${bitsPerPixel} bits per pixel`);
  const start = headerSize + colours * 12;
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = start + y * bytesPerLine + x * 4;
      const to = (y * width + x) * 3;
      data[to] = fb[at + 2];
      data[to + 1] = fb[at + 1];
      data[to + 2] = fb[at];
    }
  }
  return { width, height, channels: 3, data };
}
