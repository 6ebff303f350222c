/**
 * `npm run test:load`: the end-to-end files most sensitive to a busy machine, run beside
 * busy loops on every core (cpu-hog.ts). `npm test` runs it after the whole suite.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from '../../vitest.config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export default defineConfig({
  root,
  test: {
    ...base.test,
    include: (process.env.AXPAGE_LOAD_FILES ?? 'test/e2e/find.test.ts').split(' '),
    globalSetup: ['test/load/cpu-hog.ts'],
  },
});
