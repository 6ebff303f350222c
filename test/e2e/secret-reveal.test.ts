/**
 * A revealed secret stays a secret: a passphrase dialog's "Show passphrase" toggle turns its
 * password field into a plain text field (GTK3 changes the role). The field, once seen as a
 * password field, stays one: no read gives its text, no tree file or summary holds it, and
 * every capture fills it, also a capture made through another app.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session, type CallResult } from '../../src/harness/session.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { Rect } from '../../src/model/element.js';
import { X11 } from '../../src/platform/linux/x11.js';
import { coloursIn, decodePng } from './helpers/pixels.js';

const SECRET = 'Revealed-Xq8#pass-unique-Rev'; // 28

let session: Session;
let x11: X11;
let dialog: LaunchedApp;
let other: LaunchedApp;
let field: Rect;
const results: CallResult[] = [];

const rectOf = (f: unknown): Rect => {
  const [x, y, w, h] = f as number[];
  return { x, y, w, h };
};

async function call(tool: string, args: Record<string, unknown>): Promise<CallResult> {
  const r = await session.call(tool, args);
  results.push(r);
  return r;
}

/** The field's pixels are one colour in the PNG, while the screen shows its text there. */
async function expectFilled(png: string, origin: { x: number; y: number }): Promise<void> {
  const inside = { x: field.x + 3, y: field.y + 3, w: field.w - 6, h: field.h - 6 };
  const raw = x11.captureRegion(inside);
  expect(coloursIn(raw, inside, inside), 'the app draws its text there').toBeGreaterThan(1);
  expect(coloursIn(await decodePng(png), origin, inside), `field filled in ${png}`).toBe(1);
}

beforeAll(async () => {
  session = await Session.start();
  dialog = await session.launchFixture('passphrase.py', [], {
    env: { AXPAGE_FIXTURE_SECRET: SECRET, AXPAGE_FIXTURE_X: '60', AXPAGE_FIXTURE_Y: '60' },
  });
  const ready = dialog.output!.events.find((e) => e.event === 'ready')!;
  field = rectOf(ready.field);
  other = await session.launchFixture('secret_window.py', [], {
    env: { AXPAGE_FIXTURE_X: '600', AXPAGE_FIXTURE_Y: '300', AXPAGE_FIXTURE_MOVE_X: '600' },
  });
  x11 = X11.open(session.desktop.processEnv().DISPLAY as string, { framebuffer: false });
}, 60_000);

afterAll(async () => {
  x11?.close();
  await session?.close();
});

describe('a password field revealed by its "show" toggle', () => {
  it('is seen as a password field, then revealed by a click', async () => {
    const tree = await call('ax_get_tree', { app: dialog.pid });
    expect(tree.isError, tree.text).toBe(false);
    expect(fs.readFileSync(tree.fields.file, 'utf8')).toMatch(/Passphrase.*secure/);
    const from = dialog.output!.events.length;
    const click = await call('ax_click', { app: dialog.pid, query: 'checkbox:Show passphrase' });
    expect(click.isError, click.text).toBe(false);
    const shown = await dialog.output!.waitForEvent((e) => e.event === 'toggled', { from });
    expect(shown.active).toBe(true);
  });

  it('ax_get_value answers that it is a password field, never its text', async () => {
    const r = await call('ax_get_value', { app: dialog.pid, query: 'Passphrase' });
    expect(r.isError, r.text).toBe(false);
    expect(r.structured.secure).toBe(true);
    expect(r.text).toMatch(/is a password field: its value is never read/);
    expect(r.structured.value).not.toContain(SECRET.slice(0, 8));
  });

  it('the tree, find and attributes calls in full detail hold no text of it', async () => {
    for (const [tool, args] of [
      ['ax_get_tree', { detail: 'full' }],
      ['ax_find', { query: 'Passphrase', detail: 'full' }],
      ['ax_get_attributes', { query: 'Passphrase' }],
      ['ax_connect', { detail: 'full' }],
    ] as const) {
      const r = await call(tool, { app: dialog.pid, ...args });
      expect(r.isError, `${tool}: ${r.text}`).toBe(false);
    }
  });

  it('its own window capture fills it', async () => {
    const r = await call('ax_screenshot', { app: dialog.pid, full_screen: true });
    expect(r.isError, r.text).toBe(false);
    await expectFilled(r.fields.screenshot, { x: 0, y: 0 });
  });

  it('a capture made through another app fills it too', async () => {
    const r = await call('ax_screenshot', { app: other.pid, full_screen: true });
    expect(r.isError, r.text).toBe(false);
    await expectFilled(r.fields.screenshot, { x: 0, y: 0 });
  });

  it('no artifact, summary or structured result holds the secret', () => {
    const texts = results.map((r) => `${r.text}\n${JSON.stringify(r.structured)}`);
    const files = fs
      .readdirSync(session.artifactDir)
      .map((f) => path.join(session.artifactDir, f))
      .filter((f) => fs.statSync(f).isFile());
    for (const f of files) texts.push(fs.readFileSync(f).toString('latin1'));
    for (const text of texts) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(SECRET.slice(0, 10));
    }
  });
});
