/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS: ESM callers load it via createRequire */
// Loader for the native addon. CommonJS on purpose: ESM code loads it with createRequire.
'use strict';

const path = require('node:path');

function load() {
  if (process.platform !== 'linux') {
    const err = new Error(
      `@axpage/native: no native backend for ${process.platform} yet (the X11 addon is Linux-only; macOS comes later)`,
    );
    err.code = 'AXPAGE_NATIVE_UNSUPPORTED';
    throw err;
  }
  const file = path.join(__dirname, 'build', 'Release', 'axpage_native.node');
  try {
    return require(file);
  } catch (cause) {
    const notBuilt = cause && cause.code === 'MODULE_NOT_FOUND';
    const err = new Error(
      notBuilt
        ? '@axpage/native: the X11 addon is not built (build/Release/axpage_native.node is missing). ' +
            'Run `npm rebuild @axpage/native` in the axpage directory; it needs g++, make, python3 and ' +
            'libx11-dev libxext-dev libxtst-dev libxi-dev.'
        : `@axpage/native: the X11 addon failed to load: ${cause && cause.message}. ` +
            'Rebuild it with `npm rebuild @axpage/native` (needs libx11-dev libxext-dev libxtst-dev libxi-dev).',
      { cause },
    );
    err.code = notBuilt ? 'AXPAGE_NATIVE_NOT_BUILT' : 'AXPAGE_NATIVE_LOAD_FAILED';
    throw err;
  }
}

module.exports = load();
