/**
 * Secure-field redaction: the pixels of a password field are replaced, not blurred.
 *
 * Why a flat fill and not a blur or a pixelation: both keep a function of the secret
 * that can be inverted. Deconvolution sharpens Gaussian blur back to legible text, and
 * pixelated text falls to a search over candidate strings rendered with the same font
 * (Depix, Unredacter). A fill with the region's own mean colour still leaks the ink
 * density (about how many characters). So the region is filled with the mean colour of
 * the ring of pixels just *outside* it (the field's frame and the window around it):
 * the output inside is then the same whatever the field held. It reads as a blank
 * patch; the tree file marks the element `secure`, so nothing looks falsely empty there.
 */
import type { Rect } from '../model/element.js';
import type { RawImage } from '../platform/desktop.js';

/** A half-open pixel box [x0, x1) x [y0, y1), already clipped to the image. */
export interface PixelBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * Maps a screen rect to the pixels it touches (rounded outward, so a fractional edge
 * is covered), clipped to the image. Null when it misses the image or is empty.
 * A rect with a non-finite coordinate throws: a secure field we cannot place must fail
 * the capture rather than slip through unredacted.
 */
export function toPixelBox(
  rect: Rect,
  origin: { x: number; y: number },
  scale: number,
  width: number,
  height: number,
): PixelBox | null {
  const nums = [rect.x, rect.y, rect.w, rect.h, origin.x, origin.y];
  if (!nums.every(Number.isFinite)) {
    throw new RangeError(`cannot place rect ${JSON.stringify(rect)} on the image`);
  }
  if (rect.w <= 0 || rect.h <= 0) return null;
  const x0 = Math.max(0, Math.floor((rect.x - origin.x) * scale));
  const y0 = Math.max(0, Math.floor((rect.y - origin.y) * scale));
  const x1 = Math.min(width, Math.ceil((rect.x + rect.w - origin.x) * scale));
  const y1 = Math.min(height, Math.ceil((rect.y + rect.h - origin.y) * scale));
  if (x1 <= x0 || y1 <= y0) return null;
  return { x0, y0, x1, y1 };
}

/**
 * Fills every box in place, each with `colour` when given, else with the mean colour of
 * the 1-pixel ring around it,
 * leaving out the pixels of every box:
 * where two fields touch or overlap (two apps' windows), one's colour must not be taken
 * from the other's unfilled secret.
 */
export function fillRegions(
  image: RawImage,
  boxes: readonly PixelBox[],
  colour?: readonly number[],
): void {
  const colours = boxes.map((box) => colour ?? ringMean(image, box, boxes));
  boxes.forEach((box, i) => fillWith(image, box, colours[i]));
}

function fillWith(image: RawImage, box: PixelBox, colour: readonly number[]): void {
  const { width, channels, data } = image;
  const rowBytes = (box.x1 - box.x0) * channels;
  // Fill the first row pixel by pixel, then copy it down: one native copy per row.
  const first = (box.y0 * width + box.x0) * channels;
  for (let i = 0; i < rowBytes; i += channels) {
    for (let c = 0; c < channels; c++) data[first + i + c] = colour[c];
  }
  for (let y = box.y0 + 1; y < box.y1; y++) {
    data.copy(data, (y * width + box.x0) * channels, first, first + rowBytes);
  }
}

const inside = (b: PixelBox, x: number, y: number): boolean =>
  x >= b.x0 && x < b.x1 && y >= b.y0 && y < b.y1;

/**
 * Mean of each channel over the pixels just outside the box (those inside the image and
 * outside every box in `skip`). With no such pixel (the box covers the whole image): a
 * neutral opaque grey.
 */
function ringMean(image: RawImage, box: PixelBox, skip: readonly PixelBox[]): number[] {
  const { width, height, channels, data } = image;
  const sums = new Array<number>(channels).fill(0);
  let count = 0;
  const add = (x: number, y: number): void => {
    if (skip.some((b) => inside(b, x, y))) return;
    const at = (y * width + x) * channels;
    for (let c = 0; c < channels; c++) sums[c] += data[at + c];
    count++;
  };
  const left = box.x0 - 1;
  const right = box.x1;
  const xa = Math.max(0, left);
  const xb = Math.min(width - 1, right);
  if (box.y0 > 0) for (let x = xa; x <= xb; x++) add(x, box.y0 - 1);
  if (box.y1 < height) for (let x = xa; x <= xb; x++) add(x, box.y1);
  for (let y = box.y0; y < box.y1; y++) {
    if (left >= 0) add(left, y);
    if (right < width) add(right, y);
  }
  if (count === 0) return channels === 4 ? [128, 128, 128, 255] : [128, 128, 128];
  return sums.map((s) => Math.round(s / count));
}
