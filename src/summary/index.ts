export type { ActionFacts } from '../tree/file.js';
export {
  MAX_TEXT_CHANGES,
  SUMMARY_MAX_BYTES,
  SUMMARY_TEXT_CHARS,
  renderSummary,
  type Answer,
  type Ended,
  type RenderedSummary,
  type UnchangedVisible,
  type SummaryInput,
} from './render.js';
export {
  stateChangeShape,
  summaryShape,
  outputShape,
  textChangeShape,
  visibleElementShape,
  type SummaryStructured,
  type VisibleElementStructured,
} from './schema.js';
export {
  MAX_VISIBLE_INTERACTIVE,
  MAX_VISIBLE_TEXT,
  appSwitchFacts,
  collectStateChanges,
  collectTextChanges,
  elementItem,
  diffCounts,
  pickHintRole,
  selectVisibleElements,
  viewFacts,
  type AppSwitchFacts,
  type DiffCounts,
  type SelectOptions,
  type StateChange,
  type StateChangeContext,
  type VisibleItem,
  type VisibleSelection,
} from './select.js';
export { STRUCTURED_MAX_BYTES, capStructured } from './cap.js';
