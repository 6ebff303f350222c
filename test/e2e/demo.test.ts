/**
 * The README's main job: `axpage demo` brings up its own desktop, drives a session
 * through a real MCP client, every call succeeds, and the artifacts stay where it says.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { packageRoot } from '../../src/harness/session.js';

const out = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-demo-test-'));

afterAll(() => {
  fs.rmSync(out, { recursive: true, force: true });
});

it('runs every step successfully and leaves tree/screenshot pairs', () => {
  const res = spawnSync(
    process.execPath,
    [path.join(packageRoot(), 'dist', 'cli.js'), 'demo', '--out', out],
    { encoding: 'utf8', timeout: 120_000 },
  );
  expect(res.status, `${res.stdout}\n${res.stderr}`).toBe(0);
  expect(res.stdout).not.toMatch(/^status: error/m);
  expect((res.stdout.match(/^status: success/gm) ?? []).length).toBeGreaterThanOrEqual(9);
  // Every step shows what it says it shows: the find step finds its button.
  expect(res.stdout).toMatch(/^summary: Found 1 match for 'button:"link button"'/m);
  expect(res.stdout).not.toMatch(/^summary: No (visible )?element matches/m);
  const files = fs.readdirSync(out);
  const trees = files.filter((f) => f.endsWith('.txt'));
  expect(trees.length).toBeGreaterThanOrEqual(8);
  for (const t of trees) expect(files).toContain(t.replace(/\.txt$/, '.png'));
  expect(res.stdout).toContain(out);
  // The last lines name the command that shows this run in the viewer, on its session log.
  const view = /^see the run in a browser: npx axpage view '([^']+)'$/m.exec(res.stdout);
  expect(view, res.stdout).not.toBeNull();
  expect(path.dirname(view![1])).toBe(out);
  expect(path.basename(view![1])).toMatch(/^session-\d+-\d+\.jsonl$/);
  expect(fs.readFileSync(view![1], 'utf8').trim().split('\n').length).toBeGreaterThanOrEqual(9);
});
