/**
 * Two screenshots of a pair → what changed: the ratio of changed pixels, the changed
 * regions in screen points with the element under each (from the later pair's tree),
 * and the diff image to write beside the later pair. Works on the PNGs as written, which
 * are already redacted: the diff never shows a password field's pixels.
 */
import { diffPixels } from './diff.js';
import { elementUnder, type PairElement } from './elements.js';
import { decodePng, encodePng } from './pixels.js';
import { changedRegions, type Box } from './regions.js';

export interface ChangedRegion extends Box {
  /** The element under the region, when one is. */
  ref?: string;
  role?: string;
  text?: string;
  /** The element's frame holds the whole region (else the region spills over it). */
  covers?: boolean;
}

export interface PairComparison {
  width: number;
  height: number;
  changed: number;
  ratio: number;
  regions: ChangedRegion[];
  /** Regions beyond the listed ones. */
  more: number;
  diffPng: Buffer;
}

export async function comparePngs(input: {
  before: Buffer;
  after: Buffer;
  /** The later pair's elements (screen points). */
  elements: PairElement[];
  /** Screen point of the later screenshot's top-left pixel. */
  origin: { x: number; y: number };
  maxRegions?: number;
}): Promise<PairComparison> {
  const [a, b] = await Promise.all([decodePng(input.before), decodePng(input.after)]);
  const d = diffPixels(a, b);
  const { regions, more } = changedRegions(d.mask, b.width, b.height, { max: input.maxRegions });
  const onScreen = regions.map((r) => {
    const box = { x: r.x + input.origin.x, y: r.y + input.origin.y, w: r.w, h: r.h };
    const under = elementUnder(box, input.elements);
    return under
      ? {
          ...box,
          ref: under.element.ref,
          role: under.element.role,
          text: under.element.text,
          covers: under.covers,
        }
      : box;
  });
  return {
    width: b.width,
    height: b.height,
    changed: d.changed,
    ratio: d.ratio,
    regions: onScreen,
    more,
    diffPng: await encodePng(d.image),
  };
}

/** `x,y wxh over e12 AXStaticText "0"` (or `across` when it spills out of the element). */
export function regionLine(r: ChangedRegion): string {
  const at = `${r.x},${r.y} ${r.w}x${r.h}`;
  if (!r.ref) return `${at} over nothing known`;
  return `${at} ${r.covers ? 'over' : 'across'} ${r.ref} ${r.role} "${r.text}"`;
}
