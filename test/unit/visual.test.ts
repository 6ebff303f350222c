import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  MARK_RGB,
  SizeMismatchError,
  captureOriginOf,
  changedRegions,
  decodePng,
  diffPixels,
  drawMarks,
  elementUnder,
  elementsOfTreeFile,
  encodePng,
  legendLines,
  marksFor,
  parseChoice,
  type Box,
  type PairElement,
  type Rgba,
} from '../../src/visual/index.js';

function canvas(width: number, height: number, rgb: [number, number, number]): Rgba {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) data.set([...rgb, 255], i * 4);
  return { width, height, data };
}

function paint(img: Rgba, box: Box, rgb: [number, number, number]): Rgba {
  const data = new Uint8Array(img.data);
  for (let y = box.y; y < box.y + box.h; y++) {
    for (let x = box.x; x < box.x + box.w; x++) data.set([...rgb, 255], (y * img.width + x) * 4);
  }
  return { ...img, data };
}

describe('diffPixels + changedRegions', () => {
  const base = canvas(200, 120, [240, 240, 240]);

  it('two changed rectangles give their exact pixel count, ratio and boxes', () => {
    const a: Box = { x: 10, y: 20, w: 30, h: 10 };
    const b: Box = { x: 120, y: 70, w: 8, h: 25 };
    const after = paint(paint(base, a, [20, 20, 20]), b, [0, 0, 200]);
    const d = diffPixels(base, after);
    expect(d.changed).toBe(30 * 10 + 8 * 25);
    expect(d.ratio).toBeCloseTo(500 / (200 * 120), 10);
    const { regions, more } = changedRegions(d.mask, 200, 120);
    expect(more).toBe(0);
    expect(regions).toEqual([a, b]);
  });

  it('identical images: ratio 0, no regions', () => {
    const d = diffPixels(base, canvas(200, 120, [240, 240, 240]));
    expect(d.changed).toBe(0);
    expect(d.ratio).toBe(0);
    expect(changedRegions(d.mask, 200, 120).regions).toEqual([]);
  });

  it('different sizes are an error that names both sizes', () => {
    expect(() => diffPixels(base, canvas(201, 120, [240, 240, 240]))).toThrow(SizeMismatchError);
    expect(() => diffPixels(base, canvas(201, 120, [240, 240, 240]))).toThrow(/200x120.*201x120/);
  });

  it('nearby changes join one region; past the cap the rest is counted', () => {
    let img = base;
    // Two marks 3 px apart: one region.
    img = paint(img, { x: 10, y: 10, w: 4, h: 4 }, [0, 0, 0]);
    img = paint(img, { x: 17, y: 10, w: 4, h: 4 }, [0, 0, 0]);
    // Five far-apart dots.
    for (let i = 0; i < 5; i++) img = paint(img, { x: 40 + i * 30, y: 100, w: 2, h: 2 }, [0, 0, 0]);
    const d = diffPixels(base, img);
    const all = changedRegions(d.mask, 200, 120);
    expect(all.regions[0]).toEqual({ x: 10, y: 10, w: 11, h: 4 });
    expect(all.regions).toHaveLength(6);
    const capped = changedRegions(d.mask, 200, 120, { max: 2 });
    expect(capped.regions).toHaveLength(2);
    expect(capped.more).toBe(4);
  });

  it('decodes what it encodes, pixel for pixel', async () => {
    const img = paint(base, { x: 5, y: 5, w: 3, h: 3 }, [1, 2, 3]);
    const back = await decodePng(await encodePng(img));
    expect(back.width).toBe(200);
    expect(Buffer.from(back.data).equals(Buffer.from(img.data))).toBe(true);
  });
});

const TREE = [
  '# app: galculator  pid: 42  window: "galculator"  snapshot: s1  tool: ax_get_tree',
  '# elements: 4 (visible 3)  elapsed: 12 ms  truncated: no',
  '# viewport: 100,50 300x200  dialog: none',
  '# screenshot: /tmp/x.png',
  '# tree',
  '[AXWindow (frame)] "galculator" e1 x:100 y:50 w:300 h:200 visible',
  '  [AXGroup (filler)] "" e2 x:100 y:50 w:300 h:60 visible',
  '    [AXStaticText (label)] "0" value:"x" e3 x:110 y:60 w:280 h:30 visible enabled',
  '    [AXButton (push button)] "7 \\"seven\\"" e4 x:110 y:120 w:40 h:30 enabled',
  '# app_switch: other pid: 7  window: "o"  snapshot: s2',
  '[AXWindow] "o" e9 x:0 y:0 w:10 h:10 visible',
].join('\n');

describe('pair elements', () => {
  const els = elementsOfTreeFile(TREE);

  it('reads ref, role, text, frame and visibility from the tree section only', () => {
    expect(els.map((e) => e.ref)).toEqual(['e1', 'e2', 'e3', 'e4']);
    expect(els[2]).toEqual({
      ref: 'e3',
      role: 'AXStaticText',
      text: '0',
      frame: { x: 110, y: 60, w: 280, h: 30 },
      visible: true,
    });
    expect(els[3].text).toBe('7 \\"seven\\"');
    expect(els[3].visible).toBe(false);
  });

  it('maps a region to the smallest visible element that holds it', () => {
    expect(elementUnder({ x: 200, y: 65, w: 10, h: 10 }, els)?.element.ref).toBe('e3');
    expect(elementUnder({ x: 105, y: 95, w: 10, h: 10 }, els)).toMatchObject({
      element: { ref: 'e2' },
      covers: true,
    });
    // The invisible button is never the answer; the window holds it.
    expect(elementUnder({ x: 115, y: 125, w: 5, h: 5 }, els)?.element.ref).toBe('e1');
    // Spilling out of everything: the one overlapping most.
    expect(elementUnder({ x: 390, y: 200, w: 50, h: 10 }, els)).toMatchObject({
      element: { ref: 'e1' },
      covers: false,
    });
    expect(elementUnder({ x: 900, y: 900, w: 5, h: 5 }, els)).toBeUndefined();
  });

  it('finds the capture origin from the viewport or a window of the image size', () => {
    expect(captureOriginOf(TREE, { width: 300, height: 200 })).toEqual({ x: 100, y: 50 });
    expect(captureOriginOf(TREE, { width: 300, height: 60 })).toEqual({ x: 100, y: 50 });
    expect(
      captureOriginOf(TREE.replace('100,50 300x200', '-5,0 300x200'), { width: 1, height: 1 }),
    ).toEqual({ x: 0, y: 0 });
  });
});

describe('marks', () => {
  const els: PairElement[] = elementsOfTreeFile(TREE);

  it('numbers the visible elements on the image and writes the legend', () => {
    const marks = marksFor(els, { x: 100, y: 50 }, { width: 300, height: 200 });
    expect(marks.map((m) => [m.n, m.element.ref])).toEqual([
      [1, 'e1'],
      [2, 'e2'],
      [3, 'e3'],
    ]);
    expect(marks[2].box).toEqual({ x: 10, y: 10, w: 280, h: 30 });
    expect(legendLines(marks)).toEqual([
      '1 e1 AXWindow "galculator"',
      '2 e2 AXGroup ""',
      '3 e3 AXStaticText "0"',
    ]);
  });

  it('draws each box on its element border in the mark colour', async () => {
    const png = await encodePng(canvas(300, 200, [250, 250, 250]));
    const marks = marksFor(els, { x: 100, y: 50 }, { width: 300, height: 200 });
    const out = await decodePng(await drawMarks(png, marks));
    const at = (x: number, y: number) => [
      ...out.data.slice((y * 300 + x) * 4, (y * 300 + x) * 4 + 3),
    ];
    // e3's box: left border at x 10, bottom border at y 39; its inside stays untouched.
    expect(at(10, 30)).toEqual([...MARK_RGB]);
    expect(at(150, 39)).toEqual([...MARK_RGB]);
    expect(at(150, 25)).toEqual([250, 250, 250]);
    // The label tab: mark colour behind a white number.
    const tab = [...Array(13).keys()].map((dy) => at(11, 10 + dy));
    expect(tab.some((p) => p[0] === 255 && p[1] === 0 && p[2] === 255)).toBe(true);
    const meta = await sharp(await drawMarks(png, [])).metadata();
    expect([meta.width, meta.height]).toEqual([300, 200]);
  });
});

describe('parseChoice', () => {
  it('takes the first number that is a mark', () => {
    expect(parseChoice('12', 20)).toEqual({ kind: 'mark', n: 12 });
    expect(parseChoice('The button is number 7.', 20)).toEqual({ kind: 'mark', n: 7 });
  });
  it('says none for 0 or "none"', () => {
    expect(parseChoice('0', 20)).toEqual({ kind: 'none' });
    expect(parseChoice('None of them.', 20)).toEqual({ kind: 'none' });
  });
  it('calls anything else garbage, with the reason', () => {
    expect(parseChoice('', 3).kind).toBe('garbage');
    expect(parseChoice('maybe the blue one', 3).kind).toBe('garbage');
    expect(parseChoice('42', 3)).toEqual({
      kind: 'garbage',
      reason: 'the answer named 42, but there are 3 marks',
    });
    expect(parseChoice('2.5', 3).kind).toBe('garbage');
  });
});
