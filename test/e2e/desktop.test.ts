/**
 * The headless desktop, for real: bring one up on the first free display, check every part
 * with tools other than our own code (xdpyinfo, xprop, dbus-send, pyatspi, /proc), launch
 * gtk3-widget-factory into it, and check that stop() leaves none of its processes running.
 * Then the same through the CLI handler (`axpage desktop up|run|env|status|down`).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { runDesktopCommand } from '../../src/cli/desktop.js';
import { DesktopError, startDesktop } from '../../src/desktop/headless.js';
import type { HeadlessDesktop } from '../../src/desktop/headless.js';
import type { RecordedPid } from '../../src/desktop/procs.js';
import { isAlive, procStat } from '../../src/desktop/procs.js';
import { claimStateDir, defaultStateDir } from '../../src/desktop/state.js';

const run = (cmd: string, args: string[], env: NodeJS.ProcessEnv): string =>
  execFileSync(cmd, args, { env, encoding: 'utf8', timeout: 10_000 });

/** Pids of the apps pyatspi (libatspi, not our client) sees in the desktop. */
function pyatspiPids(env: NodeJS.ProcessEnv): number[] {
  const script =
    'import pyatspi\n' +
    'for a in pyatspi.Registry.getDesktop(0):\n' +
    '    print(a.get_process_id())\n';
  return run('/usr/bin/python3', ['-c', script], env).split('\n').filter(Boolean).map(Number);
}

function dbusNameHasOwner(address: string, name: string): boolean {
  const out = run(
    'dbus-send',
    [
      `--bus=${address}`,
      '--print-reply=literal',
      '--dest=org.freedesktop.DBus',
      '/org/freedesktop/DBus',
      'org.freedesktop.DBus.NameHasOwner',
      `string:${name}`,
    ],
    process.env,
  );
  return out.includes('true');
}

/** Running: present and not a zombie. Independent of the pid's recorded start time. */
const running = (pid: number): boolean => {
  const st = procStat(pid);
  return st !== null && st.state !== 'Z' && st.state !== 'X';
};

describe('headless desktop (startDesktop)', () => {
  let desktop: HeadlessDesktop;
  let recorded: RecordedPid[] = [];

  beforeAll(async () => {
    desktop = await startDesktop();
    console.log(`desktop :${desktop.display} bring-up (ms): ${JSON.stringify(desktop.timings)}`);
  });

  afterAll(async () => {
    // A failed test must not leave the desktop behind; stop() is idempotent.
    await desktop?.stop();
  });

  it('picks a free display from :90 up and records its daemons', () => {
    expect(desktop.display).toBeGreaterThanOrEqual(90);
    const names = desktop.pids.map((p) => p.name);
    expect(names).toEqual([
      'xvfb',
      'openbox',
      'dbus-session',
      'at-spi-bus-launcher',
      'a11y-dbus-daemon',
      'at-spi2-registryd',
    ]);
    const comm = (pid: number): string => fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    const expected: Record<string, string> = {
      xvfb: 'Xvfb',
      'dbus-session': 'dbus-daemon',
      'at-spi-bus-launcher': 'at-spi-bus-laun',
      'a11y-dbus-daemon': 'dbus-daemon',
      'at-spi2-registryd': 'at-spi2-registr',
      openbox: 'openbox',
    };
    for (const p of desktop.pids) {
      expect(running(p.pid), p.name).toBe(true);
      expect(comm(p.pid), p.name).toBe(expected[p.name]);
    }
    for (const step of ['xvfb', 'sessionBus', 'a11yBus', 'registry', 'wm', 'total']) {
      expect(desktop.timings[step], step).toBeGreaterThan(0);
    }
  });

  it('has every component answering (checked with xdpyinfo, xprop, dbus-send)', () => {
    const env = desktop.processEnv();
    expect(env.DISPLAY).toBe(`:${desktop.display}`);
    expect(env.GDK_BACKEND).toBe('x11');
    expect(env.GSETTINGS_BACKEND).toBe('memory');
    expect(env.GSK_RENDERER).toBe('cairo');
    expect(env.NO_AT_BRIDGE).toBeUndefined();
    expect(env.GTK_A11Y).toBeUndefined();

    // X answers, with the requested screen.
    expect(run('xdpyinfo', [], env)).toMatch(/dimensions:\s+1280x800 pixels/);
    // The framebuffer file screenshots read: XWD header + 32 bpp rows.
    expect(fs.statSync(desktop.env.XVFB_FB).size).toBeGreaterThanOrEqual(1280 * 800 * 4);
    // XDG_RUNTIME_DIR is private.
    expect(fs.statSync(desktop.env.XDG_RUNTIME_DIR).mode & 0o777).toBe(0o700);

    // The a11y bus address is valid: the registry owns its name on it.
    expect(desktop.env.AT_SPI_BUS_ADDRESS).toMatch(/^unix:/);
    expect(dbusNameHasOwner(desktop.env.AT_SPI_BUS_ADDRESS, 'org.a11y.atspi.Registry')).toBe(true);
    expect(dbusNameHasOwner(desktop.env.DBUS_SESSION_BUS_ADDRESS, 'org.a11y.Bus')).toBe(true);
    // Exactly one bus launcher: nothing D-Bus-activated a second one.
    const launchers = fs
      .readdirSync('/proc')
      .filter((e) => /^\d+$/.test(e) && running(Number(e)))
      .filter((e) => {
        try {
          const environ = fs.readFileSync(`/proc/${e}/environ`, 'latin1');
          return (
            fs.readFileSync(`/proc/${e}/comm`, 'utf8').trim() === 'at-spi-bus-laun' &&
            environ.includes(`DBUS_SESSION_BUS_ADDRESS=${desktop.env.DBUS_SESSION_BUS_ADDRESS}`)
          );
        } catch {
          return false;
        }
      });
    expect(launchers).toHaveLength(1);

    // openbox is the window manager: the EWMH check window exists and is its own.
    const check = run('xprop', ['-root', '_NET_SUPPORTING_WM_CHECK'], env);
    const win = /window id # (0x[0-9a-f]+)/.exec(check)?.[1];
    expect(win, check).toBeDefined();
    expect(run('xprop', ['-id', win as string, '_NET_WM_NAME'], env)).toMatch(/"Openbox"/);
  });

  it('reports its health', async () => {
    const h = await desktop.health();
    expect(h.x?.width).toBe(1280);
    expect(h.x?.height).toBe(800);
    expect(h).toMatchObject({
      a11yLauncher: true,
      a11yBus: true,
      registry: true,
      windowManager: true,
    });
    expect(h.pids.every((p) => p.alive)).toBe(true);
  });

  it('refuses a display that is busy', async () => {
    const err = await startDesktop({ display: desktop.display }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DesktopError);
    expect((err as DesktopError).code).toBe('display-busy');
    expect((err as Error).message).toContain(`:${desktop.display} is busy`);
  });

  it('launches gtk3-widget-factory and sees it registered under its pid', async () => {
    const app = await desktop.launch('gtk3-widget-factory');
    console.log(`gtk3-widget-factory ready in ${app.readyMs} ms`);
    expect(app.registered?.pid).toBe(app.pid);
    expect(app.registered?.name).toBe('gtk3-widget-factory');
    expect(pyatspiPids(desktop.processEnv())).toContain(app.pid);
    expect(desktop.pids.map((p) => p.pid)).toContain(app.pid);
    // The app runs in its own process group, started detached.
    expect(procStat(app.pid)?.pgrp).toBe(app.pid);
    expect(fs.readFileSync(app.logFile as string, 'utf8')).not.toMatch(/a11y|accessibility bus/i);
  });

  it('fails a launch clearly when the app exits early, with its output', async () => {
    const err = await desktop
      .launch('/usr/bin/python3', ['-c', 'import sys; sys.stderr.write("boom-42\\n"); sys.exit(3)'])
      .catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/exited \(3\) before it was ready[\s\S]*boom-42/);
  });

  it('fails a launch clearly when the app never registers, and stops it', async () => {
    const before = new Set(desktop.pids.map((p) => p.pid));
    const err = await desktop
      .launch('sleep', ['60'], { timeoutMs: 700 })
      .catch((e: unknown) => e as Error);
    expect((err as Error).message).toMatch(
      /did not register with the AT-SPI registry within 700 ms/,
    );
    const sleeper = desktop.pids.find((p) => !before.has(p.pid) && p.name === 'app:sleep');
    expect(sleeper).toBeDefined();
    expect(running((sleeper as RecordedPid).pid)).toBe(false);
  });

  it('fails clearly when Xvfb is not installed', async () => {
    const saved = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      const err = (await startDesktop().catch((e: unknown) => e)) as DesktopError;
      expect(err).toBeInstanceOf(DesktopError);
      expect(err.code).toBe('missing-binary');
      expect(err.message).toMatch(/Xvfb \(package xvfb\)[\s\S]*install-system-deps\.sh/);
    } finally {
      process.env.PATH = saved;
    }
  });

  it('stop() leaves none of its processes running and removes its state', async () => {
    recorded = desktop.pids;
    expect(recorded.length).toBeGreaterThanOrEqual(7);
    const report = await desktop.stop();
    console.log(`stop: ${report.ms} ms, ${JSON.stringify(report)}`);
    for (const p of recorded) expect(running(p.pid), `${p.name} ${p.pid}`).toBe(false);
    expect(report.survivors).toEqual([]);
    expect(fs.existsSync(desktop.stateDir)).toBe(false);
    expect(fs.existsSync(`/tmp/.X11-unix/X${desktop.display}`)).toBe(false);
  });
});

describe('state dir claims', () => {
  it('a stale state dir (dead pids, old) is reclaimed; a live one is not', () => {
    // A display far from the auto range, so no real desktop uses it.
    const dir = defaultStateDir(4242);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { mode: 0o700 });
    const dead = { pid: 999_999_9, name: 'xvfb', start: 1 };
    fs.writeFileSync(path.join(dir, 'state.json'), JSON.stringify({ version: 1, pids: [dead] }));
    try {
      // Young: might still be set up by someone else.
      expect(claimStateDir(dir)).toBe(false);
      const old = new Date(Date.now() - 60_000);
      fs.utimesSync(dir, old, old);
      expect(claimStateDir(dir)).toBe(true);
      expect(fs.existsSync(path.join(dir, 'state.json'))).toBe(false);
      // Now owned by this (live) process: a second claim fails, even when old.
      fs.utimesSync(dir, old, old);
      expect(claimStateDir(dir)).toBe(false);
      expect(isAlive(process.pid)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('axpage desktop CLI handler', () => {
  let display: number | undefined;

  /** Runs the handler in-process, capturing what it writes to stdout and stderr. */
  async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const o = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stdout += chunk.toString();
      return true;
    });
    const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stderr += chunk.toString();
      return true;
    });
    try {
      const code = await runDesktopCommand(args);
      return { code, stdout, stderr };
    } finally {
      o.mockRestore();
      e.mockRestore();
    }
  }

  afterAll(async () => {
    if (display !== undefined) await cli(['down', '--display', String(display)]);
  });

  it('up prints only export lines on stdout; run, env, status and down work on it', async () => {
    const up = await cli(['up', '--verbose']);
    expect(up.code, up.stderr).toBe(0);
    const lines = up.stdout.trimEnd().split('\n');
    for (const l of lines) expect(l).toMatch(/^export [A-Z_]+='[^']*'$/);
    const env: Record<string, string> = {};
    for (const l of lines) {
      const m = /^export ([A-Z_]+)='(.*)'$/.exec(l) as RegExpExecArray;
      env[m[1]] = m[2];
    }
    display = Number(env.DISPLAY.slice(1));
    console.log(`CLI up stderr:\n${up.stderr}`);
    expect(up.stderr).toMatch(/Xvfb :\d+ ready in [\d.]+ ms/);
    expect(up.stderr).toMatch(/openbox ready in [\d.]+ ms/);

    // The exported environment is enough for a client of our own: pyatspi sees the registry.
    const clientEnv = { ...process.env, ...env };
    delete clientEnv.NO_AT_BRIDGE;
    expect(pyatspiPids(clientEnv)).toEqual([]);

    const r = await cli(['run', '--display', String(display), '--', 'gtk3-widget-factory']);
    expect(r.code, r.stderr).toBe(0);
    const pid = Number(r.stdout.trim());
    expect(r.stdout).toMatch(/^\d+\n$/);
    expect(pyatspiPids(clientEnv)).toContain(pid);

    const bad = await cli(['run', '--display', String(display), '--', '/nonexistent/app']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/cannot start \/nonexistent\/app/);

    const e = await cli(['env', '--display', String(display)]);
    expect(e.stdout).toBe(up.stdout);

    const st = await cli(['status', '--display', String(display), '--json']);
    expect(st.code).toBe(0);
    const status = JSON.parse(st.stdout) as Array<{
      display: number;
      up: boolean;
      registry: boolean;
      windowManager: boolean;
      pids: Array<{ pid: number; name: string; alive: boolean }>;
    }>;
    expect(status).toHaveLength(1);
    expect(status[0]).toMatchObject({ display, up: true, registry: true, windowManager: true });
    expect(status[0].pids.find((p) => p.pid === pid)?.alive).toBe(true);
    const allPids = status[0].pids.map((p) => p.pid);

    const down = await cli(['down', '--display', String(display)]);
    expect(down.code, down.stderr).toBe(0);
    expect(down.stderr).toMatch(new RegExp(`:${display} down`));
    for (const p of allPids) expect(running(p), String(p)).toBe(false);

    const again = await cli(['env', '--display', String(display)]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`no axpage desktop on :${display}`));
    display = undefined;
  });

  it('rejects bad usage with exit code 2', async () => {
    expect((await cli(['frobnicate'])).code).toBe(2);
    expect((await cli(['run'])).code).toBe(2);
    expect((await cli(['up', '--display', 'x'])).code).toBe(2);
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/usage: axpage desktop/);
  });

  it('says when a display is busy', async () => {
    const d = await startDesktop({ windowManager: false });
    try {
      const r = await cli(['up', '--display', String(d.display)]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(new RegExp(`display :${d.display} is busy`));
    } finally {
      await d.stop();
    }
  });
});
