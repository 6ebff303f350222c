/** The headless Linux desktop: bring-up, app launching, state, teardown. */
export {
  DEFAULT_SIZE,
  DesktopError,
  FIRST_AUTO_DISPLAY,
  HeadlessDesktop,
  INSTALL_SCRIPT,
  UNSET_VARS,
  clientEnv,
  displayInUse,
  findDesktop,
  formatExports,
  listDesktops,
  startDesktop,
} from './headless.js';
export type { DesktopErrorCode, DesktopHealth, StartOptions } from './headless.js';
export { AppOutput, LaunchError, findRegisteredApp, hasShowingWindow, launchApp } from './apps.js';
export type { LaunchContext, LaunchedApp, LaunchOptions, WaitFor } from './apps.js';
export type { RecordedPid, StopReport } from './procs.js';
export type { DesktopState } from './state.js';
