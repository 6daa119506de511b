// Global setup of the contract-cluster project: one cluster environment (control plane, NATS, the
// node agent, one operator process) for the whole run, handed to the test files through vitest's
// provide/inject. Each file's gateway is its own process in it (test/contract/cluster-harness.ts).
import type { TestProject } from 'vitest/node';
import { type ClusterEnvironmentInfo, startClusterEnvironment } from './cluster-environment.js';

declare module 'vitest' {
  export interface ProvidedContext {
    clusterEnvironment: ClusterEnvironmentInfo;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const env = await startClusterEnvironment({ namespace: 'contract' });
  try {
    await env.startOperator('contract-operator');
    await env.waitForOperatorLeader('contract-operator');
  } catch (error) {
    await env.stop();
    throw error;
  }
  project.provide('clusterEnvironment', env.info);
  return () => env.stop();
}
