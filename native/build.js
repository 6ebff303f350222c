/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS: npm runs this with plain node */
// Install-time build of the native addon (npm runs this as the workspace's "install"
// script; npm 11 blocks dependencies' install scripts but runs workspace members').
//
// Linux: compiles the X11 addon with node-gyp against local headers only (no header
// download: the network may not reach nodejs.org). Any failure exits non-zero with what to
// install. Other platforms: nothing to build yet (the macOS backend comes later).
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const here = __dirname;
const tag = '@axpage/native:';
const APT =
  'apt-get install -y g++ make python3 libx11-dev libxcb1-dev libxext-dev libxtst-dev libxi-dev';

if (process.platform !== 'linux') {
  console.log(
    `${tag} skipping the Linux X11 addon on ${process.platform} (the macOS backend comes later)`,
  );
  process.exit(0);
}
if (process.env.AXPAGE_SKIP_NATIVE === '1') {
  console.log(
    `${tag} AXPAGE_SKIP_NATIVE=1: not building the X11 addon (capture and input will not work)`,
  );
  process.exit(0);
}

function fail(message, details = []) {
  const lines = [
    '',
    `${tag} BUILD FAILED: ${message}`,
    ...details.map((d) => `  - ${d}`),
    '',
    '  The X11 addon needs a C++ compiler, make, python3 and the X11 development headers.',
    `  On Debian/Ubuntu:  sudo ${APT}`,
    '  Then rebuild:      npm rebuild @axpage/native   (or npm ci)',
    '',
  ];
  console.error(lines.join('\n'));
  process.exit(1);
}

function onPath(cmd) {
  return (process.env.PATH || '')
    .split(path.delimiter)
    .some((dir) => dir && fs.existsSync(path.join(dir, cmd)));
}

// What is missing, in terms of Debian packages; checked again after a failed build so the
// message names the real cause.
function diagnose() {
  const found = [];
  const includeDirs = [
    '/usr/include',
    '/usr/local/include',
    ...(process.env.CPATH || '').split(':'),
  ];
  const header = (h) => includeDirs.some((d) => d && fs.existsSync(path.join(d, h)));
  if (!onPath(process.env.CXX || 'g++') && !onPath('c++')) found.push('no C++ compiler (g++)');
  if (!onPath('make')) found.push('no make');
  if (!onPath('python3') && !onPath('python')) found.push('no python3 (node-gyp runs gyp with it)');
  if (!header('X11/Xlib.h')) found.push('X11/Xlib.h missing (libx11-dev)');
  if (!header('xcb/xcb.h')) found.push('xcb/xcb.h missing (libxcb1-dev)');
  if (!header('X11/extensions/XShm.h')) found.push('X11/extensions/XShm.h missing (libxext-dev)');
  if (!header('X11/extensions/XTest.h')) found.push('X11/extensions/XTest.h missing (libxtst-dev)');
  if (!header('X11/extensions/XInput2.h'))
    found.push('X11/extensions/XInput2.h missing (libxi-dev)');
  return found;
}

// Our own devDependency first (a repo checkout), then npm's bundled one (an install of
// the packed tarball, where devDependencies are absent). Never a node-gyp that some other
// package dragged into the install tree: old ones (v7) fail on current Node and Python.
function nodeGypScript() {
  const own = path.join(here, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  if (fs.existsSync(own)) return own;
  const bundled = process.env.npm_config_node_gyp;
  if (bundled && fs.existsSync(bundled)) return bundled;
  try {
    return require.resolve('node-gyp/bin/node-gyp.js', { paths: [here] });
  } catch {
    return null;
  }
}

const missing = diagnose();
if (missing.length > 0) fail('build prerequisites are missing', missing);

const gyp = nodeGypScript();
if (!gyp)
  fail('node-gyp not found (it is a devDependency of @axpage/native; npm also bundles one)');

const args = [gyp, 'rebuild', '--jobs=max'];
// Local headers only: Debian's nodejs-dev puts them in /usr/include/node.
const nodedir =
  process.env.npm_config_nodedir ||
  (fs.existsSync('/usr/include/node/node_api.h') ? '/usr' : undefined);
if (nodedir) args.push(`--nodedir=${nodedir}`);

console.log(`${tag} building the X11 addon: node-gyp ${args.slice(1).join(' ')}`);
const t0 = Date.now();
const run = spawnSync(process.execPath, args, { cwd: here, stdio: 'inherit' });
if (run.error) fail(`could not run node-gyp: ${run.error.message}`);
if (run.status !== 0) {
  const after = diagnose();
  fail(
    `node-gyp exited with ${run.status === null ? `signal ${run.signal}` : `code ${run.status}`}`,
    after.length > 0
      ? after
      : [
          nodedir
            ? `headers from --nodedir=${nodedir}`
            : 'no local Node headers (/usr/include/node): node-gyp tried to download them',
          'see the compiler output above',
        ],
  );
}

// Load it once here, so a broken build (missing shared library, ABI mismatch) fails the
// install instead of the first screenshot.
const built = path.join(here, 'build', 'Release', 'axpage_native.node');
try {
  const addon = require(built);
  if (typeof addon.Display !== 'function') throw new Error('it exports no Display class');
} catch (err) {
  fail(`the built addon does not load: ${err instanceof Error ? err.message : String(err)}`, [
    'the X11 runtime libraries (libx11-6 libxext6 libxtst6) must be installed',
  ]);
}
console.log(
  `${tag} built ${path.relative(process.cwd(), built) || built} in ${Date.now() - t0} ms`,
);

// The Wayland input helper (sway): optional, since X11 needs none of it.
const { buildWaylandHelper } = require('./build-wayland.js');
const wayland = buildWaylandHelper();
if (wayland.built) console.log(`${tag} built the Wayland input helper (${wayland.path})`);
else console.log(`${tag} no Wayland input helper: ${wayland.why}`);
