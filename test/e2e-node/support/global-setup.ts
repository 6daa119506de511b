// Global setup of the real-node tier: one cluster (node-cluster.ts) for the whole run, started in
// the main vitest process and handed to the test files through provide/inject as plain data; each
// file makes its handle with connectNodeCluster(inject('nodeCluster')). The files run one at a
// time, so they share the node without stepping on each other. The images of `make images`
// (.cache/images/*.oci.tar) are imported before the first file starts.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type NodeClusterInfo, startNodeCluster } from './node-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    nodeCluster: NodeClusterInfo;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const imagesDir = resolve(project.config.root, '.cache/images');
  const images = existsSync(imagesDir) ? readdirSync(imagesDir).filter((name) => name.endsWith('.oci.tar')) : [];
  if (!images.includes('engine.oci.tar')) throw new Error(`no engine image in ${imagesDir}: run \`make images\` first (make e2e-node does)`);
  const cluster = await startNodeCluster({ images: images.map((name) => join(imagesDir, name)) });
  const { nodeReadyMs, clusterReadyMs } = cluster.info.timings;
  console.error(
    `e2e-node: node Ready after ${(nodeReadyMs / 1000).toFixed(1)} s, cluster (CoreDNS) ready after ${(clusterReadyMs / 1000).toFixed(1)} s`,
  );
  project.provide('nodeCluster', cluster.info);
  return () => cluster.close();
}
