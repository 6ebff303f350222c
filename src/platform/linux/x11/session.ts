/**
 * The X11 display session: windows as X and the EWMH window manager see them, XTest
 * input, pixels, selections and grabs, over one connection of the native addon (x11.ts),
 * opened on first use.
 */
import type { Rect } from '../../../model/element.js';
import { PlatformError } from '../../../errors.js';
import type {
  DesktopWindow,
  EmbeddedWindow,
  Frontmost,
  GuardedPointer,
  InputEvent,
  KeyCombo,
  KeyKind,
  MouseButton,
  RawImage,
  StackedCapture,
  UnlistedWindow,
} from '../../display-session.js';
import type { InputGrab, LinuxSession, SessionWindow } from '../session.js';
import { keyKindOf } from '../key-kinds.js';
import { keysymOf, nativeAddonProblem, watchX11Input, withDecorations, X11 } from '../x11.js';

/** Bound on the window manager fronting a window (a loaded machine takes hundreds of ms). */
const ACTIVATE_TIMEOUT_MS = 1500;

const MODIFIER_KEYSYMS: Record<KeyCombo['modifiers'][number], string> = {
  ctrl: 'Control_L',
  shift: 'Shift_L',
  alt: 'Alt_L',
  opt: 'Alt_L',
  super: 'Super_L',
  cmd: 'Super_L',
};

export class X11Session implements LinuxSession {
  /** Real input goes through the XTest extension. */
  readonly inputRoute = 'xtest';
  private x11?: X11;
  private x11Error?: Error;

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** The X11 connection, opened on first use; a clear error without a display. */
  private display(): X11 {
    if (this.x11) return this.x11;
    if (this.x11Error) throw this.x11Error;
    if (!this.env.DISPLAY) {
      throw new PlatformError(
        'no_display',
        'DISPLAY is not set: screenshots and input need the X server',
      );
    }
    try {
      this.x11 = X11.open(this.env.DISPLAY, { framebuffer: this.env.XVFB_FB ?? false });
      return this.x11;
    } catch (err) {
      // A missing addon is not a display problem: its own error names what to install.
      if (err instanceof PlatformError) throw err;
      this.x11Error = new PlatformError(
        'no_display',
        `cannot open X display ${this.env.DISPLAY}: ${(err as Error).message}`,
        { display: this.env.DISPLAY },
      );
      throw this.x11Error;
    }
  }

  problem(): PlatformError | undefined {
    return nativeAddonProblem();
  }

  /** X lets any client see every press through XInput2 raw events (a connection of its own). */
  async watchInput(onInput: (input: InputEvent) => void): Promise<() => Promise<void>> {
    this.display();
    const stop = watchX11Input(this.env.DISPLAY!, onInput);
    return async () => stop();
  }

  facts(): Record<string, string | number | boolean> {
    try {
      const x = this.display();
      const wm = x.windowManager();
      return {
        display: this.env.DISPLAY ?? '',
        window_manager: wm ? wm.name : 'none (focus and frontmost detection need one)',
      };
    } catch (err) {
      return { display: `unavailable: ${(err as Error).message}` };
    }
  }

  /** The window manager's _NET_ACTIVE_WINDOW; null without one (or without its pid). */
  async frontmost(): Promise<Frontmost | null> {
    const x = this.display();
    const active = x.activeWindow();
    if (!active?.pid) return null;
    const info = x.windowInfo(active.window);
    return {
      pid: active.pid,
      windowTitle: info.title,
      windowFrame: { x: info.x, y: info.y, w: info.w, h: info.h },
    };
  }

  async listWindows(pid?: number): Promise<DesktopWindow[]> {
    const x = this.display();
    const active = x.activeWindow()?.window;
    return (await x.listWindowsAsync())
      .filter((w) => w.mapped && w.pid !== null && (pid === undefined || w.pid === pid))
      .map((w) => ({
        id: w.window,
        pid: w.pid as number,
        title: w.title,
        frame: { x: w.x, y: w.y, w: w.w, h: w.h },
        ...(w.frameExtents ? { outer: withDecorations(w, w.frameExtents) } : {}),
        active: w.window === active,
      }));
  }

  /** X's answers are waited for off the JS thread, which meanwhile goes on (with a walk). */
  async windowStack(): Promise<SessionWindow[]> {
    const x = this.display();
    const windows = await x.listWindowsAsync();
    const active = x.activeWindow()?.window;
    return windows.map((w) => ({ ...w, active: w.window === active }));
  }

  popupStack(): SessionWindow[] {
    return this.display().popupWindows();
  }

  async embeddedWindows(hosts: readonly DesktopWindow[]): Promise<EmbeddedWindow[]> {
    const tops = hosts.flatMap((h) => (h.id === undefined ? [] : [h.id]));
    if (tops.length === 0) return [];
    const frames = new Map(hosts.map((h) => [h.id, h.frame]));
    return this.display()
      .embeddedWindows(tops)
      .flatMap((w) => {
        // X clips a child to its parent's area: what shows of it is inside its host.
        const frame = clip({ x: w.x, y: w.y, w: w.w, h: w.h }, frames.get(w.host)!);
        return w.mapped && frame ? [{ id: w.window, pid: w.pid, frame, host: w.host }] : [];
      });
  }

  async selectionOwner(selection: 'clipboard' | 'primary'): Promise<number | null> {
    return this.display().selectionOwner(selection === 'clipboard' ? 'CLIPBOARD' : 'PRIMARY');
  }

  async popupWindows(): Promise<UnlistedWindow[]> {
    return this.display()
      .popupWindows()
      .map((w) => ({ id: w.window, pid: w.pid, frame: { x: w.x, y: w.y, w: w.w, h: w.h } }));
  }

  async screenSize(): Promise<{ w: number; h: number }> {
    return this.display().screenSize();
  }

  async capture(rect?: Rect): Promise<RawImage> {
    // Read on a worker thread: the walk a tool call starts meanwhile goes on.
    const img = await this.display().captureRegionAsync(rect);
    return { width: img.width, height: img.height, channels: img.channels, data: img.data };
  }

  async captureStacked(rect?: Rect): Promise<StackedCapture> {
    const img = await this.display().captureStackedAsync(rect);
    return {
      image: { width: img.width, height: img.height, channels: img.channels, data: img.data },
      origin: { x: img.x, y: img.y },
      windows: img.windows.map(({ pid, x, y, w, h }) => ({ pid, frame: { x, y, w, h } })),
      earlier: img.earlier.map(({ pid, x, y, w, h }) => ({ pid, frame: { x, y, w, h } })),
    };
  }

  guardedPointer(allowed: ReadonlySet<number>): GuardedPointer {
    return {
      click: (x, y, button, count) => this.display().clickGuarded(x, y, button, count, allowed),
      scroll: (x, y, dx, dy) => this.display().scrollGuarded(x, y, dx, dy, allowed),
      drag: (from, to, durationMs, signal) =>
        this.display().dragGuarded(from, to, durationMs, allowed, signal),
    };
  }

  async closeWindows(pid: number): Promise<number> {
    const x = this.display();
    // Dialogs and other transients go with their main window; asking them too would
    // answer a "Save changes?" dialog's close as Cancel.
    const windows = x
      .listWindows()
      .filter((w) => w.mapped && w.pid === pid && w.transientFor === null);
    for (const w of windows) x.closeWindow(w.window);
    return windows.length;
  }

  async activate(pid: number): Promise<() => Promise<void>> {
    const x = this.display();
    const previous = x.activeWindow();
    const windows = x.listWindows().filter((w) => w.mapped && w.pid === pid);
    if (windows.length === 0) {
      throw new PlatformError(
        'no_window',
        `pid ${pid} has no mapped window to bring to the front`,
        {
          pid,
        },
      );
    }
    // Front to back: the first of the app's windows is the one in front (its dialog, if any).
    const target = windows[0];
    if (previous?.window !== target.window) {
      const result = await x.activate(target.window, ACTIVATE_TIMEOUT_MS);
      if (!result.active) {
        const wm = x.windowManager();
        throw new PlatformError(
          'no_window_manager',
          wm
            ? `the window manager (${wm.name}) did not activate "${target.title}" within ${result.elapsedMs} ms`
            : `no window manager activated "${target.title}" within ${result.elapsedMs} ms (none is running)`,
          { pid },
        );
      }
    }
    await this.waitOnTop(x, target.window);
    return async () => {
      if (previous && previous.window !== target.window) {
        await x.activate(previous.window).catch(() => undefined);
      }
    };
  }

  /**
   * Active is not yet on top: the window manager raises the window a moment later, and a
   * click sent before that lands on the window that was in front. Bounded wait.
   */
  private async waitOnTop(x: X11, window: number, timeoutMs = ACTIVATE_TIMEOUT_MS): Promise<void> {
    const start = Date.now();
    while (Date.now() - start < timeoutMs) {
      const top = x.listWindows().find((w) => w.mapped && !w.overrideRedirect);
      if (top?.window === window) return;
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  inputGrab(pid: number): InputGrab | undefined {
    return this.display().grabbedInput(pid);
  }

  async anyGrab(): Promise<'keyboard' | 'pointer' | undefined> {
    return this.display().grabbedInput(-1)?.device;
  }

  async click(x: number, y: number, button: MouseButton, count: number): Promise<void> {
    await this.display().click(x, y, button, count);
  }

  async pressKey(combo: KeyCombo): Promise<void> {
    const keys = [...combo.modifiers.map((m) => MODIFIER_KEYSYMS[m]), combo.key];
    try {
      this.display().pressKey(keys);
    } catch (err) {
      if (err instanceof PlatformError) throw err;
      throw new PlatformError('bad_key', `cannot press '${combo.key}': ${(err as Error).message}`, {
        key: combo.key,
      });
    }
  }

  knowsKey(key: string): boolean {
    try {
      keysymOf(key);
      return true;
    } catch {
      return false;
    }
  }

  keyKind(key: string): KeyKind {
    return keyKindOf(key);
  }

  async typeText(text: string): Promise<void> {
    await this.display().typeText(text);
  }

  async scroll(x: number, y: number, dx: number, dy: number): Promise<void> {
    this.display().scroll(x, y, dx, dy);
  }

  async drag(
    from: { x: number; y: number },
    to: { x: number; y: number },
    durationMs: number,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.display().drag(from, to, durationMs, undefined, signal);
  }

  close(): void {
    this.x11?.close();
  }
}

/** The part of `a` inside `b`; null when none is. */
function clip(a: Rect, b: Rect): Rect | null {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const w = Math.min(a.x + a.w, b.x + b.w) - x;
  const h = Math.min(a.y + a.h, b.y + b.h) - y;
  return w > 0 && h > 0 ? { x, y, w, h } : null;
}
