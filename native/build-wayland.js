/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS: npm runs this with plain node */
// Builds axpage-wl-input (wayland/wl-input.c), the helper that gives axpage real pointer and
// keyboard input on a wlroots compositor (sway), into build/axpage-wl-input. build.js runs it
// after the X11 addon; by hand: `node native/build-wayland.js`.
//
// Optional: X11 needs none of it. Without libwayland-dev, libxkbcommon-dev and
// wayland-scanner it prints what to install and builds nothing (exit 0, or 1 with --strict).
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const here = __dirname;
const tag = '@axpage/native:';
const APT = 'apt-get install -y libwayland-dev libxkbcommon-dev';
const PROTOCOLS = ['virtual-keyboard-unstable-v1', 'wlr-virtual-pointer-unstable-v1'];

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: here, encoding: 'utf8' });
  if (r.error) return { ok: false, out: r.error.message };
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}`.trim() };
}

function buildWaylandHelper() {
  const cc = process.env.CC || 'cc';
  const flags = run('pkg-config', ['--cflags', '--libs', 'wayland-client', 'xkbcommon']);
  const scanner = run('wayland-scanner', ['--version']);
  if (!flags.ok || !scanner.ok) {
    return {
      built: false,
      why:
        `the Wayland input helper needs ${!flags.ok ? 'pkg-config with wayland-client and xkbcommon' : ''}` +
        `${!flags.ok && !scanner.ok ? ' and ' : ''}${!scanner.ok ? 'wayland-scanner' : ''}` +
        ` (Debian/Ubuntu: ${APT})`,
    };
  }
  const gen = path.join(here, 'build', 'wayland');
  fs.mkdirSync(gen, { recursive: true });
  const sources = [path.join(here, 'wayland', 'wl-input.c')];
  for (const p of PROTOCOLS) {
    const xml = path.join(here, 'wayland', 'protocols', `${p}.xml`);
    for (const [mode, file] of [
      ['client-header', `${p}-client-protocol.h`],
      ['private-code', `${p}-protocol.c`],
    ]) {
      const r = run('wayland-scanner', [mode, xml, path.join(gen, file)]);
      if (!r.ok) return { built: false, why: `wayland-scanner ${mode} ${p}: ${r.out}` };
    }
    sources.push(path.join(gen, `${p}-protocol.c`));
  }
  const out = path.join(here, 'build', 'axpage-wl-input');
  const r = run(cc, [
    '-O2',
    '-Wall',
    '-Wextra',
    '-std=c11',
    `-I${gen}`,
    '-o',
    out,
    ...sources,
    ...flags.out.split(/\s+/).filter(Boolean),
  ]);
  if (!r.ok) return { built: false, why: `${cc} failed:\n${r.out}` };
  return { built: true, path: out };
}

module.exports = { buildWaylandHelper };

if (require.main === module) {
  const result = buildWaylandHelper();
  if (result.built) {
    console.log(`${tag} built the Wayland input helper: ${result.path}`);
  } else {
    console.error(`${tag} did not build the Wayland input helper: ${result.why}`);
    if (process.argv.includes('--strict')) process.exit(1);
  }
}
