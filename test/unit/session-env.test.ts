/**
 * Finding the desktop session a client left out, on a made-up /proc: the nearest ancestor
 * of the same user whose environment names a display gives the missing variables; without
 * one, the user's runtime dir and its bus are taken; an environment that names a session is
 * left as it is.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  describeSessionEnv,
  fillSessionEnv,
  namesSession,
} from '../../src/platform/linux/session-env.js';

let root: string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'session-env-'));
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

/** A process in the made-up /proc. */
function proc(pid: number, ppid: number, uid: number, name: string, env?: Record<string, string>) {
  const dir = path.join(root, 'proc', String(pid));
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'status'),
    `Name:\t${name}\nPPid:\t${ppid}\nUid:\t${uid}\t${uid}\t${uid}\t${uid}\n`,
  );
  if (env) {
    const raw = Object.entries(env)
      .map(([k, v]) => `${k}=${v}\0`)
      .join('');
    fs.writeFileSync(path.join(dir, 'environ'), raw);
  }
}

const BARE = { HOME: '/home/u', PATH: '/usr/bin', SHELL: '/bin/sh', USER: 'u', LOGNAME: 'u' };

describe('fillSessionEnv', () => {
  it("takes the missing variables from the nearest ancestor of the user's that names a display", () => {
    proc(1, 0, 0, 'init', { DISPLAY: ':9' });
    proc(100, 1, 1000, 'gnome-shell', {
      DISPLAY: ':0',
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
      XAUTHORITY: '/run/user/1000/.Xauthority',
    });
    proc(200, 100, 1000, 'claude', {
      DISPLAY: ':1',
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/b1',
      XDG_CURRENT_DESKTOP: 'GNOME',
    });
    proc(300, 200, 1000, 'npx', BARE);
    proc(400, 300, 1000, 'node', BARE);
    const env: NodeJS.ProcessEnv = { ...BARE };
    const source = fillSessionEnv(env, { pid: 400, uid: 1000, procRoot: path.join(root, 'proc') });
    expect(source?.from).toEqual({ pid: 200, command: 'claude' });
    expect(env).toMatchObject({
      DISPLAY: ':1',
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/b1',
      XDG_CURRENT_DESKTOP: 'GNOME',
    });
    expect(env.XAUTHORITY).toBeUndefined();
    expect(describeSessionEnv(source!)).toMatch(
      /took DISPLAY=:1, DBUS_SESSION_BUS_ADDRESS, XDG_CURRENT_DESKTOP from the environment of claude \(pid 200\)/,
    );
  });

  it("skips another user's processes and keeps what the client did pass", () => {
    proc(100, 1, 0, 'sudo', { DISPLAY: ':5', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/root-bus' });
    proc(200, 100, 1000, 'term', { DISPLAY: ':2', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/b2' });
    proc(300, 200, 1000, 'node', BARE);
    proc(310, 300, 1000, 'node', BARE);
    const env: NodeJS.ProcessEnv = { ...BARE, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/mine' };
    fillSessionEnv(env, { pid: 310, uid: 1000, procRoot: path.join(root, 'proc') });
    expect(env.DISPLAY).toBe(':2');
    expect(env.DBUS_SESSION_BUS_ADDRESS).toBe('unix:path=/mine');
  });

  it("without a session above, takes the user's runtime dir and its bus, and guesses no display", async () => {
    proc(300, 1, 1000, 'node', BARE);
    proc(310, 300, 1000, 'node', BARE);
    const runtime = path.join(root, 'run', String(process.getuid!()));
    fs.mkdirSync(runtime, { recursive: true });
    const bus = net.createServer().listen(path.join(runtime, 'bus'));
    await new Promise((r) => bus.once('listening', r));
    try {
      const env: NodeJS.ProcessEnv = { ...BARE };
      const source = fillSessionEnv(env, {
        pid: 310,
        uid: process.getuid!(),
        procRoot: path.join(root, 'proc'),
        runtimeRoot: path.join(root, 'run'),
      });
      expect(source?.from).toEqual({ runtimeDir: runtime });
      expect(env.XDG_RUNTIME_DIR).toBe(runtime);
      expect(env.DBUS_SESSION_BUS_ADDRESS).toBe(`unix:path=${path.join(runtime, 'bus')}`);
      expect(env.DISPLAY).toBeUndefined();
    } finally {
      bus.close();
    }
  });

  it('leaves an environment that names a session alone, and finds nothing where nothing is', () => {
    const named: NodeJS.ProcessEnv = { ...BARE, DISPLAY: ':3', AT_SPI_BUS_ADDRESS: 'unix:path=/a' };
    expect(namesSession(named)).toBe(true);
    expect(fillSessionEnv(named, { pid: 1, procRoot: path.join(root, 'proc') })).toBeUndefined();
    proc(310, 1, 1000, 'node', BARE);
    const bare: NodeJS.ProcessEnv = { ...BARE };
    expect(
      fillSessionEnv(bare, {
        pid: 310,
        uid: 1000,
        procRoot: path.join(root, 'proc'),
        runtimeRoot: path.join(root, 'none'),
      }),
    ).toBeUndefined();
    expect(bare).toEqual(BARE);
  });
});
