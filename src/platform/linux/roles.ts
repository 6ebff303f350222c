/**
 * AT-SPI roles → the macOS AX role vocabulary that every tree file uses, so that
 * `grep AXButton` means the same thing on every platform. The native role name always
 * stays next to it in the tree file, so nothing is lost by normalizing.
 *
 * The table is AtspiRole as in libatspi 2.46 (Debian 12, atspi-constants.h): the index
 * is the number `Accessible.GetRole` and `Cache.GetItems` return; the name is what
 * `Accessible.GetRoleName` returns. The enum has no explicit values, so order is all.
 *
 * Decisions where the two vocabularies do not line up:
 * - toggle button → AXCheckBox: macOS shows on/off push buttons as AXCheckBox (subrole
 *   AXToggle). A toggle button that is EXPANDABLE (GtkExpander) → AXDisclosureTriangle.
 * - password text → AXTextField plus the `secure` flag (macOS: AXTextField with subrole
 *   AXSecureTextField); the flag is what keeps the value from ever being read.
 * - text / entry → AXTextField, or AXTextArea when MULTI_LINE (GtkTextView).
 * - dialog, alert, file chooser, font chooser, color chooser as a top-level window:
 *   modal (MODAL state) → AXSheet, the macOS window-attached modal that the pipeline scopes
 *   the viewport to; not modal → AXWindow (macOS: AXWindow with subrole AXDialog). Inside
 *   a window these roles are a widget or a web ARIA region → AXGroup.
 * - Any other top-level child of the application (frame, window, a Qt `filler` top-level)
 *   → AXWindow; a top-level tool tip → AXHelpTag.
 * - menu: GTK3 gives a menu-bar entry and a submenu item the role `menu` (the item and
 *   its popup are one object). Under a menu bar → AXMenuBarItem, under a menu →
 *   AXMenuItem (what macOS calls them), elsewhere (a combo box popup) → AXMenu.
 * - page tab → AXRadioButton inside page tab list → AXTabGroup, as macOS tabs are.
 * - list item, table row, tree item → AXRow (macOS list/table/outline rows are AXRow);
 *   table cell → AXCell; table/column headers are clickable sort buttons → AXButton
 *   (macOS: AXButton with subrole AXSortButton); row headers → AXCell.
 * - spin button → AXIncrementor (it also has the Value interface and editable text).
 * - tree, tree table → AXOutline.
 * - Containers without a macOS counterpart (panel, filler, section, viewport, status bar,
 *   landmarks, ...) → AXGroup; roles that carry nothing (invalid, unknown, extended,
 *   redundant object) → AXUnknown.
 */

/** AtspiRole, index = enum value. */
export const ATSPI_ROLES: readonly string[] = [
  'invalid',
  'accelerator label',
  'alert',
  'animation',
  'arrow',
  'calendar',
  'canvas',
  'check box',
  'check menu item',
  'color chooser',
  'column header',
  'combo box',
  'date editor',
  'desktop icon',
  'desktop frame',
  'dial',
  'dialog',
  'directory pane',
  'drawing area',
  'file chooser',
  'filler',
  'focus traversable',
  'font chooser',
  'frame',
  'glass pane',
  'html container',
  'icon',
  'image',
  'internal frame',
  'label',
  'layered pane',
  'list',
  'list item',
  'menu',
  'menu bar',
  'menu item',
  'option pane',
  'page tab',
  'page tab list',
  'panel',
  'password text',
  'popup menu',
  'progress bar',
  'push button',
  'radio button',
  'radio menu item',
  'root pane',
  'row header',
  'scroll bar',
  'scroll pane',
  'separator',
  'slider',
  'spin button',
  'split pane',
  'status bar',
  'table',
  'table cell',
  'table column header',
  'table row header',
  'tearoff menu item',
  'terminal',
  'text',
  'toggle button',
  'tool bar',
  'tool tip',
  'tree',
  'tree table',
  'unknown',
  'viewport',
  'window',
  'extended',
  'header',
  'footer',
  'paragraph',
  'ruler',
  'application',
  'autocomplete',
  'editbar',
  'embedded',
  'entry',
  'chart',
  'caption',
  'document frame',
  'heading',
  'page',
  'section',
  'redundant object',
  'form',
  'link',
  'input method window',
  'table row',
  'tree item',
  'document spreadsheet',
  'document presentation',
  'document text',
  'document web',
  'document email',
  'comment',
  'list box',
  'grouping',
  'image map',
  'notification',
  'info bar',
  'level bar',
  'title bar',
  'block quote',
  'audio',
  'video',
  'definition',
  'article',
  'landmark',
  'log',
  'marquee',
  'math',
  'rating',
  'timer',
  'static',
  'math fraction',
  'math root',
  'subscript',
  'superscript',
  'description list',
  'description term',
  'description value',
  'footnote',
  'content deletion',
  'content insertion',
  'mark',
  'suggestion',
  'push button menu',
];

/** The few role numbers code outside this table needs by name. */
export const ROLE = {
  ALERT: 2,
  DIALOG: 16,
  FILE_CHOOSER: 19,
  FRAME: 23,
  MENU: 33,
  MENU_BAR: 34,
  PASSWORD_TEXT: 40,
  PUSH_BUTTON: 43,
  TEXT: 61,
  TOGGLE_BUTTON: 62,
  APPLICATION: 75,
  ENTRY: 79,
} as const;

/**
 * Context-free part of the mapping, by native role name. Roles whose AX role depends on
 * state or position (text, toggle button, menu, the dialog family, top-levels) are
 * refined in `axRole`; their entry here is the answer without context.
 */
const AX_BY_NAME: Readonly<Record<string, string>> = {
  invalid: 'AXUnknown',
  'accelerator label': 'AXStaticText',
  alert: 'AXGroup',
  animation: 'AXImage',
  arrow: 'AXImage',
  calendar: 'AXGroup',
  canvas: 'AXGroup',
  'check box': 'AXCheckBox',
  'check menu item': 'AXMenuItem',
  'color chooser': 'AXGroup',
  'column header': 'AXButton',
  'combo box': 'AXComboBox',
  'date editor': 'AXDateField',
  'desktop icon': 'AXImage',
  'desktop frame': 'AXGroup',
  dial: 'AXSlider',
  dialog: 'AXGroup',
  'directory pane': 'AXGroup',
  'drawing area': 'AXGroup',
  'file chooser': 'AXGroup',
  filler: 'AXGroup',
  'focus traversable': 'AXGroup',
  'font chooser': 'AXGroup',
  frame: 'AXWindow',
  'glass pane': 'AXGroup',
  'html container': 'AXGroup',
  icon: 'AXImage',
  image: 'AXImage',
  'internal frame': 'AXGroup',
  label: 'AXStaticText',
  'layered pane': 'AXGroup',
  list: 'AXList',
  'list item': 'AXRow',
  menu: 'AXMenu',
  'menu bar': 'AXMenuBar',
  'menu item': 'AXMenuItem',
  'option pane': 'AXGroup',
  'page tab': 'AXRadioButton',
  'page tab list': 'AXTabGroup',
  panel: 'AXGroup',
  'password text': 'AXTextField',
  'popup menu': 'AXMenu',
  'progress bar': 'AXProgressIndicator',
  'push button': 'AXButton',
  'radio button': 'AXRadioButton',
  'radio menu item': 'AXMenuItem',
  'root pane': 'AXGroup',
  'row header': 'AXCell',
  'scroll bar': 'AXScrollBar',
  'scroll pane': 'AXScrollArea',
  separator: 'AXSeparator',
  slider: 'AXSlider',
  'spin button': 'AXIncrementor',
  'split pane': 'AXSplitGroup',
  'status bar': 'AXGroup',
  table: 'AXTable',
  'table cell': 'AXCell',
  'table column header': 'AXButton',
  'table row header': 'AXCell',
  'tearoff menu item': 'AXMenuItem',
  terminal: 'AXTextArea',
  text: 'AXTextField',
  'toggle button': 'AXCheckBox',
  'tool bar': 'AXToolbar',
  'tool tip': 'AXHelpTag',
  tree: 'AXOutline',
  'tree table': 'AXOutline',
  unknown: 'AXUnknown',
  viewport: 'AXGroup',
  window: 'AXWindow',
  extended: 'AXUnknown',
  header: 'AXGroup',
  footer: 'AXGroup',
  paragraph: 'AXGroup',
  ruler: 'AXRuler',
  application: 'AXApplication',
  autocomplete: 'AXComboBox',
  editbar: 'AXTextField',
  embedded: 'AXGroup',
  entry: 'AXTextField',
  chart: 'AXGroup',
  caption: 'AXStaticText',
  'document frame': 'AXGroup',
  heading: 'AXHeading',
  page: 'AXGroup',
  section: 'AXGroup',
  'redundant object': 'AXUnknown',
  form: 'AXGroup',
  link: 'AXLink',
  'input method window': 'AXWindow',
  'table row': 'AXRow',
  'tree item': 'AXRow',
  'document spreadsheet': 'AXGroup',
  'document presentation': 'AXGroup',
  'document text': 'AXTextArea',
  'document web': 'AXWebArea',
  'document email': 'AXGroup',
  comment: 'AXGroup',
  'list box': 'AXList',
  grouping: 'AXGroup',
  'image map': 'AXImage',
  notification: 'AXGroup',
  'info bar': 'AXGroup',
  'level bar': 'AXLevelIndicator',
  'title bar': 'AXGroup',
  'block quote': 'AXGroup',
  audio: 'AXGroup',
  video: 'AXGroup',
  definition: 'AXGroup',
  article: 'AXGroup',
  landmark: 'AXGroup',
  log: 'AXGroup',
  marquee: 'AXGroup',
  math: 'AXGroup',
  rating: 'AXLevelIndicator',
  timer: 'AXGroup',
  static: 'AXStaticText',
  'math fraction': 'AXGroup',
  'math root': 'AXGroup',
  subscript: 'AXGroup',
  superscript: 'AXGroup',
  'description list': 'AXList',
  'description term': 'AXGroup',
  'description value': 'AXGroup',
  footnote: 'AXGroup',
  'content deletion': 'AXGroup',
  'content insertion': 'AXGroup',
  mark: 'AXGroup',
  suggestion: 'AXGroup',
  'push button menu': 'AXMenuButton',
};

/** Roles that make a top-level window a dialog (the sheet candidates of DESIGN §2.2). */
export const DIALOG_ROLES: ReadonlySet<string> = new Set([
  'dialog',
  'alert',
  'file chooser',
  'font chooser',
  'color chooser',
]);

/** Native role name for an AtspiRole number; unknown numbers (a newer libatspi) get a stable name. */
export function roleName(role: number): string {
  return ATSPI_ROLES[role] ?? `role ${role}`;
}

/** What `axRole` needs beyond the role name; every field defaults to false / unknown. */
export interface RoleContext {
  /** A direct child of the application root (a top-level window). */
  topLevel?: boolean;
  /** MODAL state. */
  modal?: boolean;
  /** MULTI_LINE state. */
  multiLine?: boolean;
  /** EXPANDABLE state. */
  expandable?: boolean;
  /** The parent's native role name. */
  parentRole?: string;
}

/** What a popover panel hangs from: its top-level window. */
const POPOVER_PARENTS: ReadonlySet<string> = new Set(['frame', 'window', 'dialog']);

/** The normalized (macOS AX) role for a native AT-SPI role name in its context. */
export function axRole(nativeRole: string, ctx: RoleContext = {}): string {
  if (ctx.topLevel) {
    if (DIALOG_ROLES.has(nativeRole)) return ctx.modal ? 'AXSheet' : 'AXWindow';
    if (nativeRole === 'tool tip') return 'AXHelpTag';
    return 'AXWindow';
  }
  switch (nativeRole) {
    case 'text':
    case 'entry':
      return ctx.multiLine ? 'AXTextArea' : 'AXTextField';
    case 'toggle button':
      return ctx.expandable ? 'AXDisclosureTriangle' : 'AXCheckBox';
    case 'panel':
      // GTK 3 hangs a popover (a menu button's menu, a popover menu) from its window as a
      // modal panel.
      return ctx.modal && POPOVER_PARENTS.has(ctx.parentRole ?? '') ? 'AXPopover' : 'AXGroup';
    case 'menu':
      if (ctx.parentRole === 'menu bar') return 'AXMenuBarItem';
      if (ctx.parentRole === 'menu' || ctx.parentRole === 'popup menu') return 'AXMenuItem';
      return 'AXMenu';
  }
  return AX_BY_NAME[nativeRole] ?? 'AXUnknown';
}

/** Roles that are checkable by nature (INDETERMINATE means "mixed" only on these). */
export const CHECKABLE_ROLES: ReadonlySet<string> = new Set([
  'check box',
  'check menu item',
  'radio button',
  'radio menu item',
  'toggle button',
]);

/** Roles whose content is a password: their text and value are never read. */
export const SECURE_ROLES: ReadonlySet<string> = new Set(['password text']);

/** Every AX role the table can produce (for tests and docs). */
export function allAxRoles(): Set<string> {
  return new Set([
    ...Object.values(AX_BY_NAME),
    'AXSheet',
    'AXWindow',
    'AXHelpTag',
    'AXTextArea',
    'AXDisclosureTriangle',
    'AXMenuBarItem',
    'AXMenuItem',
    'AXPopover',
  ]);
}

/** The mapping table itself, for tests: every native role name has an entry. */
export function hasMapping(nativeRole: string): boolean {
  return Object.hasOwn(AX_BY_NAME, nativeRole);
}
