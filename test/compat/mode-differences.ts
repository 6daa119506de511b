import type { PeerDifference } from './peer-differences.js';

/**
 * The compatibility test runs in both modes (local: contract-local; cluster: contract-cluster of
 * test/e2e/vitest.config.ts). Where one mode answers an operation otherwise than
 * peer-differences.ts says, its entry here, with the reason, replaces that line in that mode only
 * (`none`: it answers as the document says there). The test fails on an entry that no longer occurs.
 */
export type ModeDifference = PeerDifference | { readonly differs: 'none'; readonly reason: string };

export const MODE_DIFFERENCES: Readonly<Record<'local' | 'cluster', Readonly<Record<string, ModeDifference>>>> = {
  local: {},
  cluster: {},
};
