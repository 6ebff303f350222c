/**
 * An element that only animates (GTK 4's spinners turn, and their accessible extents turn
 * with them) is not an action's effect: gtk4-widget-factory's first page has two running
 * spinners. A click on blank space must not read as confirmed, and a real change that
 * shows late (the About dialog's Credits tab selected by GTK 4.8 after its action
 * returned) must still be seen and shown. Checked with pyatspi.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';
import { describeNeeding, itNeeding, program } from './helpers/needs.js';
import { readNth } from './helpers/oracle.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

const needs = [program('gtk4-widget-factory', 'gtk-4-examples')];

describeNeeding(needs, 'an element that only animates is not the effect', () => {
  let session: Session;
  let app: LaunchedApp;

  beforeAll(async () => {
    session = await Session.start();
    app = await session.launch('gtk4-widget-factory');
  }, 90_000);

  afterAll(async () => {
    await session?.close();
  });

  /** Reads `check` until it holds (bounded: the machine may be loaded). */
  async function pollUntil(check: () => Promise<boolean | undefined>, what: string) {
    const deadline = Date.now() + 60_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`pyatspi never saw ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  itNeeding(
    needs,
    'a click on blank space is not confirmed by the spinners',
    async () => {
      const first = await session.call('ax_get_tree', { app: app.pid, max_depth: 1 });
      expect(first.isError).toBe(false);
      // The page's spinners do move under pyatspi with no input (else this test shows nothing).
      const { stdout } = await run(
        '/usr/bin/python3',
        [path.join(here, 'helpers/atspi_moving.py'), String(app.pid), 'filler', '10'],
        { env: session.desktop.processEnv() as Record<string, string>, timeout: 120_000 },
      );
      expect((JSON.parse(stdout) as { moving: number }).moving).toBeGreaterThan(0);
      // Blank space in the "Text Styles" area, right of its text.
      const r = await session.call('ax_click_at', {
        app: app.pid,
        x: 1000,
        y: 565,
        delivery_mode: 'foreground',
      });
      expect(r.isError, r.text).toBe(false);
      expect(r.text).not.toMatch(/effect: confirmed/);
      expect(r.fields.summary).not.toMatch(/\d+ moved/);
    },
    120_000,
  );

  itNeeding(
    needs,
    "the About dialog's Credits tab selected by a click is reported",
    async () => {
      const about = await session.call('ax_key_press', { app: app.pid, key: 'F1' });
      expect(about.isError, about.text).toBe(false);
      // The About dialog's page tabs as pyatspi reads them.
      const tab = async (name: string) =>
        (await readNth(session, app.pid, 'page tab', 0, name)).element;
      await pollUntil(async () => (await tab('Credits')) !== null, 'the Credits tab');
      const r = await session.call('ax_click', { app: app.pid, query: 'radio:"Credits"' });
      expect(r.isError, r.text).toBe(false);
      await pollUntil(
        async () => (await tab('Credits'))?.states.includes('selected'),
        'Credits selected',
      );
      expect((await tab('About'))?.states).not.toContain('selected');
      expect(r.text).toMatch(/effect: confirmed/);
      // The summary shows the selection, not only the spinners.
      expect(r.text, r.text).toMatch(/"Credits" e\d+[^\n]*: [^\n]*unselected -> selected/);
      // What moved is the dialog's own layout (its page changed), never the spinners of the
      // window behind it: every moved element is now inside the dialog's frame.
      const listed = await session.call('ax_list_windows', { app: app.pid });
      const line = listed.text
        .split('\n')
        .find((l) => /^\s*\d+: /.test(l) && l.includes('"About GTK Widget Factory"'));
      const m = /\((-?\d+),(-?\d+) (\d+)x(\d+)\)/.exec(line ?? '');
      expect(m, listed.text).not.toBeNull();
      const [dx, dy, dw, dh] = m!.slice(1).map(Number);
      const moved = fs
        .readFileSync(String(r.fields.file), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('~ moved '));
      for (const l of moved) {
        const to = /-> (-?\d+),(-?\d+)/.exec(l);
        expect(to, l).not.toBeNull();
        const [x, y] = to!.slice(1).map(Number);
        expect(x >= dx && x < dx + dw && y >= dy && y < dy + dh, `${l} outside the dialog`).toBe(
          true,
        );
      }
      await session.call('ax_key_press', { app: app.pid, key: 'Escape' });
    },
    120_000,
  );
});
