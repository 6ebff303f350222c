/**
 * What an app does about a change from an idle callback is part of the action's effect:
 * gtk4-demo's dropdown with a search entry filters its list after the text is set, later
 * than the settle's first window (GTK 4 sends no change event for the text in time). The
 * summary of typing "hour" must show the rows going; pyatspi confirms the list is empty.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';
import { describeNeeding, itNeeding, program } from './helpers/needs.js';
import { readNth } from './helpers/oracle.js';

const needs = [program('gtk4-demo', 'gtk-4-examples')];

describeNeeding(needs, "an app's follow-on change from an idle callback", () => {
  let session: Session;
  let app: LaunchedApp;

  beforeAll(async () => {
    session = await Session.start();
    app = await session.launch('gtk4-demo', ['--run=dropdown']);
  }, 90_000);

  afterAll(async () => {
    await session?.close();
  });

  const lines = (file: string) => fs.readFileSync(file, 'utf8').split('\n');
  const refOf = (line: string) => /\be(\d+)\b/.exec(line)![0];

  itNeeding(
    needs,
    "typing into a dropdown's search shows its list emptied",
    async () => {
      const tree = await session.call('ax_get_tree', { app: app.pid });
      const all = lines(tree.fields.file);
      // The second dropdown (times: "1 minute", ...) has search enabled; its button first.
      const combo = all.filter((l) => /\[AXComboBox /.test(l))[1];
      const open = await session.call('ax_click', {
        ref: refOf(all[all.indexOf(combo) + 1]),
        delivery_mode: 'foreground',
      });
      expect(open.isError, open.text).toBe(false);
      const entry = lines(open.fields.file).find(
        (l) => /^\+ \[AXTextField /.test(l) && / visible /.test(l),
      );
      expect(entry, open.text).toBeDefined();
      const rowsBefore = (await readNth(session, app.pid, 'list item', 0)).count;
      expect(rowsBefore).toBeGreaterThan(0);
      const r = await session.call('ax_type', { ref: refOf(entry!), text: 'hour' });
      expect(r.isError, r.text).toBe(false);
      // No time matches "hour": the list is empty.
      expect((await readNth(session, app.pid, 'list item', 0)).count).toBe(0);
      const header = lines(r.fields.file).find((l) => l.startsWith('# action:'));
      expect(r.fields.summary, header).toMatch(/0 added, [1-9]\d* removed/);
      await session.call('ax_key_press', { app: app.pid, key: 'Escape' });
    },
    120_000,
  );
});
