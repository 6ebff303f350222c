import zlib from 'node:zlib';
import sharp from 'sharp';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { adler32, adler32Combine, BandedPng } from '../../src/capture/png-bands.js';
import type { RawImage } from '../../src/platform/desktop.js';

/** A UI-like frame: flat panels, a few lines of "text", deterministic per seed. */
function frame(width: number, height: number, channels: 3 | 4, seed = 1): RawImage {
  const data = Buffer.alloc(width * height * channels);
  let s = seed >>> 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * channels;
      s = (s * 1664525 + 1013904223) >>> 0;
      const ink = y % 9 < 5 && x % 7 < 4 && s % 3 === 0;
      const v = ink ? 20 : x < width / 3 ? 236 : 250;
      data[at] = v;
      data[at + 1] = ink ? 20 : v - (y & 7);
      data[at + 2] = v;
      if (channels === 4) data[at + 3] = 255;
    }
  }
  return { width, height, channels, data };
}

/** The same frame with the pixels of rows y0..y1 (and columns x0..x1) changed. */
function withChange(img: RawImage, x0: number, y0: number, x1: number, y1: number): RawImage {
  const data = Buffer.from(img.data);
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) data[(y * img.width + x) * img.channels] ^= 0x5a;
  }
  return { ...img, data };
}

async function decoded(png: Buffer): Promise<Buffer> {
  const { data } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  return data;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('BandedPng', () => {
  it('writes PNGs a decoder reads back exactly, whatever the size against the band height', async () => {
    for (const [w, h, channels] of [
      [1, 1, 3],
      [13, 7, 4],
      [40, 32, 3],
      [40, 33, 4],
      [64, 95, 3],
      [300, 200, 4],
    ] as const) {
      const img = frame(w, h, channels, w + h);
      const png = await new BandedPng().encode(img, 3);
      const { info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
      expect(info).toMatchObject({ width: w, height: h, channels });
      expect((await decoded(png)).equals(img.data), `${w}x${h}x${channels}`).toBe(true);
    }
  });

  it('gives the same Buffer for the same pixels, and a later frame the very bytes a fresh encode gives', async () => {
    const enc = new BandedPng(16);
    const first = frame(120, 100, 3);
    const png1 = await enc.encode(first, 3);
    expect(await enc.encode({ ...first, data: Buffer.from(first.data) }, 3)).toBe(png1);
    // A caret in rows 20-37 (two bands), then a spinner in the last rows (a short band).
    let img = first;
    for (const change of [
      [10, 20, 12, 37],
      [100, 90, 116, 100],
    ] as const) {
      const [x0, y0, x1, y1] = change;
      img = withChange(img, x0, y0, x1, y1);
      const png = await enc.encode(img, 3);
      expect(png.equals(await new BandedPng(16).encode(img, 3))).toBe(true);
      expect((await decoded(png)).equals(img.data)).toBe(true);
    }
  });

  it('deflates only the bands whose rows changed', async () => {
    const enc = new BandedPng(16);
    const img = frame(120, 100, 4); // 7 bands, the last of 4 rows
    const deflate = vi.spyOn(zlib, 'deflateRaw');
    await enc.encode(img, 3);
    expect(deflate).toHaveBeenCalledTimes(7);
    deflate.mockClear();
    await enc.encode(withChange(img, 5, 40, 9, 41), 3); // one row, in band 2
    expect(deflate).toHaveBeenCalledTimes(1);
    deflate.mockClear();
    await enc.encode(withChange(img, 5, 15, 9, 17), 3); // rows 15-16: bands 0 and 1 (and 2 back)
    expect(deflate).toHaveBeenCalledTimes(3);
  });

  it('starts over on another size, channel count or level, and stays exact', async () => {
    const enc = new BandedPng(16);
    const deflate = vi.spyOn(zlib, 'deflateRaw');
    const img = frame(50, 40, 3);
    await enc.encode(img, 3);
    for (const [next, level] of [
      [img, 6],
      [frame(50, 41, 3), 6],
      [frame(50, 40, 4), 6],
    ] as const) {
      deflate.mockClear();
      const png = await enc.encode(next, level);
      expect(deflate).toHaveBeenCalledTimes(Math.ceil(next.height / 16));
      expect((await decoded(png)).equals(next.data)).toBe(true);
    }
  });

  it('compares against a copy unless told the buffer stays as it is', async () => {
    const copying = new BandedPng();
    const img = frame(30, 20, 3);
    const png = await copying.encode(img, 3);
    img.data[0] ^= 0xff; // the caller writes its buffer after the encode
    expect(await copying.encode(img, 3)).not.toBe(png);
    expect((await decoded(await copying.encode(img, 3))).equals(img.data)).toBe(true);

    const keeping = new BandedPng();
    const kept = frame(30, 20, 3);
    const keptPng = await keeping.encode(kept, 3, true);
    kept.data[0] ^= 0xff; // breaks the promise: only a kept reference sees it
    expect(await keeping.encode({ ...kept, data: Buffer.from(kept.data) }, 3)).toBe(keptPng);
  });

  it('refuses an empty image', async () => {
    await expect(
      new BandedPng().encode({ width: 0, height: 0, channels: 3, data: Buffer.alloc(0) }, 3),
    ).rejects.toThrow(/empty image \(0x0\)/);
  });
});

describe('Adler-32', () => {
  it('matches zlib, and combines two runs as the checksum of both', () => {
    const a = Buffer.from(frame(97, 61, 3).data);
    const b = Buffer.from(frame(33, 200, 4, 7).data);
    const zlibAdler = (buf: Buffer) => {
      const z = zlib.deflateSync(buf, { level: 0 });
      return z.readUInt32BE(z.length - 4);
    };
    expect(adler32(a)).toBe(zlibAdler(a));
    expect(adler32(Buffer.alloc(0))).toBe(1);
    expect(adler32Combine(adler32(a), adler32(b), b.length)).toBe(zlibAdler(Buffer.concat([a, b])));
    expect(adler32Combine(adler32(a), adler32(Buffer.alloc(0)), 0)).toBe(adler32(a));
  });
});
