/**
 * Delivery of actions over the Desktop interface: one function per action, validated
 * before the first side effect, each saying what it did and how its effect reads back.
 * No MCP, no schemas, no summaries: the tools parse arguments, the pipeline judges.
 */
export * from './types.js';
export { backgroundImpossible } from './escalation.js';
export { deliverChain, READ_BACK_MS, type Step } from './chain.js';
export { checkedValue } from './checkable.js';
export { deliverClick, type ClickRequest, type ClickType } from './click.js';
export { deliverType, type TypeRequest } from './type.js';
export { deliverSetValue } from './set-value.js';
export { deliverScroll, type Direction, type ScrollRequest } from './scroll.js';
export { deliverDrag, type DragRequest } from './drag.js';
export { deliverKey, keyLabel, landsInPlace, type KeyAim } from './key.js';
export {
  guardClickFollowUps,
  isRevealToggle,
  keyIsHarmless,
  type PasswordGuard,
} from './password-guard.js';
export { judge, conclusive, type Evidence, type Verdict, type Effect } from './verdict.js';
export {
  assertTypeable,
  assertKnownKey,
  assertOnScreen,
  assertEnabled,
  untypeable,
} from './validate.js';
export {
  irreversible,
  MAX_UNDO_TEXT,
  restoreText,
  restoreToggle,
  restoreValue,
  type Reversal,
} from './undo.js';
