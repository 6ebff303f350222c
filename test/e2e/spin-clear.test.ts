/**
 * Typing with clear_first into a GTK 3 spin button in the foreground replaces its text:
 * mousepad's Preferences "Long line margin at column:" (80) takes 100, not "80100"
 * (which its range clamps to 9999). The oracle is the spin button's value as pyatspi
 * reads it.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';
import { describeNeeding, itNeeding, program } from './helpers/needs.js';
import { readNth } from './helpers/oracle.js';

const needs = [program('mousepad', 'mousepad')];

describeNeeding(needs, 'clear_first into a GTK 3 spin button, foreground', () => {
  let session: Session;
  let pad: LaunchedApp;

  beforeAll(async () => {
    session = await Session.start();
    const home = path.join(session.artifactDir, 'home');
    pad = await session.launch('mousepad', ['--disable-server'], {
      name: 'mousepad-spin',
      env: {
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, 'config'),
        XDG_DATA_HOME: path.join(home, 'data'),
      },
    });
  }, 90_000);

  afterAll(async () => {
    await session?.close();
  });

  /** The first spin button's value once it reads `want` (bounded), else what it reads. */
  async function marginReads(want: number): Promise<number | undefined> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const v = (await readNth(session, pad.pid, 'spin button', 0)).element?.value;
      if (v === want || Date.now() > deadline) return v;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  itNeeding(
    needs,
    'the margin 80 becomes 100, and the summary says it was cleared',
    async () => {
      const edit = await session.call('ax_click', {
        app: pad.pid,
        query: 'menubaritem:Edit',
        delivery_mode: 'foreground',
      });
      expect(edit.isError, edit.text).toBe(false);
      const prefs = await session.call('ax_click', {
        app: pad.pid,
        query: 'menuitem:Preferences',
        delivery_mode: 'foreground',
      });
      expect(prefs.isError, prefs.text).toBe(false);
      const box = await session.call('ax_click', {
        app: pad.pid,
        query: 'checkbox:"Long line margin at column:"',
      });
      expect(box.isError, box.text).toBe(false);
      expect(await marginReads(80)).toBe(80);
      const r = await session.call('ax_type', {
        app: pad.pid,
        query: 'spinner',
        text: '100',
        clear_first: true,
        delivery_mode: 'foreground',
      });
      expect(r.isError, r.text).toBe(false);
      expect(await marginReads(100)).toBe(100);
      expect(r.text).toMatch(/\(cleared first\)/);
      expect(r.text).toMatch(/value 80 → 100/);
      expect(r.text).toMatch(/effect: confirmed/);
    },
    120_000,
  );
});
