/**
 * A denied program's helper that daemonizes (fork, setsid, fork again: re-parented to
 * init in a session whose leader is gone) is still the denied program's while it runs:
 * listed nowhere, connected to by nothing and filled in every capture. The denied program
 * is test/fixtures/apps/daemonize.py, its helper the secret window fixture, whose password
 * field holds the data at stake; an allowed app started the same way (by the same test,
 * another environment) stays listed.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session, fixtureApp, type CallResult } from '../../src/harness/session.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { Rect } from '../../src/model/element.js';
import { X11 } from '../../src/platform/linux/x11.js';
import { coloursIn, decodePng } from './helpers/pixels.js';

const HELPER_TITLE = 'Daemon Helper Rq7';
const fixturesDir = path.dirname(fixtureApp('_fixture.py'));

let session: Session;
let x11: X11;
let allowed: LaunchedApp;
let helperPid: number;

function windowOf(pid: number): Rect {
  const w = x11.listWindows().find((w) => w.mapped && w.pid === pid);
  expect(w, `a window of pid ${pid}`).toBeDefined();
  return { x: w!.x + 1, y: w!.y + 1, w: w!.w - 2, h: w!.h - 2 };
}

const pidsOf = (r: CallResult) =>
  (r.structured.apps as Array<{ pid: number; name: string }>).map((a) => a.pid);

beforeAll(async () => {
  session = await Session.start({ serverEnv: { AXPAGE_DENY_APPS: 'daemonize.py' } });
  allowed = await session.launchFixture('toggles.py');
  const daemon = await session.launchFixture(
    'daemonize.py',
    ['/usr/bin/python3', fixtureApp('secret_window.py')],
    {
      waitFor: 'none',
      env: {
        PYTHONPATH: fixturesDir,
        AXPAGE_FIXTURE_TITLE: HELPER_TITLE,
        AXPAGE_FIXTURE_X: '600',
        AXPAGE_FIXTURE_Y: '320',
      },
    },
  );
  // The helper prints to the daemon's stdout: its ready line comes once its window shows.
  const ready = await daemon.output!.waitForEvent((e) => e.event === 'ready', {
    timeoutMs: 20_000,
  });
  helperPid = ready.pid as number;
  x11 = X11.open(session.desktop.processEnv().DISPLAY as string, { framebuffer: false });
}, 90_000);

afterAll(async () => {
  x11?.close();
  await session?.close();
});

describe("a denied program's daemonized helper", () => {
  it('runs on its own: parent init, a session whose leader is gone', async () => {
    const { procStat } = await import('../../src/platform/linux/proc.js');
    const st = procStat(helperPid)!;
    expect(st.session).not.toBe(helperPid);
    expect(procStat(st.session)).toBeNull();
  });

  it('is listed nowhere and connected to by nothing', async () => {
    const list = await session.call('ax_list_apps', {});
    expect(list.isError, list.text).toBe(false);
    expect(pidsOf(list)).toContain(allowed.pid);
    expect(pidsOf(list)).not.toContain(helperPid);
    expect(list.text).not.toContain(HELPER_TITLE);
    for (const app of [helperPid, HELPER_TITLE, 'secret_window.py']) {
      const r = await session.call('ax_connect', { app });
      expect(r.isError, `${app}: ${r.text}`).toBe(true);
      expect(r.structured.error_code).toBe('app_not_found');
    }
  });

  it('is filled in every capture', async () => {
    const win = windowOf(helperPid);
    expect(coloursIn(x11.captureRegion(win), win, win), 'it shows content').toBeGreaterThan(1);
    const full = await session.call('ax_screenshot', { app: allowed.pid, full_screen: true });
    expect(full.isError, full.text).toBe(false);
    expect(coloursIn(await decodePng(full.fields.screenshot), { x: 0, y: 0 }, win)).toBe(1);
  });
});
