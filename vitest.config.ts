import { defineConfig } from 'vitest/config';

// Workspace packages export their TypeScript sources under the "source" condition, so tests run
// against the code as written, with no build step in between.
const resolve = { conditions: ['source'] };

export default defineConfig({
  resolve,
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    projects: [
      {
        resolve,
        test: {
          name: 'packages',
          include: ['{protocol,engine-pod,gateway,operator,testkit}/test/**/*.test.ts'],
          // Tests against a real API server run in the e2e suite (test/e2e/vitest.config.ts).
          exclude: ['**/*.integration.test.ts', '**/node_modules/**'],
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        resolve,
        test: {
          name: 'contract-local',
          include: ['test/contract/**/*.test.ts'],
          env: { SWITCHBOARD_CONTRACT_MODE: 'local' },
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
