/**
 * The AT-SPI2 half of the Linux backend: snapshots, apps, actions and events, as plain
 * functions over an `AtspiBus`. The Linux `Desktop` combines these with a display session.
 */
export { AppGoneError, snapshotApp, windowRank, MAX_IN_FLIGHT } from './walk.js';
export type { WalkTuning } from './walk.js';
export {
  appInfoFor,
  appRefForPid,
  findFrontmost,
  listApps,
  topLevels,
  wakeBridge,
} from './apps.js';
export type { AppRef, TopLevel } from './apps.js';
export {
  AtspiActionError,
  doAction,
  elementDetails,
  grabFocus,
  insertText,
  setTextPlace,
  textPlace,
  pickAction,
  readElement,
  readText,
  readValue,
  selectInContainer,
  setCurrentValue,
  setTextContents,
} from './actions.js';
export type { ValueInfo } from './actions.js';
export { renewRegistrations, watchApp, watchRegistry, WATCHED_EVENTS } from './events.js';
export type { AtspiEvent } from './events.js';
export { formatId, parseId } from './ids.js';
export { popupHoldsChoices } from './popup-choices.js';
export { probeApp, probeApps } from './liveness.js';
export type { Liveness } from './liveness.js';
export { TEXT_CAP } from './read.js';
export { closeWires, nameHasOwner } from './wire.js';
export { flagsFor, hasState, stateBits, stateNames, STATE } from './states.js';
