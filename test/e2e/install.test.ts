/**
 * What a user gets from the registry: `npm pack` this checkout, install the tarball into an
 * empty dir (the addon builds on install), and run the installed `axpage demo`, which
 * brings up its own headless desktop. Then the installed copy with its addon removed says
 * at start, in ax_is_accessible and in a capture which system packages are missing, never
 * that the X server is down.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServeClient, type ServeClient } from '../../src/harness/serve-client.js';
import { afterAll, expect, it } from 'vitest';
import { startDesktop } from '../../src/desktop/headless.js';
import { packageRoot } from '../../src/harness/session.js';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-install-test-'));
const packDir = path.join(work, 'pack');
const installDir = path.join(work, 'install');
const out = path.join(work, 'out');
fs.mkdirSync(packDir);
fs.mkdirSync(installDir);

afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

function run(cmd: string, args: string[], options: SpawnSyncOptions & { timeout: number }) {
  const res = spawnSync(cmd, args, { encoding: 'utf8', ...options });
  const output = `${cmd} ${args.join(' ')}\n${String(res.stdout)}\n${String(res.stderr)}`;
  return { res, output, stdout: String(res.stdout), stderr: String(res.stderr) };
}

let tarball = '';

it('packs what runs and nothing of the tests, bench or source maps', () => {
  const { res, output, stdout } = run(
    'npm',
    ['pack', '--json', '--pack-destination', packDir, packageRoot()],
    { timeout: 120_000 },
  );
  expect(res.status, output).toBe(0);
  const [info] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
  tarball = path.join(packDir, info.filename);
  const files = info.files.map((f) => f.path);
  expect(files).toContain('dist/cli.js');
  expect(files).toContain('LICENSE');
  expect(files).toContain('node_modules/@axpage/native/binding.gyp');
  expect(files).toContain('node_modules/@axpage/native/src/addon.cc');
  expect(files).toContain('node_modules/node-addon-api/napi.h');
  const unwanted = files.filter(
    (f) =>
      f.endsWith('.map') ||
      f.startsWith('test/') ||
      f.startsWith('src/') ||
      f.startsWith('dist/bench/') ||
      f.startsWith('bench/') ||
      f.endsWith('.node') ||
      f.includes('/build/'),
  );
  expect(unwanted).toEqual([]);
});

it('installs into an empty dir and the installed axpage demo succeeds at every step', () => {
  expect(tarball, 'the pack step failed').not.toBe('');
  const install = run('npm', ['install', '--no-audit', '--no-fund', tarball], {
    cwd: installDir,
    timeout: 300_000,
  });
  expect(install.res.status, install.output).toBe(0);
  const addon = path.join(
    installDir,
    'node_modules/axpage/node_modules/@axpage/native/build/Release/axpage_native.node',
  );
  expect(fs.existsSync(addon), install.output).toBe(true);

  const demo = run('npx', ['--no-install', 'axpage', 'demo', '--out', out], {
    cwd: installDir,
    timeout: 180_000,
  });
  expect(demo.res.status, demo.output).toBe(0);
  expect(demo.stdout).not.toMatch(/^status: error/m);
  expect((demo.stdout.match(/^status: success/gm) ?? []).length).toBeGreaterThanOrEqual(9);
  const files = fs.readdirSync(out);
  const trees = files.filter((f) => f.endsWith('.txt'));
  expect(trees.length).toBeGreaterThanOrEqual(8);
  for (const t of trees) expect(files).toContain(t.replace(/\.txt$/, '.png'));
}, 540_000);

it('without its addon the installed server says at start what to install', () => {
  const release = path.join(installDir, 'node_modules/axpage/node_modules/@axpage/native/build');
  expect(fs.existsSync(release), 'the install step failed').toBe(true);
  fs.rmSync(release, { recursive: true, force: true });
  // stdin closes at once: the server starts, reports, and ends on EOF.
  const serve = run('npx', ['--no-install', 'axpage', 'serve'], {
    cwd: installDir,
    input: '',
    timeout: 30_000,
  });
  expect(serve.stderr, serve.output).toMatch(/native X11 addon .* is not built/);
  expect(serve.stderr).toContain('libx11-dev libxext-dev libxtst-dev');
  expect(serve.stderr).not.toMatch(/X server is running|cannot open X display/);
});

it('without its addon ax_is_accessible and a capture name the packages, on a live desktop', async () => {
  const cli = path.join(installDir, 'node_modules/axpage/dist/cli.js');
  expect(fs.existsSync(cli), 'the install step failed').toBe(true);
  const desktop = await startDesktop();
  let client: ServeClient | undefined;
  try {
    client = await startServeClient({
      cli,
      name: 'install-test',
      env: { ...(desktop.processEnv() as Record<string, string>), AXPAGE_OUT: out },
    });
    const access = (await client.call('ax_is_accessible')).text;
    expect(access).toMatch(/native X11 addon .* is not built/);
    expect(access).toContain('libx11-dev libxext-dev libxtst-dev');
    expect(access).not.toMatch(/X server is running|cannot open X display/);
    const shot = await client.call('ax_screenshot', { full_screen: true });
    expect(shot.isError, shot.text).toBe(true);
    expect(shot.text).toContain('libx11-dev libxext-dev libxtst-dev');
    expect(shot.text).not.toMatch(/X server is running|cannot open X display/);
  } finally {
    await client?.close().catch(() => undefined);
    await desktop.stop();
  }
}, 120_000);
