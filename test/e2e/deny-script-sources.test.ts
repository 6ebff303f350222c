/**
 * A denied script is the denied program however its interpreter gets the text: from its
 * standard input (a file or a pipe), as /dev/fd/N, from code given with -c that opens it,
 * or loaded by a one-line script of another name. Started outside the server, each is
 * listed nowhere, named by nothing and filled in every capture; launched through the
 * server by a loader script, it is stopped. The denied program is the passphrase fixture
 * installed on the server's PATH as "vaultnotes".
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

const fixturesDir = path.dirname(fixtureApp('_fixture.py'));
const PY = '/usr/bin/python3';

let session: Session;
let x11: X11;
let tmp: string;
let allowed: LaunchedApp;
let program: string;
/** Each shape's title and the pid of the interpreter running the denied script. */
const shapes: Array<{ title: string; pid: number }> = [];

function windowOf(pid: number): Rect {
  const w = x11.listWindows().find((w) => w.mapped && w.pid === pid);
  expect(w, `a window of pid ${pid}`).toBeDefined();
  return { x: w!.x + 1, y: w!.y + 1, w: w!.w - 2, h: w!.h - 2 };
}

const pidsOf = (r: CallResult) =>
  (r.structured.apps as Array<{ pid: number; name: string }>).map((a) => a.pid);

/** Pids of live processes whose command line has an argument containing `text`. */
function running(text: string): number[] {
  return fs.readdirSync('/proc').flatMap((e) => {
    if (!/^\d+$/.test(e)) return [];
    try {
      const argv = fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0');
      return argv.some((a) => a.includes(text)) ? [Number(e)] : [];
    } catch {
      return [];
    }
  });
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-deny-sources-'));
  fs.mkdirSync(path.join(tmp, 'bin'));
  program = path.join(tmp, 'bin', 'vaultnotes');
  fs.copyFileSync(fixtureApp('passphrase.py'), program);
  fs.chmodSync(program, 0o755);
  session = await Session.start({
    serverEnv: {
      AXPAGE_DENY_APPS: 'vaultnotes',
      PATH: `${path.join(tmp, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      PYTHONPATH: fixturesDir,
    },
  });
  allowed = await session.launchFixture('toggles.py');
  x11 = X11.open(session.desktop.processEnv().DISPLAY as string, { framebuffer: false });
  const commands = [
    `exec ${PY} - < "$P"`,
    `exec ${PY} /dev/fd/3 3< "$P"`,
    `exec ${PY} -c "exec(open('$P').read())"`,
    `cat "$P" | ${PY} -`,
  ];
  for (const [i, command] of commands.entries()) {
    const title = `Source ${i} Zt${i}`;
    // The ready line says which pid the interpreter is (a pipeline's is not the shell's).
    const app = await session.launch('/bin/sh', ['-c', command], {
      stdio: 'pipe',
      waitFor: 'none',
      env: {
        P: program,
        PYTHONPATH: fixturesDir,
        AXPAGE_FIXTURE_TITLE: title,
        AXPAGE_FIXTURE_X: String(500 + i * 40),
        AXPAGE_FIXTURE_Y: String(40 + i * 120),
      },
    });
    const ready = await app.output!.waitForEvent((e) => e.event === 'ready', {
      timeoutMs: 20_000,
    });
    shapes.push({ title, pid: ready.pid as number });
  }
}, 150_000);

afterAll(async () => {
  x11?.close();
  await session?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('a denied script its interpreter reads other than as a file operand', () => {
  it('is listed nowhere and named by nothing', async () => {
    const list = await session.call('ax_list_apps', {});
    expect(list.isError, list.text).toBe(false);
    expect(pidsOf(list)).toContain(allowed.pid);
    for (const { title, pid } of shapes) {
      expect(pidsOf(list), title).not.toContain(pid);
      expect(list.text).not.toContain(title);
      for (const app of [pid, title]) {
        const r = await session.call('ax_get_tree', { app });
        expect(r.isError, `${app}: ${r.text}`).toBe(true);
        expect(r.structured.error_code).toBe('app_not_found');
      }
    }
    expect(list.structured.left_out).toBe(shapes.length);
  });

  it('is filled in a capture', async () => {
    const full = await session.call('ax_screenshot', { app: allowed.pid, full_screen: true });
    expect(full.isError, full.text).toBe(false);
    const png = await decodePng(full.fields.screenshot);
    for (const { title, pid } of shapes) {
      const win = windowOf(pid);
      expect(coloursIn(x11.captureRegion(win), win, win), `${title} shows content`).toBeGreaterThan(
        1,
      );
      expect(coloursIn(png, { x: 0, y: 0 }, win), title).toBe(1);
    }
  });

  it('is stopped when the server launches a one-line script that loads it', async () => {
    const loader = path.join(tmp, 'importer.py');
    fs.writeFileSync(loader, `exec(open(${JSON.stringify(program)}).read())\n`);
    const r = await session.call('ax_launch_app', { command: [PY, loader] });
    expect(r.isError, r.text).toBe(true);
    expect(r.structured.error_code).toBe('blocked');
    await pollUntil(async () => running(loader).length === 0, {
      timeoutMs: 15_000,
      intervalMs: 100,
      what: 'the loader to be stopped',
    });
  });
});
