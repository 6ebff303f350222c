/**
 * PNG ↔ raw RGBA pixels. Every comparison and drawing works on decoded pixels, never on
 * PNG bytes (two encodings of the same pixels need not be byte-equal).
 */
import sharp from 'sharp';

/** Decoded pixels: 4 bytes (RGBA) per pixel, rows top to bottom. */
export interface Rgba {
  width: number;
  height: number;
  data: Uint8Array;
}

export async function decodePng(png: Buffer | Uint8Array): Promise<Rgba> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data) };
}

export function encodePng(image: Rgba): Promise<Buffer> {
  return sharp(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength), {
    raw: { width: image.width, height: image.height, channels: 4 },
  })
    .png({ compressionLevel: 6 })
    .toBuffer();
}

/** A PNG's size, from its header (no decoding). */
export async function pngSize(
  png: Buffer | Uint8Array,
): Promise<{ width: number; height: number }> {
  const meta = await sharp(png).metadata();
  return { width: meta.width ?? 0, height: meta.height ?? 0 };
}
