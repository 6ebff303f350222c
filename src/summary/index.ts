export type { ActionFacts } from '../tree/file.js';
export {
  MAX_TEXT_CHANGES,
  SUMMARY_MAX_BYTES,
  SUMMARY_TEXT_CHARS,
  renderSummary,
  type RenderedSummary,
  type SummaryInput,
} from './render.js';
export {
  summaryShape,
  textChangeShape,
  visibleElementShape,
  type SummaryStructured,
  type VisibleElementStructured,
} from './schema.js';
export {
  MAX_VISIBLE_INTERACTIVE,
  MAX_VISIBLE_TEXT,
  appSwitchFacts,
  collectTextChanges,
  diffCounts,
  pickHintRole,
  selectVisibleElements,
  viewFacts,
  type AppSwitchFacts,
  type DiffCounts,
  type SelectOptions,
  type VisibleItem,
  type VisibleSelection,
} from './select.js';
