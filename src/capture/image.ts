/**
 * Raw screen pixels → PNG, with secure fields redacted first, and a clipped crop.
 * Pure pixel work plus sharp's encoder: no files, no platform.
 */
import sharp from 'sharp';
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
  /** Reuses the PNG it remembers when the pixels to encode are the same (see LastPng). */
  reuse?: LastPng;
}

/** A crop remembers where it sits on screen, so redaction rects still line up. */
export interface CroppedImage extends RawImage {
  origin: Point;
}

/**
 * Redacts every `redact` rect that meets the image, then encodes a PNG. The caller's
 * buffer is never modified (it is copied only when something must be redacted).
 *
 * No palette: quantizing costs 30-70 ms per UI frame and seconds on photos (research
 * mcp-sdk.md §4), for files that are already small at level 6.
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
    const target = { ...image, data };
    fillRegions(target, boxes);
  }
  const shape = `${image.width}x${image.height}x${image.channels} level ${level}`;
  const same = opts.reuse?.find(data, shape);
  if (same) return same;
  const png = await sharp(data, {
    raw: { width: image.width, height: image.height, channels: image.channels },
  })
    .png({ compressionLevel: level, palette: false })
    .toBuffer();
  opts.reuse?.remember(data, shape, png, data !== image.data);
  return png;
}

/**
 * The last PNG encoded through it, with the pixels it was made of (after redaction). An
 * app read again while nothing on it changed gives the same pixels, and the same pixels
 * make the same PNG: comparing them (one memcmp) costs a fraction of encoding them (zlib
 * over every pixel, ~6 ms for a 1366x741 window, CPU the walk running beside it needs).
 */
export class LastPng {
  private last?: { pixels: Buffer; shape: string; png: Buffer };

  /** `shape`: the image's size, channels and zlib level, as one key. */
  find(pixels: Buffer, shape: string): Buffer | undefined {
    const last = this.last;
    return last?.shape === shape && last.pixels.equals(pixels) ? last.png : undefined;
  }

  /**
   * Keeps `pixels` if `owned` (a copy no one else holds), else a copy of them: the
   * caller's buffer may change after this.
   */
  remember(pixels: Buffer, shape: string, png: Buffer, owned = false): void {
    this.last = { pixels: owned ? pixels : Buffer.from(pixels), shape, png };
  }
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
