/**
 * The marked screenshot: a numbered box over every visible element, so that a vision
 * model (or a person) can name an element by its number, and the legend that maps each
 * number to its ref.
 */
import sharp from 'sharp';
import type { PairElement } from './elements.js';
import type { Box } from './regions.js';

/** Box and label colour: a magenta no GTK theme uses, so a box stands out. */
export const MARK_RGB: readonly [number, number, number] = [255, 0, 255];
const MARK_HEX = '#ff00ff';
const LABEL_HEIGHT = 13;
const DIGIT_WIDTH = 7;
const LEGEND_TEXT_CHARS = 60;

export interface Mark {
  /** 1-based number drawn on the box. */
  n: number;
  element: PairElement;
  /** The element's frame in image pixels. */
  box: Box;
}

/**
 * The marks for the visible elements whose frame meets the image (origin: the screen
 * point of its top-left pixel), numbered in tree order.
 */
export function marksFor(
  elements: PairElement[],
  origin: { x: number; y: number },
  image: { width: number; height: number },
): Mark[] {
  const marks: Mark[] = [];
  for (const element of elements) {
    if (!element.visible || element.frame.w <= 0 || element.frame.h <= 0) continue;
    const x = element.frame.x - origin.x;
    const y = element.frame.y - origin.y;
    const x0 = Math.max(0, x);
    const y0 = Math.max(0, y);
    const x1 = Math.min(image.width, x + element.frame.w);
    const y1 = Math.min(image.height, y + element.frame.h);
    if (x1 <= x0 || y1 <= y0) continue;
    marks.push({ n: marks.length + 1, element, box: { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } });
  }
  return marks;
}

/** `N eRef role "text"`, one line per mark. */
export function legendLines(marks: Mark[]): string[] {
  return marks.map((m) => {
    const chars = [...m.element.text];
    const text =
      chars.length > LEGEND_TEXT_CHARS
        ? chars.slice(0, LEGEND_TEXT_CHARS - 1).join('') + '…'
        : m.element.text;
    return `${m.n} ${m.element.ref} ${m.element.role} "${text}"`;
  });
}

/**
 * Draws the marks over a PNG: a 2-pixel box on each element's border and its number on
 * a filled tab at the box's top-left corner (white on the box colour, so the number
 * stays readable over any background). Boxes are drawn largest first, so the labels
 * of small elements stay on top of their containers'.
 */
export async function drawMarks(png: Buffer, marks: Mark[]): Promise<Buffer> {
  const meta = await sharp(png).metadata();
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (width === 0 || height === 0 || marks.length === 0) return sharp(png).png().toBuffer();
  const order = [...marks].sort((a, b) => b.box.w * b.box.h - a.box.w * a.box.h);
  const parts: string[] = [];
  for (const m of order) {
    const { x, y, w, h } = m.box;
    // A 2-pixel stroke centred 1 pixel inside the frame covers exactly its outer 2 pixels.
    parts.push(
      `<rect x="${x + 1}" y="${y + 1}" width="${Math.max(0, w - 2)}" height="${Math.max(0, h - 2)}" fill="none" stroke="${MARK_HEX}" stroke-width="2"/>`,
    );
  }
  for (const m of order) {
    const label = String(m.n);
    const lw = label.length * DIGIT_WIDTH + 4;
    const lx = Math.min(m.box.x, Math.max(0, width - lw));
    const ly = Math.min(m.box.y, Math.max(0, height - LABEL_HEIGHT));
    parts.push(
      `<rect x="${lx}" y="${ly}" width="${lw}" height="${LABEL_HEIGHT}" fill="${MARK_HEX}"/>`,
      `<text x="${lx + 2}" y="${ly + LABEL_HEIGHT - 3}" fill="#ffffff">${label}</text>`,
    );
  }
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" shape-rendering="crispEdges">` +
    `<g font-family="DejaVu Sans Mono, monospace" font-size="11" font-weight="bold">${parts.join('')}</g></svg>`;
  return sharp(png)
    .composite([{ input: Buffer.from(svg), top: 0, left: 0 }])
    .png({ compressionLevel: 6 })
    .toBuffer();
}
