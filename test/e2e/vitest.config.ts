// The e2e suite: real etcd, kube-apiserver, kubectl and nats-server as processes (see support/).
// Run: pnpm exec vitest run --config test/e2e/vitest.config.ts
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Paths below are from the repo root, whatever the working directory or --root.
  root: fileURLToPath(new URL('../..', import.meta.url)),
  resolve: { conditions: ['source'] },
  test: {
    // Everything that needs the real control plane: the e2e scenarios and the packages' tests
    // against a real API server.
    include: ['test/e2e/**/*.test.ts', '{operator,gateway}/test/**/*.integration.test.ts'],
    // Builds or finds the binaries once, before any worker starts (a cold build takes minutes).
    globalSetup: ['test/e2e/support/global-setup.ts'],
    // Starting a control plane takes seconds, and on 2 cores several at once starve each other.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    teardownTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
