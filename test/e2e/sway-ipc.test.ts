/**
 * The sway IPC client and the tree reader against a real headless sway with two GTK3
 * fixtures: commands that fail throw with sway's own error, focus and floating change what
 * the tree says in the order windowsFromTree gives, a killed window leaves the tree, and
 * two clients can talk to sway at once. swaymsg is the independent reader.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { startSway } from '../../src/desktop/sway.js';
import type { SwaySession } from '../../src/desktop/sway.js';
import { PlatformError } from '../../src/errors.js';
import { pollUntil } from '../../src/model/timeout.js';
import type { SwayIpc } from '../../src/platform/linux/wayland/sway-ipc.js';
import { windowsFromTree } from '../../src/platform/linux/wayland/sway-tree.js';
import type { SwayWindow } from '../../src/platform/linux/wayland/sway-tree.js';
import { describeNeeding, program, pythonModule } from './helpers/needs.js';

const app = (name: string): string =>
  fileURLToPath(new URL(`../fixtures/apps/${name}`, import.meta.url));

describeNeeding(
  [program('sway', 'sway'), program('swaymsg', 'sway'), pythonModule('gi', 'python3-gi')],
  'sway IPC against a real sway',
  () => {
    let session: SwaySession;
    let ipc: SwayIpc;
    let form: number;
    let states: number;

    const windows = async (): Promise<SwayWindow[]> => windowsFromTree(await ipc.getTree());
    const swaymsg = (...args: string[]): string =>
      execFileSync('swaymsg', args, { env: session.processEnv(), encoding: 'utf8' });
    /** Waits until the tree satisfies `ok`, and returns its windows. */
    const treeWhere = (ok: (ws: SwayWindow[]) => boolean, what: string): Promise<SwayWindow[]> =>
      pollUntil(
        async () => {
          const ws = await windows();
          return ok(ws) ? ws : null;
        },
        { timeoutMs: 20_000, what },
      );

    beforeAll(async () => {
      session = await startSway();
      ipc = await session.ipc();
      form = (await session.spawnApp('/usr/bin/python3', [app('form.py')])).pid;
      states = (await session.spawnApp('/usr/bin/python3', [app('states.py')])).pid;
      await treeWhere(
        (ws) => [form, states].every((p) => ws.some((w) => w.pid === p && w.settled)),
        'both fixtures settled in the tree',
      );
    });

    afterAll(async () => {
      ipc?.close();
      await session?.stop();
    });

    it('reports the output our config asked for', async () => {
      const [out] = await ipc.getOutputs();
      expect(out).toMatchObject({ name: 'HEADLESS-1', active: true, scale: 1 });
      expect(out.rect).toEqual({ x: 0, y: 0, width: 1280, height: 800 });
      expect((await ipc.getVersion()).major).toBe(1);
    });

    it('throws with sway’s error for a command that fails, and for one of several', async () => {
      const err = await ipc.runCommand('[pid=999999999] focus').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PlatformError);
      expect((err as Error).message).toMatch(/sway refused "\[pid=999999999\] focus": .+/);
      await expect(ipc.runCommand(`[pid=${form}] focus, frobnicate`)).rejects.toThrow(
        /command 2: .*frobnicate/i,
      );
      await expect(ipc.runCommand('nonsense')).rejects.toThrow(/parse error/);
      // The connection is still good after refused commands.
      expect((await ipc.runCommand(`[pid=${form}] focus`)).every((r) => r.success)).toBe(true);
    });

    it('puts the focused tiled window first, then a floating one above all', async () => {
      let ws = await treeWhere(
        (w) => w.find((x) => x.focused)?.pid === form && w.every((x) => x.settled),
        'the form focused, both settled',
      );
      expect(ws.map((w) => w.pid)).toEqual([form, states]);
      // Side by side, tiled, the title bars above the content.
      expect(ws.every((w) => !w.floating && w.rect.y > w.frame.y)).toBe(true);

      await ipc.runCommand(`[pid=${states}] floating enable`);
      await ipc.runCommand(`[pid=${form}] focus`);
      ws = await treeWhere(
        (w) =>
          w.find((x) => x.pid === states)?.floating === true &&
          w.find((x) => x.focused)?.pid === form &&
          w.every((x) => x.settled),
        'states floating, the form focused',
      );
      // The floating window is drawn over the focused tiled one.
      expect(ws.map((w) => [w.pid, w.floating, w.focused])).toEqual([
        [states, true, false],
        [form, false, true],
      ]);
      // swaymsg sees the same windows and geometry.
      const raw = JSON.parse(swaymsg('-t', 'get_tree', '-r')) as unknown;
      expect(windowsFromTree(raw).map((w) => [w.pid, w.rect])).toEqual(
        ws.map((w) => [w.pid, w.rect]),
      );
    });

    it('serves two clients at once', async () => {
      const other = await session.ipc();
      try {
        const [a, b] = await Promise.all([ipc.getTree(), other.getTree()]);
        expect(windowsFromTree(a).map((w) => w.id)).toEqual(windowsFromTree(b).map((w) => w.id));
      } finally {
        other.close();
      }
    });

    it('closes a window by pid and the tree drops it', async () => {
      await ipc.runCommand(`[pid=${states}] kill`);
      const ws = await treeWhere((w) => !w.some((x) => x.pid === states), 'states gone');
      expect(ws.map((w) => w.pid)).toEqual([form]);
    });
  },
);
