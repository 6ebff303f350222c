/**
 * WCAG contrast from pixels: relative luminance, the contrast ratio, and an estimate of a
 * text element's foreground and background colours from the screenshot region it covers.
 * Pure pixel arithmetic: no platform, no files.
 */

/** Raw pixels, RGB or RGBA, row-major, no padding (the shape of a screen capture). */
export interface Pixels {
  width: number;
  height: number;
  channels: 3 | 4;
  data: Uint8Array;
}

/** A rectangle in image pixels. */
export interface PixelRect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export type Rgb = readonly [number, number, number];

/** One sRGB channel (0-255) linearized, as WCAG 2.x defines relative luminance. */
function linear(channel: number): number {
  const c = channel / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** WCAG relative luminance of an sRGB colour: 0 (black) to 1 (white). */
export function relativeLuminance([r, g, b]: Rgb): number {
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** WCAG contrast ratio of two colours: 1 (same) to 21 (black on white). */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const la = relativeLuminance(a);
  const lb = relativeLuminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

export interface ContrastEstimate {
  ratio: number;
  foreground: Rgb;
  background: Rgb;
}

/** 16 levels per channel: 4096 colour bins. */
const BINS = 16 * 16 * 16;
const binCounts = new Uint32Array(BINS);
// A region of a 8K screen sums to under 2^53 per channel: doubles hold it exactly.
const binSums = new Float64Array(BINS * 3);

/** Fewer differing pixels than this: there is no text to judge in the region. */
const MIN_INK_PIXELS = 3;
/**
 * The foreground is the most contrasting colour that at least this share of the text's
 * pixels have: anti-aliased glyph edges blend towards the background, their cores do not,
 * and a stray pixel of another colour must not decide.
 */
const FOREGROUND_SUPPORT = 0.1;

/**
 * Estimates the text contrast in `rect`: the background is the most common colour (16
 * levels per channel), the foreground the most contrasting colour that enough of the
 * other pixels share. Undefined when the region is empty or has no text pixels.
 */
export function estimateContrast(image: Pixels, rect: PixelRect): ContrastEstimate | undefined {
  const x0 = Math.max(0, Math.floor(rect.x));
  const y0 = Math.max(0, Math.floor(rect.y));
  const x1 = Math.min(image.width, Math.floor(rect.x + rect.w));
  const y1 = Math.min(image.height, Math.floor(rect.y + rect.h));
  if (x1 <= x0 || y1 <= y0) return undefined;
  // Counts and channel sums per colour bin, in scratch arrays reused across calls (the
  // function never yields, so no two calls share them at once); `used` lists the bins
  // this call touched, to read and to clear.
  const used: number[] = [];
  for (let y = y0; y < y1; y++) {
    let at = (y * image.width + x0) * image.channels;
    for (let x = x0; x < x1; x++, at += image.channels) {
      const r = image.data[at];
      const g = image.data[at + 1];
      const b = image.data[at + 2];
      const key = ((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4);
      if (binCounts[key]++ === 0) used.push(key);
      binSums[key * 3] += r;
      binSums[key * 3 + 1] += g;
      binSums[key * 3 + 2] += b;
    }
  }
  const colours = used.map((key) => {
    const count = binCounts[key];
    const rgb: Rgb = [
      binSums[key * 3] / count,
      binSums[key * 3 + 1] / count,
      binSums[key * 3 + 2] / count,
    ];
    binCounts[key] = 0;
    binSums[key * 3] = binSums[key * 3 + 1] = binSums[key * 3 + 2] = 0;
    return { count, rgb };
  });
  colours.sort((a, b) => b.count - a.count);
  const [background, ...others] = colours;
  const ink = others
    .map((c) => ({ ...c, ratio: contrastRatio(c.rgb, background.rgb) }))
    .sort((a, b) => b.ratio - a.ratio);
  const inkPixels = ink.reduce((n, c) => n + c.count, 0);
  if (inkPixels < MIN_INK_PIXELS) return undefined;
  const needed = Math.max(2, FOREGROUND_SUPPORT * inkPixels);
  let seen = 0;
  for (const c of ink) {
    seen += c.count;
    if (seen >= needed) {
      return { ratio: c.ratio, foreground: rounded(c.rgb), background: rounded(background.rgb) };
    }
  }
  return undefined;
}

function rounded([r, g, b]: Rgb): Rgb {
  return [Math.round(r), Math.round(g), Math.round(b)];
}

/** "#77aaff" */
export function hexOf([r, g, b]: Rgb): string {
  return '#' + [r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('');
}
