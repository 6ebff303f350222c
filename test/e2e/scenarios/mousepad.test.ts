/**
 * Issue 7 on a text editor we never tuned to: mousepad (GTK3, from Debian). Its text area
 * sits in a notebook page whose tab does not report "showing"; its save dialog is GTK's
 * file chooser. Oracles: the file mousepad writes to disk, an independent pyatspi read, and
 * the screenshot's pixels.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../../src/desktop/apps.js';
import { Session } from '../../../src/harness/session.js';
import { coloursIn, readApp, viewportOf, waitForApp } from '../helpers/oracle.js';

let session: Session;
let work: string;

beforeAll(async () => {
  session = await Session.start();
  await session.client.listTools();
  work = fs.mkdtempSync(path.join(session.artifactDir, 'mousepad-'));
});

afterAll(async () => {
  await session?.close();
});

/** A mousepad of its own (no D-Bus single instance), with a fresh home for its settings. */
function launchMousepad(name: string, files: string[] = []): Promise<LaunchedApp> {
  const home = path.join(work, `home-${name}`);
  fs.mkdirSync(home, { recursive: true });
  return session.launch('mousepad', ['--disable-server', ...files], {
    name: `mousepad-${name}`,
    env: {
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_DATA_HOME: path.join(home, '.local', 'share'),
    },
  });
}

describe('visible means on screen', () => {
  it("lists the editor's text area, and the screenshot shows text where it is listed", async () => {
    const seed = path.join(work, 'seed.txt');
    fs.writeFileSync(seed, 'Seed line one of the scenario\nSeed line two\n');
    const mp = await launchMousepad('seed', [seed]);
    const view = await waitForApp(
      session,
      mp.pid,
      (els) => els.find((e) => e.role === 'text' && e.text?.startsWith('Seed line one')),
      'the seeded text view',
    );
    const r = await session.call('ax_get_tree', { app: mp.pid });
    expect(r.isError, r.text).toBe(false);
    const line = (r.lists.visible_elements ?? []).find((l) => l.includes('[AXTextArea]'));
    expect(line, r.text).toBeDefined();
    // Where axpage has it (its tree file) is where the app has it (pyatspi) ...
    const fileLine = fs
      .readFileSync(r.fields.file, 'utf8')
      .split('\n')
      .find((l) => l.includes('[AXTextArea'));
    const at = /x:(-?\d+) y:(-?\d+)/.exec(fileLine ?? '');
    expect(at, fileLine).not.toBeNull();
    const [x, y, w, h] = view.extents ?? [0, 0, 0, 0];
    expect(Math.abs(Number(at?.[1]) - x)).toBeLessThanOrEqual(2);
    expect(Math.abs(Number(at?.[2]) - y)).toBeLessThanOrEqual(2);
    // ... and the PNG of the same call shows drawn text there, not a flat or hidden area.
    const colours = await coloursIn(r.fields.screenshot, viewportOf(r.fields.file), [
      x,
      y,
      Math.min(w, 400),
      Math.min(h, 60),
    ]);
    expect(colours).toBeGreaterThan(2);
    await mp.stop();
  });
});

describe('type, ctrl+s, a file name into the save dialog, Return', () => {
  it('saves the typed text to the named file on disk', async () => {
    const mp = await launchMousepad('save');
    const text = 'Saved by the issue-7 scenario';
    const typed = await session.call('ax_type', { app: mp.pid, text });
    expect(typed.isError, typed.text).toBe(false);
    await waitForApp(
      session,
      mp.pid,
      (els) => els.find((e) => e.role === 'text' && e.text === text),
      'the typed text in the editor',
    );

    const save = await session.call('ax_key_press', { app: mp.pid, key: 's', modifiers: ['ctrl'] });
    expect(save.isError, save.text).toBe(false);
    await waitForApp(
      session,
      mp.pid,
      (els) => els.find((e) => e.role === 'file chooser' && e.states.includes('showing')),
      'the save dialog',
    );

    const target = path.join(work, 'saved-by-scenario.txt');
    // The file name field has the focus in GTK's save dialog: no target needed.
    const named = await session.call('ax_type', { app: mp.pid, text: target, key: 'Return' });
    expect(named.isError, named.text).toBe(false);
    const deadline = Date.now() + 5000;
    while (!fs.existsSync(target) && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(fs.existsSync(target), `mousepad saved ${target}`).toBe(true);
    expect(fs.readFileSync(target, 'utf8').trimEnd()).toBe(text);
    // The dialog is gone, in the app and in what the summary shows; and something did
    // change, so the summary neither calls it a no-op nor advises doing it again.
    expect(named.fields.dialog ?? '').not.toContain('Save As');
    expect(named.structured.effect).not.toBe('suspected_noop');
    expect(named.fields.escalation).toBeUndefined();
    const els = await readApp(session, mp.pid);
    expect(els.filter((e) => e.role === 'file chooser' && e.states.includes('showing'))).toEqual(
      [],
    );
    await mp.stop();
  });
});

describe("a click on a row of the open dialog's file list", () => {
  it('selects it in the background, as a single click does; a double click opens the folder', async () => {
    const dir = path.join(work, 'chooser');
    fs.mkdirSync(path.join(dir, 'alpha-folder'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'alpha-folder', 'inner-file.txt'), 'inner\n');
    fs.writeFileSync(path.join(dir, 'beta-notes.txt'), 'beta\n');
    const seed = path.join(dir, 'seed.txt');
    fs.writeFileSync(seed, 'seed\n');
    const mp = await launchMousepad('chooser', [seed]);
    await waitForApp(session, mp.pid, (els) => els.find((e) => e.role === 'text'), 'the editor');
    const open = await session.call('ax_key_press', { app: mp.pid, key: 'o', modifiers: ['ctrl'] });
    expect(open.isError, open.text).toBe(false);
    await waitForApp(
      session,
      mp.pid,
      (els) => els.find((e) => e.role === 'file chooser' && e.states.includes('showing')),
      'the open dialog',
    );
    // Into the folder by its path: GTK's location entry opens on a typed "/".
    expect(
      (await session.call('ax_key_press', { app: mp.pid, key: 'l', modifiers: ['ctrl'] })).isError,
    ).toBe(false);
    expect((await session.call('ax_type', { app: mp.pid, text: `${dir}/` })).isError).toBe(false);
    const rows = (els: Awaited<ReturnType<typeof readApp>>) =>
      els.filter((e) => e.role === 'table cell' && /-folder$|\.txt$/.test(e.name));
    await waitForApp(
      session,
      mp.pid,
      (els) => (rows(els).some((e) => e.name === 'alpha-folder') ? true : undefined),
      'the folder listed',
      30_000,
      { cells: true },
    );

    const click = await session.call('ax_click', { app: mp.pid, query: 'alpha-folder' });
    expect(click.isError, click.text).toBe(false);
    expect(click.structured.effect).toBe('confirmed');
    expect(click.fields.summary).toMatch(/selects its row/);
    // The app: the row is selected and the dialog still lists the folder it was in.
    const after = rows(await readApp(session, mp.pid, { cells: true }));
    expect(after.map((e) => [e.name, e.states.includes('selected')])).toEqual([
      ['alpha-folder', true],
      ['beta-notes.txt', false],
      ['seed.txt', false],
    ]);

    const twice = await session.call('ax_click', {
      app: mp.pid,
      query: 'alpha-folder',
      click_type: 'double',
      delivery_mode: 'foreground',
    });
    expect(twice.isError, twice.text).toBe(false);
    await waitForApp(
      session,
      mp.pid,
      (els) => (rows(els).some((e) => e.name === 'inner-file.txt') ? true : undefined),
      'the folder opened',
      30_000,
      { cells: true },
    );
    await mp.stop();
  });
});
