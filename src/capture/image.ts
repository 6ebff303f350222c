/**
 * Raw screen pixels → PNG, with secure fields redacted first, and a clipped crop.
 * Pure pixel work, our banded PNG encoder and sharp's decoder: no files, no platform.
 */
import sharp from 'sharp';
import { BandedPng } from './png-bands.js';
import type { Rect } from '../model/element.js';
import type { RawImage } from '../platform/desktop.js';
import { fillRegions, toPixelBox, type PixelBox } from './redact.js';

/** A point in screen points. */
export interface Point {
  x: number;
  y: number;
}

export interface EncodeOptions {
  /** Screen point of the image's top-left pixel. */
  origin: Point;
  /** Screen rects (points) of secure fields: their pixels never reach the PNG. */
  redact?: Rect[];
  /**
   * zlib level 0-9. Default 3: on a 1366x741 widget-factory frame half the time of level 6
   * (3.5 vs 7.1 ms at best) for an 8% larger file (88 vs 81 KiB); level 9 is 7x slower
   * (bench section 10).
   */
  compressionLevel?: number;
  /** Image pixels per screen point (2 on a Retina capture). Default 1. */
  scale?: number;
  /**
   * The last frame encoded through it: bands of rows whose pixels are the same are not
   * deflated again, and the same pixels give the same PNG (see png-bands.ts).
   */
  reuse?: BandedPng;
  /**
   * The caller never writes `image.data` after this call (a fresh capture): `reuse` keeps
   * the buffer itself instead of a copy (a 1366x741 frame is 3 MB to copy per call).
   */
  fixedPixels?: boolean;
}

/** A crop remembers where it sits on screen, so redaction rects still line up. */
export interface CroppedImage extends RawImage {
  origin: Point;
}

/**
 * Redacts every `redact` rect that meets the image, then encodes a PNG (see png-bands.ts).
 * The caller's buffer is never modified (it is copied only when something must be
 * redacted).
 *
 * No palette: quantizing costs 30-70 ms per UI frame and seconds on photos, for files
 * that are already small.
 */
export async function encodePng(image: RawImage, opts: EncodeOptions): Promise<Buffer> {
  checkImage(image);
  const level = opts.compressionLevel ?? DEFAULT_PNG_LEVEL;
  if (!Number.isInteger(level) || level < 0 || level > 9) {
    throw new RangeError(`compressionLevel must be a whole number 0-9, got ${level}`);
  }
  const boxes = redactionBoxes(image, opts);
  let data = image.data;
  if (boxes.length > 0) {
    data = Buffer.from(image.data);
    fillRegions({ ...image, data }, boxes);
  }
  const { width, height, channels } = image;
  // A redacted copy is ours alone: kept as it is, like a buffer its caller never writes.
  const keep = data !== image.data || opts.fixedPixels === true;
  return (opts.reuse ?? new BandedPng()).encode({ width, height, channels, data }, level, keep);
}

export const DEFAULT_PNG_LEVEL = 3;

/** The pixel boxes encodePng fills for `opts.redact` on `image`, in the order it fills them. */
function redactionBoxes(
  image: { width: number; height: number },
  opts: Pick<EncodeOptions, 'origin' | 'redact' | 'scale'>,
): PixelBox[] {
  const scale = checkScale(opts.scale);
  const boxes: PixelBox[] = [];
  for (const rect of opts.redact ?? []) {
    const box = toPixelBox(rect, opts.origin, scale, image.width, image.height);
    if (box) boxes.push(box);
  }
  return boxes;
}

/**
 * Whether two redactions fill the same pixels of `image` with the same colours (the same
 * boxes in the same order): a PNG encoded with one is then the PNG of the other.
 */
export function sameRedaction(
  image: { width: number; height: number },
  origin: Point,
  a: readonly Rect[],
  b: readonly Rect[],
): boolean {
  const boxesA = redactionBoxes(image, { origin, redact: [...a] });
  const boxesB = redactionBoxes(image, { origin, redact: [...b] });
  return (
    boxesA.length === boxesB.length &&
    boxesA.every(
      (box, i) =>
        box.x0 === boxesB[i].x0 &&
        box.y0 === boxesB[i].y0 &&
        box.x1 === boxesB[i].x1 &&
        box.y1 === boxesB[i].y1,
    )
  );
}

/**
 * A PNG back to raw pixels: what a written screenshot shows, redactions included, for
 * work on the pixels an agent can also look at.
 */
export async function decodePng(png: Buffer): Promise<RawImage> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3 && info.channels !== 4) {
    throw new RangeError(`PNG decodes to ${info.channels} channels, expected 3 or 4`);
  }
  return { width: info.width, height: info.height, channels: info.channels, data };
}

/**
 * Copies the part of `image` (whose top-left is at screen point `origin`) inside the
 * screen rect `rect`, clipped to the image. An empty intersection gives a 0x0 image.
 */
export function cropToRect(image: RawImage, origin: Point, rect: Rect, scale = 1): CroppedImage {
  checkImage(image);
  scale = checkScale(scale);
  const box = toPixelBox(rect, origin, scale, image.width, image.height);
  if (!box) {
    return {
      width: 0,
      height: 0,
      channels: image.channels,
      data: Buffer.alloc(0),
      origin: { ...origin },
    };
  }
  const { channels } = image;
  const width = box.x1 - box.x0;
  const height = box.y1 - box.y0;
  const rowBytes = width * channels;
  const data = Buffer.allocUnsafe(rowBytes * height);
  for (let y = 0; y < height; y++) {
    const src = ((box.y0 + y) * image.width + box.x0) * channels;
    image.data.copy(data, y * rowBytes, src, src + rowBytes);
  }
  return {
    width,
    height,
    channels,
    data,
    origin: { x: origin.x + box.x0 / scale, y: origin.y + box.y0 / scale },
  };
}

function checkImage(image: RawImage): void {
  const { width, height, channels, data } = image;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 0 || height < 0) {
    throw new RangeError(`image size must be whole pixels, got ${width}x${height}`);
  }
  if (channels !== 3 && channels !== 4) {
    throw new RangeError(`image must have 3 or 4 channels, got ${String(channels)}`);
  }
  if (data.length !== width * height * channels) {
    throw new RangeError(
      `image data is ${data.length} bytes, expected ${width}x${height}x${channels} = ${width * height * channels}`,
    );
  }
}

function checkScale(scale: number | undefined): number {
  if (scale === undefined) return 1;
  if (!Number.isFinite(scale) || scale <= 0) {
    throw new RangeError(`scale must be a positive number of pixels per point, got ${scale}`);
  }
  return scale;
}
