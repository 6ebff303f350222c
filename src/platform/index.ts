/** Picks the backend for this platform; loaded lazily so the server starts fast. */
import { PlatformError } from '../errors.js';
import type { Clipboard, Desktop, SecretFieldStore } from './desktop.js';
import { ancestorsOf, executableOf as linuxExecutableOf } from './linux/proc.js';
import { ProgramIdentity as LinuxProgramIdentity } from './linux/program-identity.js';
import { secretFieldProperty } from './linux/secret-field-property.js';
import { LINUX_TRAITS } from './linux/traits.js';
import { EMPTY_VOCABULARY, type NativeVocabulary } from '../model/vocabulary.js';

/**
 * The Linux session `env` names: sway when it has sway's IPC socket and a Wayland display
 * and no X display, else X11 (linux/index.ts opens the same one).
 */
function swaySession(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.SWAYSOCK && env.WAYLAND_DISPLAY && !env.DISPLAY);
}

export async function openDesktop(env: NodeJS.ProcessEnv = process.env): Promise<Desktop> {
  if (process.platform === 'linux') {
    const { LinuxDesktop } = await import('./linux/index.js');
    return LinuxDesktop.open(env);
  }
  throw new PlatformError(
    'unsupported',
    `axpage has no backend for ${process.platform} yet: Linux (AT-SPI2 + X11 or sway) works today; the macOS backend is planned`,
  );
}

/**
 * What this platform's backend names mean (its Desktop.traits.vocabulary), known without
 * opening it: the server installs it before the first call. A platform without a backend
 * has the model's names only.
 */
export function platformVocabulary(): NativeVocabulary {
  return process.platform === 'linux' ? LINUX_TRAITS.vocabulary : EMPTY_VOCABULARY;
}

/**
 * What keeps this platform's backend from working at all (a missing or broken native
 * addon), checked at server start so the log says it before the first call fails.
 */
export async function platformProblem(
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  if (swaySession(env)) {
    const { SwaySession } = await import('./linux/wayland/session.js');
    const session = new SwaySession(env);
    try {
      return session.problem()?.message;
    } finally {
      session.close();
    }
  }
  const { nativeAddonProblem } = await import('./linux/x11.js');
  return nativeAddonProblem()?.message;
}

/**
 * Fills the desktop-session variables the client left out of `env` (a client started from a
 * desktop launcher passes a bare environment), from the session this server was started in;
 * says which it took and from where, or undefined when none were missing or found.
 */
export async function fillSessionEnvironment(
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  const { describeSessionEnv, fillSessionEnv } = await import('./linux/session-env.js');
  const source = fillSessionEnv(env);
  return source && describeSessionEnv(source);
}

/** The desktop's text clipboard for this platform. */
export async function openClipboard(env: NodeJS.ProcessEnv = process.env): Promise<Clipboard> {
  if (process.platform === 'linux' && swaySession(env)) {
    const { WlClipboard } = await import('./linux/wayland/clipboard.js');
    return new WlClipboard(env);
  }
  if (process.platform === 'linux') {
    const { XclipClipboard } = await import('./linux/clipboard.js');
    return new XclipClipboard(env);
  }
  throw new PlatformError('unsupported', `axpage has no clipboard for ${process.platform} yet`);
}

/**
 * Where the memory of password fields outlives the server, shared by every server on the
 * desktop of `env` (Linux: its X display). Nothing is opened until it is used. None on
 * sway: it lives in a property of the X root window, which Wayland has no equivalent of;
 * each server remembers for itself.
 */
export function secretFieldStore(
  env: NodeJS.ProcessEnv = process.env,
): SecretFieldStore | undefined {
  if (process.platform !== 'linux' || swaySession(env)) return undefined;
  return secretFieldProperty(env);
}

/** What files and processes are by identity (for the deny list), where the platform can tell. */
export function programIdentity(): LinuxProgramIdentity | undefined {
  return process.platform === 'linux' ? new LinuxProgramIdentity() : undefined;
}

/** A process's real executable file (for the deny list), or undefined when unknown. */
export function executableOf(pid: number): string | undefined {
  return process.platform === 'linux' ? linuxExecutableOf(pid) : undefined;
}

/**
 * The processes `pid` descends from while they run (parents up to init, then its session's
 * leader), stopping at `below` (for the deny list: a denied app's children are its own).
 */
export function processAncestors(pid: number, below?: number): number[] {
  return process.platform === 'linux' ? ancestorsOf(pid, below) : [];
}

/**
 * The desktop `env` names (Linux: its X display, or on sway its Wayland display), or
 * undefined when it names none.
 */
export function desktopName(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (process.platform !== 'linux') return undefined;
  return (swaySession(env) ? env.WAYLAND_DISPLAY : env.DISPLAY) || undefined;
}

/**
 * Releases keys and buttons that axpage processes now gone (killed mid-typing) left held
 * on the display, which X would otherwise auto-repeat into the focused window for good.
 * Returns how many; throws when the display cannot be reached.
 */
export async function releaseStrayInput(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // On Wayland a virtual keyboard's held keys go when its client does: nothing stays held.
  if (process.platform !== 'linux' || swaySession(env)) return 0;
  const { X11 } = await import('./linux/x11.js');
  const x = X11.open(env.DISPLAY, { framebuffer: false });
  try {
    return x.releasedAtOpen;
  } finally {
    x.close();
  }
}
