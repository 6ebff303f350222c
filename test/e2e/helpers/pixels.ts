/**
 * Reading a screenshot's pixels back, for tests that check what a capture shows: a filled
 * password field is one flat colour where the screen itself shows its bullets.
 */
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
