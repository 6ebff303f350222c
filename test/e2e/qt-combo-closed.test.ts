/**
 * A closed Qt combo box keeps its list's rows in the tree (Qt 6: the list not showing, with
 * no frame; its rows at 0,0): they are not listed as visible, in the tree file or in the
 * summary. Oracle: pyatspi's reading of qt6ct (the list not showing while closed).
 */
import fs from 'node:fs';
import { expect, it } from 'vitest';
import { describeNeeding, program } from './helpers/needs.js';
import { waitForApp } from './helpers/oracle.js';
import { sessionPerSuite } from './helpers/suite-session.js';

describeNeeding([program('qt6ct', 'qt6ct')], "qt6ct's closed combo boxes", () => {
  const get = sessionPerSuite();

  it('list no row of their lists as visible', async () => {
    const session = get();
    const app = await session.launch('qt6ct', [], { timeoutMs: 60_000 });
    // The app's own word: the style combo box's list is not showing, its row "Windows" is there.
    await waitForApp(
      session,
      app.pid,
      (els) => {
        const i = els.findIndex((e) => e.role === 'list item' && e.name === 'Windows');
        const list = els.slice(0, i).findLast((e) => e.role === 'list');
        return i >= 0 && list && !list.states.includes('showing') ? true : undefined;
      },
      "the style list not showing, with its row 'Windows'",
      30_000,
      { cells: true },
    );
    const r = await session.call('ax_get_tree', { app: app.pid });
    expect(r.isError, r.text).toBe(false);
    const rows = fs
      .readFileSync(r.fields.file, 'utf8')
      .split('\n')
      .filter((l) => /\[AXRow[^\]]*\] "Windows"/.test(l));
    expect(rows.length).toBeGreaterThan(0);
    for (const line of rows) expect(line).not.toMatch(/\bvisible\b/);
    expect(r.text).not.toMatch(/\[AXRow\] "Windows"/);
    expect(r.text).toMatch(/\[AXComboBox\] "Fusion"/);
    await app.stop();
  }, 120_000);
});
