import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The memory measurement only (not part of `make unit`): see memory.measure.ts.
export default defineConfig({
  root: fileURLToPath(new URL('../../../..', import.meta.url)),
  resolve: { conditions: ['source'] },
  test: { include: ['engine-pod/test/noweb/memory/*.measure.ts'], testTimeout: 300_000, pool: 'forks' },
});
