// vitest runs each test file in a forked worker process (pool: 'forks'), two at a time here; every file starts
// its own server in beforeAll, so parallel files never share state.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  test: {
    include: ['**/*.test.ts'],
    globalSetup: ['./global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
  },
});
