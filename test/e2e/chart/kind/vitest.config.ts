// The kind scenarios: `make kind-up` (scripts/kind-up.sh) runs them against the chart it installed
// in a kind cluster. Not part of `make e2e` (their files are *.kind.ts, not *.test.ts): they need
// Docker and kind, which the machines that run `make test` do not have.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../../../..', import.meta.url)),
  resolve: { conditions: ['source'] },
  test: {
    include: ['test/e2e/chart/kind/**/*.kind.ts'],
    testTimeout: 180_000,
    hookTimeout: 300_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
