/**
 * What the Linux backend needs of a display session: the platform's DisplaySession, and
 * the few things its accessibility half asks the window system for. AT-SPI trees do not
 * always say where their windows are (GTK4 reports frames relative to its window, and so
 * does every toolkit on Wayland), nor give a title to every window; and the secure-field
 * scan must know every window on a region, accessible or not. X11 implements it
 * (x11/session.ts), and sway (wayland/session.ts).
 */
import type { PlatformError } from '../../errors.js';
import type { DisplaySession } from '../display-session.js';

/** A top-level window as the session knows it: where it is, whose, and what it says it is. */
export interface SessionWindow {
  /** The window system's id of the window, where it has one (DesktopWindow.id). */
  window?: number;
  /** Its process; null when the window system cannot say. */
  pid: number | null;
  title: string;
  /** The client area (the app's own pixels), in screen coordinates. */
  x: number;
  y: number;
  w: number;
  h: number;
  /** Shown on screen (itself and what holds it). */
  mapped: boolean;
  /** The window system's active window; unset when the session does not say. */
  active?: boolean;
  /** The window it is transient for (X11: WM_TRANSIENT_FOR), null for none. */
  transientFor?: number | null;
  /** What kind of window it says it is (X11: _NET_WM_WINDOW_TYPE less the prefix: "dialog"). */
  type?: string;
  /** What the window says it is (X11: WM_CLASS), for telling a password prompt. */
  wmClass?: string | null;
  wmInstance?: string | null;
}

/** A grab another client holds on an input device. */
export interface InputGrab {
  device: 'keyboard' | 'pointer';
  /**
   * The topmost window is a popup of the app asked about: the grab may be its own (an open
   * menu's), which only its tree can tell.
   */
  ownPopupOnTop: boolean;
}

export interface LinuxSession extends DisplaySession {
  /** What keeps the session from working at all (a missing native part), or undefined. */
  problem(): PlatformError | undefined;
  /**
   * Facts for the access report (which display, which window manager); `display` says
   * why not when the session cannot be reached. Never throws (nor rejects).
   */
  facts():
    Record<string, string | number | boolean> | Promise<Record<string, string | number | boolean>>;
  /**
   * Every toolkit reports accessible frames relative to its own window (Wayland): the
   * desktop places every app's frames by its windows (windowStack), not only GTK4's.
   * A window larger than its box on screen is clipped there at its top-left (a tile),
   * one smaller is centred in it, as the compositor draws them.
   */
  readonly windowRelativeFrames?: boolean;
  /**
   * Every managed top-level window, mapped or not, with or without a process, front to
   * back where known. Throws when the window system cannot be asked.
   */
  windowStack(): Promise<SessionWindow[]>;
  /**
   * The unmanaged windows shown now (popups, menus, tooltips), front to back, read at once:
   * placing a GTK4 popover asks for them in the middle of placing its tree.
   */
  popupStack(): SessionWindow[];
  /** Starts what input needs ahead of the first action (the desktop calls it once open). */
  prepare?(): void;
  /** The grab a client other than `pid` holds now, if any. */
  inputGrab(pid: number): InputGrab | undefined;
  close(): void;
}
