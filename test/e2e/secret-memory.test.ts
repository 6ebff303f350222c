/**
 * A field once seen as a password field stays secret across a server restart: the first
 * server sees the password field, the app then reveals it by itself (GTK gives the entry the
 * plain text role), the first server stops and a second one starts on the same desktop,
 * writing to another artifact dir. The second server never saw the field as a password
 * field, yet reads it as one: no reply, structured result or file holds its text, and its
 * capture fills it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Session } from '../../src/harness/session.js';
import {
  startServeClient,
  type ServeClient,
  type ToolCall,
} from '../../src/harness/serve-client.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { Rect } from '../../src/model/element.js';
import { X11 } from '../../src/platform/linux/x11.js';
import { coloursIn, decodePng } from './helpers/pixels.js';

const SECRET = 'Restart-Kp4#memo-unique-Rst';

let session: Session;
let second: ServeClient | undefined;
let secondDir: string;
let dialog: LaunchedApp;
let field: Rect;
let x11: X11;

beforeAll(async () => {
  session = await Session.start();
  dialog = await session.launchFixture('passphrase.py', [], {
    env: { AXPAGE_FIXTURE_SECRET: SECRET, AXPAGE_FIXTURE_X: '60', AXPAGE_FIXTURE_Y: '60' },
  });
  const [x, y, w, h] = dialog.output!.events.find((e) => e.event === 'ready')!.field as number[];
  field = { x, y, w, h };
  secondDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-second-'));
  x11 = X11.open(session.desktop.processEnv().DISPLAY as string, { framebuffer: false });
}, 60_000);

afterAll(async () => {
  x11?.close();
  await second?.close().catch(() => undefined);
  await session?.close();
  if (secondDir) fs.rmSync(secondDir, { recursive: true, force: true });
});

it('a second server on the same desktop keeps a field the first saw as a password field secret', async () => {
  const tree = await session.call('ax_get_tree', { app: dialog.pid });
  expect(tree.isError, tree.text).toBe(false);
  expect(fs.readFileSync(tree.fields.file, 'utf8')).toMatch(/Passphrase.*secure/);
  await session.client.close();

  // The app reveals the field by itself, while no server is running.
  const from = dialog.output!.events.length;
  const [tx, ty, tw, th] = dialog.output!.events.find((e) => e.event === 'ready')!
    .toggle as number[];
  await x11.click(tx + tw / 2, ty + th / 2);
  const shown = await dialog.output!.waitForEvent((e) => e.event === 'toggled', { from });
  expect(shown.active).toBe(true);

  second = await startServeClient({
    env: { ...(session.desktop.processEnv() as Record<string, string>), AXPAGE_OUT: secondDir },
  });
  const results: ToolCall[] = [];
  const value = await second.call('ax_get_value', { app: dialog.pid, query: 'Passphrase' });
  results.push(value);
  expect(value.isError, value.text).toBe(false);
  expect(value.structured.secure).toBe(true);
  for (const [tool, args] of [
    ['ax_get_tree', { detail: 'full' }],
    ['ax_screenshot', { full_screen: true }],
  ] as const) {
    const r = await second.call(tool, { app: dialog.pid, ...args });
    expect(r.isError, r.text).toBe(false);
    results.push(r);
  }
  const png = fs
    .readdirSync(secondDir)
    .filter((f) => f.endsWith('_screenshot.png'))
    .map((f) => path.join(secondDir, f))[0];
  const inside = { x: field.x + 3, y: field.y + 3, w: field.w - 6, h: field.h - 6 };
  expect(
    coloursIn(x11.captureRegion(inside), inside, inside),
    'the app draws its text',
  ).toBeGreaterThan(1);
  expect(coloursIn(await decodePng(png), { x: 0, y: 0 }, inside), `field filled in ${png}`).toBe(1);

  const texts = results.map((r) => `${r.text}\n${JSON.stringify(r.structured)}`);
  for (const f of fs.readdirSync(secondDir)) {
    const file = path.join(secondDir, f);
    if (fs.statSync(file).isFile()) texts.push(fs.readFileSync(file).toString('latin1'));
  }
  const memory = path.join(session.desktop.processEnv().XDG_RUNTIME_DIR as string, 'axpage');
  expect(fs.statSync(memory).mode & 0o777).toBe(0o700);
  expect(fs.statSync(path.join(memory, 'secret-fields.json')).mode & 0o777).toBe(0o600);
  texts.push(fs.readFileSync(path.join(memory, 'secret-fields.json'), 'latin1'));
  for (const text of texts) expect(text).not.toContain(SECRET.slice(0, 10));
}, 120_000);
