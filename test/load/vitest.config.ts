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
    // The files whose checks once leaned on time (a walk budget, a restore timer, pauses
    // before "nothing happened"); AXPAGE_LOAD_FILES="a b" runs others the same way.
    include: process.env.AXPAGE_LOAD_FILES?.split(' ') ?? [
      'test/e2e/observe.test.ts',
      'test/e2e/native-x11.test.ts',
      'test/e2e/atspi.test.ts',
      'test/e2e/find.test.ts',
      'test/e2e/focus.test.ts',
      'test/e2e/clipboard.test.ts',
      'test/e2e/workflow.test.ts',
      'test/e2e/scenarios/effects.test.ts',
      'test/e2e/scenarios/targets.test.ts',
      'test/e2e/safe-mode-focus-thief.test.ts',
      'test/e2e/effects-truth.test.ts',
    ],
    globalSetup: ['test/load/cpu-hog.ts'],
  },
});
