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
  const steps = Object.entries(cluster.info.timings).map(([name, ms]) => `${name} ${(ms / 1000).toFixed(1)} s`);
  console.error(`e2e-node: cluster up (seconds since start: ${steps.join(', ')})`);
  project.provide('nodeCluster', cluster.info);
  return async () => {
    const closing = Date.now();
    await cluster.close();
    console.error(`e2e-node: cluster closed and host cleaned up in ${((Date.now() - closing) / 1000).toFixed(1)} s`);
  };
}
