/**
 * The deny list holds for what a denied app runs and for scripts, not only for the process
 * that registered a denied name: a helper window a denied app starts (a child process of its
 * own, under another name) is listed nowhere, walked by nothing and filled in every capture
 * while the app runs; a denied script started through a link under another name, or a
 * byte-identical copy of it run by its interpreter, is the denied program (listed nowhere,
 * filled, never launched). Every count of apps (ax_is_accessible, ax_list_apps, the status
 * and apps resources) leaves the same apps out.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session, fixtureApp, type CallResult } from '../../src/harness/session.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { Rect } from '../../src/model/element.js';
import { X11 } from '../../src/platform/linux/x11.js';
import { pollUntil } from '../../src/desktop/procs.js';
import { coloursIn, decodePng } from './helpers/pixels.js';

const HELPER_TITLE = 'Helper Kp4 Receipt';
const NOTES_TITLE = 'Notes Qx9 Vault';
const fixturesDir = path.dirname(fixtureApp('_fixture.py'));

let session: Session;
let x11: X11;
let tmp: string;
let allowed: LaunchedApp;
let launcher: LaunchedApp;
let helperPid: number;
let notes: LaunchedApp;
/** The denied program: a script on the server's PATH under the name the deny list gives. */
let program: string;
/** A link to it under another name, and a byte-identical copy under a third. */
let link: string;
let copy: string;

/** The client area of the mapped X window of `pid`, 1 px in from its edges. */
function windowOf(pid: number): Rect {
  const w = x11.listWindows().find((w) => w.mapped && w.pid === pid);
  expect(w, `a window of pid ${pid}`).toBeDefined();
  return { x: w!.x + 1, y: w!.y + 1, w: w!.w - 2, h: w!.h - 2 };
}

/** Pids of live processes whose command line names `file`. */
function running(file: string): number[] {
  return fs.readdirSync('/proc').flatMap((e) => {
    if (!/^\d+$/.test(e)) return [];
    try {
      const argv = fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0');
      return argv.includes(file) ? [Number(e)] : [];
    } catch {
      return [];
    }
  });
}

async function readJson(uri: string): Promise<Record<string, unknown>> {
  const r = await session.client.readResource({ uri });
  return JSON.parse(String((r.contents[0] as { text: string }).text)) as Record<string, unknown>;
}

const pidsOf = (r: CallResult) =>
  (r.structured.apps as Array<{ pid: number; name: string }>).map((a) => a.pid);

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-deny-family-'));
  for (const d of ['bin', 'alias', 'copy']) fs.mkdirSync(path.join(tmp, d));
  program = path.join(tmp, 'bin', 'vaultnotes');
  fs.copyFileSync(fixtureApp('passphrase.py'), program);
  fs.chmodSync(program, 0o755);
  link = path.join(tmp, 'alias', 'notes');
  fs.symlinkSync(program, link);
  copy = path.join(tmp, 'copy', 'ledger.py');
  fs.copyFileSync(program, copy);
  session = await Session.start({
    serverEnv: {
      AXPAGE_DENY_APPS: 'launcher.py,vaultnotes',
      PATH: `${path.join(tmp, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      // The copies import the fixtures' helper module from where the fixtures are.
      PYTHONPATH: fixturesDir,
    },
  });
  allowed = await session.launchFixture('toggles.py');
  launcher = await session.launchFixture(
    'launcher.py',
    ['--child', '/usr/bin/python3', fixtureApp('secret_window.py')],
    {
      env: {
        AXPAGE_FIXTURE_LAUNCH_AT_READY: '1',
        AXPAGE_FIXTURE_TITLE: HELPER_TITLE,
        AXPAGE_FIXTURE_X: '600',
        AXPAGE_FIXTURE_Y: '320',
      },
    },
  );
  // The helper prints to the launcher's stdout: its ready line has the field's frame.
  const ready = await launcher.output!.waitForEvent((e) => e.event === 'ready' && 'field' in e, {
    timeoutMs: 15_000,
  });
  helperPid = ready.pid as number;
  expect(helperPid).not.toBe(launcher.pid);
  notes = await session.launch('/usr/bin/python3', [link], {
    stdio: 'pipe',
    env: {
      PYTHONPATH: fixturesDir,
      AXPAGE_FIXTURE_TITLE: NOTES_TITLE,
      AXPAGE_FIXTURE_X: '600',
      AXPAGE_FIXTURE_Y: '40',
    },
  });
  await notes.output!.waitForEvent((e) => e.event === 'ready', { timeoutMs: 15_000 });
  x11 = X11.open(session.desktop.processEnv().DISPLAY as string, { framebuffer: false });
}, 90_000);

afterAll(async () => {
  x11?.close();
  await session?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe("a denied app's helper process", () => {
  it('is listed nowhere and named by nothing', async () => {
    const list = await session.call('ax_list_apps', {});
    expect(list.isError, list.text).toBe(false);
    expect(pidsOf(list)).toContain(allowed.pid);
    expect(pidsOf(list)).not.toContain(launcher.pid);
    expect(pidsOf(list)).not.toContain(helperPid);
    expect(list.text).not.toContain(HELPER_TITLE);
    for (const app of [helperPid, HELPER_TITLE, 'secret_window.py']) {
      const r = await session.call('ax_get_tree', { app });
      expect(r.isError, `${app}: ${r.text}`).toBe(true);
      expect(r.structured.error_code).toBe('app_not_found');
      // The apps the error offers instead are allowed ones only.
      const listed = /Running: (.*)/.exec(r.text)?.[1] ?? '';
      const offered = `${listed} ${JSON.stringify(r.structured.apps ?? [])}`;
      for (const hidden of [`${helperPid}`, `${launcher.pid}`, 'launcher.py'])
        expect(offered).not.toContain(hidden);
    }
    const windows = await readJson('axpage://apps');
    expect(JSON.stringify(windows)).not.toContain(HELPER_TITLE);
    const offered = (
      await session.client.complete({
        ref: { type: 'ref/resource', uri: 'axpage://app/{name}/tree' },
        argument: { name: 'name', value: 'Helper' },
      })
    ).completion.values;
    expect(offered).toEqual([]);
  });

  it('is filled in every capture', async () => {
    const win = windowOf(helperPid);
    expect(coloursIn(x11.captureRegion(win), win, win), 'it shows content').toBeGreaterThan(1);
    const full = await session.call('ax_screenshot', { app: allowed.pid, full_screen: true });
    expect(full.isError, full.text).toBe(false);
    expect(coloursIn(await decodePng(full.fields.screenshot), { x: 0, y: 0 }, win)).toBe(1);
  });
});

describe('a denied script', () => {
  it('started through a link under another name is listed nowhere and filled', async () => {
    const list = await session.call('ax_list_apps', {});
    expect(pidsOf(list)).not.toContain(notes.pid);
    for (const app of [notes.pid, 'notes', NOTES_TITLE]) {
      const r = await session.call('ax_list_windows', { app });
      expect(r.isError, `${app}: ${r.text}`).toBe(true);
      expect(r.structured.error_code).toBe('app_not_found');
    }
    const win = windowOf(notes.pid);
    expect(coloursIn(x11.captureRegion(win), win, win), 'it shows content').toBeGreaterThan(1);
    const full = await session.call('ax_screenshot', { app: allowed.pid, full_screen: true });
    expect(coloursIn(await decodePng(full.fields.screenshot), { x: 0, y: 0 }, win)).toBe(1);
  });

  it('is never launched through its interpreter, by a link or a copy', async () => {
    for (const command of [
      ['/usr/bin/python3', link],
      ['/usr/bin/python3', copy],
      ['/usr/bin/python3', '-u', '-W', 'ignore', copy],
    ]) {
      const r = await session.call('ax_launch_app', { command });
      expect(r.isError, `${command.join(' ')}: ${r.text}`).toBe(true);
      expect(r.structured.error_code).toBe('blocked');
      expect(r.fields.error).toMatch(/nothing was started/);
      const started = running(command[command.length - 1]).filter((p) => p !== notes.pid);
      expect(started, 'nothing runs it').toEqual([]);
    }
    expect(fs.readdirSync(session.artifactDir).filter((f) => f.startsWith('launch-'))).toEqual([]);
  });

  it('leaves other scripts of the same interpreter alone', async () => {
    const r = await session.call('ax_launch_app', {
      command: ['/usr/bin/python3', fixtureApp('rich.py')],
    });
    expect(r.isError, r.text).toBe(false);
    const pid = (r.structured.launched as { app_pid: number }).app_pid;
    const quit = await session.call('ax_quit_app', { app: pid });
    expect(quit.isError, quit.text).toBe(false);
    await pollUntil(async () => running(fixtureApp('rich.py')).length === 0, {
      timeoutMs: 15_000,
      intervalMs: 100,
      what: 'the launched app to exit',
    });
  });
});

describe('every count of apps', () => {
  it('leaves the same apps out: ax_is_accessible, ax_list_apps and both resources', async () => {
    const access = await session.call('ax_is_accessible', {});
    const details = access.structured.details as { apps: number; left_out?: number };
    const list = await session.call('ax_list_apps', {});
    const status = (await readJson('axpage://status')) as {
      details: { apps: number; left_out?: number };
    };
    const apps = (await readJson('axpage://apps')) as { apps: unknown[]; left_out?: number };
    // The launcher, its helper, and the script run through a link.
    expect(list.structured.left_out).toBe(3);
    expect(details).toMatchObject({ apps: pidsOf(list).length, left_out: 3 });
    expect(status.details).toMatchObject({ apps: pidsOf(list).length, left_out: 3 });
    expect(apps.apps.length).toBe(pidsOf(list).length);
    expect(apps.left_out).toBe(3);
  });
});
