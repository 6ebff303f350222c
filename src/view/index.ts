/** The run viewer's data: a run's calls and each call's parsed pair. */
export type * from './model.js';
export {
  DEFAULT_PAGE,
  MAX_PAGE,
  Run,
  callOfRecord,
  callsOfLog,
  callsOfNames,
  newestLog,
  pageBounds,
  pngSize,
  resolveRun,
  type RunSource,
} from './calls.js';
export {
  parseDiffLine,
  parseElementLine,
  parseHeaderLine,
  parsePair,
  parseRect,
  unescapeText,
  type ParsedLine,
  type ParseOptions,
} from './pair.js';
