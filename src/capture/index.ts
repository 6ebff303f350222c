/** Screenshot → PNG (with secure fields redacted), crops, and the artifact store. */
export {
  encodePng,
  decodePng,
  cropToRect,
  sameRedaction,
  DEFAULT_PNG_LEVEL,
  type EncodeOptions,
  type CroppedImage,
  type Point,
} from './image.js';
export { BandedPng } from './png-bands.js';
export {
  ArtifactStore,
  type ArtifactNames,
  type ArtifactStoreOptions,
  type PruneResult,
} from './artifacts.js';
export { resolveArtifactDir, ensurePrivateDir } from './dir.js';
export { ArtifactError, type ArtifactErrorCode } from './errors.js';
export {
  retentionFromEnv,
  parseByteSize,
  DEFAULT_MAX_PAIRS,
  DEFAULT_MAX_BYTES,
  type RetentionLimits,
} from './limits.js';
export {
  PAIR_URI_PREFIX,
  pairPartUri,
  parseArtifactFile,
  splitPairPart,
  type PairPart,
} from './names.js';
export { pairWriteFailure, unwrittenNote } from './room.js';
export { appendToLog, claimNewFile, UnsafeFileError, writeNewFile } from './safe-file.js';
export { LogReserve, RESERVE_BYTES, RESERVE_NAME } from './reserve.js';
export { isPairFileName, openPairFile, readPairFile } from './pair-file.js';
