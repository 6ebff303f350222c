/**
 * The diff module: pure functions from snapshots to identity keys, element matching,
 * the tree diff, carried refs and changed-text spans. No I/O.
 */
export { identityKeys, pathSignatures } from './identity.js';
export { matchElements } from './match.js';
export { diffSnapshots } from './diff.js';
export { compareElements, canonicalFlags, formatFrame, FRAME_TOLERANCE } from './compare.js';
export type { ElementComparison } from './compare.js';
export { textSpan } from './text-span.js';
export type { TextSpan } from './text-span.js';
export { carryRefs } from './refs.js';
export { closedWindows, hasShowingWindow, topLevelOf } from './windows.js';
export type { ClosedWindow } from './windows.js';
