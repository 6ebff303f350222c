/**
 * PNG encoding by bands of rows. Each band of BAND_ROWS rows is deflated on its own (a
 * full flush ends it, so no band refers back into the one before) and becomes its own
 * IDAT chunk. A frame that differs from the last one in a few rows (a blinking caret, a
 * spinner, a clock) deflates only those bands and takes every other band's bytes as they
 * were: an unchanged band deflates to the same bytes whatever lies around it.
 *
 * The file is a plain PNG (8-bit RGB or RGBA, no interlace, filter None on every row, as
 * sharp writes by default); the zlib stream is one stream over all bands, its checksum
 * combined from the bands' own.
 */
import os from 'node:os';
import zlib from 'node:zlib';
import type { RawImage } from '../platform/desktop.js';

/**
 * Rows per band: 32 rows of a 1366 px RGB frame are 128 KiB, four times deflate's window.
 * On a widget-factory frame, bands of 32 rows make the file 11% larger than one deflate
 * run (98 against 88 KiB); bands of 16, 16%.
 */
const BAND_ROWS = 32;

/** One band as written: its IDAT chunk, and the checksum and length of its filtered rows. */
interface Band {
  chunk: Buffer;
  adler: number;
  length: number;
}

interface Frame {
  width: number;
  height: number;
  channels: 3 | 4;
  level: number;
  pixels: Buffer;
  bands: Band[];
  png: Buffer;
}

/** The last frame encoded through it, band by band (see the module comment). */
export class BandedPng {
  private last?: Frame;

  constructor(private readonly bandRows = BAND_ROWS) {}

  /**
   * The PNG of `image` at zlib `level`. The same pixels as last time give the same
   * Buffer. `image.data` is kept for the next comparison as it is when `keep` (no one
   * writes it again), else as a copy.
   */
  async encode(image: RawImage, level: number, keep = false): Promise<Buffer> {
    const { width, height, channels, data } = image;
    if (width < 1 || height < 1) {
      throw new RangeError(`cannot encode an empty image (${width}x${height}) as PNG`);
    }
    const last = this.last;
    const like =
      last?.width === width &&
      last.height === height &&
      last.channels === channels &&
      last.level === level
        ? last
        : undefined;
    const rowBytes = width * channels;
    const bandBytes = this.bandRows * rowBytes;
    const rowsOf = (pixels: Buffer, i: number) =>
      pixels.subarray(i * bandBytes, (i + 1) * bandBytes);
    const bands: Band[] = new Array<Band>(Math.ceil(height / this.bandRows));
    const changed: number[] = [];
    for (let i = 0; i < bands.length; i++) {
      if (like && rowsOf(data, i).equals(rowsOf(like.pixels, i))) bands[i] = like.bands[i];
      else changed.push(i);
    }
    if (like && changed.length === 0) return like.png;
    // A few bands at a time, one per lane: all at once cost 5x the CPU (47 deflate states
    // on the thread pool together); one at a time, a whole widget-factory frame took 11.9
    // ms against 9.0 with 2 lanes and 6.5 with 4 (sharp's one run: 6.6), at the same CPU.
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(LANES, changed.length) }, async () => {
        while (next < changed.length) {
          const i = changed[next++];
          bands[i] = await deflateBand(rowsOf(data, i), rowBytes, level);
        }
      }),
    );
    const png = assemble(width, height, channels, bands);
    this.last = {
      width,
      height,
      channels,
      level,
      pixels: keep ? data : Buffer.from(data),
      bands,
      png,
    };
    return png;
  }
}

/** The rows of one band with their filter bytes (None), deflated into an IDAT chunk. */
async function deflateBand(rows: Buffer, rowBytes: number, level: number): Promise<Band> {
  const count = rows.length / rowBytes;
  const filtered = Buffer.allocUnsafe(count * (rowBytes + 1));
  for (let r = 0; r < count; r++) {
    const at = r * (rowBytes + 1);
    filtered[at] = 0;
    rows.copy(filtered, at + 1, r * rowBytes, (r + 1) * rowBytes);
  }
  const adler = adler32(filtered);
  const deflated = await new Promise<Buffer>((resolve, reject) =>
    zlib.deflateRaw(filtered, { level, finishFlush: zlib.constants.Z_FULL_FLUSH }, (err, out) =>
      err ? reject(err) : resolve(out),
    ),
  );
  return { chunk: chunk('IDAT', deflated), adler, length: filtered.length };
}

/** Bands deflated at once: one per CPU, at most the thread pool's 4 threads. */
const LANES = Math.max(1, Math.min(4, os.availableParallelism()));

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** zlib header: deflate, 32 KiB window, no dictionary (0x7801 is a multiple of 31). */
const ZLIB_HEADER = chunk('IDAT', Buffer.from([0x78, 0x01]));
/** An empty final stored block: ends the deflate stream the bands left open. */
const FINAL_BLOCK = [0x01, 0x00, 0x00, 0xff, 0xff];
const IEND = chunk('IEND', Buffer.alloc(0));

function assemble(width: number, height: number, channels: 3 | 4, bands: Band[]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = channels === 4 ? 6 : 2; // RGBA : RGB
  // compression 0, filter method 0, no interlace: the zeros already there
  let adler = 1;
  for (const band of bands) adler = adler32Combine(adler, band.adler, band.length);
  const tail = Buffer.from([...FINAL_BLOCK, 0, 0, 0, 0]);
  tail.writeUInt32BE(adler, FINAL_BLOCK.length);
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    ZLIB_HEADER,
    ...bands.map((b) => b.chunk),
    chunk('IDAT', tail),
    IEND,
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.allocUnsafe(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(zlib.crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

const ADLER_BASE = 65521;
/** Bytes that can be summed before the sums must be reduced (zlib's NMAX). */
const ADLER_NMAX = 5552;

export function adler32(buf: Uint8Array): number {
  let a = 1;
  let b = 0;
  let i = 0;
  while (i < buf.length) {
    const end = Math.min(i + ADLER_NMAX, buf.length);
    for (; i < end; i++) {
      a += buf[i];
      b += a;
    }
    a %= ADLER_BASE;
    b %= ADLER_BASE;
  }
  return ((b << 16) | a) >>> 0;
}

/** The Adler-32 of two runs of bytes back to back, from each one's own (zlib's combine). */
export function adler32Combine(first: number, second: number, secondLength: number): number {
  const rem = secondLength % ADLER_BASE;
  let sum1 = first & 0xffff;
  let sum2 = (rem * sum1) % ADLER_BASE;
  sum1 += (second & 0xffff) + ADLER_BASE - 1;
  sum2 += (first >>> 16) + (second >>> 16) + ADLER_BASE - rem;
  if (sum1 >= ADLER_BASE) sum1 -= ADLER_BASE;
  if (sum1 >= ADLER_BASE) sum1 -= ADLER_BASE;
  if (sum2 >= ADLER_BASE * 2) sum2 -= ADLER_BASE * 2;
  if (sum2 >= ADLER_BASE) sum2 -= ADLER_BASE;
  return ((sum2 << 16) | sum1) >>> 0;
}
