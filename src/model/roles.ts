/**
 * Role classes, matched exactly on the normalized role (never by prefix: a prefix match
 * on "AXTab" takes AXTable and AXTabGroup for tabs).
 */

/**
 * Controls an agent clicks, types into or toggles. Containers (AXTable, AXList,
 * AXTabGroup, AXOutline, AXToolbar, AXGroup) are not in it: their items are.
 */
export const CONTROL_ROLES: ReadonlySet<string> = new Set([
  'AXButton',
  'AXToggleButton',
  'AXCheckBox',
  'AXSwitch',
  'AXRadioButton',
  'AXPopUpButton',
  'AXMenuButton',
  'AXComboBox',
  'AXTextField',
  'AXSecureTextField',
  'AXSearchField',
  'AXTextArea',
  'AXDateField',
  'AXSlider',
  'AXIncrementor',
  'AXStepper',
  'AXColorWell',
  'AXDisclosureTriangle',
  'AXLink',
  'AXTab',
  'AXMenuItem',
  'AXMenuBarItem',
]);

/**
 * Items of lists, tables and outlines: interactive (selectable, clickable), but a big
 * table has hundreds, so the summary ranks them after the controls.
 */
export const ITEM_ROLES: ReadonlySet<string> = new Set(['AXCell', 'AXRow']);

/** Interactive = a control or an item. */
export function isInteractiveRole(role: string): boolean {
  return CONTROL_ROLES.has(role) || ITEM_ROLES.has(role);
}

/** Text a reader sees as content rather than as a control. */
export const TEXT_ROLES: ReadonlySet<string> = new Set(['AXStaticText', 'AXHeading']);

export function isTextRole(role: string): boolean {
  return TEXT_ROLES.has(role);
}

/** Roles whose value is what an agent reads or sets (the text is their label). */
export const FIELD_ROLES: ReadonlySet<string> = new Set([
  'AXTextField',
  'AXSecureTextField',
  'AXSearchField',
  'AXTextArea',
  'AXDateField',
  'AXSlider',
  'AXIncrementor',
  'AXComboBox',
  'AXPopUpButton',
  'AXProgressIndicator',
  'AXLevelIndicator',
]);
