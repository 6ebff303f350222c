/**
 * `AXPAGE_SCREENSHOTS=inline` on a real desktop: every call that made a PNG also returns
 * it as an image content block (for clients that cannot read files), the same bytes as
 * the PNG the server wrote; a call that made none returns no image.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';

let session: Session;
let form: LaunchedApp;

beforeAll(async () => {
  session = await Session.start({ serverEnv: { AXPAGE_SCREENSHOTS: 'inline' } });
  form = await session.launchFixture('form.py');
});

afterAll(async () => {
  await session?.close();
});

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

it('an observation returns its screenshot inline, the same bytes as the file', async () => {
  const r = await session.call('ax_get_tree', { app: form.pid });
  expect(r.isError, r.text).toBe(false);
  expect(r.images).toHaveLength(1);
  expect(r.images[0].mimeType).toBe('image/png');
  const inline = Buffer.from(r.images[0].data, 'base64');
  expect(inline.subarray(0, 8)).toEqual(PNG_SIGNATURE);
  expect(inline.equals(fs.readFileSync(r.fields.screenshot))).toBe(true);
});

it('a read and a listing return theirs too; a call that made no PNG returns none', async () => {
  const find = await session.call('ax_find', { app: form.pid, query: 'button:Submit' });
  expect(find.isError, find.text).toBe(false);
  expect(find.images).toHaveLength(1);
  expect(
    Buffer.from(find.images[0].data, 'base64').equals(fs.readFileSync(find.fields.screenshot)),
  ).toBe(true);
  const apps = await session.call('ax_list_apps');
  expect(apps.isError, apps.text).toBe(false);
  expect(apps.images, apps.text).toHaveLength(1);
  expect(
    Buffer.from(apps.images[0].data, 'base64').equals(fs.readFileSync(apps.fields.screenshot)),
  ).toBe(true);
  const failed = await session.call('ax_get_tree', { app: 'no-such-app-here' });
  expect(failed.isError).toBe(true);
  expect(failed.images).toHaveLength(0);
});
