/** Pixel work on pairs: diffs, changed regions, the elements under them, marked screenshots. */
export { decodePng, encodePng, pngSize, type Rgba } from './pixels.js';
export { diffPixels, SizeMismatchError, type PixelDiff } from './diff.js';
export { changedRegions, type Box, type Regions, type RegionOptions } from './regions.js';
export {
  captureOriginOf,
  elementUnder,
  elementsOfTreeFile,
  elementsOfView,
  parseElementLine,
  type ElementUnder,
  type PairElement,
} from './elements.js';
export { MARK_RGB, drawMarks, legendLines, marksFor, type Mark } from './marks.js';
export { artifactDirOf, readPairPath, resolvePair, writeBeside, type PairFiles } from './pairs.js';
export { parseChoice, type Choice } from './choice.js';
export { comparePngs, regionLine, type ChangedRegion, type PairComparison } from './compare.js';
