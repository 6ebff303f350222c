/**
 * Role names a query may use: AX names with or without the `AX` prefix, short aliases
 * (button, textfield, checkbox, dropdown …) and the platform's native names (AT-SPI
 * "push button", "check box" …), all case-insensitive and blind to spaces, `_` and `-`.
 *
 * A role name resolves to AX roles *and* native names, and an element matches on
 * either, so `toggle button:Bold` finds the widget whatever AX role a backend maps
 * "toggle button" to, and copying either name from a tree line `[AXButton (push button)]`
 * works.
 */
import { CONTROL_ROLES, ITEM_ROLES } from '../model/roles.js';
import { closest, compact, editDistance } from './text.js';
import type { RoleSpec } from './types.js';

interface RoleDef {
  ax: string;
  /** Extra names besides the AX name and the AX name without its prefix. */
  aliases: string[];
  /** AT-SPI role names (lower case, as atspi_role_get_name spells them). */
  native: string[];
}

/**
 * Native names sit under the AX role a backend maps them to (the Linux table in
 * platform/linux/roles.ts), so `toggle button` also finds a macOS AXToggleButton. Every
 * AT-SPI role name is here, so any `(native)` copied from a tree line resolves.
 */
const ROLE_DEFS: RoleDef[] = [
  { ax: 'AXButton', aliases: ['btn', 'pushbutton'], native: ['push button', 'button'] },
  { ax: 'AXToggleButton', aliases: ['toggle'], native: ['toggle button'] },
  { ax: 'AXCheckBox', aliases: ['check'], native: ['check box'] },
  { ax: 'AXSwitch', aliases: [], native: ['switch'] },
  { ax: 'AXRadioButton', aliases: ['radio'], native: ['radio button'] },
  { ax: 'AXPopUpButton', aliases: ['popup', 'dropdown', 'select'], native: [] },
  { ax: 'AXMenuButton', aliases: [], native: ['push button menu'] },
  { ax: 'AXComboBox', aliases: ['combo', 'dropdown'], native: ['combo box', 'autocomplete'] },
  {
    ax: 'AXTextField',
    aliases: ['textbox', 'input', 'edit', 'field'],
    native: ['text', 'entry', 'editbar', 'edit bar'],
  },
  { ax: 'AXSecureTextField', aliases: ['password', 'passwordfield'], native: ['password text'] },
  { ax: 'AXSearchField', aliases: ['search'], native: [] },
  { ax: 'AXTextArea', aliases: ['textview', 'multiline'], native: ['document text', 'terminal'] },
  {
    ax: 'AXStaticText',
    aliases: ['static', 'statictext'],
    native: ['label', 'static', 'caption', 'accelerator label'],
  },
  { ax: 'AXHeading', aliases: [], native: ['heading'] },
  { ax: 'AXLink', aliases: ['hyperlink', 'anchor'], native: ['link'] },
  {
    ax: 'AXImage',
    aliases: ['picture', 'img'],
    native: ['image', 'icon', 'desktop icon', 'animation', 'arrow', 'image map'],
  },
  { ax: 'AXWindow', aliases: ['win'], native: ['frame', 'window', 'input method window'] },
  {
    ax: 'AXSheet',
    aliases: ['dialog'],
    native: ['dialog', 'alert', 'file chooser', 'font chooser', 'color chooser'],
  },
  { ax: 'AXDialog', aliases: ['dialog'], native: ['dialog', 'alert'] },
  { ax: 'AXMenuBar', aliases: [], native: ['menu bar'] },
  { ax: 'AXMenuBarItem', aliases: [], native: [] },
  { ax: 'AXMenu', aliases: ['popupmenu'], native: ['menu', 'popup menu'] },
  {
    ax: 'AXMenuItem',
    aliases: [],
    native: ['menu item', 'check menu item', 'radio menu item', 'tearoff menu item'],
  },
  { ax: 'AXList', aliases: ['listbox'], native: ['list', 'list box', 'description list'] },
  {
    ax: 'AXRow',
    aliases: ['listitem', 'treeitem'],
    native: ['table row', 'list item', 'tree item'],
  },
  { ax: 'AXCell', aliases: ['tablecell', 'gridcell'], native: ['table cell'] },
  { ax: 'AXColumn', aliases: [], native: [] },
  {
    ax: 'AXColumnHeader',
    aliases: ['columnheader'],
    native: ['column header', 'table column header', 'row header', 'table row header'],
  },
  { ax: 'AXTable', aliases: ['treetable'], native: ['table', 'tree table'] },
  { ax: 'AXOutline', aliases: ['treeview'], native: ['tree', 'tree table'] },
  { ax: 'AXScrollArea', aliases: ['scroll', 'scrollpane'], native: ['scroll pane'] },
  { ax: 'AXScrollBar', aliases: [], native: ['scroll bar'] },
  { ax: 'AXSlider', aliases: ['scale', 'range'], native: ['slider', 'dial'] },
  { ax: 'AXIncrementor', aliases: ['stepper', 'spinner'], native: ['spin button'] },
  { ax: 'AXProgressIndicator', aliases: ['progress', 'progressbar'], native: ['progress bar'] },
  { ax: 'AXLevelIndicator', aliases: [], native: ['level bar', 'rating'] },
  { ax: 'AXTabGroup', aliases: ['tabs', 'tablist', 'notebook'], native: ['page tab list'] },
  { ax: 'AXTab', aliases: ['pagetab'], native: ['page tab'] },
  {
    ax: 'AXGroup',
    aliases: ['container', 'box'],
    // Generic containers: a native name here stands for itself only (see buildLookup).
    native: [
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
  },
  { ax: 'AXSplitGroup', aliases: ['splitpane'], native: ['split pane'] },
  { ax: 'AXSplitter', aliases: [], native: [] },
  { ax: 'AXSeparator', aliases: [], native: ['separator'] },
  { ax: 'AXToolbar', aliases: [], native: ['tool bar'] },
  { ax: 'AXHelpTag', aliases: ['tooltip'], native: ['tool tip'] },
  { ax: 'AXApplication', aliases: ['app'], native: ['application'] },
  { ax: 'AXColorWell', aliases: ['colorbutton'], native: [] },
  { ax: 'AXDisclosureTriangle', aliases: ['disclosure', 'expander'], native: [] },
  { ax: 'AXDateField', aliases: ['date'], native: ['date editor'] },
  { ax: 'AXWebArea', aliases: ['document', 'webview'], native: ['document web'] },
  { ax: 'AXLayoutArea', aliases: [], native: [] },
  { ax: 'AXPopover', aliases: [], native: [] },
  { ax: 'AXValueIndicator', aliases: [], native: [] },
  { ax: 'AXBusyIndicator', aliases: [], native: [] },
  { ax: 'AXRelevanceIndicator', aliases: [], native: [] },
  { ax: 'AXRuler', aliases: [], native: ['ruler'] },
  { ax: 'AXRulerMarker', aliases: [], native: [] },
  { ax: 'AXBrowser', aliases: [], native: [] },
  { ax: 'AXGrid', aliases: [], native: [] },
  { ax: 'AXDrawer', aliases: [], native: [] },
  { ax: 'AXGrowArea', aliases: [], native: [] },
  { ax: 'AXMatte', aliases: [], native: [] },
  { ax: 'AXHandle', aliases: [], native: [] },
  { ax: 'AXLayoutItem', aliases: [], native: [] },
  { ax: 'AXDockItem', aliases: [], native: [] },
  { ax: 'AXUnknown', aliases: [], native: ['unknown', 'invalid', 'redundant object', 'extended'] },
];

/**
 * Role families: the plain word an agent would use for a kind of control names every
 * role of that kind, whatever role line a toolkit gives it. GTK toggle buttons are
 * `[AXCheckBox (toggle button)]` (macOS shows on/off buttons as check boxes), yet a
 * calculator's keys are what anyone calls buttons, so `button:7` must find them. AX
 * names (`AXButton`) stay exact: they select precisely the lines `grep AXButton` shows.
 * A family matches an element whose AX role is one of `roles`, or whose native role is
 * one of those roles' native names (so `button` takes `toggle button` through
 * AXToggleButton even where it is mapped to AXCheckBox).
 */
export interface RoleFamily {
  /** The word, as documented. */
  name: string;
  /** Other words for the same family (compared compacted: `text field` = `textfield`). */
  aliases: readonly string[];
  roles: readonly string[];
}

export const ROLE_FAMILIES: readonly RoleFamily[] = [
  {
    name: 'button',
    aliases: ['btn'],
    roles: ['AXButton', 'AXToggleButton', 'AXMenuButton'],
  },
  { name: 'checkbox', aliases: ['check', 'check box'], roles: ['AXCheckBox', 'AXSwitch'] },
  { name: 'radio', aliases: ['radiobutton', 'radio button'], roles: ['AXRadioButton'] },
  {
    name: 'textfield',
    aliases: ['text field', 'textbox', 'input', 'edit', 'field'],
    roles: ['AXTextField', 'AXSecureTextField', 'AXSearchField', 'AXTextArea'],
  },
  { name: 'dropdown', aliases: ['popup', 'select'], roles: ['AXPopUpButton', 'AXComboBox'] },
  {
    name: 'menuitem',
    aliases: ['menu item'],
    roles: ['AXMenuItem', 'AXMenuBarItem'],
  },
  { name: 'window', aliases: ['win'], roles: ['AXWindow', 'AXSheet', 'AXDialog'] },
  { name: 'dialog', aliases: [], roles: ['AXSheet', 'AXDialog'] },
];

/** Roles that many unrelated native roles map to. */
const GENERIC_ROLES: ReadonlySet<string> = new Set(['AXGroup', 'AXUnknown']);

interface Entry {
  /** The spelled-out name shown in suggestions. */
  display: string;
  roles: Set<string>;
  native: Set<string>;
}

/** compact(name) → what it stands for; names that several roles share stand for all of them. */
const LOOKUP: Map<string, Entry> = buildLookup();

function buildLookup(): Map<string, Entry> {
  const map = new Map<string, Entry>();
  const add = (name: string, display: string, ax: string | null, native: string | null): void => {
    const key = compact(name);
    let entry = map.get(key);
    if (!entry) {
      entry = { display, roles: new Set(), native: new Set() };
      map.set(key, entry);
    }
    if (ax) entry.roles.add(ax);
    if (native) entry.native.add(native);
  };
  for (const def of ROLE_DEFS) {
    const short = def.ax.slice(2);
    add(def.ax, def.ax, def.ax, null);
    add(short, short.toLowerCase(), def.ax, null);
    for (const alias of def.aliases) add(alias, alias, def.ax, null);
    // `panel` must not stand for every AXGroup (fillers, sections …): a native name
    // under a catch-all role stands for that native role alone.
    const ax = GENERIC_ROLES.has(def.ax) ? null : def.ax;
    for (const native of def.native) add(native, native, ax, native);
  }
  // A native name stands for itself on every role it appears under, and an AX name's
  // entry also lists the native names of that role, so `button` finds `push button`.
  for (const def of ROLE_DEFS) {
    for (const name of [def.ax, def.ax.slice(2), ...def.aliases]) {
      const entry = map.get(compact(name));
      for (const native of def.native) entry?.native.add(native);
    }
  }
  // A family word stands for the whole family (and nothing else), replacing what the
  // word meant as one role's short name or alias.
  for (const family of ROLE_FAMILIES) {
    const native = new Set(
      ROLE_DEFS.filter((d) => family.roles.includes(d.ax)).flatMap((d) => d.native),
    );
    const entry = { display: family.name, roles: new Set(family.roles), native };
    for (const name of [family.name, ...family.aliases]) map.set(compact(name), entry);
  }
  return map;
}

function familyRoles(name: string): readonly string[] {
  return (familyOf(name) as RoleFamily).roles;
}

/** The family a role name stands for, when it is a family word. */
export function familyOf(name: string): RoleFamily | undefined {
  const c = compact(name);
  return ROLE_FAMILIES.find(
    (f) => compact(f.name) === c || f.aliases.some((a) => compact(a) === c),
  );
}

/** Every name a query may use for a role, for suggestions and documentation. */
export const ROLE_NAMES: readonly string[] = [
  ...new Set([...LOOKUP.values()].map((e) => e.display)),
];

/** AX roles printed in tree files look like this; one not in the table is still taken literally. */
const AX_LITERAL = /^AX[A-Z][A-Za-z]*$/;

/**
 * The role a name stands for, or null when it is not a role name. Accepts AX names
 * (`AXButton`, `button`, `Button`), aliases (`textfield`, `text field`, `dropdown`) and
 * native names (`push button`), case-insensitive. An unknown name spelled like an AX
 * role (`AXFancyWidget`) is taken literally, unless it is one edit from a known one.
 */
export function resolveRole(name: string): RoleSpec | null {
  const input = name.trim();
  if (input === '') return null;
  const entry = LOOKUP.get(compact(input));
  if (entry) {
    const roles = [...entry.roles];
    return {
      input,
      label: roles.length === 1 ? roles[0] : input,
      roles,
      nativeRoles: [...entry.native],
    };
  }
  // A near miss of a known AX name is a typo (AXButon), not a role we have not heard of.
  const c = compact(input);
  const nearKnown = ROLE_DEFS.some((d) => editDistance(c, compact(d.ax), 1) <= 1);
  if (AX_LITERAL.test(input) && !nearKnown) {
    return { input, label: input, roles: [input], nativeRoles: [] };
  }
  return null;
}

/** Up to `n` role names close to `name` (for "unknown role" errors). */
export function suggestRoles(name: string, n = 3): string[] {
  if (/^ax[a-z]/i.test(name.trim())) {
    // Someone who writes AX names wants AX names back.
    const word = compact(name).slice(2);
    const max = word.length <= 4 ? 1 : word.length <= 7 ? 2 : 3;
    const axNames = ROLE_DEFS.map((d) => d.ax.slice(2));
    return closest(word, axNames, n, max).map((r) => `AX${r}`);
  }
  const c = compact(name);
  const max = c.length <= 4 ? 1 : c.length <= 7 ? 2 : 3;
  const byDistance = closest(c, ROLE_NAMES, n, max);
  if (byDistance.length > 0) return byDistance;
  // No near spelling: offer names that contain the word or are contained in it ("textbox" → "text").
  return ROLE_NAMES.filter((r) => {
    const rc = compact(r);
    return c.length >= 3 && rc.length >= 3 && (rc.includes(c) || c.includes(rc));
  }).slice(0, n);
}

/** True when the element's normalized or native role is one the spec stands for. */
export function roleMatches(spec: RoleSpec, role: string, nativeRole: string): boolean {
  return spec.roles.includes(role) || spec.nativeRoles.includes(nativeRole.toLowerCase());
}

/**
 * The element types of the explorer's `elementTypes` (seed 003) and a few more, as AX
 * roles. `any` is every interactive role (controls and list/table items).
 */
export const elementTypeRoles: Readonly<Record<string, readonly string[]>> = {
  button: familyRoles('button'),
  checkbox: familyRoles('checkbox'),
  radio: familyRoles('radio'),
  textfield: familyRoles('textfield'),
  dropdown: ['AXPopUpButton', 'AXComboBox', 'AXMenuButton'],
  combobox: ['AXComboBox', 'AXPopUpButton'],
  slider: ['AXSlider', 'AXScrollBar'],
  link: ['AXLink'],
  tab: ['AXTab'],
  menu: ['AXMenu', 'AXMenuBar', 'AXMenuItem', 'AXMenuBarItem'],
  menuitem: familyRoles('menuitem'),
  list: ['AXList', 'AXOutline'],
  table: ['AXTable', 'AXOutline'],
  row: ['AXRow'],
  cell: ['AXCell'],
  statictext: ['AXStaticText', 'AXHeading'],
  image: ['AXImage'],
  window: familyRoles('window'),
  dialog: familyRoles('dialog'),
  group: ['AXGroup', 'AXSplitGroup', 'AXToolbar'],
  scrollarea: ['AXScrollArea'],
  any: [...CONTROL_ROLES, ...ITEM_ROLES],
};

/**
 * Spellings of element types besides the keys. Keys compare compacted, so `text_field`,
 * `menu_item`, `combo_box`, `static_text` and `scroll_area` are the keys themselves.
 */
const ELEMENT_TYPE_ALIASES: Readonly<Record<string, string>> = {
  textarea: 'textfield',
  input: 'textfield',
  entry: 'textfield',
  combo: 'combobox',
  popup: 'dropdown',
  popupbutton: 'dropdown',
  radiobutton: 'radio',
  togglebutton: 'button',
  text: 'statictext',
  label: 'statictext',
  heading: 'statictext',
  menubar: 'menu',
  sheet: 'dialog',
  scroll: 'scrollarea',
  interactive: 'any',
};

/**
 * Native roles an element type also covers, where a backend maps them to an AX role
 * the type does not list (AT-SPI page tabs are AXRadioButton, as macOS tabs are; a
 * non-modal dialog is an AXWindow).
 */
const ELEMENT_TYPE_NATIVE: Readonly<Record<string, readonly string[]>> = {
  tab: ['page tab'],
  dialog: ['dialog', 'alert', 'file chooser', 'font chooser', 'color chooser'],
};

/**
 * The union of roles (and native roles) of the given element types, or the unknown
 * ones with close valid types.
 */
export function resolveElementTypes(
  types: readonly string[],
): { roles: Set<string>; nativeRoles: Set<string> } | { unknown: string[]; suggestions: string[] } {
  const roles = new Set<string>();
  const nativeRoles = new Set<string>();
  const unknown: string[] = [];
  const valid = Object.keys(elementTypeRoles);
  for (const t of types) {
    const c = compact(t);
    const key = c in elementTypeRoles ? c : ELEMENT_TYPE_ALIASES[c];
    if (key === undefined) {
      unknown.push(t);
      continue;
    }
    for (const r of elementTypeRoles[key]) roles.add(r);
    for (const r of ELEMENT_TYPE_NATIVE[key] ?? []) nativeRoles.add(r);
    // A family's native names too: `button` takes GTK toggle buttons (AXCheckBox).
    if (familyOf(key)) for (const r of LOOKUP.get(key)?.native ?? []) nativeRoles.add(r);
  }
  if (unknown.length > 0) {
    const suggestions = [...new Set(unknown.flatMap((u) => closest(u, valid, 3, 3)))];
    return { unknown, suggestions };
  }
  return { roles, nativeRoles };
}
