/**
 * ax_launch_app and ax_quit_app on a real headless desktop, through the MCP SDK client.
 * Oracles outside our own summary: /proc (the process, its command line, whether it is
 * gone), the X server's own window list (xprop, another client), the tree file's widgets.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureApp, Session } from '../../src/harness/session.js';
import { startServeClient, type ServeClient } from '../../src/harness/serve-client.js';

let session: Session;
let home: string;
/** Every pid the tests saw started, stopped by pid at the end whatever happened. */
const started = new Set<number>();

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-launch-home-'));
  // A fresh home: no mousepad session to restore, no settings of the user's. The server's
  // environment turns GTK's accessibility off: what it launches must get it back on.
  session = await Session.start({
    serverEnv: {
      NO_AT_BRIDGE: '1',
      GTK_A11Y: 'none',
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_DATA_HOME: path.join(home, '.local', 'share'),
    },
  });
});

afterAll(async () => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  await session?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]);
  } catch {
    return false;
  }
}

function cmdline(pid: number): string[] {
  return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

/**
 * Pids of running processes on this test's display whose program (argv[0]'s file name) is
 * `name`, from /proc (other desktops on the machine run their own).
 */
function pidsOf(name: string): number[] {
  const display = `DISPLAY=${session.desktop.env.DISPLAY}`;
  return fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => {
      try {
        return (
          alive(pid) &&
          path.basename(cmdline(pid)[0] ?? '') === name &&
          fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(display)
        );
      } catch {
        return false;
      }
    });
}

/** The X server's client windows of a pid, as xprop (another X client) reads them. */
function xWindowsOf(pid: number): Array<{ id: string; title: string; transient: boolean }> {
  const env = { ...process.env, ...session.desktop.env };
  const list = execFileSync('xprop', ['-root', '_NET_CLIENT_LIST'], { env, encoding: 'utf8' });
  const ids = list.match(/0x[0-9a-f]+/gi) ?? [];
  const out: Array<{ id: string; title: string; transient: boolean }> = [];
  for (const id of ids) {
    let props: string;
    try {
      props = execFileSync(
        'xprop',
        ['-id', id, '_NET_WM_PID', '_NET_WM_NAME', 'WM_TRANSIENT_FOR'],
        {
          env,
          encoding: 'utf8',
        },
      );
    } catch {
      continue;
    }
    if (!new RegExp(`_NET_WM_PID\\(CARDINAL\\) = ${pid}\\b`).test(props)) continue;
    out.push({
      id,
      title: /_NET_WM_NAME\(UTF8_STRING\) = "(.*)"/.exec(props)?.[1] ?? '',
      transient: /WM_TRANSIENT_FOR\(WINDOW\): window id # 0x/.test(props),
    });
  }
  return out;
}

/** Polls a condition on the outside world (a process exiting), bounded; never asserts on time. */
async function eventually(cond: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

function launched(r: { structured: Record<string, unknown> }) {
  return r.structured.launched as {
    pid: number;
    app_pid: number;
    argv: string[];
    desktop_file?: string;
    handed_off: boolean;
    log: string;
  };
}

let galculator: number;
let mousepad: number;

describe('ax_launch_app', () => {
  it('launches galculator by its desktop name and observes its window', async () => {
    const r = await session.call('ax_launch_app', { desktop: 'Galculator' });
    expect(r.isError, r.text).toBe(false);
    const info = launched(r);
    galculator = info.app_pid;
    started.add(info.pid).add(galculator);
    // The process runs the desktop file's program, as /proc says.
    expect(info.desktop_file).toBe('/usr/share/applications/galculator.desktop');
    expect(alive(galculator)).toBe(true);
    expect(path.basename(cmdline(galculator)[0])).toBe('galculator');
    // It got the environment accessibility needs, whatever the server's was.
    const environ = fs.readFileSync(`/proc/${galculator}/environ`, 'utf8').split('\0');
    expect(environ).toContain('QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1');
    expect(environ.filter((v) => /^(NO_AT_BRIDGE|GTK_A11Y)=/.test(v))).toEqual([]);
    // The X server has a window of that pid.
    expect(xWindowsOf(galculator).length).toBeGreaterThan(0);
    // The summary and the tree file are about that app, and the file names its own keys.
    expect(r.fields.pid).toBe(String(galculator));
    expect(r.fields.app).toBe('galculator');
    const tree = fs.readFileSync(r.fields.file, 'utf8');
    expect(tree).toMatch(/"7"/);
    expect(tree).toMatch(/"\+"/);
    expect(fs.existsSync(r.fields.screenshot)).toBe(true);
    // The handoff: the app to go on with.
    expect(r.structured.app_switch).toMatchObject({ name: 'galculator', pid: galculator });
    // The app's output went to a private log in the artifact dir.
    expect(path.dirname(info.log)).toBe(session.artifactDir);
    expect(fs.statSync(info.log).mode & 0o777).toBe(0o600);
    // The next call can name it by pid.
    const next = await session.call('ax_get_value', { app: galculator, query: 'button:7' });
    expect(next.isError, next.text).toBe(false);
  });

  it('launches mousepad by a command line, split without a shell', async () => {
    const r = await session.call('ax_launch_app', { command: 'mousepad' });
    expect(r.isError, r.text).toBe(false);
    const info = launched(r);
    mousepad = info.app_pid;
    started.add(info.pid).add(mousepad);
    expect(info.argv).toEqual(['mousepad']);
    expect(info.handed_off).toBe(false);
    expect(cmdline(mousepad)[0]).toMatch(/mousepad$/);
    expect(xWindowsOf(mousepad).length).toBeGreaterThan(0);
    expect(r.fields.pid).toBe(String(mousepad));
    expect(fs.readFileSync(r.fields.file, 'utf8')).toMatch(/AXTextArea/);
  });

  it('hands off to the running mousepad when the new process passes the job on and exits', async () => {
    expect(xWindowsOf(mousepad).some((w) => /Untitled 2/.test(w.title))).toBe(false);
    const r = await session.call('ax_launch_app', { command: ['mousepad'] });
    expect(r.isError, r.text).toBe(false);
    const info = launched(r);
    started.add(info.pid);
    expect(info.handed_off).toBe(true);
    expect(info.app_pid).toBe(mousepad);
    expect(info.pid).not.toBe(mousepad);
    expect(r.fields.summary).toMatch(/already running/);
    // The process we started is gone; the running instance opened the window.
    expect(await eventually(() => !alive(info.pid))).toBe(true);
    // The running instance opened a second document, as its window's title says.
    expect(
      await eventually(() => xWindowsOf(mousepad).some((w) => /Untitled 2/.test(w.title))),
    ).toBe(true);
  });

  it('refuses bad arguments before anything runs', async () => {
    for (const args of [
      {},
      { command: 'mousepad', desktop: 'mousepad' },
      { command: 'mousepad | cat' },
      { command: [] },
      { desktop: 'no-such-app-anywhere' },
      { command: ['/nonexistent/program'] },
    ]) {
      const before = pidsOf('mousepad').length;
      const r = await session.call('ax_launch_app', args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.text).not.toMatch(/^file:/m);
      expect(pidsOf('mousepad').length).toBe(before);
    }
    // A command line longer than a launch takes: said plainly, not the system's bare E2BIG.
    const before = pidsOf('mousepad').length;
    const long = await session.call('ax_launch_app', { command: ['mousepad', 'x'.repeat(3e6)] });
    expect(long.structured.error_code, long.text).toBe('bad_argument');
    expect(long.text).toMatch(/bytes long, more than the \d+ a launch takes; nothing was started/);
    expect(pidsOf('mousepad').length).toBe(before);
  });

  it('says why when the app exits without a window, with the tail of its output', async () => {
    const r = await session.call('ax_launch_app', {
      command: ['/usr/bin/python3', '-c', 'import sys; print("broken on purpose"); sys.exit(3)'],
    });
    expect(r.isError, r.text).toBe(true);
    expect(r.fields.error).toMatch(/exited \(code 3\)/);
    expect(r.fields.error).toMatch(/broken on purpose/);
  });
});

describe('ax_quit_app', () => {
  it('brings back the save dialog of a mousepad with unsaved text, and kills nothing', async () => {
    const typed = await session.call('ax_type', { app: mousepad, text: 'unsaved words' });
    expect(typed.isError, typed.text).toBe(false);
    const r = await session.call('ax_quit_app', { app: mousepad, force: true });
    expect(r.isError, r.text).toBe(false);
    expect(r.fields.summary).toMatch(/asks first/);
    expect(r.text).toMatch(/effect: confirmed/);
    expect(r.fields.dialog ?? r.fields.window, r.text).toBeDefined();
    expect(r.structured.exited).toBe(false);
    // Still running, and the X server shows the dialog (a transient window) over it.
    expect(alive(mousepad)).toBe(true);
    expect(xWindowsOf(mousepad).some((w) => w.transient)).toBe(true);
    const tree = fs.readFileSync(r.fields.file, 'utf8');
    expect(tree).toMatch(/\[AXButton[^\]]*\] "Don't Save"/);
    // The dialog is the app's own: answering it ends the app.
    const answer = await session.call('ax_click', { app: mousepad, query: `button:"Don't Save"` });
    expect(answer.isError, answer.text).toBe(false);
    expect(await eventually(() => !alive(mousepad))).toBe(true);
  });

  it('quits galculator: its process is gone', async () => {
    const r = await session.call('ax_quit_app', { app: 'galculator' });
    expect(r.isError, r.text).toBe(false);
    expect(r.fields.summary).toMatch(/exited/);
    expect(await eventually(() => !alive(galculator))).toBe(true);
    expect(xWindowsOf(galculator)).toEqual([]);
  });
});

describe('policy', () => {
  let guarded: ServeClient;
  let readOnly: ServeClient;

  beforeAll(async () => {
    const env = {
      ...(session.desktop.processEnv() as Record<string, string>),
      HOME: home,
    };
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-launch-guard-'));
    guarded = await startServeClient({
      env: { ...env, AXPAGE_OUT: out, AXPAGE_DENY_APPS: 'gtk3-demo,Galculator,dialog.py' },
    });
    readOnly = await startServeClient({
      env: { ...env, AXPAGE_OUT: out, AXPAGE_MODE: 'read-only' },
    });
  });

  afterAll(async () => {
    await guarded?.close();
    await readOnly?.close();
  });

  it('refuses a denied program, by command and by desktop name, and starts nothing', async () => {
    for (const [args, name] of [
      [{ command: ['gtk3-demo'] }, 'gtk3-demo'],
      // The desktop file's Name is denied, not its id.
      [{ desktop: 'galculator' }, 'galculator'],
    ] as const) {
      const before = pidsOf(name);
      const r = await guarded.call('ax_launch_app', args);
      expect(r.isError, r.text).toBe(true);
      expect(r.text).toMatch(/blocked by this server's policy.*nothing was started/);
      await new Promise((res) => setTimeout(res, 300));
      expect(pidsOf(name)).toEqual(before);
    }
  });

  it('stops an app whose registered name is denied though its command was not', async () => {
    // The command names a starter script only: the fixture it runs registers as dialog.py.
    const starter = path.join(home, 'starter.py');
    fs.writeFileSync(
      starter,
      [
        'import runpy, sys',
        `sys.path.insert(0, ${JSON.stringify(path.dirname(fixtureApp('dialog.py')))})`,
        `sys.argv[0] = ${JSON.stringify(fixtureApp('dialog.py'))}`,
        'runpy.run_path(sys.argv[0], run_name="__main__")',
      ].join('\n'),
    );
    const r = await guarded.call('ax_launch_app', { command: ['/usr/bin/python3', starter] });
    expect(r.isError, r.text).toBe(true);
    // Stopped once it registers under the denied name, or as soon as it starts: the
    // starter script names the denied script's file, which the launch judges it by.
    const stopped =
      /pid \d+ is blocked .*stopped what was started \(pid (\d+)\)|\(pid (\d+)\) started a program this server's policy denies: it was stopped/.exec(
        r.text,
      );
    expect(stopped, r.text).not.toBeNull();
    const pid = Number(stopped![1] ?? stopped![2]);
    started.add(pid);
    expect(await eventually(() => !alive(pid))).toBe(true);
  });

  it('read-only mode lists neither tool', async () => {
    const names = await readOnly.toolNames();
    expect(names).toContain('ax_get_tree');
    expect(names).not.toContain('ax_launch_app');
    expect(names).not.toContain('ax_quit_app');
    const full = await guarded.toolNames();
    expect(full).toContain('ax_launch_app');
    expect(full).toContain('ax_quit_app');
  });
});
