/**
 * A denied program started in the background by what ax_launch_app launched is stopped,
 * however the launcher leaves it (full mode, galculator denied): a Tcl script that runs
 * `exec galculator &` and exits at once, and a Python script whose forked child waits,
 * then becomes galculator after its parent has gone. The call answers that the launch was
 * blocked without naming what it stopped. Oracles: /proc (no galculator process on this
 * desktop afterwards) and the session log.
 *
 * A denied app running anyway (started outside the server) is, named by its name or its
 * pid, answered like an app that is not there: no error confirms it runs, or its pid.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, Session } from '../../src/harness/session.js';

let session: Session;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-launch-bg-'));
  fs.writeFileSync(path.join(dir, 'bg.tcl'), 'exec galculator &\nexit\n');
  fs.writeFileSync(
    path.join(dir, 'late.py'),
    [
      'import os, time',
      'if os.fork() == 0:',
      '    time.sleep(1.0)',
      '    os.execvp("galculator", ["galculator"])',
      'os._exit(0)',
    ].join('\n'),
  );
  // An allowed app comes up, while a child the launcher forked execs galculator later on.
  fs.writeFileSync(
    path.join(dir, 'app-then-denied.py'),
    [
      'import os, time',
      'if os.fork() == 0:',
      '    time.sleep(4.0)',
      `    open(${JSON.stringify(path.join(dir, 'exec-now'))}, "w").close()`,
      '    os.execvp("galculator", ["galculator"])',
      `os.execv("/usr/bin/python3", ["python3", ${JSON.stringify(fixtureApp('dialog.py'))}])`,
    ].join('\n'),
  );
  session = await Session.start({ serverEnv: { AXPAGE_DENY_APPS: 'galculator' } });
});

afterAll(async () => {
  for (const pid of galculators()) process.kill(pid, 'SIGKILL');
  await session?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** galculator processes on this test's desktop (other desktops on the machine run their own). */
function galculators(): number[] {
  const display = `DISPLAY=${session.desktop.env.DISPLAY}`;
  const out: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'latin1');
      if (/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0])) continue;
      if (!fs.readlinkSync(`/proc/${e}/exe`).endsWith('/galculator')) continue;
      if (fs.readFileSync(`/proc/${e}/environ`, 'latin1').split('\0').includes(display)) {
        out.push(Number(e));
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

async function noneWithin(ms: number): Promise<number[]> {
  const end = Date.now() + ms;
  let left = galculators();
  while (left.length > 0 && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    left = galculators();
  }
  return left;
}

describe('a launcher that leaves a denied program running in the background', () => {
  it.each([
    ['tclsh', 'bg.tcl'],
    ['python3', 'late.py'],
  ])(
    '%s %s: the program is stopped and the call says the launch was blocked',
    async (interp, script) => {
      const r = await session.call('ax_launch_app', { command: [interp, path.join(dir, script)] });
      expect(r.isError, r.text).toBe(true);
      expect(r.structured.error_code, r.text).toBe('blocked');
      expect(r.text).toMatch(/a program this server's policy denies/);
      expect(r.text).not.toMatch(/galculator/i);
      // Stopped by the server, not left to run: none is running a moment later, nor later on.
      expect(await noneWithin(3000)).toEqual([]);
      await new Promise((res) => setTimeout(res, 1500));
      expect(galculators()).toEqual([]);
      const log = fs
        .readdirSync(session.artifactDir)
        .filter((f) => /^session-.*\.jsonl$/.test(f))
        .map((f) => fs.readFileSync(path.join(session.artifactDir, f), 'utf8'))
        .join('');
      expect(log).not.toMatch(/galculator/i);
    },
  );
});

describe('a launch whose app came up', () => {
  it('is watched on: a denied program its launcher starts later is stopped', async () => {
    const r = await session.call('ax_launch_app', {
      command: ['/usr/bin/python3', path.join(dir, 'app-then-denied.py')],
    });
    expect(r.isError, r.text).toBe(false);
    const appPid = (r.structured.launched as { app_pid: number }).app_pid;
    const marker = path.join(dir, 'exec-now');
    const end = Date.now() + 20_000;
    while (!fs.existsSync(marker) && Date.now() < end) {
      await new Promise((res) => setTimeout(res, 50));
    }
    expect(fs.existsSync(marker), 'the child never got to its exec').toBe(true);
    const told =
      /stopped a program this server's policy denies \(pid (\d+)\), started by what ax_launch_app launched/;
    while (!told.test(session.serverLog.join('')) && Date.now() < end + 5000) {
      await new Promise((res) => setTimeout(res, 50));
    }
    const stopped = Number(told.exec(session.serverLog.join(''))?.[1]);
    expect(stopped, session.serverLog.join('')).toBeGreaterThan(0);
    // The pid it names was the child: it ran galculator, and runs no more.
    expect(await noneWithin(3000)).toEqual([]);
    expect(fs.existsSync(`/proc/${stopped}/exe`)).toBe(false);
    // The allowed app goes on.
    const tree = await session.call('ax_get_tree', { app: appPid });
    expect(tree.isError, tree.text).toBe(false);
    await session.call('ax_quit_app', { app: appPid, force: true });
  });
});

describe('a denied app that runs anyway', () => {
  it('named by its name or its pid, is answered as an app that is not there', async () => {
    const calc = await session.launch('galculator', [], { name: 'denied-calc' });
    const gone = 2_147_000_000;
    for (const [app, unknown] of [
      ['galculator', 'no-such-app-here'],
      [calc.pid, gone],
    ] as const) {
      const r = await session.call('ax_get_tree', { app });
      const u = await session.call('ax_get_tree', { app: unknown });
      expect(r.isError, r.text).toBe(true);
      expect(r.structured.error_code).toBe(u.structured.error_code);
      // The same words as for the unknown app, its name or pid in place of the other's.
      expect(r.fields.error.replace(String(app), 'X')).toBe(
        u.fields.error.replace(String(unknown), 'X'),
      );
      expect(r.text).not.toMatch(/blocked/);
    }
    await calc.stop();
  });
});
