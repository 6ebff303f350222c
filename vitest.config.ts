import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // What the backend's role and action names mean, installed as the server does.
    setupFiles: ['test/vocabulary-setup.ts'],
    // End-to-end files each bring up their own headless desktop; two cores cannot run many at once.
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 90_000,
  },
});
