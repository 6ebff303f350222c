/**
 * The sway display session: windows as sway's IPC tree has them (sway-tree.ts), pixels
 * through grim (capture.ts), real input through a virtual pointer and keyboard kept alive
 * by axpage-wl-input (input.ts). What sway cannot tell, it does not pretend to:
 * - xdg popups (menus, combo lists, popovers) are not in sway's tree: popupStack() is
 *   empty and there is no popupWindows();
 * - Wayland shows no client another's grab: inputGrab() is undefined and there is no
 *   anyGrab();
 * - no window is drawn inside another's (no embeddedWindows()), no selection owner is
 *   visible to a client (no selectionOwner());
 * - grim captures pixels with no window stack of the same instant (no captureStacked()).
 * Every toolkit reports accessible frames relative to its own window on Wayland
 * (windowRelativeFrames): the desktop places them by the window's content origin here.
 */
import fs from 'node:fs';
import path from 'node:path';

import { PlatformError } from '../../../errors.js';
import type { Rect } from '../../../model/element.js';
import { pollUntil, WaitTimeoutError } from '../../../model/timeout.js';
import type {
  DesktopWindow,
  Frontmost,
  KeyCombo,
  KeyKind,
  MouseButton,
  RawImage,
} from '../../display-session.js';
import { keyKindOf } from '../key-kinds.js';
import { keysymValue } from '../keysyms.js';
import type { InputGrab, LinuxSession, SessionWindow } from '../session.js';
import { captureWayland } from './capture.js';
import { helperProblem, WaylandInput } from './input.js';
import { SwayIpc } from './sway-ipc.js';
import { windowsFromTree, type SwayWindow } from './sway-tree.js';

/** Bound on sway focusing a window and settling its layout (a loaded machine: hundreds of ms). */
const ACTIVATE_TIMEOUT_MS = 1500;

/** Linux input event codes of the buttons (linux/input-event-codes.h). */
const BUTTONS: Record<MouseButton, number> = { left: 0x110, right: 0x111, middle: 0x112 };

/** The XKB real modifier bits the helper's keymap gives each modifier. */
const MODIFIER_BITS: Record<KeyCombo['modifiers'][number], number> = {
  shift: 1,
  ctrl: 4,
  alt: 8,
  opt: 8,
  super: 64,
  cmd: 64,
};

/** Moves of a drag per second of its duration: smooth enough for toolkits' drag thresholds. */
const DRAG_MOVES_PER_S = 60;

const onPath = (program: string, env: NodeJS.ProcessEnv): boolean =>
  (env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => dir !== '' && fs.existsSync(path.join(dir, program)));

/** The part of `a` inside `b`; null when none is. */
function clip(a: Rect, b: Rect): Rect | null {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const w = Math.min(a.x + a.w, b.x + b.w) - x;
  const h = Math.min(a.y + a.h, b.y + b.h) - y;
  return w > 0 && h > 0 ? { x, y, w, h } : null;
}

/** The windows sway lists, as the session's windows: the content rect, shown or not. */
export function sessionWindows(windows: readonly SwayWindow[]): SessionWindow[] {
  return windows.map((w) => ({
    window: w.id,
    pid: w.pid,
    title: w.title,
    ...w.rect,
    mapped: w.visible,
    wmClass: w.appId,
    wmInstance: null,
  }));
}

/** The shown windows sway lists, as the desktop lists them (of one pid, when given). */
export function desktopWindows(windows: readonly SwayWindow[], pid?: number): DesktopWindow[] {
  return windows
    .filter((w) => w.visible && (pid === undefined || w.pid === pid))
    .map((w) => ({
      id: w.id,
      pid: w.pid,
      title: w.title,
      frame: w.rect,
      outer: w.frame,
      active: w.focused,
    }));
}

/**
 * The windows of `pid` to ask to close. sway floats a window with a parent (a dialog):
 * asking a dialog to close answers it as Cancel, and it goes with its main window anyway.
 * So when the process has a tiled window, only its tiled windows are asked; when all are
 * floating, there is no telling dialogs from main windows and all are asked.
 */
export function windowsToClose(windows: readonly SwayWindow[], pid: number): SwayWindow[] {
  const own = windows.filter((w) => w.pid === pid && w.workspace !== '__i3_scratch');
  const tiled = own.filter((w) => !w.floating);
  return tiled.length > 0 ? tiled : own;
}

/** The bounding box of the active outputs: the layout grim and absolute motion address. */
export function layoutBox(
  outputs: readonly {
    active: boolean;
    rect: { x: number; y: number; width: number; height: number };
  }[],
): Rect {
  const active = outputs.filter((o) => o.active);
  if (active.length === 0) {
    throw new PlatformError('no_display', 'sway has no active output: nothing is shown');
  }
  const x = Math.min(...active.map((o) => o.rect.x));
  const y = Math.min(...active.map((o) => o.rect.y));
  const r = Math.max(...active.map((o) => o.rect.x + o.rect.width));
  const b = Math.max(...active.map((o) => o.rect.y + o.rect.height));
  return { x, y, w: r - x, h: b - y };
}

export class SwaySession implements LinuxSession {
  /** Real input goes through a wlroots virtual pointer and virtual keyboard. */
  readonly inputRoute = 'wlr-virtual-input';
  /** Every toolkit's accessible frames are relative to its window's content on Wayland. */
  readonly windowRelativeFrames = true;
  private ipcConn?: Promise<SwayIpc>;
  private readonly input: WaylandInput;

  constructor(private readonly env: NodeJS.ProcessEnv) {
    this.input = new WaylandInput(env, async () => {
      const box = await this.layoutNow();
      return { w: box.x + box.w, h: box.y + box.h };
    });
  }

  /** Creates the input devices ahead of the first action (see WaylandInput.warm). */
  prepare(): void {
    this.input.warm();
  }

  /** One IPC connection, opened on first use and again after it broke. */
  private async ipc(): Promise<SwayIpc> {
    const conn = (this.ipcConn ??= SwayIpc.connect(this.env.SWAYSOCK));
    try {
      const ipc = await conn;
      if (!ipc.isClosed) return ipc;
    } catch (err) {
      if (this.ipcConn === conn) this.ipcConn = undefined;
      throw err;
    }
    if (this.ipcConn === conn) this.ipcConn = undefined;
    return this.ipc();
  }

  private async windows(): Promise<SwayWindow[]> {
    const tree = await (await this.ipc()).getTree();
    try {
      return windowsFromTree(tree);
    } catch (err) {
      throw new PlatformError('failed', (err as Error).message);
    }
  }

  private async layoutNow(): Promise<Rect> {
    return layoutBox(await (await this.ipc()).getOutputs());
  }

  problem(): PlatformError | undefined {
    if (!this.env.SWAYSOCK) {
      return new PlatformError(
        'no_display',
        'SWAYSOCK is not set: windows, focus and input on Wayland need sway’s IPC socket',
      );
    }
    if (!fs.existsSync(this.env.SWAYSOCK)) {
      return new PlatformError(
        'no_display',
        `sway’s IPC socket ${this.env.SWAYSOCK} does not exist (sway is not running, or SWAYSOCK names an old session)`,
        { swaysock: this.env.SWAYSOCK },
      );
    }
    if (!this.env.WAYLAND_DISPLAY) {
      return new PlatformError(
        'no_display',
        'WAYLAND_DISPLAY is not set: no compositor to show or capture',
      );
    }
    if (!onPath('grim', this.env)) {
      return new PlatformError(
        'unsupported',
        'grim is not installed: screenshots on sway need it (Debian/Ubuntu package grim)',
      );
    }
    return helperProblem();
  }

  async facts(): Promise<Record<string, string | number | boolean>> {
    try {
      const ipc = await this.ipc();
      const [version, outputs] = await Promise.all([ipc.getVersion(), ipc.getOutputs()]);
      const active = outputs.filter((o) => o.active);
      return {
        display: this.env.WAYLAND_DISPLAY ?? '',
        compositor: `sway ${version.human_readable}`,
        outputs: active
          .map((o) => `${o.name} ${o.rect.width}x${o.rect.height}+${o.rect.x}+${o.rect.y}`)
          .join(', '),
      };
    } catch (err) {
      return { display: `unavailable: ${(err as Error).message}` };
    }
  }

  async frontmost(): Promise<Frontmost | null> {
    const front = (await this.windows()).find((w) => w.focused);
    return front ? { pid: front.pid, windowTitle: front.title, windowFrame: front.rect } : null;
  }

  async listWindows(pid?: number): Promise<DesktopWindow[]> {
    return desktopWindows(await this.windows(), pid);
  }

  async windowStack(): Promise<SessionWindow[]> {
    return sessionWindows(await this.windows());
  }

  /** xdg popups are not in sway's tree: there is nothing to list. */
  popupStack(): SessionWindow[] {
    return [];
  }

  /** No Wayland client can see another's grab. */
  inputGrab(): InputGrab | undefined {
    return undefined;
  }

  async screenSize(): Promise<{ w: number; h: number }> {
    const box = await this.layoutNow();
    return { w: box.x + box.w, h: box.y + box.h };
  }

  async capture(rect?: Rect): Promise<RawImage> {
    const layout = await this.layoutNow();
    // As on X11, a region is clipped to the screen: grim would pad it with black.
    const region = rect ? clip(rect, layout) : undefined;
    if (rect && !region) {
      throw new PlatformError(
        'failed',
        `the region ${rect.w}x${rect.h}+${rect.x}+${rect.y} is off the screen`,
      );
    }
    return captureWayland(region ?? undefined, { env: this.env });
  }

  async activate(pid: number): Promise<() => Promise<void>> {
    const windows = await this.windows();
    // Front to back: the first of the app's shown windows is the one in front (its dialog).
    const target =
      windows.find((w) => w.pid === pid && w.visible) ?? windows.find((w) => w.pid === pid);
    if (!target) {
      throw new PlatformError('no_window', `pid ${pid} has no window in sway’s tree to focus`, {
        pid,
      });
    }
    const previous = windows.find((w) => w.focused);
    const ipc = await this.ipc();
    if (previous?.id !== target.id) await ipc.runCommand(`[con_id=${target.id}] focus`);
    // Focus is at once; the layout (a floating window raised, a tab shown) settles a moment
    // later, and input sent before lands where the old layout had it.
    await pollUntil(
      async () => {
        const now = (await this.windows()).find((w) => w.id === target.id);
        return now?.focused && now.visible && now.settled ? true : null;
      },
      { timeoutMs: ACTIVATE_TIMEOUT_MS, intervalMs: 5, what: `sway focusing "${target.title}"` },
    ).catch((err: unknown) => {
      // A failed IPC call says so itself; only the wait running out is sway's doing.
      if (!(err instanceof WaitTimeoutError)) throw err;
      throw new PlatformError(
        'no_window_manager',
        `sway did not focus "${target.title}" within ${ACTIVATE_TIMEOUT_MS} ms`,
        { pid },
      );
    });
    return async () => {
      if (!previous || previous.id === target.id) return;
      await ipc.runCommand(`[con_id=${previous.id}] focus`).catch(() => undefined);
    };
  }

  async closeWindows(pid: number): Promise<number> {
    const windows = windowsToClose(await this.windows(), pid);
    if (windows.length === 0) return 0;
    // sway's kill asks the client to close (xdg_toplevel.close), as a close button does.
    await (await this.ipc()).runCommand(windows.map((w) => `[con_id=${w.id}] kill`).join('; '));
    return windows.length;
  }

  /** Rounds and checks a point: absolute motion addresses the layout in whole pixels. */
  private point(x: number, y: number): string {
    if (!Number.isFinite(x) || !Number.isFinite(y)) {
      throw new PlatformError('failed', `not a point on the screen: ${x}, ${y}`);
    }
    return `${Math.round(x)} ${Math.round(y)}`;
  }

  async click(x: number, y: number, button: MouseButton, count: number): Promise<void> {
    const at = this.point(x, y);
    if (!Number.isInteger(count) || count < 1 || count > 3) {
      throw new PlatformError('failed', `a click is 1 to 3 presses, not ${count}`);
    }
    await this.input.run(`click ${at} ${BUTTONS[button]} ${count}`);
  }

  async scroll(x: number, y: number, dx: number, dy: number): Promise<void> {
    const at = this.point(x, y);
    await this.input.run(`wheel ${at} ${Math.round(dx)} ${Math.round(dy)}`);
  }

  async drag(
    from: { x: number; y: number },
    to: { x: number; y: number },
    durationMs: number,
  ): Promise<void> {
    const start = this.point(from.x, from.y);
    this.point(to.x, to.y);
    await this.input.run(`move ${start}`);
    await this.input.run(`button ${BUTTONS.left} 1`);
    try {
      const moves = Math.max(2, Math.round((Math.max(0, durationMs) / 1000) * DRAG_MOVES_PER_S));
      const t0 = performance.now();
      for (let i = 1; i <= moves; i++) {
        const f = i / moves;
        await this.input.run(
          `move ${this.point(from.x + (to.x - from.x) * f, from.y + (to.y - from.y) * f)}`,
        );
        // Spread over the duration: a drag is a motion over time, which toolkits track.
        const due = t0 + durationMs * f;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    } finally {
      await this.input.run(`button ${BUTTONS.left} 0`);
    }
  }

  async pressKey(combo: KeyCombo): Promise<void> {
    const sym = keysymValue(combo.key);
    if (sym === null) {
      throw new PlatformError('bad_key', `unknown key name '${combo.key}'`, { key: combo.key });
    }
    const mods = combo.modifiers.reduce((m, k) => m | MODIFIER_BITS[k], 0);
    try {
      await this.input.run(`key 0x${sym.toString(16)} ${mods}`);
    } catch (err) {
      if (err instanceof PlatformError && err.code === 'bad_key') {
        throw new PlatformError('bad_key', `cannot press '${combo.key}': ${err.message}`, {
          key: combo.key,
        });
      }
      throw err;
    }
  }

  knowsKey(key: string): boolean {
    return keysymValue(key) !== null;
  }

  keyKind(key: string): KeyKind {
    return keyKindOf(key);
  }

  async typeText(text: string): Promise<void> {
    if (text === '') return;
    await this.input.run(`type ${Buffer.from(text, 'utf8').toString('hex')}`);
  }

  close(): void {
    this.input.close();
    const conn = this.ipcConn;
    this.ipcConn = undefined;
    void conn?.then((ipc) => ipc.close()).catch(() => undefined);
  }
}
