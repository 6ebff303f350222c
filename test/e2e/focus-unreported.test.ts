/**
 * gnome-text-editor (GTK 4): Ctrl+Home and Ctrl+End move the caret of its text and are not
 * called a no-op (the caret offset read with pyatspi).
 *
 * A key aimed at a text field whose toolkit reports no focused element at all (GTK 4.8:
 * gnome-text-editor's search entry hands its keys to an inner text left out of the tree)
 * is sent once the field was focused and its window is active, and the summary says the
 * focus could not be confirmed; it is not refused. The oracle is the editor's own match
 * counter, read with pyatspi.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Session } from '../../src/harness/session.js';
import { describeNeeding, program } from './helpers/needs.js';
import { waitForApp } from './helpers/oracle.js';

describeNeeding([program('gnome-text-editor', 'gnome-text-editor')], 'gnome-text-editor', () => {
  let session: Session;
  let dir: string;
  beforeAll(async () => {
    session = await Session.start();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-focus-'));
  });
  afterAll(async () => {
    await session?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('takes a Return aimed at it, said unconfirmed, and the editor moves to the match', async () => {
    const file = path.join(dir, 'note.txt');
    fs.writeFileSync(file, 'alpha\nsecond line\nthird line\n');
    const app = await session.launch('gnome-text-editor', ['--standalone', file], {
      timeoutMs: 60_000,
    });
    const opened = await session.call('ax_key_press', { app: app.pid, key: 'ctrl+f' });
    expect(opened.isError, opened.text).toBe(false);
    const ref = /\[AXTextField\] "[^"]*" (e\d+)/.exec(opened.text)?.[1];
    expect(ref, opened.text).toBeDefined();
    const r = await session.call('ax_type', { app: app.pid, ref, text: 'line', key: 'Return' });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toMatch(/not confirmed/);
    const counter = await waitForApp(
      session,
      app.pid,
      (els) => els.find((e) => /^1 of 2$/.test(e.text ?? e.name))?.text,
      "the search's counter at '1 of 2'",
    );
    expect(counter).toBe('1 of 2');
  });

  it('Ctrl+Home and Ctrl+End in its text move the caret, and are not called a no-op', async () => {
    const file = path.join(dir, 'caret.txt');
    fs.writeFileSync(file, 'alpha beta\nsecond line\n');
    const app = await session.launch('gnome-text-editor', ['--standalone', file], {
      timeoutMs: 60_000,
    });
    for (const [key, at] of [
      ['ctrl+End', (t: string) => [...t].length],
      ['ctrl+Home', () => 0],
    ] as const) {
      const r = await session.call('ax_key_press', { app: app.pid, key, query: 'textarea' });
      expect(r.isError, r.text).toBe(false);
      await waitForApp(
        session,
        app.pid,
        (els) => {
          const area = els.find((e) => e.text?.startsWith('alpha beta'));
          return area?.text !== undefined && area.caret === at(area.text) ? true : undefined;
        },
        `the caret where ${key} sends it`,
      );
      expect(r.text).not.toMatch(/suspected_noop/);
    }
  });
});
