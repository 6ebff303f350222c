/**
 * Role names a query may use: AX names with or without the `AX` prefix, short aliases
 * (button, textfield, checkbox, dropdown …) and the platform's native names (the
 * backend's vocabulary, model/vocabulary.ts), all case-insensitive and blind to spaces,
 * `_` and `-`.
 *
 * A role name resolves to AX roles *and* native names, and an element matches on
 * either, so a native name finds the widget whatever AX role a backend maps it to, and
 * copying either name from a tree line `[AXButton (native name)]` works.
 */
import { CONTROL_ROLES, ITEM_ROLES } from '../model/roles.js';
import { vocabulary, type NativeVocabulary } from '../model/vocabulary.js';
import { closest, compact, editDistance } from './text.js';
import type { RoleSpec } from './types.js';

interface AxRoleDef {
  ax: string;
  /** Extra names besides the AX name and the AX name without its prefix. */
  aliases: string[];
}

interface RoleDef extends AxRoleDef {
  /** The backend's native role names a query finds this role by (its vocabulary's roleNames). */
  native: readonly string[];
}

/** The AX roles and the words for them; native names come from the backend's vocabulary. */
const AX_ROLE_DEFS: AxRoleDef[] = [
  { ax: 'AXButton', aliases: ['btn', 'pushbutton'] },
  { ax: 'AXToggleButton', aliases: ['toggle'] },
  { ax: 'AXCheckBox', aliases: ['check'] },
  { ax: 'AXSwitch', aliases: [] },
  { ax: 'AXRadioButton', aliases: ['radio'] },
  { ax: 'AXPopUpButton', aliases: ['popup', 'dropdown', 'select'] },
  { ax: 'AXMenuButton', aliases: [] },
  { ax: 'AXComboBox', aliases: ['combo', 'dropdown'] },
  { ax: 'AXTextField', aliases: ['textbox', 'input', 'edit', 'field'] },
  { ax: 'AXSecureTextField', aliases: ['password', 'passwordfield'] },
  { ax: 'AXSearchField', aliases: ['search'] },
  { ax: 'AXTextArea', aliases: ['textview', 'multiline'] },
  { ax: 'AXStaticText', aliases: ['static', 'statictext'] },
  { ax: 'AXHeading', aliases: [] },
  { ax: 'AXLink', aliases: ['hyperlink', 'anchor'] },
  { ax: 'AXImage', aliases: ['picture', 'img'] },
  { ax: 'AXWindow', aliases: ['win'] },
  { ax: 'AXSheet', aliases: ['dialog'] },
  { ax: 'AXDialog', aliases: ['dialog'] },
  { ax: 'AXMenuBar', aliases: [] },
  { ax: 'AXMenuBarItem', aliases: [] },
  { ax: 'AXMenu', aliases: ['popupmenu'] },
  { ax: 'AXMenuItem', aliases: [] },
  { ax: 'AXList', aliases: ['listbox'] },
  { ax: 'AXRow', aliases: ['listitem', 'treeitem'] },
  { ax: 'AXCell', aliases: ['tablecell', 'gridcell'] },
  { ax: 'AXColumn', aliases: [] },
  { ax: 'AXColumnHeader', aliases: ['columnheader'] },
  { ax: 'AXTable', aliases: ['treetable'] },
  { ax: 'AXOutline', aliases: ['treeview'] },
  { ax: 'AXScrollArea', aliases: ['scroll', 'scrollpane'] },
  { ax: 'AXScrollBar', aliases: [] },
  { ax: 'AXSlider', aliases: ['scale', 'range'] },
  { ax: 'AXIncrementor', aliases: ['stepper', 'spinner'] },
  { ax: 'AXProgressIndicator', aliases: ['progress', 'progressbar'] },
  { ax: 'AXLevelIndicator', aliases: [] },
  { ax: 'AXTabGroup', aliases: ['tabs', 'tablist', 'notebook'] },
  { ax: 'AXTab', aliases: ['pagetab'] },
  { ax: 'AXGroup', aliases: ['container', 'box'] },
  { ax: 'AXSplitGroup', aliases: ['splitpane'] },
  { ax: 'AXSplitter', aliases: [] },
  { ax: 'AXSeparator', aliases: [] },
  { ax: 'AXToolbar', aliases: [] },
  { ax: 'AXHelpTag', aliases: ['tooltip'] },
  { ax: 'AXApplication', aliases: ['app'] },
  { ax: 'AXColorWell', aliases: ['colorbutton'] },
  { ax: 'AXDisclosureTriangle', aliases: ['disclosure', 'expander'] },
  { ax: 'AXDateField', aliases: ['date'] },
  { ax: 'AXWebArea', aliases: ['document', 'webview'] },
  { ax: 'AXLayoutArea', aliases: [] },
  { ax: 'AXPopover', aliases: [] },
  { ax: 'AXValueIndicator', aliases: [] },
  { ax: 'AXBusyIndicator', aliases: [] },
  { ax: 'AXRelevanceIndicator', aliases: [] },
  { ax: 'AXRuler', aliases: [] },
  { ax: 'AXRulerMarker', aliases: [] },
  { ax: 'AXBrowser', aliases: [] },
  { ax: 'AXGrid', aliases: [] },
  { ax: 'AXDrawer', aliases: [] },
  { ax: 'AXGrowArea', aliases: [] },
  { ax: 'AXMatte', aliases: [] },
  { ax: 'AXHandle', aliases: [] },
  { ax: 'AXLayoutItem', aliases: [] },
  { ax: 'AXDockItem', aliases: [] },
  { ax: 'AXUnknown', aliases: [] },
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

/** The role names of one vocabulary, compiled. */
interface Table {
  vocabulary: NativeVocabulary;
  defs: RoleDef[];
  /** compact(name) → what it stands for; names that several roles share stand for all of them. */
  lookup: Map<string, Entry>;
  /** Every name a query may use for a role, for suggestions. */
  names: readonly string[];
}

let compiled: Table | undefined;

/** The table of the installed vocabulary (compiled again when another is installed). */
function table(): Table {
  const v = vocabulary();
  if (compiled?.vocabulary !== v) compiled = compile(v);
  return compiled;
}

function compile(v: NativeVocabulary): Table {
  const nativeOf = (ax: string): readonly string[] =>
    Object.hasOwn(v.roleNames, ax) ? v.roleNames[ax] : [];
  const known = new Set(AX_ROLE_DEFS.map((d) => d.ax));
  const defs: RoleDef[] = [
    ...AX_ROLE_DEFS.map((d) => ({ ...d, native: nativeOf(d.ax) })),
    // An AX role the backend maps names to that this table lacks still finds them.
    ...Object.keys(v.roleNames)
      .filter((ax) => !known.has(ax))
      .map((ax) => ({ ax, aliases: [], native: nativeOf(ax) })),
  ];
  const lookup = buildLookup(defs);
  const names = [...new Set([...lookup.values()].map((e) => e.display))];
  return { vocabulary: v, defs, lookup, names };
}

function buildLookup(defs: readonly RoleDef[]): Map<string, Entry> {
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
  for (const def of defs) {
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
  for (const def of defs) {
    for (const name of [def.ax, def.ax.slice(2), ...def.aliases]) {
      const entry = map.get(compact(name));
      for (const native of def.native) entry?.native.add(native);
    }
  }
  // A family word stands for the whole family (and nothing else), replacing what the
  // word meant as one role's short name or alias.
  for (const family of ROLE_FAMILIES) {
    const native = new Set(
      defs.filter((d) => family.roles.includes(d.ax)).flatMap((d) => d.native),
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
export function roleNames(): readonly string[] {
  return table().names;
}

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
  const entry = table().lookup.get(compact(input));
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
  const nearKnown = table().defs.some((d) => editDistance(c, compact(d.ax), 1) <= 1);
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
    const axNames = table().defs.map((d) => d.ax.slice(2));
    return closest(word, axNames, n, max).map((r) => `AX${r}`);
  }
  const c = compact(name);
  const max = c.length <= 4 ? 1 : c.length <= 7 ? 2 : 3;
  const names = roleNames();
  const byDistance = closest(c, names, n, max);
  if (byDistance.length > 0) return byDistance;
  // No near spelling: offer names that contain the word or are contained in it ("textbox" → "text").
  return names
    .filter((r) => {
      const rc = compact(r);
      return c.length >= 3 && rc.length >= 3 && (rc.includes(c) || c.includes(rc));
    })
    .slice(0, n);
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
  // Native roles a type also covers where the backend maps them to an AX role it does not list.
  const { elementTypeRoles: typeNative } = vocabulary();
  for (const t of types) {
    const c = compact(t);
    const key = c in elementTypeRoles ? c : ELEMENT_TYPE_ALIASES[c];
    if (key === undefined) {
      unknown.push(t);
      continue;
    }
    for (const r of elementTypeRoles[key]) roles.add(r);
    if (Object.hasOwn(typeNative, key)) for (const r of typeNative[key]) nativeRoles.add(r);
    // A family's native names too: `button` takes GTK toggle buttons (AXCheckBox).
    if (familyOf(key)) for (const r of table().lookup.get(key)?.native ?? []) nativeRoles.add(r);
  }
  if (unknown.length > 0) {
    const suggestions = [...new Set(unknown.flatMap((u) => closest(u, valid, 3, 3)))];
    return { unknown, suggestions };
  }
  return { roles, nativeRoles };
}
