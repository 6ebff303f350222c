/**
 * Action names that mean "activate this", most specific first: what a click delivers in the
 * background, and what a backend takes when asked for "the" action. Chromium names a check
 * box's "check"/"uncheck" and the default action of anything else "doDefault"; Gecko a
 * tab's "switch"; Qt's menus offer only ShowMenu.
 */
export const PRESS_ACTIONS: readonly string[] = [
  'click',
  'press',
  'activate',
  'toggle',
  'check',
  'uncheck',
  'switch',
  'jump',
  'open',
  'select',
  'showmenu',
  'dodefault',
];
