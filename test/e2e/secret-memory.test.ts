/**
 * A field once seen as a password field stays secret to every server on the same X display:
 * one server sees the password field, the app then reveals it by itself (GTK gives the entry
 * the plain text role), and another server, started later or running beside it, reads the
 * field as a password field though it never saw it as one: no reply, structured result,
 * artifact file or session log holds its text, and its capture fills it. The memory belongs
 * to the display, so it holds whatever the servers' environments say (runtime dir, temp dir)
 * and whether or not their runtime dir can hold anything.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Session } from '../../src/harness/session.js';
import { parseSummary } from '../../src/harness/summary-parse.js';
import {
  startServeClient,
  type ServeClient,
  type ToolCall,
} from '../../src/harness/serve-client.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { Rect } from '../../src/model/element.js';
import { SECRET_FIELDS_PROPERTY } from '../../src/platform/linux/secret-field-property.js';
import { X11, openRootProperty } from '../../src/platform/linux/x11.js';
import { coloursIn, decodePng } from './helpers/pixels.js';

let session: Session;
let x11: X11;
const servers: ServeClient[] = [];
const dirs: string[] = [];

interface Dialog {
  app: LaunchedApp;
  secret: string;
  field: Rect;
  toggle: Rect;
}

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

async function openDialog(secret: string, x: number, y: number): Promise<Dialog> {
  const app = await session.launchFixture('passphrase.py', [], {
    env: { AXPAGE_FIXTURE_SECRET: secret, AXPAGE_FIXTURE_X: `${x}`, AXPAGE_FIXTURE_Y: `${y}` },
  });
  const ready = app.output!.events.find((e) => e.event === 'ready')!;
  const rect = ([x, y, w, h]: number[]): Rect => ({ x, y, w, h });
  return {
    app,
    secret,
    field: rect(ready.field as number[]),
    toggle: rect(ready.toggle as number[]),
  };
}

/** The app shows the passphrase by itself (its check box clicked outside any server). */
async function reveal(dialog: Dialog): Promise<void> {
  const from = dialog.app.output!.events.length;
  const { x, y, w, h } = dialog.toggle;
  await x11.click(x + w / 2, y + h / 2);
  const shown = await dialog.app.output!.waitForEvent((e) => e.event === 'toggled', {
    from,
    timeoutMs: 15_000,
  });
  expect(shown.active).toBe(true);
}

/** A server of its own on the session's display, with `env` changed (undefined: unset). */
async function serverWith(
  out: string,
  env: Record<string, string | undefined> = {},
  stderr?: string[],
): Promise<ServeClient> {
  const merged: Record<string, string | undefined> = {
    ...(session.desktop.processEnv() as Record<string, string>),
    AXPAGE_OUT: out,
    ...env,
  };
  const server = await startServeClient({
    env: Object.fromEntries(
      Object.entries(merged).filter((e): e is [string, string] => e[1] !== undefined),
    ),
    onStderr: stderr ? (chunk) => stderr.push(chunk) : undefined,
  });
  servers.push(server);
  return server;
}

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => fs.lstatSync(f).isFile());
}

/**
 * `server`, which never saw the dialog's field as a password field, keeps it secret: the
 * value read is `•••` (secure), and neither its replies nor any file in `out` (trees, values,
 * the session log) holds the passphrase; its screenshot fills the field the app draws.
 */
async function expectKeptSecret(server: ServeClient, out: string, dialog: Dialog): Promise<void> {
  const results: ToolCall[] = [];
  const value = await server.call('ax_get_value', { app: dialog.app.pid, query: 'Passphrase' });
  results.push(value);
  expect(value.isError, value.text).toBe(false);
  expect(value.structured.secure, value.text).toBe(true);
  for (const [tool, args] of [
    ['ax_get_tree', { detail: 'full' }],
    ['ax_screenshot', { full_screen: true }],
  ] as const) {
    const r = await server.call(tool, { app: dialog.app.pid, ...args });
    expect(r.isError, r.text).toBe(false);
    results.push(r);
  }
  const files = filesUnder(out);
  expect(files.some((f) => /session-.*\.jsonl$/.test(f))).toBe(true);
  const png = files.find((f) => f.endsWith('_screenshot.png'));
  expect(png, files.join('\n')).toBeDefined();
  const { field } = dialog;
  const inside = { x: field.x + 3, y: field.y + 3, w: field.w - 6, h: field.h - 6 };
  expect(
    coloursIn(x11.captureRegion(inside), inside, inside),
    'the app draws its text',
  ).toBeGreaterThan(1);
  expect(coloursIn(await decodePng(png!), { x: 0, y: 0 }, inside), `field filled in ${png}`).toBe(
    1,
  );
  const texts = results.map((r) => `${r.text}\n${JSON.stringify(r.structured)}`);
  for (const f of files) texts.push(fs.readFileSync(f).toString('latin1'));
  for (const text of texts) expect(text).not.toContain(dialog.secret.slice(0, 10));
}

beforeAll(async () => {
  session = await Session.start();
  x11 = X11.open(session.desktop.processEnv().DISPLAY as string, { framebuffer: false });
}, 60_000);

afterAll(async () => {
  x11?.close();
  for (const server of servers) await server.close().catch(() => undefined);
  await session?.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

it('a second server on the same desktop keeps a field the first saw as a password field secret', async () => {
  const dialog = await openDialog('Restart-Kp4#memo-unique-Rst', 60, 60);
  const tree = await session.call('ax_get_tree', { app: dialog.app.pid });
  expect(tree.isError, tree.text).toBe(false);
  expect(fs.readFileSync(tree.fields.file, 'utf8')).toMatch(/Passphrase.*secure/);
  await session.client.close();

  // The app reveals the field by itself, while no server is running.
  await reveal(dialog);

  const out = tempDir('axpage-second-');
  await expectKeptSecret(await serverWith(out), out, dialog);

  // The display holds the field's id for the app's process, never its text.
  const prop = openRootProperty(session.desktop.env.DISPLAY, SECRET_FIELDS_PROPERTY);
  try {
    const held = prop.read()?.toString('utf8') ?? '';
    expect(JSON.parse(held).apps[dialog.app.pid].ids.length).toBeGreaterThan(0);
    expect(held).not.toContain(dialog.secret.slice(0, 10));
  } finally {
    prop.close();
  }
}, 120_000);

it('every server on the display knows it, whatever its runtime dir and temp dir say', async () => {
  const dialog = await openDialog('Elsewhere-Qz7#memo-unique-Env', 520, 60);
  // The first server's runtime dir cannot hold anything: it is a file.
  const blocked = path.join(tempDir('axpage-rt-blocked-'), 'not-a-dir');
  fs.writeFileSync(blocked, '');
  const firstLog: string[] = [];
  const first = await serverWith(tempDir('axpage-first-'), { XDG_RUNTIME_DIR: blocked }, firstLog);
  const tree = await first.call('ax_get_tree', { app: dialog.app.pid, detail: 'full' });
  expect(tree.isError, tree.text).toBe(false);
  const treeFile = parseSummary(tree.text).fields.file;
  expect(fs.readFileSync(treeFile, 'utf8')).toMatch(/Passphrase.*secure/);

  // Revealed while the first server still runs; the others start after.
  await reveal(dialog);

  const runtime = tempDir('axpage-rt-other-');
  const tmp = tempDir('axpage-tmp-other-');
  for (const env of [{ XDG_RUNTIME_DIR: runtime }, { XDG_RUNTIME_DIR: undefined, TMPDIR: tmp }]) {
    const out = tempDir('axpage-other-');
    await expectKeptSecret(await serverWith(out, env), out, dialog);
  }
  // Nothing of the memory is left in any directory, half-written or whole.
  for (const dir of [runtime, tmp, path.dirname(blocked)]) {
    expect(filesUnder(dir).filter((f) => f !== blocked)).toEqual([]);
  }
  expect(firstLog.join('')).not.toMatch(/password fields/);
}, 180_000);
