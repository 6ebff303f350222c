/**
 * `axpage desktop up|run|env|down --session sway`: a sway session from the shell, that
 * `axpage serve` then drives. The handler runs in-process (its stdout and stderr caught);
 * the server is the built one, started with the exported environment as a shell's
 * `eval "$(axpage desktop up --session sway)"` would leave it (DISPLAY set before, unset
 * by the lines). Oracles: swaymsg, /proc.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';

import { runDesktopCommand } from '../../src/cli/desktop.js';
import { pollUntil, procStat } from '../../src/desktop/procs.js';
import { startServeClient } from '../../src/harness/serve-client.js';
import { fixtureApp } from '../../src/harness/session.js';
import { describeNeeding, pythonModule } from './helpers/needs.js';
import { SWAY_SESSION_NEEDS } from './helpers/sway-needs.js';

const running = (pid: number): boolean => {
  const st = procStat(pid);
  return st !== null && st.state !== 'Z' && st.state !== 'X';
};

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
    return { code: await runDesktopCommand(args), stdout, stderr };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

/** The environment a shell has after eval-ing the lines: `unset` first, then the exports. */
function evalLines(lines: string, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const line of lines.trimEnd().split('\n')) {
    const unset = /^unset ([A-Z0-9_ ]+)$/.exec(line);
    const exp = /^export ([A-Z0-9_]+)='(.*)'$/.exec(line);
    if (unset) for (const k of unset[1].split(' ')) delete env[k];
    else if (exp) env[exp[1]] = exp[2];
    else throw new Error(`a line that is neither unset nor export: ${line}`);
  }
  return env;
}

describeNeeding(
  [...SWAY_SESSION_NEEDS, pythonModule('gi', 'python3-gi')],
  'axpage desktop --session sway',
  () => {
    let up = false;
    afterAll(async () => {
      if (up) await cli(['down', '--session', 'sway']);
    });

    it('brings sway up, runs an app in it, serves it, and takes it all down', async () => {
      const started = await cli(['up', '--session', 'sway', '--verbose']);
      expect(started.code, started.stderr).toBe(0);
      up = true;
      expect(started.stderr).toMatch(/seat devices ready in [\d.]+ ms/);
      const env = evalLines(started.stdout, { ...process.env, DISPLAY: ':4242' });
      expect(env.DISPLAY).toBeUndefined();
      expect(env.SWAYSOCK && fs.statSync(env.SWAYSOCK).isSocket()).toBe(true);
      const stateDir = path.dirname(env.XDG_RUNTIME_DIR as string);

      const run = await cli([
        'run',
        '--session',
        'sway',
        '--',
        '/usr/bin/python3',
        fixtureApp('form.py'),
      ]);
      expect(run.code, run.stderr).toBe(0);
      const pid = Number(run.stdout.trim());
      // Accessible is not yet mapped: sway lists the window once the app's surface is up.
      const listed = () =>
        execFileSync('swaymsg', ['-t', 'get_tree', '-r'], { env, encoding: 'utf8' }).includes(
          `"pid": ${pid},`,
        );
      await pollUntil(listed, { timeoutMs: 30_000, what: `sway to list pid ${pid}'s window` });
      expect((await cli(['env', '--session', 'sway'])).stdout).toBe(started.stdout);

      // axpage serve in that environment drives the sway session, not an X display.
      const client = await startServeClient({
        env: { ...(env as Record<string, string>), AXPAGE_OUT: path.join(stateDir, 'out') },
      });
      try {
        const r = await client.call('ax_is_accessible', {});
        expect(r.structured.details).toMatchObject({
          display: env.WAYLAND_DISPLAY,
          compositor: expect.stringMatching(/^sway 1\.\d+/) as unknown,
        });
        const windows = await client.call('ax_list_windows', { app: pid });
        expect(windows.isError, windows.text).toBe(false);
        expect(windows.text).toContain('Fixture Form');
      } finally {
        await client.close();
      }

      const swayPid = Number(/sway-ipc\.\d+\.(\d+)\.sock$/.exec(env.SWAYSOCK as string)?.[1]);
      expect(running(swayPid)).toBe(true);
      const down = await cli(['down', '--session', 'sway']);
      expect(down.code, down.stderr).toBe(0);
      up = false;
      expect(down.stderr).toMatch(/down, 7 processes stopped/);
      for (const p of [pid, swayPid]) expect(running(p), String(p)).toBe(false);
      expect(fs.existsSync(stateDir)).toBe(false);
      const again = await cli(['down', '--session', 'sway']);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/no axpage sway session is up/);
    }, 120_000);

    it('refuses X11 options with --session sway, and an unknown session', async () => {
      expect((await cli(['up', '--session', 'sway', '--display', '5'])).code).toBe(2);
      const bad = await cli(['up', '--session', 'kde']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/bad --session "kde": x11 or sway/);
    });
  },
);
