/** Small facts about elements that several tools need (they live with the actions). */
export { checkedValue, isCheckable } from '../actions/checkable.js';
