/**
 * Hard links planted in the artifact dir by someone who could write there for a moment:
 * one under the audit log's name, one under the name ax_visual_diff is about to write.
 * The files they point to (outside the dir) must stay as they were, the calls still work,
 * and the audit records are not written through the link.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Session } from '../../src/harness/session.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-planted-'));
const out = path.join(root, 'out');
const outside = path.join(root, 'outside');
const ORIGINAL = 'OUTSIDE FILE, NOT THE SERVER OWN\n';

let session: Session;
let app: LaunchedApp;

beforeAll(async () => {
  fs.mkdirSync(out, { mode: 0o700 });
  fs.mkdirSync(outside, { mode: 0o700 });
  session = await Session.start({ artifactDir: out });
  app = await session.launchFixture('entries.py');
}, 120_000);

afterAll(async () => {
  await session?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function victim(name: string): string {
  const file = path.join(outside, name);
  fs.writeFileSync(file, ORIGINAL);
  return file;
}

it('appends no audit record through a hard link planted as audit.jsonl', async () => {
  const target = victim('audit-victim');
  fs.rmSync(path.join(out, 'audit.jsonl'), { force: true });
  fs.linkSync(target, path.join(out, 'audit.jsonl'));
  const r = await session.call('ax_type', { app: app.pid, query: 'Field 1', text: 'abc' });
  expect(r.isError, r.text).toBe(false);
  expect(fs.readFileSync(target, 'utf8')).toBe(ORIGINAL);
  // The session log still has the call.
  const log = fs.readdirSync(out).find((n) => /^session-.*\.jsonl$/.test(n))!;
  expect(fs.readFileSync(path.join(out, log), 'utf8')).toContain('"tool":"ax_type"');
});

it('replaces a hard link planted as the diff image, never writing through it', async () => {
  const a = await session.call('ax_get_tree', { app: app.pid });
  await session.call('ax_type', { app: app.pid, query: 'Field 1', text: 'xyz' });
  const b = await session.call('ax_get_tree', { app: app.pid });
  const before = path.basename(a.structured.file as string, '.txt');
  const after = path.basename(b.structured.file as string, '.txt');
  const target = victim('diff-victim');
  const planted = path.join(out, `${after}.diff.png`);
  fs.linkSync(target, planted);
  const r = await session.call('ax_visual_diff', { before, after });
  expect(r.isError, r.text).toBe(false);
  expect(fs.readFileSync(target, 'utf8')).toBe(ORIGINAL);
  // The diff image is the server's own new file now, private.
  const st = fs.statSync(planted);
  expect(st.nlink).toBe(1);
  expect(st.mode & 0o777).toBe(0o600);
  expect(fs.readFileSync(planted).subarray(1, 4).toString()).toBe('PNG');
});
