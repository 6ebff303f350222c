/**
 * What the Linux backend's names mean to the layers above it (see model/vocabulary.ts and
 * PlatformTraits in ../desktop.ts): AT-SPI role names, the action names GTK, Qt, Gecko and
 * Chromium give their elements, and how X input and these toolkits behave. Imports
 * nothing that opens anything: the server reads these before a desktop is opened.
 */
import type { NativeVocabulary } from '../../model/vocabulary.js';
import type { PlatformTraits } from '../desktop.js';
import { DIALOG_ROLES } from './roles.js';

/**
 * AT-SPI role names under the AX role a query finds them by. Not the walk's mapping
 * (roles.ts): a name sits under the AX role an agent means by it, so `toggle button` also
 * finds a macOS AXToggleButton, and `dialog` a sheet. Every AT-SPI role name is here, so
 * any `(native)` copied from a tree line resolves.
 */
const QUERY_ROLE_NAMES: Readonly<Record<string, readonly string[]>> = {
  AXButton: ['push button', 'button'],
  AXToggleButton: ['toggle button'],
  AXCheckBox: ['check box'],
  AXSwitch: ['switch'],
  AXRadioButton: ['radio button'],
  AXMenuButton: ['push button menu'],
  AXComboBox: ['combo box', 'autocomplete'],
  AXTextField: ['text', 'entry', 'editbar', 'edit bar'],
  AXSecureTextField: ['password text'],
  AXTextArea: ['document text', 'terminal'],
  AXStaticText: ['label', 'static', 'caption', 'accelerator label'],
  AXHeading: ['heading'],
  AXLink: ['link'],
  AXImage: ['image', 'icon', 'desktop icon', 'animation', 'arrow', 'image map'],
  AXWindow: ['frame', 'window', 'input method window'],
  AXSheet: ['dialog', 'alert', 'file chooser', 'font chooser', 'color chooser'],
  AXDialog: ['dialog', 'alert'],
  AXMenuBar: ['menu bar'],
  AXMenu: ['menu', 'popup menu'],
  AXMenuItem: ['menu item', 'check menu item', 'radio menu item', 'tearoff menu item'],
  AXList: ['list', 'list box', 'description list'],
  AXRow: ['table row', 'list item', 'tree item'],
  AXCell: ['table cell'],
  AXColumnHeader: ['column header', 'table column header', 'row header', 'table row header'],
  AXTable: ['table', 'tree table'],
  AXOutline: ['tree', 'tree table'],
  AXScrollArea: ['scroll pane'],
  AXScrollBar: ['scroll bar'],
  AXSlider: ['slider', 'dial'],
  AXIncrementor: ['spin button'],
  AXProgressIndicator: ['progress bar'],
  AXLevelIndicator: ['level bar', 'rating'],
  AXTabGroup: ['page tab list'],
  AXTab: ['page tab'],
  // Generic containers: a name here stands for itself only (see query/roles.ts).
  AXGroup: [
    'panel',
    'filler',
    'section',
    'grouping',
    'form',
    'layered pane',
    'root pane',
    'glass pane',
    'option pane',
    'directory pane',
    'internal frame',
    'desktop frame',
    'viewport',
    'status bar',
    'info bar',
    'title bar',
    'notification',
    'paragraph',
    'header',
    'footer',
    'page',
    'article',
    'landmark',
    'block quote',
    'comment',
    'definition',
    'description term',
    'description value',
    'footnote',
    'log',
    'marquee',
    'timer',
    'math',
    'math fraction',
    'math root',
    'subscript',
    'superscript',
    'mark',
    'suggestion',
    'content deletion',
    'content insertion',
    'chart',
    'audio',
    'video',
    'embedded',
    'focus traversable',
    'html container',
    'document frame',
    'document spreadsheet',
    'document presentation',
    'document email',
    'calendar',
    'canvas',
    'drawing area',
  ],
  AXSplitGroup: ['split pane'],
  AXSeparator: ['separator'],
  AXToolbar: ['tool bar'],
  AXHelpTag: ['tool tip'],
  AXApplication: ['application'],
  AXDateField: ['date editor'],
  AXWebArea: ['document web'],
  AXRuler: ['ruler'],
  AXUnknown: ['unknown', 'invalid', 'redundant object', 'extended'],
};

/**
 * Action names that mean "activate this", most specific first: what a click delivers in the
 * background, and what the backend takes when asked for "the" action. Chromium names a check
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

export const LINUX_VOCABULARY: NativeVocabulary = {
  roleNames: QUERY_ROLE_NAMES,
  // AT-SPI page tabs are AXRadioButton, as macOS tabs are; a non-modal dialog is an AXWindow.
  elementTypeRoles: { tab: ['page tab'], dialog: [...DIALOG_ROLES] },
  // A scroll pane's or viewport's frame is the visible part of what scrolls in it.
  viewportRoles: new Set(['scroll pane', 'viewport']),
  // Windows, dialogs, menus and tool tips, wherever they sit in the tree.
  surfaceRoles: new Set([
    'window',
    'frame',
    'dialog',
    'alert',
    'file chooser',
    'menu',
    'popup menu',
    'tool tip',
  ]),
  menuRoles: new Set(['menu', 'popup menu']),
  // GTK3 gives a menu-bar entry and a submenu item the role `menu` (the item and its popup
  // are one object), whatever AX role the walk gives it there.
  menuTitleRoles: new Set(['menu']),
  // GTK3 shows combo lists and menus in a bare "window".
  popupWindowRoles: new Set(['window', 'popup menu', 'menu', 'tool tip']),
  // Qt's table and tree headers are children of the table, beside its cells.
  headerRoles: new Set(['column header', 'table column header', 'row header', 'table row header']),
  pressActions: PRESS_ACTIONS,
  // Chromium's web documents and scrollable web elements scroll by a page with these.
  scrollActions: { down: 'scrollDown', up: 'scrollUp', left: 'scrollLeft', right: 'scrollRight' },
};

export const LINUX_TRAITS: PlatformTraits = {
  vocabulary: LINUX_VOCABULARY,
  // One wheel step scrolls about 50 px in GTK3 lists.
  wheelStepPx: 50,
  // GTK answers a DoAction within a few ms (2-6 ms measured); XTest input takes the X
  // server round trip first.
  firstEventMs: { background: 50, foreground: 120 },
};
