/** WCAG contrast arithmetic and the estimate from pixels, on synthetic images of known colours. */
import { describe, expect, it } from 'vitest';
import {
  contrastRatio,
  estimateContrast,
  relativeLuminance,
  type Pixels,
} from '../../src/audit/index.js';

type Rgb = [number, number, number];

/** A `w`x`h` image of `bg` with the rectangles of `ink` painted on it. */
function image(
  w: number,
  h: number,
  bg: Rgb,
  ink: Array<{ rgb: Rgb; x: number; y: number; w: number; h: number }> = [],
  channels: 3 | 4 = 3,
): Pixels {
  const data = new Uint8Array(w * h * channels);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const hit = ink.find((r) => x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h);
      const c = hit ? hit.rgb : bg;
      const at = (y * w + x) * channels;
      data.set(channels === 4 ? [...c, 255] : c, at);
    }
  }
  return { width: w, height: h, channels, data };
}

/** Strokes like glyph stems: a core colour with blended edges on both sides. */
function textLike(fg: Rgb, bg: Rgb): Pixels {
  const mix = (t: number): Rgb => fg.map((c, i) => Math.round(c * t + bg[i] * (1 - t))) as Rgb;
  const ink = [];
  for (let x = 4; x < 56; x += 6) {
    ink.push({ rgb: mix(0.35), x: x - 1, y: 4, w: 1, h: 12 });
    ink.push({ rgb: fg, x, y: 4, w: 2, h: 12 });
    ink.push({ rgb: mix(0.6), x: x + 2, y: 4, w: 1, h: 12 });
  }
  return image(60, 20, bg, ink);
}

describe('WCAG contrast arithmetic', () => {
  it('gives black on white 21:1 and a colour against itself 1:1', () => {
    expect(contrastRatio([0, 0, 0], [255, 255, 255])).toBeCloseTo(21, 5);
    expect(contrastRatio([119, 119, 119], [119, 119, 119])).toBe(1);
  });

  it('gives #777 on #fff about 4.48:1, just under the 4.5 minimum', () => {
    const ratio = contrastRatio([0x77, 0x77, 0x77], [0xff, 0xff, 0xff]);
    expect(ratio).toBeGreaterThan(4.47);
    expect(ratio).toBeLessThan(4.49);
  });

  it('weights green over red over blue (relative luminance)', () => {
    const g = relativeLuminance([0, 255, 0]);
    const r = relativeLuminance([255, 0, 0]);
    const b = relativeLuminance([0, 0, 255]);
    expect(g).toBeGreaterThan(r);
    expect(r).toBeGreaterThan(b);
    expect(g + r + b).toBeCloseTo(1, 5);
  });
});

describe('estimateContrast', () => {
  it('finds black text on white: 21:1', () => {
    const e = estimateContrast(textLike([0, 0, 0], [255, 255, 255]), { x: 0, y: 0, w: 60, h: 20 });
    expect(e?.foreground).toEqual([0, 0, 0]);
    expect(e?.background).toEqual([255, 255, 255]);
    expect(e?.ratio).toBeCloseTo(21, 1);
  });

  it('finds #777 text on white despite anti-aliased edges: about 4.48:1', () => {
    const e = estimateContrast(textLike([0x77, 0x77, 0x77], [255, 255, 255]), {
      x: 0,
      y: 0,
      w: 60,
      h: 20,
    });
    expect(e?.ratio).toBeGreaterThan(4.4);
    expect(e?.ratio).toBeLessThan(4.55);
  });

  it('finds light text on a dark background the same way round', () => {
    const e = estimateContrast(textLike([0xdd, 0xdd, 0xdd], [0x22, 0x22, 0x22]), {
      x: 0,
      y: 0,
      w: 60,
      h: 20,
    });
    expect(e?.background).toEqual([0x22, 0x22, 0x22]);
    expect(e?.ratio).toBeCloseTo(contrastRatio([0xdd, 0xdd, 0xdd], [0x22, 0x22, 0x22]), 1);
  });

  it('reads RGBA images and only the region asked for', () => {
    const img = image(
      40,
      10,
      [255, 255, 255],
      [
        { rgb: [0, 0, 0], x: 2, y: 2, w: 6, h: 6 },
        { rgb: [200, 200, 200], x: 22, y: 2, w: 6, h: 6 },
      ],
      4,
    );
    expect(estimateContrast(img, { x: 0, y: 0, w: 20, h: 10 })?.ratio).toBeCloseTo(21, 1);
    expect(estimateContrast(img, { x: 20, y: 0, w: 20, h: 10 })?.ratio).toBeLessThan(2);
  });

  it('has no estimate for a flat region or one outside the image', () => {
    const flat = image(20, 10, [240, 240, 240]);
    expect(estimateContrast(flat, { x: 0, y: 0, w: 20, h: 10 })).toBeUndefined();
    expect(estimateContrast(flat, { x: 30, y: 0, w: 5, h: 5 })).toBeUndefined();
  });

  it('lets no single stray pixel decide the foreground', () => {
    const img = image(
      30,
      10,
      [255, 255, 255],
      [
        { rgb: [0xaa, 0xaa, 0xaa], x: 2, y: 2, w: 20, h: 6 },
        { rgb: [0, 0, 0], x: 25, y: 5, w: 1, h: 1 },
      ],
    );
    const e = estimateContrast(img, { x: 0, y: 0, w: 30, h: 10 });
    expect(e?.foreground).toEqual([0xaa, 0xaa, 0xaa]);
  });
});
