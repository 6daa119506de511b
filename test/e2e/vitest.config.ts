// The e2e suite: real etcd, kube-apiserver, kubectl and nats-server as processes (see support/),
// the operator and gateway as processes, engine pods run by the test node agent; and the REST
// contract suite against cluster mode. Run: make e2e (it builds the packages first).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { INLINED } from '../../vitest.config.js';

export default defineConfig({
  // Paths below are from the repo root, whatever the working directory or --root.
  root: fileURLToPath(new URL('../..', import.meta.url)),
  resolve: { conditions: ['source'] },
  // vite's server environment, where tests run, reads its own conditions (see ../../vitest.config.ts).
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    // Starting a control plane takes seconds, and on 2 cores several at once starve each other.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    teardownTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
    server: { deps: { inline: INLINED } },
    projects: [
      {
        extends: true,
        test: {
          name: 'e2e',
          // Everything that needs the real control plane: the e2e scenarios and the packages' tests
          // against a real API server.
          include: ['test/e2e/**/*.test.ts', '{kube,operator,gateway}/test/**/*.integration.test.ts'],
          // Builds or finds the binaries once, before any worker starts (a cold build takes minutes).
          globalSetup: ['test/support/scratch-tmpdir.ts', 'test/e2e/support/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'contract-cluster',
          // The same files as the contract-local project of the root config, against cluster mode.
          include: ['test/contract/**/*.test.ts', 'test/compat/**/*.test.ts'],
          env: { SWITCHBOARD_CONTRACT_MODE: 'cluster' },
          // One cluster environment for every file (built binaries first); each file starts its own
          // gateway in it.
          globalSetup: ['test/support/scratch-tmpdir.ts', 'test/e2e/support/contract-cluster-setup.ts'],
        },
      },
    ],
  },
});
