/**
 * Typed X11 access for the Linux backend: screen capture, XTest input and EWMH windows,
 * over the `@axpage/native` addon. Native calls are synchronous and short (a few X round
 * trips, or one image copy: about 3 ms for 1280x800), so they run on the JS thread; only
 * what waits on purpose (drag duration, waiting for activation, pacing long typing) is
 * async, and the capture a tool call takes while it walks its app (captureRegionAsync: a
 * second connection read on a worker thread, because the X server can take 10 ms and more
 * to answer while an app repaints, and the walk must not wait for it).
 *
 * Screenshots come from the X server by XShmGetImage (the fastest path measured, on Xvfb
 * too). Without working MIT-SHM they read Xvfb's -fbdir framebuffer file when one is given
 * for this display (env XVFB_FB or the `framebuffer` option), patching in the area around
 * the pointer from the X server because the file holds the software cursor: the same
 * pixels as the X path. Last comes XGetImage.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type * as NativeApi from '@axpage/native';
import type {
  ActiveWindow,
  Capturer as NativeCapturer,
  Display as NativeDisplay,
  NativeEmbeddedWindow,
  NativeWindow,
  RgbImage,
  RootProperty,
  StackedWindow as NativeStackedWindow,
  XwdInfo,
} from '@axpage/native';
import type { Rect } from '../../model/element.js';
import { PlatformError } from '../../errors.js';
import type { InputEvent, MouseButton, RawImage } from '../desktop.js';
import { KEY_ALIASES, keysymValue } from './keysyms.js';

type NativeModule = typeof NativeApi;

const SYSTEM_PACKAGES = 'g++ make python3 libx11-dev libxext-dev libxtst-dev libxi-dev';

let nativeModule: NativeModule | undefined;
let nativeError: PlatformError | undefined;
/**
 * Loaded on first use, so importing this module never fails on a machine without the addon.
 * A missing or broken addon is a PlatformError that names the system packages the build
 * needs: it must never read as a display problem.
 */
function native(): NativeModule {
  if (nativeModule) return nativeModule;
  if (nativeError) throw nativeError;
  try {
    nativeModule = createRequire(import.meta.url)('@axpage/native') as NativeModule;
    return nativeModule;
  } catch (err) {
    nativeError = addonError(err);
    throw nativeError;
  }
}

function addonError(err: unknown): PlatformError {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  const state =
    code === 'AXPAGE_NATIVE_NOT_BUILT'
      ? 'is not built'
      : code === 'MODULE_NOT_FOUND' && message.includes("'@axpage/native'")
        ? 'is not installed'
        : `does not load (${message})`;
  return new PlatformError(
    'unsupported',
    `axpage's native X11 addon (@axpage/native) ${state}, so screenshots and input cannot work. ` +
      `Install the system packages (Debian/Ubuntu: sudo apt-get install -y ${SYSTEM_PACKAGES}), ` +
      'then rebuild it: `npm rebuild @axpage/native` in the axpage directory (or reinstall axpage)',
    { addon: code === 'AXPAGE_NATIVE_NOT_BUILT' ? 'not_built' : 'load_failed' },
  );
}

/** Why the native addon cannot be used, or undefined when it loads. */
export function nativeAddonProblem(): PlatformError | undefined {
  try {
    native();
    return undefined;
  } catch (err) {
    if (err instanceof PlatformError) return err;
    throw err;
  }
}

export type { ActiveWindow, NativeWindow as X11Window };

export type CaptureSource = 'framebuffer' | 'shm' | 'getimage';

/** RGB pixels of a region, with where it came from after clipping to the screen. */
export interface CapturedImage extends RawImage {
  channels: 3;
  /** Top-left of the captured (clipped) region in screen coordinates. */
  x: number;
  y: number;
  source: CaptureSource;
}

/** A capture with the windows it shows, read in one server grab (captureStackedAsync). */
export interface StackedImage extends CapturedImage {
  /** Bottom to top: each window's outer frame and the pid of its client (null: unknown). */
  windows: NativeStackedWindow[];
  /** Where windows that changed since the previous stacked capture have been. */
  earlier: NativeStackedWindow[];
}

/** What a guarded pointer action did (see GuardedOutcome). */
export interface GuardedResult {
  /** What was on top instead of an allowed window, with the presses sent before it. */
  refused?: { pid: number; at: Point; sent: number };
  /** A window of this process showed at a press point before the press was done with. */
  lateWindowOf?: number;
}

export interface X11Options {
  /**
   * Xvfb's framebuffer file (`<fbdir>/Xvfb_screen0`) for this display; default env
   * XVFB_FB. `false` never uses one. Ignored (with `framebufferProblem` saying why) when
   * unreadable or when its header names another display or another screen size.
   */
  framebuffer?: string | false;
  /**
   * How long after the last typing to restore keycodes remapped for characters missing
   * from the keymap. Clients look up the keymap when they process a key event, so
   * restoring at once would lose those characters. Default 250 ms.
   */
  keymapRestoreMs?: number;
}

export interface ActivateResult {
  /** The window became the active one (or got the input focus, without a WM) in time. */
  active: boolean;
  elapsedMs: number;
  /** 'ewmh': asked the window manager; 'focus': no WM, raised and focused directly. */
  method: 'ewmh' | 'focus';
}

export interface Point {
  x: number;
  y: number;
}

const BUTTONS: Record<MouseButton, number> = { left: 1, middle: 2, right: 3 };

/** Pause between the clicks of a double/triple click (see click()). */
const MULTI_CLICK_GAP_MS = 5;

/** How far from the hotspot a cursor image can reach (themes go up to 64 px). */
const CURSOR_REACH = 64;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A pause that ends early when `signal` aborts (the caller then checks it). */
const pausing = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/** Resolves a key name to a keysym, or throws naming the key. */
export function keysymOf(name: string): number {
  const { keysymFromName } = native();
  const sym = keysymFromName(name) ?? keysymFromName(KEY_ALIASES[name.toLowerCase()] ?? '');
  if (sym === null) {
    throw new Error(
      `unknown key name '${name}': use an X keysym name (Return, Tab, Escape, BackSpace, F5, ` +
        `Left, Page_Up, Control_L, a, A...), one character, or ctrl/shift/alt/super/enter/esc`,
    );
  }
  return sym;
}

/**
 * A window's rect with its window manager's decorations around it (_NET_FRAME_EXTENTS):
 * the title bar shows the window's title and acts on the window as much as its inside.
 */
export function withDecorations(
  client: Rect,
  extents: { left: number; right: number; top: number; bottom: number },
): Rect {
  return {
    x: client.x - extents.left,
    y: client.y - extents.top,
    w: client.w + extents.left + extents.right,
    h: client.h + extents.top + extents.bottom,
  };
}

function checkInt(value: number, what: string, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new TypeError(`${what} must be an integer in [${min}, ${max}], got ${value}`);
  }
}

/** Rounds a rect outwards to whole pixels, rejecting what is not a rect. */
function pixelRect(rect: Rect): Rect {
  for (const k of ['x', 'y', 'w', 'h'] as const) {
    if (typeof rect[k] !== 'number' || !Number.isFinite(rect[k])) {
      throw new TypeError(`captureRegion: rect.${k} must be a finite number, got ${rect[k]}`);
    }
  }
  if (rect.w <= 0 || rect.h <= 0) {
    throw new TypeError(`captureRegion: rect size must be positive, got ${rect.w}x${rect.h}`);
  }
  const x = Math.floor(rect.x);
  const y = Math.floor(rect.y);
  return { x, y, w: Math.ceil(rect.x + rect.w) - x, h: Math.ceil(rect.y + rect.h) - y };
}

/** ":91", "host:91.0" → 91 (or null when the name has no display number). */
function displayNumber(name: string): number | null {
  const m = /:(\d+)(?:\.\d+)?$/.exec(name);
  return m ? Number(m[1]) : null;
}

/**
 * Xvfb's -fbdir file: a live XWD image of the screen. Each read fetches the header and only
 * the rows of the region, into one buffer reused across reads.
 */
class Framebuffer {
  private constructor(
    private readonly fd: number,
    private readonly buf: Buffer,
    private readonly info: XwdInfo,
  ) {}

  /** Opens the file if it is the framebuffer of this display; otherwise says why not. */
  static open(
    file: string,
    displayName: string,
    screen: { w: number; h: number },
  ): Framebuffer | string {
    let fd: number;
    try {
      fd = fs.openSync(file, 'r');
    } catch (err) {
      return `cannot open ${file}: ${(err as Error).message}`;
    }
    try {
      const size = fs.fstatSync(fd).size;
      const buf = Buffer.alloc(size);
      fs.readSync(fd, buf, 0, Math.min(size, 65536), 0);
      const info = native().xwdInfo(buf);
      if (info.byteLength > size) return `${file} is shorter than its XWD header says`;
      const want = displayNumber(displayName);
      const has = /:(\d+)\.(\d+)$/.exec(info.name);
      if (want !== null && has && (Number(has[1]) !== want || has[2] !== '0')) {
        return `${file} is the framebuffer of "${info.name}", not of display ${displayName}`;
      }
      if (info.width !== screen.w || info.height !== screen.h) {
        return `${file} is ${info.width}x${info.height} but the screen is ${screen.w}x${screen.h}`;
      }
      const fb = new Framebuffer(fd, buf, info);
      fd = -1;
      return fb;
    } catch (err) {
      return `${file} is not a usable XWD framebuffer: ${(err as Error).message}`;
    } finally {
      if (fd >= 0) fs.closeSync(fd);
    }
  }

  read(r: Rect): RgbImage {
    const { dataOffset, bytesPerLine, height } = this.info;
    fs.readSync(this.fd, this.buf, 0, dataOffset, 0);
    const y0 = Math.max(0, r.y);
    const y1 = Math.min(height, r.y + r.h);
    if (y1 > y0) {
      const start = dataOffset + y0 * bytesPerLine;
      fs.readSync(this.fd, this.buf, start, (y1 - y0) * bytesPerLine, start);
    }
    // Clips like the X path and throws the same RangeError when nothing is left.
    return native().decodeXwd(this.buf, r.x, r.y, r.w, r.h);
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

/**
 * The displays open in this process. Keys and buttons a display holds are released by its
 * close(); on an exit that closes nothing (process.exit from a signal handler, an uncaught
 * exception, an unhandled rejection) the exit hook releases them, so no key stays down to
 * repeat into another window. Only SIGKILL escapes it: the next process releases those
 * (native/README.md, the held-input journal).
 */
const openDisplays = new Set<NativeDisplay>();
let exitHooked = false;

function releaseAllOnExit(): void {
  for (const dpy of openDisplays) {
    try {
      dpy.releaseHeld();
    } catch {
      // The server went away: nothing is held on it any more.
    }
  }
}

/** What X itself reports down on a display, over a connection that changes nothing. */
export function heldInput(display?: string): { keys: number[]; buttons: number } {
  return native().heldInput(display);
}

/**
 * A property of the display's root window, over a connection of its own: what every
 * process on the X server must agree on, whatever its environment says.
 */
export function openRootProperty(display: string, property: string): RootProperty {
  return new (native().RootProperty)(display, property);
}

export type { RootProperty };

export class X11 {
  private fb: Framebuffer | null = null;
  /** The worker-thread capture connection: opened on first use; null when it cannot be. */
  private capturer?: NativeCapturer | null;
  /** Why the framebuffer fast path is off (null when on, or when none was configured). */
  framebufferProblem: string | null = null;
  private restoreTimer: NodeJS.Timeout | null = null;
  private readonly keymapRestoreMs: number;

  private constructor(
    private readonly dpy: NativeDisplay,
    options: X11Options,
  ) {
    this.keymapRestoreMs = options.keymapRestoreMs ?? 250;
    openDisplays.add(dpy);
    if (!exitHooked) {
      process.on('exit', releaseAllOnExit);
      exitHooked = true;
    }
    const file = options.framebuffer ?? process.env.XVFB_FB;
    if (file) {
      const fb = Framebuffer.open(file, dpy.name, dpy.screenSize());
      if (typeof fb === 'string') this.framebufferProblem = fb;
      else this.fb = fb;
    }
  }

  /**
   * Connects to `display` (default $DISPLAY). Throws when the addon or the server is
   * missing. Opening releases what processes now gone left held (releasedAtOpen).
   */
  static open(display?: string, options: X11Options = {}): X11 {
    return new X11(new (native().Display)(display), options);
  }

  /** Keys and buttons that processes now gone left held, released when this opened. */
  get releasedAtOpen(): number {
    return this.dpy.releasedAtOpen;
  }

  get displayName(): string {
    return this.dpy.name;
  }

  /** False once closed, or once the X server went away. */
  get usable(): boolean {
    return this.dpy.usable;
  }

  /** Whether captures read the framebuffer file. */
  get usesFramebuffer(): boolean {
    return this.fb !== null;
  }

  screenSize(): { w: number; h: number } {
    return this.dpy.screenSize();
  }

  /**
   * RGB pixels of a screen region (whole screen by default), clipped to the screen; a rect
   * entirely outside throws RangeError. `source` forces a path (for tests and benchmarks).
   */
  captureRegion(rect?: Rect, source: 'auto' | CaptureSource = 'auto'): CapturedImage {
    const r = rect ? pixelRect(rect) : { x: 0, y: 0, ...this.screenSize() };
    if (source === 'framebuffer' && !this.fb) {
      throw new Error(
        `no framebuffer file for display ${this.dpy.name}: ${this.framebufferProblem ?? 'none configured (XVFB_FB)'}`,
      );
    }
    // MIT-SHM first where it works: on Xvfb it beats reading the framebuffer file, which
    // also needs the pointer area from the server (bench section 10: 3.1 vs 4.2 ms at best
    // for a 1366x741 window). The file is the fallback when SHM is absent or broken.
    const fbFirst = source === 'framebuffer' || (source === 'auto' && !this.dpy.extensions.shm);
    if (this.fb && fbFirst) {
      try {
        const img = this.fb.read(r);
        this.patchPointer(img);
        return { ...img, channels: 3, source: 'framebuffer' };
      } catch (err) {
        if (err instanceof RangeError || source === 'framebuffer') throw err;
        // The file went away (Xvfb restarted?): use the X server from now on.
        this.framebufferProblem = `reading the framebuffer failed: ${(err as Error).message}`;
        this.fb.close();
        this.fb = null;
      }
    }
    const method = source === 'shm' || source === 'getimage' ? source : 'auto';
    const img = this.dpy.capture(r.x, r.y, r.w, r.h, method);
    const { x, y, width, height, data } = img;
    return { x, y, width, height, data, channels: 3, source: img.method };
  }

  /**
   * As captureRegion (same pixels, same clipping and errors), read off the JS thread: by
   * MIT-SHM (else XGetImage) over a connection of the capture worker's own. Where the
   * framebuffer file is the default path (no working MIT-SHM), or the worker's connection
   * cannot be had, it is captureRegion itself.
   */
  async captureRegionAsync(rect?: Rect): Promise<CapturedImage> {
    const r = rect ? pixelRect(rect) : { x: 0, y: 0, ...this.screenSize() };
    const worker = this.fb && !this.dpy.extensions.shm ? null : this.worker();
    if (!worker) return this.captureRegion(rect);
    const img = await worker.capture(r.x, r.y, r.w, r.h);
    const { x, y, width, height, data } = img;
    return { x, y, width, height, data, channels: 3, source: img.method };
  }

  /**
   * As captureRegionAsync, with the windows the pixels show, read under one server grab
   * (bottom to top, outer frames, the pid of the client inside each window manager's
   * frame). Never from the framebuffer file: the file is read outside the grab. Throws
   * when the worker's connection cannot be had.
   */
  async captureStackedAsync(rect?: Rect): Promise<StackedImage> {
    const r = rect ? pixelRect(rect) : { x: 0, y: 0, ...this.screenSize() };
    const worker = this.worker();
    if (!worker) throw new PlatformError('unsupported', 'no capture connection of its own');
    const img = await worker.captureStacked(r.x, r.y, r.w, r.h);
    const { x, y, width, height, data, windows, earlier } = img;
    return { x, y, width, height, data, channels: 3, source: img.method, windows, earlier };
  }

  /** The capture worker's connection, opened again after the server dropped it. */
  private worker(): NativeCapturer | null {
    if (this.capturer && !this.capturer.usable) {
      this.capturer.close();
      this.capturer = undefined;
    }
    if (this.capturer === undefined) {
      try {
        this.capturer = new (native().Capturer)(this.dpy.name);
      } catch {
        // A second connection refused (a server at its client limit): capture here.
        this.capturer = null;
      }
    }
    return this.capturer;
  }

  /**
   * Xvfb draws its software cursor into the framebuffer, while X captures leave it out.
   * Re-read the area the cursor can cover from the X server so both paths agree (and no
   * screenshot shows a pointer). Cursor images are at most CURSOR_REACH px from the hotspot.
   */
  private patchPointer(img: RgbImage): void {
    const p = this.dpy.pointer();
    const x0 = Math.max(img.x, p.x - CURSOR_REACH);
    const y0 = Math.max(img.y, p.y - CURSOR_REACH);
    const x1 = Math.min(img.x + img.width, p.x + CURSOR_REACH);
    const y1 = Math.min(img.y + img.height, p.y + CURSOR_REACH);
    if (x1 <= x0 || y1 <= y0) return;
    const patch = this.dpy.capture(x0, y0, x1 - x0, y1 - y0);
    const rowBytes = patch.width * 3;
    for (let row = 0; row < patch.height; row++) {
      const src = row * rowBytes;
      const dst = ((patch.y + row - img.y) * img.width + (patch.x - img.x)) * 3;
      patch.data.copy(img.data, dst, src, src + rowBytes);
    }
  }

  /** Moves the pointer without clicking. */
  mouseMove(x: number, y: number): void {
    this.dpy.mouseMove(Math.round(x), Math.round(y));
  }

  /**
   * Moves there and clicks `count` times. Press and release go out back to back (toolkits
   * need no delay); the clicks of a multi-click are MULTI_CLICK_GAP_MS apart, because a
   * second press with the same server timestamp as the first is swallowed by openbox's
   * click-to-focus grab about one time in five (measured), breaking double-clicks.
   */
  async click(
    x: number,
    y: number,
    button: MouseButton | number = 'left',
    count = 1,
  ): Promise<void> {
    const b = typeof button === 'number' ? button : BUTTONS[button];
    if (b === undefined) throw new TypeError(`click: unknown button '${String(button)}'`);
    checkInt(count, 'click: count', 1, 10);
    this.dpy.mouseMove(Math.round(x), Math.round(y));
    for (let i = 0; i < count; i++) {
      if (i > 0) await sleep(MULTI_CLICK_GAP_MS);
      this.dpy.mouseButton(b, true);
      this.dpy.mouseButton(b, false);
    }
  }

  /**
   * As click, sending each click only while a window of an `allowed` process (or of none
   * the server can tell) is on top at the point, checked in the same server grab as the
   * press (pointerGuarded). Resolves to what was on top instead, with how many clicks went
   * before; nothing more is sent then.
   */
  async clickGuarded(
    x: number,
    y: number,
    button: MouseButton,
    count: number,
    allowed: ReadonlySet<number>,
  ): Promise<GuardedResult> {
    const b = BUTTONS[button];
    if (b === undefined) throw new TypeError(`click: unknown button '${String(button)}'`);
    checkInt(count, 'click: count', 1, 10);
    const at = { x: Math.round(x), y: Math.round(y) };
    const result: GuardedResult = {};
    for (let i = 0; i < count; i++) {
      if (i > 0) await sleep(MULTI_CLICK_GAP_MS);
      const r = await this.guarded(at, b, 'click', 1, allowed, at);
      if (!r.sent) return { ...result, refused: { pid: r.pid as number, at, sent: i } };
      if (r.late !== null) result.lateWindowOf ??= r.late;
    }
    return result;
  }

  /** As scroll, guarded as clickGuarded: each direction's steps go in one check. */
  async scrollGuarded(
    x: number,
    y: number,
    dx: number,
    dy: number,
    allowed: ReadonlySet<number>,
  ): Promise<GuardedResult> {
    checkInt(dx, 'scroll: dx', -1000, 1000);
    checkInt(dy, 'scroll: dy', -1000, 1000);
    const at = { x: Math.round(x), y: Math.round(y) };
    const result: GuardedResult = {};
    let sent = 0;
    for (const [button, n] of [
      [dy > 0 ? 5 : 4, Math.abs(dy)],
      [dx > 0 ? 7 : 6, Math.abs(dx)],
    ] as const) {
      if (n === 0) continue;
      const r = await this.guarded(at, button, 'click', n, allowed, at);
      if (!r.sent) return { ...result, refused: { pid: r.pid as number, at, sent } };
      if (r.late !== null) result.lateWindowOf ??= r.late;
      sent += n;
    }
    return result;
  }

  /**
   * As drag, its press and its release guarded as clickGuarded. Refused at the start,
   * nothing is sent; at the end, the button is let go where the drag began (a drop there
   * goes back where it came from), and the refusal says 1 was sent.
   */
  async dragGuarded(
    from: Point,
    to: Point,
    durationMs: number,
    allowed: ReadonlySet<number>,
    signal?: AbortSignal,
  ): Promise<GuardedResult> {
    signal?.throwIfAborted();
    const n = Math.max(5, Math.ceil(durationMs / 16));
    const pause = durationMs > 0 ? durationMs / n : 0;
    const start = { x: Math.round(from.x), y: Math.round(from.y) };
    const end = { x: Math.round(to.x), y: Math.round(to.y) };
    // In the held-input journal first: a process killed mid-drag leaves no button down.
    this.dpy.noteButton(1, true);
    let released = false;
    try {
      const pressed = await this.guarded(start, 1, 'press', 1, allowed, end);
      if (!pressed.sent) {
        released = true;
        return { refused: { pid: pressed.pid as number, at: start, sent: 0 } };
      }
      const late = pressed.late ?? undefined;
      for (let i = 1; i < n; i++) {
        if (pause > 0) await pausing(pause, signal);
        signal?.throwIfAborted();
        const t = i / n;
        this.dpy.mouseMove(
          Math.round(start.x + (end.x - start.x) * t),
          Math.round(start.y + (end.y - start.y) * t),
        );
      }
      if (pause > 0) await pausing(pause, signal);
      signal?.throwIfAborted();
      const dropped = await this.guarded(end, 1, 'release', 1, allowed, start);
      released = true;
      const lateWindowOf = late ?? dropped.late ?? undefined;
      const told = lateWindowOf === undefined ? {} : { lateWindowOf };
      if (!dropped.sent)
        return { ...told, refused: { pid: dropped.pid as number, at: end, sent: 1 } };
      return told;
    } finally {
      if (!released && this.dpy.usable) this.dpy.mouseButton(1, false);
      if (this.dpy.usable) this.dpy.noteButton(1, false);
    }
  }

  private async guarded(
    at: Point,
    button: number,
    phase: 'click' | 'press' | 'release',
    taps: number,
    allowed: ReadonlySet<number>,
    elsewhere: Point,
  ): Promise<{ sent: boolean; pid: number | null; late: number | null }> {
    const worker = this.worker();
    if (!worker) {
      throw new PlatformError(
        'unsupported',
        'no X connection of its own for guarded pointer input',
      );
    }
    return worker.pointerGuarded(
      at.x,
      at.y,
      button,
      phase,
      taps,
      [...allowed],
      elsewhere.x,
      elsewhere.y,
    );
  }

  /**
   * Presses the keys in order and releases them in reverse: modifiers first, the key last
   * (["Control_L", "s"], ["ctrl", "shift", "Tab"]). A shifted key alone ("A", "exclam")
   * gets Shift added. Unknown names throw before anything is pressed.
   */
  pressKey(keys: string[]): void {
    if (!Array.isArray(keys) || keys.length === 0) {
      throw new TypeError('pressKey: give at least one key name');
    }
    this.dpy.keyCombo(keys.map(keysymOf));
    this.scheduleKeymapRestore();
  }

  /**
   * Types text exactly, one key tap per character with the right Shift level; characters
   * missing from the keymap go through temporarily remapped spare keycodes. Control
   * characters other than \n, \r and \t throw before anything is typed.
   */
  async typeText(text: string): Promise<void> {
    let rest = text;
    while (rest.length > 0) {
      const r = this.dpy.typeText(rest);
      if (r.pendingRestore > 0) this.scheduleKeymapRestore();
      rest = rest.slice(r.consumed);
      // All spare keycodes were just used: let clients translate those keys first.
      if (rest.length > 0) await sleep(Math.max(1, Math.ceil(r.retryAfterMs)));
    }
  }

  /**
   * Scroll wheel at (x, y), in wheel clicks: positive dy reveals what is below (button 5),
   * negative dy what is above (4); positive dx what is to the right (7), negative the left (6).
   */
  scroll(x: number, y: number, dx: number, dy: number): void {
    checkInt(dx, 'scroll: dx', -1000, 1000);
    checkInt(dy, 'scroll: dy', -1000, 1000);
    this.dpy.mouseMove(Math.round(x), Math.round(y));
    const tap = (button: number, n: number): void => {
      for (let i = 0; i < n; i++) {
        this.dpy.mouseButton(button, true);
        this.dpy.mouseButton(button, false);
      }
    };
    tap(dy > 0 ? 5 : 4, Math.abs(dy));
    tap(dx > 0 ? 7 : 6, Math.abs(dx));
  }

  /**
   * Left-button drag: press at `from`, move in `steps` even steps spread over
   * `durationMs`, release at `to`. The button is released even if a step fails, and at
   * once, where the pointer is, when `signal` aborts (the promise then rejects).
   */
  async drag(
    from: Point,
    to: Point,
    durationMs = 0,
    steps?: number,
    signal?: AbortSignal,
  ): Promise<void> {
    const n = steps ?? Math.max(5, Math.ceil(durationMs / 16));
    checkInt(n, 'drag: steps', 1, 10_000);
    signal?.throwIfAborted();
    const pause = durationMs > 0 ? durationMs / n : 0;
    this.dpy.mouseMove(Math.round(from.x), Math.round(from.y));
    this.dpy.mouseButton(1, true);
    try {
      for (let i = 1; i <= n; i++) {
        if (pause > 0) await pausing(pause, signal);
        signal?.throwIfAborted();
        const t = i / n;
        this.dpy.mouseMove(
          Math.round(from.x + (to.x - from.x) * t),
          Math.round(from.y + (to.y - from.y) * t),
        );
      }
    } finally {
      if (this.dpy.usable) this.dpy.mouseButton(1, false);
    }
  }

  /**
   * The device a client other than `pid` holds grabbed, if any (a password prompt grabs the
   * keyboard): while it does, every key or click sent goes to that client, whatever window
   * is in front. A grab held while `pid`'s popup (its open menu) is on top is its own.
   * Asked over a connection of its own; the attempt that tells is seen by no client.
   */
  /**
   * What another client may hold grabbed: the device, and whether the topmost window is a
   * popup of `pid` (then the grab may be its own, an open menu's: the caller must tell).
   */
  grabbedInput(
    pid: number,
  ): { device: 'keyboard' | 'pointer'; ownPopupOnTop: boolean } | undefined {
    const grabs = native().inputGrabs(this.dpy.name);
    const device = grabs.keyboard ? 'keyboard' : grabs.pointer ? 'pointer' : undefined;
    return device && { device, ownPopupOnTop: grabs.popupPid === pid };
  }

  pointer(): Point {
    const { x, y } = this.dpy.pointer();
    return { x, y };
  }

  /** The active window and its pid (null without one, or without an EWMH window manager). */
  activeWindow(): ActiveWindow | null {
    return this.dpy.activeWindow();
  }

  /** Top-level client windows, front to back where the window manager says. */
  listWindows(): NativeWindow[] {
    return this.dpy.listWindows();
  }

  /** The same listing without holding the JS thread while X answers. */
  async listWindowsAsync(): Promise<NativeWindow[]> {
    return this.dpy.listWindowsAsync();
  }

  /** The pid of the client owning an X selection; null: none, or not known. */
  selectionOwner(selection: 'CLIPBOARD' | 'PRIMARY'): number | null {
    return this.dpy.selectionOwner(selection);
  }

  /** The viewable override-redirect top-levels (popups, menus, tooltips), front to back. */
  popupWindows(): NativeWindow[] {
    return this.dpy.popupWindows();
  }

  /** Windows of other clients inside these top-levels, each with the one it is in. */
  embeddedWindows(windows: number[]): NativeEmbeddedWindow[] {
    return this.dpy.embeddedWindows(windows);
  }

  windowInfo(window: number): NativeWindow {
    return this.dpy.windowInfo(window);
  }

  /** The running EWMH window manager, or null. */
  windowManager(): { window: number; name: string } | null {
    return this.dpy.windowManager();
  }

  /** Asks a window to close as its close button would (the app may ask to save first). */
  closeWindow(window: number): void {
    this.dpy.closeWindow(window);
  }

  /**
   * Activates a window and waits (polling, up to timeoutMs) until the window manager
   * reports it active. Resolves either way; `active` says which.
   */
  async activate(window: number, timeoutMs = 500): Promise<ActivateResult> {
    const t0 = performance.now();
    const { method } = this.dpy.activateWindow(window);
    const isActive = (): boolean =>
      method === 'ewmh'
        ? this.dpy.activeWindow()?.window === window
        : this.dpy.inputFocus() === window;
    for (;;) {
      const active = isActive();
      const elapsedMs = Math.round((performance.now() - t0) * 10) / 10;
      if (active || elapsedMs >= timeoutMs) return { active, elapsedMs, method };
      await sleep(Math.min(5, timeoutMs - elapsedMs));
    }
  }

  /** Restores remapped keycodes now (close() does too). */
  restoreKeymap(): number {
    if (this.restoreTimer) clearTimeout(this.restoreTimer);
    this.restoreTimer = null;
    return this.dpy.usable ? this.dpy.restoreKeymap() : 0;
  }

  close(): void {
    if (this.restoreTimer) clearTimeout(this.restoreTimer);
    this.restoreTimer = null;
    this.fb?.close();
    this.fb = null;
    this.capturer?.close();
    this.capturer = null;
    // Releases what it holds first.
    this.dpy.close();
    openDisplays.delete(this.dpy);
  }

  private scheduleKeymapRestore(): void {
    if (this.restoreTimer) clearTimeout(this.restoreTimer);
    this.restoreTimer = setTimeout(() => {
      this.restoreTimer = null;
      try {
        if (this.dpy.usable) this.dpy.restoreKeymap();
      } catch {
        // The server went away: nothing left to restore.
      }
    }, this.keymapRestoreMs);
    this.restoreTimer.unref();
  }
}

/** How often the person's presses are read off the input watch's connection (they queue there meanwhile). */
const INPUT_POLL_MS = 25;

/** Modifier keys: held for a combo, never a key press of their own. */
const MODIFIERS: Record<string, string> = {
  Control_L: 'ctrl',
  Control_R: 'ctrl',
  Alt_L: 'alt',
  Alt_R: 'alt',
  Super_L: 'super',
  Super_R: 'super',
  Meta_L: 'alt',
  Meta_R: 'alt',
  Shift_L: 'shift',
  Shift_R: 'shift',
  ISO_Level3_Shift: 'altgr',
};

/** A keysym that makes a character (Latin-1 and Unicode keysyms; not the 0xfexx-0xffxx function keys). */
function typesCharacter(name: string): boolean {
  const value = keysymValue(name);
  return value !== null && (value < 0xfe00 || value >= 0x1000000);
}

/**
 * Calls `onInput` for the person's left clicks and key presses on `display`, from any
 * client (XInput2 raw events). A key is typing when it makes a character with no command
 * modifier held (shift may be); a combo is named as ax_key_press takes it ("ctrl+s").
 */
export function watchX11Input(display: string, onInput: (input: InputEvent) => void): () => void {
  const { InputWatch } = native();
  // An addon built before the input watch existed: rebuilt, it has it.
  if (typeof InputWatch !== 'function') {
    throw new PlatformError(
      'unsupported',
      'the native addon was built without the input watch: rebuild it (npm rebuild @axpage/native)',
    );
  }
  let watch: InstanceType<typeof InputWatch>;
  try {
    watch = new InputWatch(display);
  } catch (err) {
    throw new PlatformError(
      'unsupported',
      `cannot watch input on ${display}: ${(err as Error).message}`,
    );
  }
  const held = new Set<string>();
  const timer = setInterval(() => {
    let presses;
    try {
      presses = watch.read();
    } catch {
      clearInterval(timer);
      return;
    }
    for (const p of presses) {
      if (p.kind === 'button') {
        if (p.button === 1) onInput({ kind: 'click', x: p.x, y: p.y });
        continue;
      }
      if (p.keysym === null) continue;
      const modifier = MODIFIERS[p.keysym];
      if (modifier) {
        if (p.kind === 'key') held.add(modifier);
        else held.delete(modifier);
        continue;
      }
      if (p.kind !== 'key') continue;
      const commands = [...held].filter((m) => m !== 'shift');
      const typing = commands.length === 0 && typesCharacter(p.keysym);
      // Shift held for a character types it (capitals); held for a key that types nothing,
      // it is part of the combo (shift+Tab, ctrl+shift+Tab).
      const mods = held.has('shift') && !typing ? [...commands, 'shift'] : commands;
      onInput({ kind: 'key', key: [...mods, p.keysym].join('+'), typing });
    }
  }, INPUT_POLL_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    watch.close();
  };
}
