/** What the Linux backend says a key does: compared by keysym, so every name of a key agrees. */
import { describe, expect, it } from 'vitest';
import { keyKindOf } from '../../src/platform/linux/key-kinds.js';

describe('keyKindOf', () => {
  it.each([
    ['Tab', 'focus'],
    ['ISO_Left_Tab', 'focus'],
    ['Left', 'caret'],
    ['Page_Up', 'caret'],
    ['Prior', 'caret'],
    ['Next', 'caret'],
    // The keypad's keys type their digit under Num Lock: they may type.
    ['KP_Home', 'other'],
    ['KP_Left', 'other'],
    ['KP_Up', 'other'],
    ['KP_End', 'other'],
    ['KP_Page_Up', 'other'],
    ['KP_Prior', 'other'],
    ['KP_Next', 'other'],
    ['KP_Tab', 'other'],
    ['Escape', 'cancel'],
    ['Return', 'activate'],
    ['KP_Enter', 'activate'],
    ['a', 'other'],
    ['A', 'other'],
    ['space', 'other'],
    ['BackSpace', 'other'],
    ['Delete', 'other'],
    ['Insert', 'other'],
    ['Menu', 'other'],
    ['F10', 'other'],
    ['no_such_key', 'other'],
    // X's mouse keys: they click or move the pointer, or turn on the keypad keys that do.
    ['Pointer_Button1', 'pointer'],
    ['Pointer_EnableKeys', 'pointer'],
    ['Pointer_Left', 'pointer'],
    ['Pointer_Drag5', 'pointer'],
    ['Num_Lock', 'pointer'],
    ['Caps_Lock', 'other'],
    // Characters of typed text: Tab and line breaks go as their keys.
    ['\t', 'focus'],
    ['\n', 'activate'],
    ['\r', 'activate'],
    [' ', 'other'],
  ])('%s is %s', (key, kind) => {
    expect(keyKindOf(key)).toBe(kind);
  });
});
