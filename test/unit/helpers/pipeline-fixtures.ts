/**
 * Data fixtures for the pipeline unit tests: a desktop that is only a list of apps and
 * windows (for AppDirectory), and a helper that checks an AxError's code and text.
 */
import { expect } from 'vitest';
import type { AppInfo, Desktop, DesktopWindow, Frontmost } from '../../../src/platform/desktop.js';
import { AxError, type ErrorCode } from '../../../src/errors.js';

export interface DesktopData {
  apps: AppInfo[];
  windows?: DesktopWindow[];
  frontmost?: Frontmost | null;
}

/**
 * A desktop made of data: listApps, frontmost and listWindows answer from the lists, and
 * nothing else exists (AppDirectory.resolve calls only these). Calls are counted so a
 * test can tell which lookups ran.
 */
export function dataDesktop(data: DesktopData): Desktop & { calls: string[] } {
  const calls: string[] = [];
  const desktop = {
    platform: 'fixture',
    calls,
    listApps: async (): Promise<AppInfo[]> => {
      calls.push('listApps');
      return data.apps.map((a) => ({ ...a }));
    },
    frontmost: async (): Promise<Frontmost | null> => {
      calls.push('frontmost');
      return data.frontmost ?? null;
    },
    listWindows: async (pid?: number): Promise<DesktopWindow[]> => {
      calls.push('listWindows');
      const all = data.windows ?? [];
      return all.filter((w) => pid === undefined || w.pid === pid).map((w) => ({ ...w }));
    },
  };
  return desktop as unknown as Desktop & { calls: string[] };
}

export function app(pid: number, name: string, extra: Partial<AppInfo> = {}): AppInfo {
  return { pid, name, windows: 1, active: false, ...extra };
}

export function win(pid: number, title: string, active = false): DesktopWindow {
  return { pid, title, frame: { x: 0, y: 0, w: 640, h: 480 }, active };
}

/** Runs `fn`, expects an AxError with this code, and returns it for further checks. */
export function axError(fn: () => unknown, code: ErrorCode): AxError {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  expect(thrown, 'expected an AxError to be thrown').toBeInstanceOf(AxError);
  const err = thrown as AxError;
  expect(err.code).toBe(code);
  return err;
}

/** The async form of axError. */
export async function axRejection(promise: Promise<unknown>, code: ErrorCode): Promise<AxError> {
  let thrown: unknown;
  try {
    await promise;
  } catch (err) {
    thrown = err;
  }
  expect(thrown, 'expected an AxError rejection').toBeInstanceOf(AxError);
  const err = thrown as AxError;
  expect(err.code).toBe(code);
  return err;
}
