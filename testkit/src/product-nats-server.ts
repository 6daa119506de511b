import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The nats-server the product ships (the chart's and the e2e tiers', built by
 * scripts/e2e-binaries.sh, which `make test` runs before the unit tests; a no-op once built).
 * Debian's 2.9 was unsteady here: a raised stream read back with one copy after a restart, a
 * bucket without a leader for 30 s; 2.12 passed every run.
 */
export function productNatsServer(): string {
  const bin = execFileSync(fileURLToPath(new URL('../../scripts/e2e-binaries.sh', import.meta.url)), { stdio: ['ignore', 'pipe', 'inherit'] })
    .toString()
    .trim()
    .split('\n')
    .at(-1)!;
  const server = readdirSync(bin)
    .filter((name) => name.startsWith('nats-server-v'))
    .sort()
    .at(-1);
  if (!server) throw new Error(`no nats-server in ${bin}: run make e2e-binaries`);
  return join(bin, server);
}
