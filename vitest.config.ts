import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Workspace packages export their TypeScript sources under the "source" condition, so tests run
// against the code as written, with no build step in between.
// Tests run in vite's server (ssr) environment, which reads its own conditions: without `ssr`
// the workspace packages resolved to their built dist/, so a change to protocol/ went untested
// until the next build.
const resolve = { conditions: ['source'] };
const ssr = { resolve: { conditions: ['source'] } };
// Each run's temp files in a dir of its own, removed at the end.
// eventsource-parser (under the MCP SDK's client transport) exports TypeScript under a `source`
// condition of its own: with `source` on, node would be handed its .ts, so vite transforms it instead.
export const INLINED = [/@modelcontextprotocol\/sdk\/dist\/esm\/client\/streamableHttp/, 'eventsource-parser'];
const SCRATCH_TMPDIR = fileURLToPath(new URL('./test/support/scratch-tmpdir.ts', import.meta.url));

export default defineConfig({
  resolve,
  ssr,
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    projects: [
      {
        resolve,
        ssr,
        test: {
          name: 'packages',
          globalSetup: [SCRATCH_TMPDIR],
          include: [
            '{protocol,kube,engine-pod,gateway,operator,testkit,cli,bench}/test/**/*.test.ts',
            'test/docs/**/*.test.ts',
            'test/source/**/*.test.ts',
            'test/dashboard/**/*.test.ts',
            'test/cli/**/*.test.ts',
          ],
          // Tests against a real API server run in the e2e suite (test/e2e/vitest.config.ts).
          exclude: ['**/*.integration.test.ts', '**/node_modules/**'],
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        resolve,
        ssr,
        test: {
          name: 'contract-local',
          globalSetup: [SCRATCH_TMPDIR],
          include: ['test/contract/**/*.test.ts', 'test/compat/**/*.test.ts'],
          env: { SWITCHBOARD_CONTRACT_MODE: 'local' },
          server: { deps: { inline: INLINED } },
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
