/**
 * A backend's PlatformError as the agent reads it: the backend's facts as the message,
 * and the next step, which may name axpage's tools and commands (the backend never does).
 */
import type { AccessReport } from '../platform/desktop.js';
import { AxError, PlatformError, type ErrorCode, type PlatformErrorCode } from '../errors.js';

const HEADLESS =
  'start a headless one with `axpage desktop up` and export what it prints (or `axpage desktop env` for one that is up)';

interface Advice {
  code: ErrorCode;
  hint?: (facts: PlatformError['facts']) => string | undefined;
}

const ADVICE: Record<PlatformErrorCode, Advice> = {
  app_gone: {
    code: 'app_gone',
    hint: () =>
      'It has exited or closed its accessibility connection: call ax_list_apps for what runs now',
  },
  not_responding: {
    code: 'app_not_responding',
    hint: () => 'The app may be busy or hung: wait for it (ax_wait_idle) and try again',
  },
  element_gone: {
    code: 'element_gone',
    hint: () => 'Take a fresh tree (ax_get_tree) and use its refs, or target it by query',
  },
  no_display: {
    code: 'no_desktop',
    hint: (f) =>
      f.display === undefined
        ? 'Export DISPLAY of the desktop the apps run on (`axpage desktop env` prints it)'
        : 'Check that the X server is running and DISPLAY is right',
  },
  no_bus: {
    code: 'no_desktop',
    hint: (f) =>
      f.address === undefined
        ? `Run axpage inside a desktop session with accessibility on (DISPLAY and DBUS_SESSION_BUS_ADDRESS set), or ${HEADLESS}`
        : 'Check that at-spi-bus-launcher is running in this session (or restart it with `axpage desktop down` / `up`)',
  },
  no_registry: {
    code: 'no_desktop',
    hint: () => 'Start at-spi2-registryd in this session (`axpage desktop up` does)',
  },
  no_window_manager: {
    code: 'action_failed',
    hint: () =>
      'Is a window manager running? Focus and input need one (`axpage desktop up` starts openbox); a background action (delivery_mode: "background") needs none',
  },
  no_window: {
    code: 'action_failed',
    hint: () =>
      'Use a background action (delivery_mode: "background"), or check the app is showing a window (ax_list_windows)',
  },
  bad_key: {
    code: 'bad_argument',
    hint: () =>
      'Use a key name like Return, Escape, Tab, BackSpace, Up, Page_Down, F5, or a single character',
  },
  unsupported: { code: 'unsupported' },
  failed: { code: 'action_failed' },
};

/** The user-facing error for a PlatformError; anything else passes through unchanged. */
export function toUserError(err: unknown): unknown {
  if (!(err instanceof PlatformError)) return err;
  const advice = ADVICE[err.code];
  const details = Object.keys(err.facts).length > 0 ? { ...err.facts } : undefined;
  return new AxError(
    advice.code,
    err.message,
    advice.hint?.(err.facts),
    details ? { platform_code: err.code, ...details } : { platform_code: err.code },
  );
}

/** An access report with the next step added where the backend named a problem. */
export function adviseAccess(report: AccessReport): AccessReport {
  if (report.ok || report.suggestion || !report.problem) return report;
  const hint = ADVICE[report.problem].hint?.({});
  return hint ? { ...report, suggestion: hint } : report;
}
