import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Workspace packages export their TypeScript sources under the "source" condition, so tests
    // run against the code as written, with no build step in between.
    conditions: ['source'],
  },
  test: {
    include: ['protocol/test/**/*.test.ts', 'engine-pod/test/**/*.test.ts', 'gateway/test/**/*.test.ts', 'operator/test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
