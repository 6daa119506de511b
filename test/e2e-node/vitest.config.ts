// The real-node tier: a one-node cluster of real components (kubelet, containerd with runc, CNI
// bridge, kube-proxy, CoreDNS) that runs the project's images as containers. One cluster for the
// run (support/global-setup.ts), files one at a time. Run: make e2e-node (builds the images and
// the binaries first). Needs root.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: ['test/e2e-node/**/*.test.ts'],
    // Pods start in seconds on an idle machine, in tens of seconds on 2 shared cores.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    teardownTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
    // One cluster per machine: startNodeCluster() takes the machine lock, so a second run waits.
    globalSetup: ['test/support/scratch-tmpdir.ts', 'test/e2e-node/support/global-setup.ts'],
  },
});
