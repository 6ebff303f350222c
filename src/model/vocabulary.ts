/**
 * What a backend's own names mean. Elements carry the platform's own role name
 * (Element.nativeRole) and action names (Element.actions) beside the model's AX role; the
 * query language, the viewport and the actions need to know what some of those names
 * mean, and only the backend knows them (AT-SPI's "scroll pane", a toolkit's "doDefault").
 *
 * The backend supplies its vocabulary (Desktop.traits.vocabulary, src/platform/desktop.ts).
 * The layers that read it here (query, viewport) get no desktop: the server installs the
 * vocabulary of its platform's backend once, when it is created, before any call (a query
 * is parsed before the desktop is opened). Until then it is the empty vocabulary: AX names
 * only.
 */

export type ScrollDirection = 'up' | 'down' | 'left' | 'right';

export interface NativeVocabulary {
  /**
   * Native role names a query may use, under the AX role the backend maps each to (lower
   * case, as the platform spells them). Every native role name should be here, so that a
   * `(native)` copied from a tree line resolves. Under AXGroup and AXUnknown (the roles
   * many unrelated native roles map to) a name stands for itself only.
   */
  roleNames: Readonly<Record<string, readonly string[]>>;
  /**
   * Native roles an element type (button, tab, dialog ... see query/roles.ts) covers where
   * the backend maps them to an AX role the type does not list.
   */
  elementTypeRoles: Readonly<Record<string, readonly string[]>>;
  /** Native roles that clip their content to their frame, whatever AX role they get. */
  viewportRoles: ReadonlySet<string>;
  /**
   * Native roles drawn as surfaces of their own (windows, menus, tool tips): clipped to
   * the screen, not to the ancestors they hang from.
   */
  surfaceRoles: ReadonlySet<string>;
  /** Native roles of menus: their items are drawn in a popup of their own. */
  menuRoles: ReadonlySet<string>;
  /**
   * Native roles of a menu that hangs inside another element (a menu bar's "File"): its
   * frame is the title it opens from, its items pop up away from it.
   */
  menuTitleRoles: ReadonlySet<string>;
  /** Native roles of a top-level that pops up over a window (a combo box's list, a menu). */
  popupWindowRoles: ReadonlySet<string>;
  /**
   * Native roles of a table's column and row headers: children of the table drawn over
   * the rows and cells that scroll under them.
   */
  headerRoles?: ReadonlySet<string>;
  /** Action names that mean "activate this", most specific first, lower case. */
  pressActions: readonly string[];
  /** Action names that scroll an element by a page, where the toolkits offer them. */
  scrollActions?: Readonly<Record<ScrollDirection, string>>;
}

/** AX names only: what the layers above see before a backend's vocabulary is installed. */
export const EMPTY_VOCABULARY: NativeVocabulary = {
  roleNames: {},
  elementTypeRoles: {},
  viewportRoles: new Set(),
  surfaceRoles: new Set(),
  menuRoles: new Set(),
  menuTitleRoles: new Set(),
  popupWindowRoles: new Set(),
  pressActions: [],
};

let installed: NativeVocabulary = EMPTY_VOCABULARY;

/** Installs the vocabulary of the backend this process runs (the server does, at start). */
export function useVocabulary(vocabulary: NativeVocabulary): void {
  installed = vocabulary;
}

/** The installed vocabulary. */
export function vocabulary(): NativeVocabulary {
  return installed;
}
