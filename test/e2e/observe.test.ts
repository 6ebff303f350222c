/**
 * Observation end to end: a real headless desktop, real GTK apps, `axpage serve` over
 * stdio through the MCP SDK's own client (which validates structuredContent against each
 * tool's outputSchema).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../../src/harness/session.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { mark } from './helpers/oracle.js';

const SECRET = 'hunter2-Sup3rSecret';
const SUMMARY_CAP = 2048;

let session: Session;
let factory: LaunchedApp;
let form: LaunchedApp;

beforeAll(async () => {
  // A walk budget no busy machine runs out of: the 3,000-row table below is walked whole
  // (or to the element cap), so what the summary says of it does not depend on the load.
  session = await Session.start({ serverEnv: { AXPAGE_TIME_BUDGET_MS: '120000' } });
  await session.client.listTools(); // lets the client validate structured output
  factory = await session.launch('gtk3-widget-factory');
  form = await session.launchFixture('form.py', [], { env: { AXPAGE_FIXTURE_SECRET: SECRET } });
});

afterAll(async () => {
  await session?.close();
});

function mode(file: string): number {
  return fs.statSync(file).mode & 0o777;
}

describe('ax_get_tree', () => {
  it('writes a tree file and a same-basename PNG of the window, both 0600, in a 0700 dir', async () => {
    const r = await session.call('ax_get_tree', { app: factory.pid });
    expect(r.isError, r.text).toBe(false);
    expect(r.fields.status).toBe('success');
    expect(r.fields.pid).toBe(String(factory.pid));
    const file = r.fields.file;
    const png = r.fields.screenshot;
    expect(file).toMatch(/\/[0-9]{13}(-[0-9]+)?_get_tree\.txt$/);
    expect(png).toBe(file.replace(/\.txt$/, '.png'));
    expect(mode(file)).toBe(0o600);
    expect(mode(png)).toBe(0o600);
    expect(mode(session.artifactDir)).toBe(0o700);
    const meta = await sharp(png).metadata();
    expect(meta.format).toBe('png');
    const windows = r.structured as { viewport?: unknown };
    void windows;
    // The PNG is the window (clipped to the screen), not the whole screen.
    const header = fs.readFileSync(file, 'utf8').split('\n').slice(0, 6).join('\n');
    const vp = /# viewport: (-?\d+),(-?\d+) (\d+)x(\d+)/.exec(header);
    expect(vp, header).not.toBeNull();
    expect(meta.width).toBe(Number(vp?.[3]));
    expect(meta.height).toBe(Number(vp?.[4]));
    expect(meta.width).toBeLessThanOrEqual(1280);
  });

  it('lets grep by role find known widgets, with refs and frames', async () => {
    const r = await session.call('ax_get_tree', { app: 'gtk3-widget-factory' });
    const text = fs.readFileSync(r.fields.file, 'utf8');
    const buttons = text.split('\n').filter((l) => /\[AXButton \(/.test(l));
    expect(buttons.length).toBeGreaterThan(3);
    for (const line of buttons) expect(line).toMatch(/ e[0-9]+( |$)/);
    expect(text).toMatch(/\[AXCheckBox \(check box\)\][^\n]*x:\d+ y:\d+ w:\d+ h:\d+/);
    // GTK's header-bar windows have no accessible name: the window manager's title fills in.
    expect(text).toMatch(/^\[AXWindow \(frame\)\] "gtk3-widget-factory" e[0-9]+ /m);
    expect(r.fields.hint).toContain(r.fields.file);
  });

  it('keeps refs stable across calls for the same elements', async () => {
    const a = await session.call('ax_get_tree', { app: factory.pid });
    const b = await session.call('ax_get_tree', { app: factory.pid });
    const refsOf = (file: string): string[] =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.includes('[AXButton'))
        .map((l) => /\be[0-9]+\b/.exec(l)?.[0] ?? '');
    expect(refsOf(b.fields.file)).toEqual(refsOf(a.fields.file));
  });

  it('never writes a password to disk or into the summary', async () => {
    const r = await session.call('ax_get_tree', { app: form.pid });
    expect(r.isError, r.text).toBe(false);
    const text = fs.readFileSync(r.fields.file, 'utf8');
    expect(text).toMatch(/secure/);
    expect(text).toContain('•••');
    expect(text).not.toContain(SECRET);
    expect(r.text).not.toContain(SECRET);
    expect(JSON.stringify(r.structured)).not.toContain(SECRET);
    const png = fs.readFileSync(r.fields.screenshot);
    expect(png.includes(Buffer.from(SECRET))).toBe(false);
  });

  it('walks only below a root and to a max depth when asked', async () => {
    const full = await session.call('ax_get_tree', { app: factory.pid });
    const shallow = await session.call('ax_get_tree', { app: factory.pid, max_depth: 2 });
    const count = (r: typeof full): number =>
      Number(/\((\d+) elements/.exec(r.fields.file_size)?.[1]);
    expect(count(shallow)).toBeLessThan(count(full));
    expect(count(shallow)).toBeGreaterThan(0);
  });

  it('leaves no file behind when it fails after its walk', async () => {
    const before = new Set(fs.readdirSync(session.artifactDir));
    // The walk runs (the root is looked for in the whole tree), then finds no such root.
    const r = await session.call('ax_get_tree', {
      app: factory.pid,
      root_query: 'button:"no such button anywhere"',
    });
    expect(r.isError).toBe(true);
    expect(r.fields.error).toMatch(/no such button anywhere/);
    const added = fs.readdirSync(session.artifactDir).filter((f) => !before.has(f));
    // The session log may be new; no tree file or screenshot of the failed call is.
    expect(added.filter((f) => /\.(txt|png)$/.test(f))).toEqual([]);
  });
});

describe('the summary', () => {
  it('has the fixed line order and stays under the byte cap on a large tree', async () => {
    const big = await session.launchFixture('big_table.py', ['3000']);
    const r = await session.call('ax_get_tree', { app: big.pid });
    expect(r.isError, r.text).toBe(false);
    expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(SUMMARY_CAP);
    expect(r.text).not.toMatch(/\n\n/);
    const order = ['status', 'pid', 'app', 'file', 'file_size', 'hint', 'screenshot', 'summary'];
    expect(r.order.filter((k) => order.includes(k))).toEqual(order);
    const elements = Number(/\((\d+) elements/.exec(r.fields.file_size)?.[1]);
    // Every row, or the element cap (a walk that reads the rows' cells too reaches it).
    expect(elements, r.fields.file_size).toBeGreaterThan(3000);
    expect(r.fields.file_size).toMatch(/elements(, truncated: max elements 5000 .*)?\)$/);
    expect(r.lists.visible_elements.length).toBeLessThanOrEqual(41);
    expect(r.text).toMatch(/more in file/);
    const bytes = Number(/^(\d+) bytes/.exec(r.fields.file_size)?.[1]);
    expect(bytes).toBe(fs.statSync(r.fields.file).size);
    await big.stop();
  });
});

describe('session memory: what visible_elements lists', () => {
  it('lists a first look in full; the same screen again is one line; detail "full" lists it again', async () => {
    const app = await session.launchFixture('form.py');
    const first = await session.call('ax_get_tree', { app: app.pid });
    expect(first.isError, first.text).toBe(false);
    expect(first.fields.window).toBe('"Fixture Form"');
    const listed = first.lists.visible_elements;
    expect(listed.length).toBeGreaterThan(5);
    // The password field says secure and never shows a value.
    expect(listed.find((l) => l.includes('"Password"'))).toMatch(/ secure$/);

    const second = await session.call('ax_get_tree', { app: app.pid });
    expect(second.lists.visible_elements).toBeUndefined();
    expect(second.fields.visible_elements).toBe(
      `${listed.length} unchanged since ${path.basename(first.fields.file)}`,
    );
    // The file it names is there and lists every element it counts, by ref.
    const named = fs.readFileSync(
      path.join(session.artifactDir, path.basename(first.fields.file)),
      'utf8',
    );
    for (const line of listed) expect(named).toContain(` ${/ (e\d+) /.exec(line)?.[1]} `);

    const full = await session.call('ax_get_tree', { app: app.pid, detail: 'full' });
    expect(full.lists.visible_elements).toEqual(listed);
    await app.stop();
  });

  it('an action lists what it changed, with its state, and counts the rest', async () => {
    const app = await session.launchFixture('form.py');
    const first = await session.call('ax_get_tree', { app: app.pid });
    const from = mark(app);
    const r = await session.call('ax_click', { app: app.pid, query: 'checkbox:Subscribe' });
    expect(r.isError, r.text).toBe(false);
    // The app's own word that the box is now ticked.
    const e = await app.output?.waitForEvent((ev) => ev.event === 'toggled', { from });
    expect(e?.active).toBe(true);
    expect(r.lists.state_changes).toEqual([
      expect.stringMatching(/^\[AXCheckBox\] "Subscribe" e\d+: unchecked -> checked$/),
    ]);
    const box = r.lists.visible_elements.find((l) => l.includes('"Subscribe"'));
    expect(box).toMatch(/ checked modified$/);
    expect(r.lists.visible_elements.at(-1)).toMatch(
      new RegExp(`^\\(\\+\\d+ unchanged since ${path.basename(first.fields.file)}\\)$`),
    );
    await app.stop();
  });
});

describe('observation tools', () => {
  it('ax_list_apps lists the running apps with pids', async () => {
    const r = await session.call('ax_list_apps');
    expect(r.isError, r.text).toBe(false);
    const apps = (r.structured as { apps: Array<{ pid: number; name: string }> }).apps;
    expect(apps.map((a) => a.pid)).toEqual(expect.arrayContaining([factory.pid, form.pid]));
    expect(fs.readFileSync(r.fields.file, 'utf8')).toContain(`pid:${factory.pid}`);
  });

  it('ax_connect by name gives an alias that later calls accept', async () => {
    const r = await session.call('ax_connect', { app: 'gtk3-widget-factory', alias: 'wf' });
    expect(r.isError, r.text).toBe(false);
    expect(r.structured).toMatchObject({ connected: true, pid: factory.pid, alias: 'wf' });
    const t = await session.call('ax_get_tree', { app: 'wf' });
    expect(t.fields.pid).toBe(String(factory.pid));
  });

  it('ax_connect by window title finds the app', async () => {
    const r = await session.call('ax_connect', { app: 'Fixture Form' });
    expect(r.isError, r.text).toBe(false);
    expect(r.structured).toMatchObject({ pid: form.pid });
  });

  it('ax_list_windows lists windows with frames', async () => {
    const r = await session.call('ax_list_windows', { app: factory.pid });
    const windows = (
      r.structured as { windows: Array<{ title: string; position?: number[]; size?: number[] }> }
    ).windows;
    expect(windows.length).toBeGreaterThan(0);
    expect(windows[0].title).toBe('gtk3-widget-factory');
    expect(windows[0].size?.[0]).toBeGreaterThan(100);
    // The window as X itself describes it (xwininfo, not our code): the title is borrowed
    // from the X window at the same place, with the same size.
    const info = execFileSync('xwininfo', ['-name', 'gtk3-widget-factory'], {
      env: session.desktop.processEnv() as NodeJS.ProcessEnv,
      encoding: 'utf8',
    });
    const field = (name: string): number =>
      Number(new RegExp(`${name}:\\s+(-?\\d+)`).exec(info)?.[1]);
    const [x, y] = windows[0].position ?? [];
    const [w, h] = windows[0].size ?? [];
    expect(Math.abs(x - field('Absolute upper-left X')), info).toBeLessThanOrEqual(2);
    expect(Math.abs(y - field('Absolute upper-left Y')), info).toBeLessThanOrEqual(2);
    expect(Math.abs(w - field('Width')), info).toBeLessThanOrEqual(2);
    expect(Math.abs(h - field('Height')), info).toBeLessThanOrEqual(2);
    // The summary answers with the windows, not the visible list.
    expect(r.lists.windows[0]).toMatch(
      new RegExp(`^0: "gtk3-widget-factory" \\[AXWindow\\] e\\d+ pid ${factory.pid} \\(`),
    );
    expect(r.lists.visible_elements).toBeUndefined();
  });

  it('ax_screenshot returns the path, and the image inline only when asked', async () => {
    const plain = await session.call('ax_screenshot', { app: factory.pid });
    expect(plain.images).toHaveLength(0);
    expect(fs.existsSync(plain.fields.screenshot)).toBe(true);
    const inline = await session.call('ax_screenshot', {
      app: factory.pid,
      region: { x: 10, y: 20, w: 200, h: 100 },
      include_image: true,
    });
    expect(inline.images).toHaveLength(1);
    const meta = await sharp(Buffer.from(inline.images[0].data, 'base64')).metadata();
    expect([meta.width, meta.height]).toEqual([200, 100]);
  });

  it('ax_is_accessible reports the AT-SPI bus', async () => {
    const r = await session.call('ax_is_accessible');
    expect(r.isError, r.text).toBe(false);
    expect(r.structured).toMatchObject({ enabled: true });
  });
});

describe('other apps and concurrency', () => {
  it('walks gtk3-demo, whose tree view rows the AT-SPI cache leaves out', async () => {
    const demo = await session.launch('gtk3-demo');
    const r = await session.call('ax_get_tree', { app: demo.pid });
    expect(r.isError, r.text).toBe(false);
    const text = fs.readFileSync(r.fields.file, 'utf8');
    expect(text).toMatch(/\[AXOutline \(tree table\)\]/);
    expect(
      (text.match(/^ *\[AXRow \(/gm) ?? []).length + (text.match(/^ *\[AXCell \(/gm) ?? []).length,
    ).toBeGreaterThan(20);
    await demo.stop();
  });

  it('serves calls on different apps at once, and serializes calls on one app', async () => {
    const calls = [
      session.call('ax_get_tree', { app: factory.pid }),
      session.call('ax_get_tree', { app: form.pid }),
      session.call('ax_get_tree', { app: factory.pid }),
      session.call('ax_find', { app: form.pid, query: 'Submit' }),
    ];
    const results = await Promise.all(calls);
    for (const r of results) expect(r.isError, r.text).toBe(false);
    expect(new Set(results.map((r) => r.fields.file)).size).toBe(results.length);
    expect(results[0].fields.pid).toBe(String(factory.pid));
    expect(results[1].fields.pid).toBe(String(form.pid));
  });
});

describe('bad input', () => {
  it('a bad pid gives a clear error and the server stays up', async () => {
    const r = await session.call('ax_get_tree', { app: 999999 });
    expect(r.isError).toBe(true);
    expect(r.fields.status).toBe('error');
    expect(r.fields.error).toMatch(/no accessible app has pid 999999/);
    expect(r.fields.error).toMatch(/Running: /);
    const ok = await session.call('ax_get_tree', { app: factory.pid });
    expect(ok.isError).toBe(false);
  });

  it('an unknown app name lists what is running', async () => {
    const r = await session.call('ax_get_tree', { app: 'no-such-app-xyz' });
    expect(r.isError).toBe(true);
    expect(r.fields.error).toMatch(/no running app matches 'no-such-app-xyz'/);
  });

  it('a 1 MiB argument is not echoed back: text and structuredContent stay capped', async () => {
    const huge = 'q'.repeat(1 << 20);
    const r = await session.call('ax_get_tree', { app: huge });
    expect(r.isError).toBe(true);
    expect(r.fields.error).toMatch(/no running app matches 'q+…/);
    expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(SUMMARY_CAP);
    expect(Buffer.byteLength(JSON.stringify(r.structured))).toBeLessThanOrEqual(16 * 1024);
    const cut = r.structured.truncated_fields as string[];
    expect(cut.some((f) => /^error \(\d+ chars\)$/.test(f))).toBe(true);
  });

  it('an invalid argument is rejected with the reason', async () => {
    const r = await session.call('ax_get_tree', { app: factory.pid, max_depth: -3 });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/max_depth/);
  });
});
