/**
 * The elements of a pair, as its tree file lists them: ref, role, text, frame (screen
 * points) and whether it was visible. A fresh view is read through the same line format,
 * so both paths agree on what an element's text and frame are.
 */
import type { SnapshotView } from '../model/view.js';
import { formatElementLine } from '../tree/line.js';
import type { Box } from './regions.js';

export interface PairElement {
  ref: string;
  role: string;
  /** The primary text as the tree file shows it (escaped, possibly cut). */
  text: string;
  frame: Box;
  visible: boolean;
}

const ELEMENT_LINE =
  /^\s*\[([^\]\s]+)[^\]]*\] "((?:[^"\\]|\\.)*)".*? (e[1-9]\d*) x:(-?\d+) y:(-?\d+) w:(-?\d+) h:(-?\d+)((?: [a-z_-]+)*)/;

/** One tree-file element line, or undefined for any other line (or one without a frame). */
export function parseElementLine(line: string): PairElement | undefined {
  const m = ELEMENT_LINE.exec(line);
  if (!m) return undefined;
  const flags = m[8].trim().split(' ');
  return {
    role: m[1],
    text: m[2],
    ref: m[3],
    frame: { x: Number(m[4]), y: Number(m[5]), w: Number(m[6]), h: Number(m[7]) },
    visible: flags.includes('visible'),
  };
}

/** The elements of the app's tree in a tree file (its `# tree` section, no app switch). */
export function elementsOfTreeFile(text: string): PairElement[] {
  const out: PairElement[] = [];
  let inTree = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('# ')) {
      if (line === '# tree') inTree = true;
      else if (inTree) break;
      continue;
    }
    if (!inTree) continue;
    const el = parseElementLine(line);
    if (el) out.push(el);
  }
  return out;
}

export function elementsOfView(view: SnapshotView): PairElement[] {
  const out: PairElement[] = [];
  view.snapshot.elements.forEach((el, i) => {
    const parsed = parseElementLine(formatElementLine(el, view.refs[i] ?? '', !!view.visible[i]));
    if (parsed) out.push(parsed);
  });
  return out;
}

/** The screen point of a screenshot's top-left pixel, read from its tree file. */
export function captureOriginOf(
  text: string,
  image: { width: number; height: number },
): { x: number; y: number } {
  // The capture is the scoping dialog or the viewport (clipped to the screen); a window
  // whose frame has the image's size is the best witness, then the viewport line.
  const vp = /^# viewport: (-?\d+),(-?\d+) (\d+)x(\d+)/m.exec(text);
  if (vp && Number(vp[3]) === image.width && Number(vp[4]) === image.height) {
    return { x: Math.max(0, Number(vp[1])), y: Math.max(0, Number(vp[2])) };
  }
  for (const el of elementsOfTreeFile(text)) {
    if (el.visible && el.frame.w === image.width && el.frame.h === image.height) {
      return { x: Math.max(0, el.frame.x), y: Math.max(0, el.frame.y) };
    }
  }
  if (vp) return { x: Math.max(0, Number(vp[1])), y: Math.max(0, Number(vp[2])) };
  return { x: 0, y: 0 };
}

export interface ElementUnder {
  element: PairElement;
  /** The element's frame holds the whole region (else it is the one overlapping most). */
  covers: boolean;
}

/**
 * The smallest visible element whose frame holds the region; when none holds it all, the
 * visible element that overlaps it most (the smaller on a tie). Undefined over nothing.
 */
export function elementUnder(region: Box, elements: PairElement[]): ElementUnder | undefined {
  let best: PairElement | undefined;
  for (const el of elements) {
    if (!el.visible || el.frame.w <= 0 || el.frame.h <= 0) continue;
    if (!contains(el.frame, region)) continue;
    if (!best || area(el.frame) < area(best.frame)) best = el;
  }
  if (best) return { element: best, covers: true };
  let bestOverlap = 0;
  for (const el of elements) {
    if (!el.visible || el.frame.w <= 0 || el.frame.h <= 0) continue;
    const o = overlap(el.frame, region);
    if (
      o > bestOverlap ||
      (o === bestOverlap && o > 0 && best && area(el.frame) < area(best.frame))
    ) {
      best = el;
      bestOverlap = o;
    }
  }
  return best ? { element: best, covers: false } : undefined;
}

function area(b: Box): number {
  return b.w * b.h;
}

function contains(outer: Box, inner: Box): boolean {
  return (
    outer.x <= inner.x &&
    outer.y <= inner.y &&
    outer.x + outer.w >= inner.x + inner.w &&
    outer.y + outer.h >= inner.y + inner.h
  );
}

function overlap(a: Box, b: Box): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}
