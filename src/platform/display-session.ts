/**
 * The display session of a desktop: the window system's view of windows (geometry,
 * stacking, popups, windows drawn inside others, the front one and bringing one to the
 * front), real pointer and keyboard input, pixels, the screen's size, who owns a selection
 * and who holds input grabbed. Linux: X11 today; a Wayland compositor (sway) next.
 */
import type { Rect } from '../model/element.js';

/** Raw pixels, RGB or RGBA, row-major, no padding. */
export interface RawImage {
  width: number;
  height: number;
  channels: 3 | 4;
  data: Buffer;
}

/** A region's pixels with the windows they show, read as one instant (captureStacked). */
export interface StackedCapture {
  image: RawImage;
  /** Where the image's top-left pixel is on screen (the region after clipping). */
  origin: { x: number; y: number };
  /**
   * Every window drawn on the screen, bottom to top: its outer frame (decorations too) and
   * the process whose pixels it holds, null when the window system cannot say.
   */
  windows: { pid: number | null; frame: Rect }[];
  /**
   * Where windows that opened, closed or moved since the previous stacked capture have
   * been, with whose pixels they held: what a window drew may stay on screen after it
   * went, until the window below it is repainted by its own app.
   */
  earlier: { pid: number | null; frame: Rect }[];
}

export interface Frontmost {
  pid: number;
  windowTitle: string;
  windowFrame?: Rect;
}

/** A top-level window as the window system sees it (for connecting by title). */
export interface DesktopWindow {
  /** The window system's id of the window, where it has one: the same window across listings. */
  id?: number;
  pid: number;
  title: string;
  /** The client area (the app's own pixels). */
  frame: Rect;
  /**
   * The client area with the window manager's decorations around it (title bar, borders:
   * clicks there move, maximize or close the window); absent when the manager sets none.
   */
  outer?: Rect;
  active: boolean;
}

/** A window on screen that listWindows does not list, and whose it is. */
export interface UnlistedWindow {
  id?: number;
  /** Its process; null when the window system cannot say (a remote client). */
  pid: number | null;
  /** Where it is on the screen. */
  frame: Rect;
}

/**
 * A window of one process drawn inside another's window (an XEmbed plug): what it shows is
 * that process's, however the window around it is listed. Its frame is inside its host's
 * client area.
 */
export interface EmbeddedWindow extends UnlistedWindow {
  /** The listed window it is drawn in (DesktopWindow.id). */
  host: number;
}

export type MouseButton = 'left' | 'right' | 'middle';

export interface KeyCombo {
  /** A key name ("Return", "Tab", "F5", "a", "A", "space"); see the backend's key table. */
  key: string;
  modifiers: Array<'ctrl' | 'shift' | 'alt' | 'super' | 'cmd' | 'opt'>;
}

/**
 * What a key does by itself in the toolkits of a platform: moves the keyboard focus (Tab,
 * Shift+Tab), moves the caret, selection or view (arrows, Home, Page_Down), cancels
 * (Escape), or activates (Return: a dialog's default button, a focused button or check
 * box). `pointer`: it moves or clicks the pointer, or turns on the keys that do (X's mouse
 * keys), so it clicks wherever the pointer is. `other` is every other key: it may type a
 * character, delete, paste or run a shortcut.
 */
export type KeyKind = 'focus' | 'caret' | 'cancel' | 'activate' | 'pointer' | 'other';

/**
 * What a guarded pointer action found on top where it was to press: a window of a process
 * not allowed. Nothing more was sent from then on.
 */
export interface PointerRefusal {
  /** The process whose window was on top there. */
  pid: number;
  at: { x: number; y: number };
  /**
   * Presses sent before it: clicks of a multi-click or wheel steps before the refused one;
   * for a drag refused at its end, 1 (the button was let go where the drag began).
   */
  sent: number;
}

/** What a guarded pointer action did. */
export interface GuardedOutcome {
  /** Set when not all was sent: what was on top instead. */
  refused?: PointerRefusal;
  /**
   * All was sent, but a window of this process (not allowed) showed at a press point
   * before the press was done with: a window manager that holds presses on its clients (to
   * focus them) lets each go on later, to whatever window is on top then. It may have
   * taken the press.
   */
  lateWindowOf?: number;
}

/**
 * Pointer input that presses only where a window of an allowed process (or of none the
 * window system can tell) is on top, checked in the same instant as each press: a window
 * that shows between a caller's own check and the press cannot take it, and one that shows
 * before the press is done with is told (GuardedOutcome).
 */
export interface GuardedPointer {
  click(x: number, y: number, button: MouseButton, count: number): Promise<GuardedOutcome>;
  scroll(x: number, y: number, dx: number, dy: number): Promise<GuardedOutcome>;
  drag(
    from: { x: number; y: number },
    to: { x: number; y: number },
    durationMs: number,
    signal?: AbortSignal,
  ): Promise<GuardedOutcome>;
}

/** Windows, real input and pixels: what the window system offers. */
/**
 * One input event a person made, as the display server saw it: a pointer button pressed
 * (where the pointer was), a key pressed (its name as ax_key_press takes it, and whether
 * it types a character rather than moving or commanding).
 */
export type InputEvent =
  { kind: 'click'; x: number; y: number } | { kind: 'key'; key: string; typing: boolean };

export interface DisplaySession {
  /**
   * Calls `onInput` for every button and key press of the person at this display, from any
   * client. Absent: the session hides other clients' input (a Wayland compositor does).
   * Resolves to a function that stops the watch.
   */
  watchInput?(onInput: (input: InputEvent) => void): Promise<() => Promise<void>>;

  /** The process owning the active window, or null when nothing is active. */
  frontmost(): Promise<Frontmost | null>;
  /** Top-level windows of all apps (or one app), front to back where known. */
  listWindows(pid?: number): Promise<DesktopWindow[]>;
  /**
   * The windows other processes draw inside these listed windows (at any depth), each
   * clipped to its host. Absent: the window system lets no process draw inside another's
   * windows, or the backend cannot tell (then nothing is embedded as far as it knows).
   */
  embeddedWindows?(hosts: readonly DesktopWindow[]): Promise<EmbeddedWindow[]>;
  /**
   * The pid of the process whose text a selection offers now (it answers every paste);
   * null when none owns it or it cannot be told. Absent: the platform cannot say.
   */
  selectionOwner?(selection: 'clipboard' | 'primary'): Promise<number | null>;
  /**
   * The windows no window manager manages (menus, popups, tooltips, lock and prompt
   * windows), drawn above the listed ones, front to back. Absent: every window is listed.
   */
  popupWindows?(): Promise<UnlistedWindow[]>;
  screenSize(): Promise<{ w: number; h: number }>;
  /**
   * Pixels of a screen region (clipped to the screen), or the whole screen, in a buffer
   * of the caller's own: nothing else writes it after (the pipeline keeps it unchanged).
   */
  capture(rect?: Rect): Promise<RawImage>;
  /**
   * As capture, with the windows the pixels show, read in the same instant: no window
   * opens, closes or moves between the two (a window that flashes for a few milliseconds
   * is in both or in neither). Slower than capture. Absent: the platform cannot hold the
   * screen still.
   */
  captureStacked?(rect?: Rect): Promise<StackedCapture>;
  /**
   * The input device any client holds grabbed now, the app's own popup or not (the window
   * system cannot say whose grab it is: grabbedInput excuses one while the app's menu is on
   * top). Absent: the platform has no grabs.
   */
  anyGrab?(): Promise<'keyboard' | 'pointer' | undefined>;
  /**
   * Pointer input checked against `allowed` (pids) at each press, in the instant of the
   * press (see GuardedPointer). Absent: the window system cannot hold the screen still
   * between a check and a press.
   */
  guardedPointer?(allowed: ReadonlySet<number>): GuardedPointer;
  /** Bring the app's window to the front; resolves to a function restoring the previous one. */
  activate(pid: number): Promise<() => Promise<void>>;
  /** The name results give the route of the real pointer and keyboard input below (X11: `xtest`). */
  readonly inputRoute: string;
  click(x: number, y: number, button: MouseButton, count: number): Promise<void>;
  pressKey(combo: KeyCombo): Promise<void>;
  /** Whether pressKey can press this key name: checked before any input is sent. */
  knowsKey(key: string): boolean;
  /** What the key does by itself (without modifiers); `other` for unknown names. */
  keyKind(key: string): KeyKind;
  typeText(text: string): Promise<void>;
  /** Scroll wheel at a point: positive dy scrolls content down (reveals what is below). */
  scroll(x: number, y: number, dx: number, dy: number): Promise<void>;
  /**
   * Left-button drag from `from` to `to` over `durationMs`. When `signal` aborts (the call
   * was cancelled or timed out) the button is let go at once where the pointer is, and the
   * promise rejects: no button stays held after the call.
   */
  drag(
    from: { x: number; y: number },
    to: { x: number; y: number },
    durationMs: number,
    signal?: AbortSignal,
  ): Promise<void>;
  /**
   * Ask every top-level window of the process to close, as its close button would (the
   * app may ask to save first); resolves to how many were asked.
   */
  closeWindows(pid: number): Promise<number>;
}
