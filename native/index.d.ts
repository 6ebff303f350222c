// Types of the native addon (Linux X11). Every Display method is synchronous and short
// (a few X round trips or one image copy) and runs on the calling thread; Capturer's
// capture runs on a worker thread.
//
// Errors: bad arguments throw TypeError (RangeError for a rect outside the screen/image);
// X protocol errors throw Error with code 'X11_PROTOCOL' (and errorCode, requestCode,
// resourceId); a lost server connection throws code 'X11_CONNECTION_LOST' and leaves the
// Display unusable; calls on a closed Display throw code 'X11_CLOSED'.

/** Tightly packed RGB pixels of a region, row-major; x/y is the region after clipping. */
export interface RgbImage {
  x: number;
  y: number;
  width: number;
  height: number;
  /** width * height * 3 bytes: R, G, B per pixel, no row padding. */
  data: Buffer;
}

export interface CaptureResult extends RgbImage {
  /** How the pixels were read: MIT-SHM (XShmGetImage) or plain XGetImage. */
  method: 'shm' | 'getimage';
}

/** A mapped window drawn on the root, as captureStacked lists it. */
export interface StackedWindow {
  /** Its outer frame in screen coordinates: border and window-manager decorations too. */
  x: number;
  y: number;
  w: number;
  h: number;
  /**
   * The process whose pixels it holds: for a window manager's frame, the client inside
   * it; _NET_WM_PID, else the pid X-Resource knows for the client; null when neither says.
   */
  pid: number | null;
}

export interface StackedCapture extends CaptureResult {
  /** The root's viewable children, bottom to top, as they stood when the pixels were read. */
  windows: StackedWindow[];
  /**
   * Where the windows created, shown, hidden, moved or destroyed since this Capturer's
   * previous stacked capture have been (each place, with whose pixels it held): what they
   * drew there may still be on screen until the window below repaints. Pid null when the
   * window is gone and no listing saw its client.
   */
  earlier: StackedWindow[];
}

export interface NativeWindow {
  window: number;
  /** _NET_WM_PID, or null when the client does not set it. */
  pid: number | null;
  /** _NET_WM_NAME (UTF-8) or WM_NAME. */
  title: string;
  /** Client area in root coordinates (without window-manager decorations). */
  x: number;
  y: number;
  w: number;
  h: number;
  /**
   * _NET_FRAME_EXTENTS: the window manager's decorations (title bar, borders) around the
   * client area, or null when the manager sets none.
   */
  frameExtents: { left: number; right: number; top: number; bottom: number } | null;
  /** Viewable (mapped, and all ancestors mapped). */
  mapped: boolean;
  overrideRedirect: boolean;
  /** WM_TRANSIENT_FOR, or null. */
  transientFor: number | null;
  /** _NET_WM_STATE_MODAL is set. */
  modal: boolean;
  /** _NET_WM_STATE_HIDDEN is set (minimized). */
  hidden: boolean;
  /** _NET_WM_STATE atoms, lowercased without the prefix: "modal", "above", "fullscreen"... */
  states: string[];
  /** _NET_WM_WINDOW_TYPE without the prefix ("normal", "dialog", "utility"...); EWMH default when unset. */
  type: string;
  /** WM_CLASS class and instance, or null. */
  wmClass: string | null;
  wmInstance: string | null;
}

/**
 * A window inside a listed top-level that another client created than the one that made
 * its parent (an XEmbed plug of another process), described as a top-level is.
 */
export interface NativeEmbeddedWindow extends NativeWindow {
  /** The top-level it is drawn in (one of the windows asked about). */
  host: number;
}

export interface ActiveWindow {
  window: number;
  pid: number | null;
}

export interface TypeTextResult {
  /**
   * UTF-16 units of the text that were typed. Less than text.length only when every spare
   * keycode is already in use by this text: call again with the rest after a short pause.
   */
  consumed: number;
  /** Characters typed (key taps). */
  keys: number;
  /** Spare keycodes remapped by this call. */
  remapped: number;
  /** Remapped spare keycodes not yet restored (call restoreKeymap once the typing has landed). */
  pendingRestore: number;
  /** When consumed < text.length: how long to wait before typing the rest. */
  retryAfterMs: number;
}

export declare class Display {
  /** Opens a connection (name like ':91'; default $DISPLAY). Throws code 'X11_OPEN_FAILED'. */
  constructor(name?: string | null);
  readonly name: string;
  /** False once closed or once the server connection was lost. */
  readonly usable: boolean;
  readonly extensions: { shm: boolean; xtest: boolean };
  /** Restores remapped keycodes, releases the SHM segment and closes. Idempotent. */
  close(): void;

  screenSize(): { w: number; h: number };
  /**
   * The root-window region, clipped to the screen (RangeError when nothing is left).
   * 'auto' uses XShmGetImage when MIT-SHM works (one segment, reused, re-created when a
   * larger region is asked for) and falls back to XGetImage.
   */
  capture(
    x: number,
    y: number,
    w: number,
    h: number,
    method?: 'auto' | 'shm' | 'getimage',
  ): CaptureResult;

  mouseMove(x: number, y: number): void;
  /** Buttons: 1 left, 2 middle, 3 right, 4/5 wheel up/down, 6/7 wheel left/right, 8/9 back/forward. */
  mouseButton(button: number, down: boolean): void;
  /**
   * Records in the held-input journal a button another connection presses (down) or has
   * released, without sending anything: a Capturer's pointerGuarded press is released by
   * the next Display if this process dies holding it.
   */
  noteButton(button: number, down: boolean): void;
  pointer(): { x: number; y: number; buttons: number };

  /**
   * One key event by keysym (number) or key name (keysym name or one character). A keysym
   * missing from the keymap is mapped onto a spare keycode. Returns the keycode used.
   */
  key(keysym: number | string, down: boolean): number;
  keyCode(code: number, down: boolean): void;
  /** Presses the keys in order and releases them in reverse (modifiers first, key last). Adds Shift for a shifted key. */
  keyCombo(keys: Array<number | string>): void;
  /** Types text with the right shift level per character; see TypeTextResult.consumed. */
  typeText(text: string): TypeTextResult;
  /** Restores spare keycodes remapped for typing; returns how many. */
  restoreKeymap(): number;
  /**
   * Restores spare keycodes that processes now gone left remapped (recorded on the root
   * window before each remap); every new Display does this once. Returns how many.
   */
  recoverKeymap(): number;
  /**
   * Releases the keys and pointer buttons this Display pressed and has not released
   * (recorded on the root window before each press, forgotten after each release); close()
   * does too. Safe to call on a closed or dead Display (returns 0). Returns how many.
   */
  releaseHeld(): number;
  /**
   * Releases keys and buttons that processes now gone left held (recorded before each
   * press; X still reports them down); every new Display does this once. Returns how many.
   */
  recoverInput(): number;
  /** How many held keys and buttons of gone processes this Display released when it opened. */
  readonly releasedAtOpen: number;

  /**
   * Root _NET_ACTIVE_WINDOW with its _NET_WM_PID (null when unset); null when no window is
   * active or no EWMH window manager runs (a dead one leaves a stale property behind).
   */
  activeWindow(): ActiveWindow | null;
  /** The X input focus window; null for None/PointerRoot. */
  inputFocus(): number | null;
  /** Top-level client windows, front to back where the WM says (_NET_CLIENT_LIST_STACKING). */
  listWindows(): NativeWindow[];
  /**
   * The same listing, its round trips waited for off the JS thread (a second X connection
   * of its own); rejects with the error listWindows would throw.
   */
  listWindowsAsync(): Promise<NativeWindow[]>;
  windowInfo(window: number): NativeWindow;
  /**
   * The windows other clients embedded into `windows` (at any depth), each with the
   * top-level it is in; a window gone meanwhile is left out. Throws X11_PROTOCOL when the
   * search is cut (more than 20,000 child windows, nesting deeper than 64).
   */
  embeddedWindows(windows: number[]): NativeEmbeddedWindow[];
  /**
   * The viewable override-redirect top-levels (menus, popups, tooltips, lock and prompt
   * windows, which no window manager lists), front to back.
   */
  popupWindows(): NativeWindow[];
  /**
   * The pid of the client that owns the selection (its window's _NET_WM_PID, else the pid
   * the X server knows for it); null when nobody owns it or no pid is known.
   */
  selectionOwner(selection: 'CLIPBOARD' | 'PRIMARY'): number | null;
  /**
   * Asks the WM to activate the window (_NET_ACTIVE_WINDOW client message, source 2,
   * current server time), or without a WM raises it and sets the input focus. Returns at
   * once: poll activeWindow()/inputFocus() to see it take effect.
   */
  activateWindow(window: number): { method: 'ewmh' | 'focus'; timestamp: number };
  /**
   * Asks the window to close as its title bar's close button would: through the WM
   * (_NET_CLOSE_WINDOW), or without a WM with the client's WM_DELETE_WINDOW message. The
   * app decides (it may ask to save first); nothing is destroyed. Returns at once.
   */
  closeWindow(window: number): { method: 'ewmh' | 'delete' };
  /** The running EWMH window manager, or null. */
  windowManager(): { window: number; name: string } | null;
}

/**
 * Screen capture off the JS thread: its own X connection (and MIT-SHM segment), used by one
 * libuv worker thread at a time, so a capture runs while the JS thread does other work.
 * Captures queued together run one after the other. Errors as Display's, as rejections.
 */
/** A press the person made, as XInput2 raw events report it (any client's input). */
export type RawInput =
  | { kind: 'button'; button: number; x: number; y: number }
  | { kind: 'key' | 'keyup'; keycode: number; keysym: string | null };

/**
 * Watches the person's key and button presses on the display (XInput2 raw events on the
 * root, a connection of its own). read() drains what came since the last read, oldest
 * first; a button press carries where the pointer is at that read. Throws code
 * 'X11_NO_XINPUT2' when the server has no XInput 2.
 */
export declare class InputWatch {
  constructor(name?: string | null);
  readonly usable: boolean;
  read(): RawInput[];
  close(): void;
}

export declare class Capturer {
  /** Opens its own connection (name like ':91'; default $DISPLAY). Throws code 'X11_OPEN_FAILED'. */
  constructor(name?: string | null);
  readonly name: string;
  /** False once closed or once the server connection was lost. */
  readonly usable: boolean;
  readonly extensions: { shm: boolean };
  /** As Display.capture, resolved off the JS thread; the pixels are read when the worker runs. */
  capture(
    x: number,
    y: number,
    w: number,
    h: number,
    method?: 'auto' | 'shm' | 'getimage',
  ): Promise<CaptureResult>;
  /**
   * The region (clipped to the screen) and the windows it shows, read in one server grab:
   * no client maps, unmaps or moves a window between the listing and the pixels. Over an
   * XCB connection of its own (core GetImage), opened on first use.
   */
  captureStacked(x: number, y: number, w: number, h: number): Promise<StackedCapture>;
  /**
   * Pointer input sent in one server grab only while the window on top at (x, y) belongs
   * to a process in `allowed` (or to none the server can tell): the pointer moves there
   * and `click` sends `taps` presses and releases of `button`, `press` a press, `release`
   * a release. When another process's window is on top nothing is sent (`sent` false, its
   * `pid`), except that `release` then lets the button go at (elseX, elseY). Once sent
   * (a click or a release), it waits for the button to be up (a window manager that holds
   * presses on its clients lets them go on late) and says in `late` whose window, of a
   * process not allowed, showed at a point pressed since the last press meanwhile.
   */
  pointerGuarded(
    x: number,
    y: number,
    button: number,
    phase: 'click' | 'press' | 'release',
    taps: number,
    allowed: number[],
    elseX: number,
    elseY: number,
  ): Promise<{ sent: boolean; pid: number | null; late: number | null }>;
  /** Waits for a capture in progress, then releases the SHM segment and closes. Idempotent. */
  close(): void;
}

/**
 * One property of the root window of screen 0 (whatever screen the display name gives),
 * over an X connection of its own: the place for what every process on the X server must
 * agree on, whatever its environment, for as long as the server runs. Errors as Display's;
 * a property that is set but not 8-bit data reads as unset.
 */
export declare class RootProperty {
  /** Opens its own connection (name like ':91'; default $DISPLAY). Throws code 'X11_OPEN_FAILED'. */
  constructor(display: string | null | undefined, property: string);
  readonly name: string;
  /** False once closed or once the server connection was lost. */
  readonly usable: boolean;
  /** The property's bytes, or null when it is unset. One round trip (more for a large one). */
  read(): Buffer | null;
  /**
   * Read-modify-write under a server grab (every other client waits, for as long as `fn`
   * runs: keep it short and synchronous): `fn` gets the bytes (null when unset) and returns
   * the new bytes (written as UTF8_STRING), null to delete the property, or undefined to leave
   * it. An exception from `fn` leaves the property as it was and is rethrown. Returns whether
   * the property changed. Throws code 'X11_TOO_LARGE' for bytes the server cannot take in one
   * request.
   */
  update(fn: (current: Buffer | null) => Buffer | null | undefined): boolean;
  /** Closes the connection. Idempotent. */
  close(): void;
}

export interface XwdInfo {
  width: number;
  height: number;
  depth: number;
  bitsPerPixel: number;
  bytesPerLine: number;
  /** Offset of the first pixel row (header_size + ncolors * 12). */
  dataOffset: number;
  /** dataOffset + bytesPerLine * height. */
  byteLength: number;
  /** The window name in the header; Xvfb writes "Xvfb <host>:<display>.<screen>". */
  name: string;
}

/** Decodes (a region of) an XWD image such as Xvfb's -fbdir file. Throws code 'XWD_INVALID' on bad input. */
export declare function decodeXwd(
  buffer: Uint8Array,
  x?: number,
  y?: number,
  w?: number,
  h?: number,
): RgbImage;
export declare function xwdInfo(buffer: Uint8Array): XwdInfo;
/** XStringToKeysym, or the keysym of a single character; null when unknown. */
export declare function keysymFromName(name: string): number | null;
export declare function keysymName(keysym: number): string | null;
/**
 * The keycodes X reports down (XQueryKeymap) and the pointer buttons 1-5 down (bit 0 =
 * button 1), asked over a connection of its own that reads no journal and releases
 * nothing. Throws code 'X11_OPEN_FAILED' when the display cannot be opened.
 */
export declare function heldInput(display?: string | null): { keys: number[]; buttons: number };
/**
 * Whether another client holds the keyboard or the pointer grabbed (every key or click
 * sent meanwhile goes to it), found by a grab attempt released at once, over a connection
 * of its own. The attempt is made on the window that has the device, so no client sees
 * focus or crossing events. Throws code 'X11_OPEN_FAILED' when the display cannot be opened.
 */
export declare function inputGrabs(display?: string | null): {
  keyboard: boolean;
  pointer: boolean;
  /** With a grab: the pid of the topmost window when it is a popup (an app's open menu). */
  popupPid: number | null;
};
export declare const platform: 'linux-x11';
