/**
 * Changed pixels → a few rectangles: pixels closer than `gap` join one region (a changed
 * label is one region, not one per glyph), overlapping regions merge, the largest come
 * first, and past `max` only their count is kept.
 */

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Regions {
  regions: Box[];
  /** Regions beyond `max`, not listed. */
  more: number;
}

export interface RegionOptions {
  /** Changed pixels this close (in pixels) belong to one region. Default 8. */
  gap?: number;
  /** Regions listed at most. Default 10. */
  max?: number;
}

interface Bounds {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export function changedRegions(
  mask: Uint8Array,
  width: number,
  height: number,
  opts: RegionOptions = {},
): Regions {
  const gap = Math.max(1, Math.floor(opts.gap ?? 8));
  const max = Math.max(0, Math.floor(opts.max ?? 10));
  // Pixels are binned into gap-sized cells; neighbouring changed cells are one region,
  // so the work is per cell, not per pixel, and the bound is exact per pixel.
  const cw = Math.ceil(width / gap);
  const ch = Math.ceil(height / gap);
  const cells: Array<Bounds | undefined> = new Array(cw * ch);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const cy = Math.floor(y / gap) * cw;
    for (let x = 0; x < width; x++) {
      if (!mask[row + x]) continue;
      const c = cy + Math.floor(x / gap);
      const b = cells[c];
      if (!b) cells[c] = { x0: x, y0: y, x1: x, y1: y };
      else {
        if (x < b.x0) b.x0 = x;
        if (x > b.x1) b.x1 = x;
        b.y1 = y;
      }
    }
  }
  const seen = new Uint8Array(cw * ch);
  let found: Bounds[] = [];
  for (let start = 0; start < cells.length; start++) {
    if (!cells[start] || seen[start]) continue;
    const acc = { ...cells[start]! };
    const stack = [start];
    seen[start] = 1;
    while (stack.length > 0) {
      const c = stack.pop()!;
      const b = cells[c]!;
      acc.x0 = Math.min(acc.x0, b.x0);
      acc.y0 = Math.min(acc.y0, b.y0);
      acc.x1 = Math.max(acc.x1, b.x1);
      acc.y1 = Math.max(acc.y1, b.y1);
      const cx = c % cw;
      const cy = (c - cx) / cw;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = cx + dx;
          const ny = cy + dy;
          if (nx < 0 || ny < 0 || nx >= cw || ny >= ch) continue;
          const n = ny * cw + nx;
          if (cells[n] && !seen[n]) {
            seen[n] = 1;
            stack.push(n);
          }
        }
      }
    }
    found.push(acc);
  }
  found = mergeOverlapping(found);
  const boxes = found
    .map((b) => ({ x: b.x0, y: b.y0, w: b.x1 - b.x0 + 1, h: b.y1 - b.y0 + 1 }))
    .sort((a, b) => b.w * b.h - a.w * a.h || a.y - b.y || a.x - b.x);
  return { regions: boxes.slice(0, max), more: Math.max(0, boxes.length - max) };
}

/** Merges bounds that overlap until none do (a region's box may cover another's). */
function mergeOverlapping(list: Bounds[]): Bounds[] {
  let merged = true;
  while (merged) {
    merged = false;
    for (let i = 0; i < list.length && !merged; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const a = list[i];
        const b = list[j];
        if (a.x0 <= b.x1 && b.x0 <= a.x1 && a.y0 <= b.y1 && b.y0 <= a.y1) {
          list[i] = {
            x0: Math.min(a.x0, b.x0),
            y0: Math.min(a.y0, b.y0),
            x1: Math.max(a.x1, b.x1),
            y1: Math.max(a.y1, b.y1),
          };
          list.splice(j, 1);
          merged = true;
          break;
        }
      }
    }
  }
  return list;
}
