/**
 * The client side of axpage-wl-input, against stand-in helpers (shell scripts) that speak
 * its line protocol: commands go one at a time, each answer settles its command, refusals
 * become PlatformErrors with the right code, and a helper that cannot start says why.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PlatformError } from '../../src/errors.js';
import { WaylandInput } from '../../src/platform/linux/wayland/input.js';

let dir: string;
const script = (name: string, body: string): string => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
};
const env = { PATH: process.env.PATH, WAYLAND_DISPLAY: 'wayland-test' };
const size = async (): Promise<{ w: number; h: number }> => ({ w: 1280, h: 800 });

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-wl-input-test-'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('WaylandInput', () => {
  it('sends the layout size first, then each command in order, each settled by its answer', async () => {
    const log = path.join(dir, 'commands.log');
    const helper = script(
      'echoing',
      `echo ready\nwhile read -r line; do echo "$line" >> '${log}'; case "$line" in key*BadKey*) echo "err no key can be given BadKey";; *) echo ok;; esac; done`,
    );
    const input = new WaylandInput(env, size, helper);
    try {
      await Promise.all([
        input.run('click 10 20 272 1'),
        input.run('key 0xff0d 4'),
        input.run('type 6869'),
      ]);
      const err = await input.run('key BadKey 0').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PlatformError);
      expect(err).toMatchObject({ code: 'bad_key', message: 'no key can be given BadKey' });
      // The helper is still good after a refusal.
      await input.run('move 1 2');
      expect(fs.readFileSync(log, 'utf8').trim().split('\n')).toEqual([
        'size 1280 800',
        'click 10 20 272 1',
        'key 0xff0d 4',
        'type 6869',
        'key BadKey 0',
        'move 1 2',
      ]);
    } finally {
      input.close();
    }
  });

  it('says why the helper cannot start: no protocol, no display, not built', async () => {
    const noProtocol = new WaylandInput(
      env,
      size,
      script('no-protocol', 'echo "fail the compositor offers no zwlr_virtual_pointer_manager_v1"'),
    );
    await expect(noProtocol.run('move 1 1')).rejects.toMatchObject({
      code: 'unsupported',
      message: /cannot start: the compositor offers no zwlr_virtual_pointer_manager_v1/,
    });
    const noDisplay = new WaylandInput({ PATH: process.env.PATH }, size, script('never', 'exit 3'));
    await expect(noDisplay.run('move 1 1')).rejects.toMatchObject({
      code: 'no_display',
      message: /WAYLAND_DISPLAY is not set/,
    });
    const notBuilt = new WaylandInput(env, size, null);
    await expect(notBuilt.run('move 1 1')).rejects.toMatchObject({
      code: 'unsupported',
      message: /axpage-wl-input is not built/,
    });
  });

  it('says the helper exited when it goes away mid-way, and starts a new one for the next command', async () => {
    const counter = path.join(dir, 'starts');
    const helper = script(
      'dies-once',
      `echo x >> '${counter}'\necho ready\nread -r size; echo ok\nif [ "$(wc -l < '${counter}')" -eq 1 ]; then read -r line; exit 1; fi\nwhile read -r line; do echo ok; done`,
    );
    const input = new WaylandInput(env, size, helper);
    try {
      await expect(input.run('move 1 1')).rejects.toMatchObject({
        code: 'failed',
        message: /the Wayland input helper exited/,
      });
      await input.run('move 2 2');
      expect(fs.readFileSync(counter, 'utf8').trim().split('\n')).toHaveLength(2);
    } finally {
      input.close();
    }
  });
});
