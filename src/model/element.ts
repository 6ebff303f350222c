/**
 * The platform-free tree model. Backends produce these; tree, diff, summary and
 * viewport consume them. Pure data: no I/O, no SDK, no platform.
 */

/** A rectangle in screen points, top-left origin. */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * Flags an element can carry, in the order the tree file prints them.
 * Backends map their native states onto these; anything else stays in `nativeStates`.
 */
export const FLAG_ORDER = [
  'visible',
  'enabled',
  'disabled',
  'focused',
  'focusable',
  'selected',
  'checked',
  'mixed',
  'pressed',
  'expanded',
  'collapsed',
  'editable',
  'readonly',
  'multiline',
  'modal',
  'active',
  'secure',
  'offscreen',
] as const;
export type Flag = (typeof FLAG_ORDER)[number];

/**
 * One accessibility element as a backend reports it, in tree order.
 * `visible` is not set by backends: the viewport module computes it.
 */
export interface Element {
  /**
   * The platform's own identity for this object, stable for its lifetime
   * (AT-SPI: "<bus name><object path>"; macOS: a hash of the AXUIElement).
   * Empty when the platform has none: the diff then falls back to a path signature.
   */
  id: string;
  /** Index of the parent in the snapshot's element list; -1 for a top-level. */
  parent: number;
  /** Depth below the app root: top-level windows are depth 0. */
  depth: number;
  /** Normalized role in the macOS AX vocabulary (AXButton, AXTextField, ...). */
  role: string;
  /** The platform's own role name ("push button", "AXButton"). */
  nativeRole: string;
  /** Accessible name / title. */
  name: string;
  /**
   * Text content or value. For secure (password) elements the backend never reads
   * the value: it sets `secure` and leaves this undefined.
   */
  value?: string;
  description?: string;
  /** Frame in screen points; undefined when the platform reports none (or INT_MIN). */
  frame?: Rect;
  flags: Flag[];
  /** Action names the element supports ("click", "activate", "press"). */
  actions: string[];
  /** Developer-facing identifier (AT-SPI accessible id / AXIdentifier), if any. */
  identifier?: string;
  /** Number of children the platform reported (may exceed those walked on truncation). */
  childCount: number;
}

/** A top-level window (or dialog) of one app, with its element index. */
export interface WindowInfo {
  index: number;
  title: string;
  role: string;
  frame?: Rect;
  /** True for a modal dialog/sheet (modal state, or transient for an app window). */
  modal: boolean;
  /** True for a dialog/alert/sheet role, modal or not. */
  dialog: boolean;
  /** The window is the active (frontmost, focused) one. */
  active: boolean;
  /**
   * Why the backend could not tell where the window is, nor whether it shows (no window of
   * the window system could be matched to it); unset when it could.
   */
  unplaced?: string;
}

export interface SnapshotLimits {
  maxElements: number;
  maxDepth: number;
  timeBudgetMs: number;
  /**
   * Most rows read of one table, list or tree (containers whose children the toolkit makes
   * on demand); the rows in view first, then those nearest them, where the toolkit lets
   * the walk know which are in view (GTK 3). Unset: every row (within maxElements).
   */
  maxTableRows?: number;
}

/**
 * `Snapshot.truncated` when the app exited during the walk: the elements are what was
 * read before it died, and the app is gone.
 */
export const TRUNCATED_APP_EXITED = 'app exited';

/** A snapshot of one app as the backend returns it. */
export interface Snapshot {
  pid: number;
  app: string;
  /** Tree order, depth-first; windows ordered dialogs first, then the active one, then the rest. */
  elements: Element[];
  windows: WindowInfo[];
  /**
   * Why the walk stopped short ("max elements 5000", "time budget 3000 ms",
   * TRUNCATED_APP_EXITED), or null.
   */
  truncated: string | null;
  /** Milliseconds the walk took. */
  elapsedMs: number;
  /** Epoch ms when the walk started. */
  takenAt: number;
  /** How the tree was read (e.g. "atspi-cache+live", "atspi-walk"); for the file header. */
  method: string;
  /**
   * Other processes whose trees, plugged into this app's windows (XEmbed), the walk went
   * into; their elements are among `elements`. Unset: none.
   */
  enteredApps?: number[];
}
