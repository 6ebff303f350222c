/**
 * deliverQuit's decisions on a scripted desktop: it closes windows and waits, stops at a
 * dialog that asks (never ending the app over it), sends SIGTERM only with force, and
 * refuses an app with no window before doing anything.
 */
import { describe, expect, it } from 'vitest';
import { deliverQuit } from '../../src/actions/launch.js';
import type { Scene } from '../../src/actions/types.js';
import type { Desktop, DesktopWindow } from '../../src/platform/desktop.js';
import { AxError } from '../../src/errors.js';

const main: DesktopWindow = {
  pid: 7,
  title: 'Untitled - Editor',
  frame: { x: 0, y: 0, w: 400, h: 300 },
  active: true,
};
const dialog: DesktopWindow = {
  ...main,
  title: 'Save Changes',
  frame: { x: 50, y: 50, w: 200, h: 100 },
};

/**
 * A desktop whose app reacts to a close by `reaction`: exiting, asking (a dialog), or
 * ignoring it; SIGTERM ends it unless it ignores that too.
 */
function scene(
  reaction: 'exit' | 'ask' | 'ignore',
  opts: { windows?: DesktopWindow[]; ignoresTerm?: boolean } = {},
) {
  const calls: string[] = [];
  let running = true;
  let windows = opts.windows ?? [main];
  const desktop = {
    async listWindows() {
      return windows;
    },
    async closeWindows() {
      calls.push('close');
      const asked = windows.length;
      if (reaction === 'exit') {
        running = false;
        windows = [];
      } else if (reaction === 'ask') {
        windows = [...windows, dialog];
      }
      return asked;
    },
    async isRunning() {
      return running;
    },
    async terminate() {
      calls.push('terminate');
      if (!opts.ignoresTerm) running = false;
    },
  } as unknown as Desktop;
  const s = { desktop, pid: 7, view: { snapshot: { app: 'editor' } } } as unknown as Scene;
  return { s, calls };
}

describe('deliverQuit', () => {
  it('closes the windows and is done when the app exits', async () => {
    const { s, calls } = scene('exit');
    const out = await deliverQuit(s, { force: false, waitMs: 1000 });
    expect(calls).toEqual(['close']);
    expect(out.route).toBe('window manager close');
    expect(await out.probe?.()).toBe('landed');
  });

  it('stops at a dialog that asks first, even with force, and ends nothing', async () => {
    const { s, calls } = scene('ask');
    const out = await deliverQuit(s, { force: true, waitMs: 1000 });
    expect(calls).toEqual(['close']);
    expect(out.did).toMatch(/asks first \("Save Changes" is up\): nothing was ended/);
    expect(await out.probe?.()).toBe('landed');
  });

  it('without force, reports an app that ignores the close and leaves it running', async () => {
    const { s, calls } = scene('ignore');
    const out = await deliverQuit(s, { force: false, waitMs: 100 });
    expect(calls).toEqual(['close']);
    expect(out.did).toMatch(/still runs after 100 ms \(force: true ends it with SIGTERM\)/);
    expect(out.probe).toBeUndefined();
    // Found gone later (the pipeline then reports the exit): it is not said to still run.
    expect(out.didOnExit).toMatch(/exited after 100 ms$/);
    expect(out.didOnExit).not.toMatch(/still runs/);
  });

  it('with force, sends SIGTERM after the wait', async () => {
    const { s, calls } = scene('ignore');
    const out = await deliverQuit(s, { force: true, waitMs: 100 });
    expect(calls).toEqual(['close', 'terminate']);
    expect(out.did).toMatch(/sent SIGTERM$/);
    expect(await out.probe?.()).toBe('landed');
  });

  it('refuses an app with no window before doing anything; force ends it by SIGTERM', async () => {
    const none = scene('ignore', { windows: [] });
    await expect(deliverQuit(none.s, { force: false, waitMs: 100 })).rejects.toThrow(AxError);
    expect(none.calls).toEqual([]);
    const forced = scene('ignore', { windows: [] });
    const out = await deliverQuit(forced.s, { force: true, waitMs: 100 });
    expect(forced.calls).toEqual(['terminate']);
    expect(out.route).toBe('SIGTERM');
  });
});
