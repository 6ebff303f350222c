/**
 * Pixel diff of two same-sized images (pixelmatch, with its anti-aliasing detection):
 * how many pixels changed, where, and a diff image (changes in red over a faded copy).
 */
import pixelmatch from 'pixelmatch';
import type { Rgba } from './pixels.js';

/** The colour pixelmatch paints a changed pixel; the faded copy never reaches it. */
const CHANGED: readonly [number, number, number] = [255, 0, 0];

export interface PixelDiff {
  changed: number;
  total: number;
  /** changed / total, 0 for two empty images. */
  ratio: number;
  /** 1 where a pixel changed, row-major. */
  mask: Uint8Array;
  /** The second image faded, changed pixels red (anti-aliasing-only changes yellow). */
  image: Rgba;
}

export class SizeMismatchError extends Error {
  override name = 'SizeMismatchError';
  constructor(
    readonly before: { width: number; height: number },
    readonly after: { width: number; height: number },
  ) {
    super(
      `the screenshots differ in size (${before.width}x${before.height} before, ${after.width}x${after.height} after)`,
    );
  }
}

/**
 * Compares `before` and `after` pixel by pixel. `threshold` (0-1) is pixelmatch's colour
 * distance below which two pixels count as equal. Images of different sizes throw
 * SizeMismatchError: their pixels do not correspond.
 */
export function diffPixels(before: Rgba, after: Rgba, threshold = 0.1): PixelDiff {
  if (before.width !== after.width || before.height !== after.height) {
    throw new SizeMismatchError(before, after);
  }
  const { width, height } = after;
  const total = width * height;
  const out = new Uint8Array(total * 4);
  const changed =
    total === 0
      ? 0
      : pixelmatch(before.data, after.data, out, width, height, {
          threshold,
          diffColor: [...CHANGED],
        });
  const mask = new Uint8Array(total);
  for (let p = 0, o = 0; p < total; p++, o += 4) {
    if (out[o] === CHANGED[0] && out[o + 1] === CHANGED[1] && out[o + 2] === CHANGED[2]) {
      mask[p] = 1;
    }
  }
  return {
    changed,
    total,
    ratio: total === 0 ? 0 : changed / total,
    mask,
    image: { width, height, data: out },
  };
}
